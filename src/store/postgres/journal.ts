import type { SharedEntry, SharedJournal, SharedListed, SharedMessage } from '../journal.js';
import type { Db } from './db.js';

/** The bounds of the in-memory journal (src/admin/journal.ts), kept by the table too. */
const KEEP = 1000;
const KEEP_APPLICATIONS = 200;
const KEEP_DETAILS = 500;
/**
 * Exchanges made and written per batch, at most: the newest. Made into text, masked and sent for
 * every request, they cost a busy instance 13% of its CPU (1,000 requests a second, all of them
 * kept, and deleted again within half a second, the table keeping 500); at 100 a batch they were
 * most of what PostgreSQL did for a catalog read. At four batches a second this keeps the exchange
 * of every request below 100 a second per instance, and of the latest 100 a second above that.
 */
const DETAILS_PER_BATCH = 25;
/** Entries are written in batches this often: the others see them at most this much later. */
const FLUSH_MS = 250;
/** After a failed write, the next try. */
const RETRY_MS = 1000;
/** Entries waiting while the database does not answer, at most (the newest stay; twice this, before a trim, fits PLACES). */
const QUEUE_MAX = 20_000;

/**
 * An entry's id: its batch's number from one sequence (arrival order across instances, batch by
 * batch) times 2^16, plus its place in the batch (a batch holds at most 2 * QUEUE_MAX entries).
 */
const PLACES = 2 ** 16;

/**
 * One batch in one statement: a row per application, holding its entries as one JSON array of
 * [place, at, method, path, status, duration_ms, req_id] (`last`: the id of its newest), the
 * exchanges of those that keep one, and each application's latest id. A row per request, inserted
 * and deleted again within a second, was most of what PostgreSQL did for a catalog read. The batch
 * is one JSON parameter: the driver escapes a text[] parameter element by element in JavaScript,
 * which for the exchanges cost more CPU than everything else the journal does.
 */
const INSERT = `with b as (select nextval('mock_journal_id') * ${PLACES} as base),
  rows as (select r.* from json_to_recordset($1::json) as r(app text, last int, entries json, details json)),
  journal as (insert into mock_journal select b.base + r.last, r.app, json_array_length(r.entries), r.entries from b, rows r),
  detail as (insert into mock_journal_detail select b.base + (d->>0)::int, d->1, d->2 from b, rows r, json_array_elements(r.details) d)
  insert into mock_journal_apps select r.app, b.base + r.last from b, rows r
    on conflict (app) do update set last = greatest(mock_journal_apps.last, excluded.last)`;

/**
 * What is older than the bounds goes, after each batch (`apps`: the batch's applications, escaped):
 * an application's rows whose newer rows hold KEEP entries already (so the table holds at least its
 * latest KEEP, and those are all a list shows: its limit is KEEP at most).
 */
const trim = (apps: string) => `
  delete from mock_journal j using (
    select last, sum(n) over (partition by app order by last desc) - n as newer from mock_journal where app = any(array[${apps}]::text[])
  ) x where j.last = x.last and x.newer >= ${KEEP};
  with gone as (delete from mock_journal_apps where app in (select app from mock_journal_apps order by last desc offset ${KEEP_APPLICATIONS}) returning app)
    delete from mock_journal where app in (select app from gone);
  delete from mock_journal_detail where id < coalesce((select id from mock_journal_detail order by id desc offset ${KEEP_DETAILS - 1} limit 1), 0);`;

/** The entries of rows `j` (with `e` each entry) as the old table had them. */
const COLUMNS = `j.last - j.last % ${PLACES} + (e->>0)::bigint as id, j.app, (e->>1)::bigint as at, e->>2 as method, e->>3 as path, (e->>4)::int as status, (e->>5)::real as duration_ms, e->>6 as req_id`;

/**
 * The newest `limit` entries (of one application, or of all) lie in the newest `limit` rows by
 * `last`: a row holding one of them has its newest entry, `last`, at least that new, and at most
 * `limit` rows can have that.
 */
const LIST = (where: string) =>
  `select ${COLUMNS} from (select * from mock_journal ${where} order by last desc limit $1) j, json_array_elements(j.entries) e order by id desc limit $1`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a row as the driver gives it (bigints as strings)
const listed = (r: any): SharedListed => ({
  id: Number(r.id),
  at: new Date(Number(r.at)).toISOString(),
  method: r.method,
  path: r.path,
  status: r.status,
  duration_ms: Math.round(r.duration_ms * 100) / 100,
  application: r.app === '' ? null : r.app,
  req_id: r.req_id,
});

