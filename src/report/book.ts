import { ERROR_PATHS, FINDINGS, STEPS, type ErrorPath, type FindingId, type Step } from './findings.js';
import { BoundedSet, shown, type Answer, type RawExample, type Report } from './shapes.js';

export { BoundedSet, type Answer, type Example, type Finding, type RawExample, type Report } from './shapes.js';

interface Poll {
  start: number;
  last: number;
  count: number;
  reported: boolean;
}

/** One finding as kept: a count, the first and last example, and for refusals the answer. */
export interface Noted {
  id: FindingId;
  detail: string | null;
  /** For a finding noted with a `group`: the other details met (up to MAX_OTHERS) beside the first one's. */
  others?: string[];
  count: number;
  first: RawExample;
  last: RawExample;
  operation?: string;
  answer?: Answer;
}

/** An order paid while some items were not OK: was it read afterwards? */
export interface Paid {
  example: RawExample;
  read: boolean;
}

export const MAX_FINDINGS = 1000;
const MAX_OTHERS = 3;

/** Keeps a detail of a grouped finding among its examples (the first one's is `detail`). */
export function addDetail(f: Noted, detail: string | null): void {
  const others = (f.others ??= []);
  if (detail !== null && detail !== f.detail && !others.includes(detail) && others.length < MAX_OTHERS) others.push(detail);
}

/** The advice's `{version}`: the version the client sends on its other requests, if it sends one. */
const versionAdvice = (seen: string | undefined) => (seen ? `${seen.trim()}, as your other requests do` : 'e.g. 3.4.0');

/** Everything the report keeps about one application: aggregates and a little bounded memory. */
export class AppBook {
  requests = 0;
  readonly findings = new Map<string, Noted>();
  readonly steps = new Map<Step, number>();
  readonly errorPaths = new Map<ErrorPath, number>();
  refundPoliciesRead = new BoundedSet(10_000);
  customerSchemaRead = new BoundedSet(10_000);
  participantsSchemaRead = new BoundedSet(10_000);
  /** Orders paid with items not OK yet, by uuid (insertion order: oldest first). */
  readonly paid = new Map<string, Paid>();
  /** Orders created and not paid yet, by uuid, with the request that created each. */
  readonly unpaid = new Map<string, RawExample>();
  /** Server-clock times of the latest logins. */
  logins: number[] = [];
  /** The last documented version header seen (checked again only when it changes). */
  versionSeen: string | undefined;
  /** Orders whose items' statuses reached the client here, for a store shared by several instances (merge.ts). */
  readonly seenOrders = new BoundedSet(1000);
  /** Keys of findings changed since the last save, and whether the rest changed. */
  readonly changed = new Set<string>();
  memoryChanged = false;
  readonly #polls = new Map<string, Poll>();
  /** The last failing request (method, URL, body and answer) and how many times in a row it came. */
  #streak: { fingerprint: string; count: number } | null = null;

  constructor(readonly since: string) {}

  /**
   * Counts a finding. `key` groups (default: the detail); `group` groups too, and keeps a few of the
   * details met as examples (a language sent for two activities: one finding, both activities named).
   * `extra` is kept from the first time (the operation and the server's answer of a refusal).
   */
  note(id: FindingId, example: RawExample, detail: string | null = null, extra?: { key?: string; group?: string; operation?: string; answer?: Answer }): void {
    const group = extra?.group ?? extra?.key ?? detail;
    // The key is a key of the tenant's report collection, which PostgreSQL keeps as text: no NUL in
    // it (a client's bytes can reach the group), and a unit separator between id and group.
    const key = group === null ? id : `${id}\u001f${group.replaceAll('\u0000', '\ufffd')}`;
    const f = this.findings.get(key);
    if (f) {
      f.count++;
      f.last = example;
      if (extra?.group !== undefined) addDetail(f, detail);
    } else if (this.findings.size < MAX_FINDINGS) {
      this.findings.set(key, { id, detail, ...(extra?.group !== undefined ? { others: [] } : {}), count: 1, first: example, last: example, ...(extra?.operation ? { operation: extra.operation } : {}), ...(extra?.answer ? { answer: extra.answer } : {}) });
    } else return;
    this.changed.add(key);
  }

  step(name: Step): void {
    this.steps.set(name, (this.steps.get(name) ?? 0) + 1);
  }

