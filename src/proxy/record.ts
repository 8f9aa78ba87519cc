import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { builtinFixturesDir } from '../paths.js';
import type { Currency } from '../seed/catalog.js';
import type { ActivityRecord, CatalogData, Lang } from '../seed/types.js';
import { activity, arr, category, city, country, flavour, langOf, metadata, obj, venue } from './record-map.js';
import { fromDates, fromForm, fromPickups, fromSchedule, withoutSchedule } from './record-booking.js';

type Lists = Omit<CatalogData, 'activities'>;
type ListName = keyof Lists;
const LISTS: ListName[] = ['countries', 'cities', 'venues', 'categories', 'flavours', 'features', 'services', 'food', 'group_sizes', 'languages'];
const METADATA: Record<string, ListName> = { features: 'features', services: 'services', food: 'food', group_size: 'group_sizes', languages: 'languages' };
type Json = Record<string, unknown>;
type Change = (a: ActivityRecord) => ActivityRecord;

/**
 * `mock-server proxy --record DIR`: the upstream's catalog answers, as they pass, folded into fixture
 * files (DIR/activities.json, DIR/taxonomy.json) that `--fixtures DIR` loads. Only the catalog's
 * read operations are looked at: carts, customers, orders and tokens never reach a file. The files
 * are written a second after the last change and when the proxy stops; a recording already in DIR
 * is continued.
 */