/**
 * The request journal in the database: a request costs its instance an array push; the entries
 * are written in the background, a batch every quarter of a second at most, and never more of one
 * application than the table keeps. A write the database refuses is tried again a second later,
 * with the entries queued meanwhile (the newest QUEUE_MAX).
 */
export class PgJournal implements SharedJournal {
  #queue: SharedEntry[] = [];
  #timer: NodeJS.Timeout | null = null;
  #tail: Promise<void> = Promise.resolve();
  #warned = 0;
  written = 0;

  constructor(
    private readonly db: Db,
    private readonly warn: (message: string) => void,
  ) {}

  add(entry: SharedEntry): void {
    this.#queue.push(entry);
    // Trimmed in chunks, as the in-memory journal is.
    if (this.#queue.length > 2 * QUEUE_MAX) this.#queue = this.#queue.slice(-QUEUE_MAX);
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#tail = this.#tail.then(() => this.#write());
    return this.#tail;
  }

  /** Forgets the queued entries of one application ('' for none), or all: it was reset. */
  forget(application?: string): void {
    this.#queue = application === undefined ? [] : this.#queue.filter((e) => (e.application ?? '') !== application);
  }

  async list(application: string | undefined, limit: number): Promise<SharedListed[]> {
    await this.flush();
    const { rows } = await (application === undefined ? this.db.query(LIST(''), [limit]) : this.db.query(LIST('where app = $2'), [limit, application]));
    return rows.map(listed);
  }

  async get(id: number) {
    if (!Number.isSafeInteger(id)) return undefined;
    await this.flush();
    // The row of the entry's batch and application: the entry's own is the one at `id` or after, within the batch.
    const { rows } = await this.db.query(
      `select ${COLUMNS}, d.request, d.response from mock_journal j cross join json_array_elements(j.entries) e left join mock_journal_detail d on d.id = $1
        where j.last >= $1 and j.last < $1 - $1 % ${PLACES} + ${PLACES} and (e->>0)::bigint = $1 % ${PLACES}`,
      [id],
    );
    const r = rows[0];
    return r ? { ...listed(r), request: (r.request ?? null) as SharedMessage | null, response: (r.response ?? null) as SharedMessage | null } : undefined;
  }

  async clear(application?: string): Promise<void> {
    this.forget(application);
    if (application === undefined) await this.db.simple('truncate mock_journal, mock_journal_detail, mock_journal_apps');
    else {
      const app = this.db.literal(application);
      await this.db.simple(`delete from mock_journal where app = ${app}; delete from mock_journal_apps where app = ${app}`);
    }
    this.written++;
  }

  async #write(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    const rows = newest(batch);
    const apps = new Map<string, { app: string; last: number; entries: unknown[]; details: unknown[] }>();
    rows.forEach((e, i) => {
      const app = e.application ?? '';
      let a = apps.get(app);
      if (!a) apps.set(app, (a = { app, last: 0, entries: [], details: [] }));
      a.last = i;
      a.entries.push([i, e.at, e.method, e.path, e.status, e.duration_ms, e.req_id]);
      // Only the latest keep their exchange: made here, off the request's path.
      const d = i >= rows.length - DETAILS_PER_BATCH ? exchange(e) : null;
      if (d) a.details.push([i, d.request, d.response]);
    });
    const json = JSON.stringify([...apps.values()]);
    try {
      await this.db.query(INSERT, [json]);
    } catch (e) {
      this.#trouble(e);
      // Kept for the next try, ahead of what came meanwhile.
      this.#queue = rows.concat(this.#queue).slice(-QUEUE_MAX);
      this.#timer ??= setTimeout(() => void this.flush(), RETRY_MS).unref();
      return;
    }
    this.written++;
    await this.db.simple(trim([...apps.keys()].map((app) => this.db.literal(app)).join(','))).catch((e: unknown) => this.#trouble(e));
  }

  /** Told once, then at most every 10 s. */
  #trouble(e: unknown): void {
    if (this.#warned !== 0 && Date.now() - this.#warned < 10_000) return;
    this.#warned = Date.now();
    this.warn(`the request journal could not be written (${(e as Error).message}); trying again`);
  }
}

/** The batch without what the table would drop at once: the newest KEEP of each application. */
function newest(batch: SharedEntry[]): SharedEntry[] {
  const counts = new Map<string, number>();
  const kept: SharedEntry[] = [];
  for (let i = batch.length - 1; i >= 0; i--) {
    const e = batch[i] as SharedEntry;
    const key = e.application ?? '';
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n <= KEEP) kept.push(e);
  }
  return kept.reverse();
}

function exchange(e: SharedEntry) {
  try {
    return e.detail();
  } catch {
    // An exchange that cannot be shown is not kept; the entry is.
    return null;
  }
}