  errorPath(name: ErrorPath): void {
    this.errorPaths.set(name, (this.errorPaths.get(name) ?? 0) + 1);
  }

  /** Remembers a read (a schema, refund policies) in one of the bounded sets. */
  remember(set: BoundedSet, value: string): void {
    if (set.add(value)) this.memoryChanged = true;
  }

  /** A failing request (null: one that did not fail): true from the third identical one in a row. */
  failed(fingerprint: string | null): boolean {
    if (fingerprint === null) {
      this.#streak = null;
      return false;
    }
    if (this.#streak?.fingerprint === fingerprint) this.#streak.count++;
    else this.#streak = { fingerprint, count: 1 };
    return this.#streak.count >= 3;
  }

  paidPending(order: string, example: RawExample): void {
    this.paid.delete(order);
    this.paid.set(order, { example, read: false });
    if (this.paid.size > 1000) this.paid.delete(this.paid.keys().next().value as string);
    this.memoryChanged = true;
  }

  orderCreated(order: string, example: RawExample): void {
    this.unpaid.set(order, example);
    if (this.unpaid.size > 1000) this.unpaid.delete(this.unpaid.keys().next().value as string);
    this.memoryChanged = true;
  }

  orderPaid(order: string): void {
    if (this.unpaid.delete(order)) this.memoryChanged = true;
  }

  /** The order's items' statuses reached the client (a read, or a webhook it answered 200). */
  orderSeen(order: string): void {
    this.seenOrders.add(order);
    const p = this.paid.get(order);
    if (p && !p.read) {
      p.read = true;
      this.memoryChanged = true;
    }
  }

  /**
   * One read of an order at `now` (ms): true once when the order has been read more than once a
   * second for over 10 s without a pause of more than a second.
   */
  poll(order: string, now: number): boolean {
    let p = this.#polls.get(order);
    if (!p || now - p.last > 1000) {
      p = { start: now, last: now, count: 0, reported: false };
      this.#polls.delete(order);
      this.#polls.set(order, p);
      if (this.#polls.size > 1000) this.#polls.delete(this.#polls.keys().next().value as string);
    }
    p.count++;
    p.last = now;
    const span = now - p.start;
    if (p.reported || span <= 10_000 || p.count / (span / 1000) <= 1) return false;
    p.reported = true;
    return true;
  }

  /** Findings worked out when asked for: orders paid with items pending and never read again, orders never paid. */
  #derived(): Noted[] {
    const out: Noted[] = [];
    const unread = [...this.paid.values()].filter((p) => !p.read).map((p) => p.example);
    const unpaid = [...this.unpaid.values()];
    for (const [id, examples] of [['paid-order-not-read', unread], ['order-not-paid', unpaid]] as const) {
      const [first, last] = [examples[0], examples.at(-1)];
      if (first && last) out.push({ id, detail: `${examples.length} order(s)`, count: examples.length, first, last });
    }
    return out;
  }

  report(application: string, headerPrefix: string, unattributed = 0): Report {
    const findings = [...this.findings.values(), ...this.#derived()].map(({ id, detail, others = [], count, first, last, operation, answer }) => {
      const kind = FINDINGS[id];
      const details = [detail, ...others.slice(0, MAX_OTHERS - 1)].join('; ') + (others.length >= MAX_OTHERS ? '; …' : '');
      return {
        id, severity: kind.severity, message: detail === null ? kind.message : `${kind.message}: ${details}`,
        advice: kind.advice.replaceAll('{prefix}', headerPrefix).replaceAll('{version}', versionAdvice(this.versionSeen)),
        count, first: shown(first), last: shown(last), ...(operation ? { operation } : {}), ...(answer ? { answer } : {}),
      };
    });
    const order = { error: 0, warning: 1, info: 2 };
    findings.sort((a, b) => order[a.severity] - order[b.severity] || b.count - a.count);
    return {
      application,
      since: this.since,
      requests: this.requests,
      unattributed,
      verdict: findings.some((f) => f.severity === 'error') ? 'fail' : 'pass',
      findings,
      coverage: {
        steps: STEPS.map((name) => ({ name, done: this.steps.has(name), count: this.steps.get(name) ?? 0 })),
        error_paths: ERROR_PATHS.map((name) => ({ name, done: this.errorPaths.has(name), count: this.errorPaths.get(name) ?? 0 })),
      },
    };
  }
}