export class Recorder {
  readonly #activities = new Map<string, ActivityRecord>();
  /** Activities whose day schedule was seen (their options are no longer the placeholder's). */
  readonly #scheduled = new Set<string>();
  /** Booking answers of activities not recorded yet, applied once the activity is. */
  readonly #pending = new Map<string, Change[]>();
  readonly #lists = Object.fromEntries(LISTS.map((l) => [l, new Map<string, unknown>()])) as { [K in ListName]: Map<string, Lists[K][number]> };
  readonly #currencies: ReadonlyMap<string, Currency>;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(readonly dir: string, private readonly warn: (message: string) => void, private readonly today: () => string, readonly source: string) {
    const { currencies } = JSON.parse(readFileSync(join(builtinFixturesDir, 'currencies.json'), 'utf8')) as { currencies: Currency[] };
    this.#currencies = new Map(currencies.map((c) => [c.code, c]));
    this.#load();
  }

  /** One 2xx JSON answer of operation `op` (method and route below the base path). */
  observe(op: string, request: FastifyRequest, body: unknown): void {
    const lang = langOf(request.service?.locale.language);
    const p = (request.params ?? {}) as Record<string, string>;
    const q = (request.query ?? {}) as Record<string, string | undefined>;
    const uuid = (p.activityUuid ?? '').toLowerCase();
    const listed = (v: unknown) => (Array.isArray(v) ? v : arr(obj(v).data)).map(obj);
    if (op === 'GET /activities/:activityUuid') this.#activity(obj(body), lang);
    else if (/^GET (\/[\w-]+\/:\w+)?\/activities$/.test(op)) for (const a of listed(body)) this.#activity(a, lang);
    else if (op === 'GET /activities/:activityUuid/dates') this.#change(uuid, (a) => fromDates(a, body, q.date_from, q.date_to, this.today()));
    else if (op === 'GET /activities/:activityUuid/dates/:day') {
      this.#change(uuid, (a) => {
        const first = !this.#scheduled.has(a.uuid);
        this.#scheduled.add(a.uuid);
        return fromSchedule(a, body, lang, this.#currencies, first);
      });
    } else if (op === 'GET /activities/:activityUuid/pickups') this.#change(uuid, (a) => fromPickups(a, body));
    else if (op === 'GET /activities/:activityUuid/extra-customer-data/schema') this.#change(uuid, (a) => fromForm(a, body, 'extra_customer_data', lang));
    else if (op === 'GET /activities/:activityUuid/participants-info/schema') this.#change(uuid, (a) => fromForm(a, obj(obj(obj(body).properties).participants).items, 'participant_fields', lang));
    else if (/^GET (\/categories(\/:categoryId)?|\/cities\/:cityId\/categories)$/.test(op)) for (const c of listed(body)) this.#put('categories', String(c.id), (prev) => category(c, lang, prev));
    else if (op === 'GET /categories-tree') this.#tree(obj(body), lang);
    else if (/^GET (\/cities(\/:cityId)?|\/countries\/:countryId\/cities)$/.test(op)) for (const c of listed(body)) this.#city(c, lang);
    else if (/^GET \/countries(\/:countryId)?$/.test(op)) for (const c of listed(body)) this.#put('countries', String(c.id), (prev) => country(c, lang, prev));
    else if (op === 'GET /cities/:cityId/venues') for (const v of listed(body)) this.#put('venues', String(v.id), (prev) => venue(v, lang, Number(p.cityId), prev));
    else if (/^GET \/(features|services|languages)$/.test(op)) for (const m of listed(body)) this.#put(op.slice(5) as ListName, String(m.code), (prev) => metadata(m, lang, prev as never));
    else if (op === 'GET /flavours') for (const f of listed(body)) this.#put('flavours', String(f.id), (prev) => flavour(f, lang, prev));
    else return;
    this.#later();
  }

  /** Writes what was recorded; resolves once it is on disk. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#writing = this.#writing.then(() => this.#write()).catch((e: Error) => this.warn(`the recording in ${this.dir} was not written: ${e.message}`));
    return this.#writing;
  }

  #later(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), 1000);
    this.#timer.unref();
  }

  #put<K extends ListName>(list: K, key: string, make: (prev: Lists[K][number] | undefined) => Lists[K][number]): void {
    const map = this.#lists[list] as Map<string, Lists[K][number]>;
    map.set(key, make(map.get(key)));
  }

  #city(c: Json, lang: Lang): void {
    this.#put('cities', String(c.id), (prev) => city(c, lang, prev));
    const ref = obj(c.country);
    if (!this.#lists.countries.has(String(ref.id))) this.#put('countries', String(ref.id), () => country(ref, lang));
  }

  #tree(node: Json, lang: Lang): void {
    for (const child of arr(node.children).map(obj)) {
      this.#put('categories', String(child.id), (prev) => category(child, lang, prev));
      this.#tree(child, lang);
    }
  }

  #activity(json: Json, lang: Lang): void {
    const uuid = String(json.uuid ?? '').toLowerCase();
    let a = activity(json, lang, this.#currencies, this.#activities.get(uuid));
    this.#city(obj(json.city), lang);
    for (const c of arr(json.categories).map(obj)) this.#put('categories', String(c.id), (prev) => category(c, lang, prev));
    for (const v of arr(json.venues).map(obj)) this.#put('venues', String(v.id), (prev) => venue(v, lang, a.city_id, prev));
    for (const f of arr(json.flavours).map(obj)) this.#put('flavours', String(f.id), (prev) => flavour(f, lang, prev));
    for (const [field, list] of Object.entries(METADATA)) for (const m of arr(json[field]).map(obj)) this.#put(list, String(m.code), (prev) => metadata(m, lang, prev as never));
    if (!this.#scheduled.has(uuid)) a = withoutSchedule(a);
    this.#activities.set(uuid, a);
    for (const change of this.#pending.get(uuid) ?? []) this.#change(uuid, change);
    this.#pending.delete(uuid);
  }

  #change(uuid: string, change: Change): void {
    const a = this.#activities.get(uuid);
    if (a) this.#activities.set(uuid, change(a));
    else this.#pending.set(uuid, [...(this.#pending.get(uuid) ?? []), change].slice(-20));
    if (this.#pending.size > 1000) this.#pending.delete(this.#pending.keys().next().value as string);
  }

  /** The lists as fixture files: references to records that were never seen are left out, so that the files load. */
  async #write(): Promise<void> {
    const has = (list: ListName) => new Set([...this.#lists[list].keys()].map(Number));
    const [cities, categories, venues, flavours] = [has('cities'), has('categories'), has('venues'), has('flavours')];
    const taxonomy: Record<string, unknown[]> = {};
    for (const list of LISTS) taxonomy[list] = [...this.#lists[list].values()];
    taxonomy.venues = (taxonomy.venues as Lists['venues']).filter((v) => cities.has(v.city_id));
    taxonomy.categories = (taxonomy.categories as Lists['categories']).map((c) => (c.parent_id !== null && !categories.has(c.parent_id) ? { ...c, parent_id: null } : c));
    const activities = [...this.#activities.values()].filter((a) => cities.has(a.city_id)).map((a) => ({
      ...a, category_ids: a.category_ids.filter((id) => categories.has(id)), venue_ids: a.venue_ids.filter((id) => venues.has(id)), flavour_ids: a.flavour_ids.filter((id) => flavours.has(id)),
    }));
    mkdirSync(this.dir, { recursive: true });
    const $comment = `Recorded by mock-server proxy from ${this.source}; serve with mock-server --fixtures ${this.dir}`;
    for (const [file, data] of [['taxonomy.json', { $comment, ...taxonomy }], ['activities.json', { $comment, activities }]] as const) {
      const path = join(this.dir, file);
      await writeFile(`${path}.tmp`, `${JSON.stringify(data, null, 2)}\n`);
      await rename(`${path}.tmp`, path);
    }
  }

  /** A recording already in the directory is continued, not replaced. */
  #load(): void {
    for (const file of ['taxonomy.json', 'activities.json']) {
      const path = join(this.dir, file);
      if (!existsSync(path)) continue;
      try {
        const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<CatalogData>;
        for (const list of LISTS) for (const r of data[list] ?? []) (this.#lists[list] as Map<string, unknown>).set(String('id' in r ? r.id : r.code), r);
        for (const a of data.activities ?? []) {
          this.#activities.set(a.uuid, a);
          this.#scheduled.add(a.uuid);
        }
      } catch (e) {
        this.warn(`the recording ${path} could not be read, and is started anew: ${(e as Error).message}`);
      }
    }
  }
}
