import type { Upstream } from '../proxy/upstream.js';

/** One answer of one side, its JSON body parsed (undefined when it is not JSON). */
export interface Answer {
  status: number;
  body: unknown;
}

type Json = Record<string, unknown>;
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v : Array.isArray((v as Json | null)?.data) ? ((v as Json).data as Json[]) : []).filter((x) => x !== null && typeof x === 'object');

/** A side of the comparison (the mock or the upstream): its requests, and the ids its own answers gave it. */
export class Side {
  /** Path parameter values, by name, from this side's own answers. */
  readonly params = new Map<string, string>();
  /** GET answers by path: a list read to learn an id is also the sample of its operation. */
  readonly #seen = new Map<string, Promise<Answer>>();

  constructor(readonly name: 'mock' | 'upstream', private readonly http: Upstream, private readonly headers: Record<string, string>) {}

  send(method: string, path: string, body?: unknown, headers = this.headers): Promise<Answer> {
    if (method !== 'GET' || headers !== this.headers) return this.#send(method, path, body, headers);
    let answer = this.#seen.get(path);
    if (!answer) this.#seen.set(path, (answer = this.#send(method, path, body, headers)));
    return answer;
  }

  async #send(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
    if (body !== undefined) headers = { ...headers, 'content-type': 'application/json' };
    const res = await this.http.send(method, path, headers, body === undefined ? null : Buffer.from(JSON.stringify(body)));
    let parsed: unknown;
    try {
      parsed = res.body.length ? JSON.parse(res.body.toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed };
  }

  /** Takes the first id of a list answer as the value of a path parameter. */
  learn(param: string, answer: Answer, field = 'id'): void {
    const first = arr(answer.body)[0]?.[field];
    if (answer.status < 300 && (typeof first === 'string' || typeof first === 'number') && !this.params.has(param)) this.params.set(param, String(first));
  }

  /**
   * An activity worth sampling: among the first listed, one whose dates over the next month have a
   * day open to booking (and no pickup to choose); its day and a product of that day are kept for
   * the day schedule and the cart.
   */
  async pickActivity(listing: Answer, today: string, until: string): Promise<void> {
    const candidates = arr(listing.body).map((a) => a.uuid).filter((u): u is string => typeof u === 'string').slice(0, 8);
    for (const uuid of candidates) {
      const dates = await this.send('GET', `/activities/${uuid}/dates?date_from=${today}&date_to=${until}`);
      const day = arr(dates.body).find((d) => d.sold_out === false)?.day;
      if (dates.status !== 200 || typeof day !== 'string') continue;
      this.params.set('activityUuid', uuid);
      this.params.set('day', day);
      const schedule = await this.send('GET', `/activities/${uuid}/dates/${day}`);
      const slot = (arr(schedule.body)[0]?.groups as Json[] | undefined)?.[0]?.slots as Json[] | undefined;
      const product = (slot?.[0]?.products as Json[] | undefined)?.[0];
      const language = ((slot?.[0]?.languages as Json[] | undefined) ?? [])[0]?.code;
      if (typeof product?.product_id === 'string') this.params.set('product', JSON.stringify({ product_identifier: product.product_id, quantity: Number(product.min_buy) || 1, ...(typeof language === 'string' ? { language } : {}) }));
      return;
    }
    if (candidates[0]) this.params.set('activityUuid', candidates[0]);
  }

  /** The path with this side's parameter values, or the names it has no value for. */
  fill(template: string): { path: string } | { missing: string[] } {
    const missing: string[] = [];
    const path = template.replace(/\{(\w+)\}/g, (_all, name: string) => {
      const v = this.params.get(name);
      if (v === undefined) missing.push(name);
      return encodeURIComponent(v ?? '');
    });
    return missing.length ? { missing } : { path };
  }
}

/** List operations whose first item names a path parameter of the others. */
export const LEARN: Array<[string, string, string?]> = [
  ['/categories', 'categoryId'], ['/cities', 'cityId'], ['/countries', 'countryId'], ['/venues', 'venueId'], ['/lists', 'listId'],
  ['/events', 'eventId'], ['/verticals', 'verticalId'], ['/pickups', 'activityPickupUuid', 'uuid'],
];

/** Query parameters a sample sends, by operation path (the same on both sides). */
export function queryFor(template: string, today: string, until: string): string {
  if (template === '/activities/{activityUuid}/dates') return `?date_from=${today}&date_to=${until}`;
  if (template === '/activities' || template.endsWith('/activities') || template === '/autocomplete' || template === '/activities-related') return template === '/autocomplete' ? '?text=a' : '?limit=10';
  return '';
}
