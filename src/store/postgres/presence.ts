import type { Db } from './db.js';
import { PRESENCE_LOCK } from './schema.js';

/** How often an instance tells the database that it is there. */
const BEAT_MS = 200;
/** How long an instance that found itself alone takes it to be, from when that heartbeat went out. */
const ALONE_MS = 1000;
/** An instance not heard from for this long (killed, frozen, cut off) is taken off by the next heartbeat of another. */
const EXPIRY_S = 5;
/** What instances from before the registry (schema 8) call their connections: while one is there, nobody is alone. */
export const UNREGISTERED_NAME = 'mock-server';

/**
 * Whether this instance is alone on its database, so that a request may read its cache without
 * first asking where its application stands (store.ts sync). An instance alone skips that read
 * only for what its cache has read or written since it became alone; it stops at the first sign
 * of another.
 *
 * The instances register in mock_instances (schema 8) and beat every BEAT_MS. A heartbeat that finds
 * no other instance (and no connection of an instance from before the registry) grants ALONE_MS from
 * when it went out, on this process's monotonic clock, and records that end (`alone_until`, on the
 * database's clock, never shortened). Registrations and heartbeats take one advisory lock in turn,
 * so each sees every one before it. Then:
 * - an instance that registers acknowledges no write before the latest `alone_until` of the others
 *   has passed (`ready`), so no instance still taking itself to be alone can miss that write;
 * - every transaction that writes state calls mock_fence (schema.ts), which takes a shared lock on
 *   the writer's key and fails when its row is gone. A heartbeat removes an instance not heard from
 *   for EXPIRY_S only if it gets that key's lock (none of its writes under way); once removed, its
 *   writes fail (503) until its own next heartbeat registers it again. An instance frozen past the
 *   expiry thus writes nothing another instance alone could miss, and on waking its own time alone
 *   has run out (the monotonic clock ran on).
 * - becoming alone again starts a new time (`since`): whatever the cache held from before is read
 *   once more before it is taken as is.
 */
export class Presence {
  /** performance.now() when the current time alone began; null: not alone. */
  #since: number | null = null;
  /** performance.now() until which the last heartbeat's grant holds. */
  #until = 0;
  #ready: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  readonly #me: string;

  constructor(
    private readonly db: Db,
    readonly id: string,
  ) {
    this.#me = db.literal(id);
  }

  /** Registers (at start, before the first request) and beats from then on. */
  async start(): Promise<void> {
    await this.#register();
    this.#schedule();
  }

  /** Since when (performance.now()) this instance is alone, or null when it may not be. */
  alone(): number | null {
    return this.#since !== null && performance.now() < this.#until ? this.#since : null;
  }

  /** Resolves once this instance may acknowledge a write (see the class comment). */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /** Stops beating and takes its row off, so that another instance may be alone at once. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#since = null;
    await this.db.query(`delete from mock_instances where id = ${this.#me}`, []).catch(() => undefined);
  }

  #schedule(): void {
    // A store that failed to open ends its pool without closing.
    if (this.#closed || this.db.pool.ending) return;
    this.#timer = setTimeout(() => void this.#beat().finally(() => this.#schedule()), BEAT_MS);
    this.#timer.unref();
  }

  /** Every statement of the registry runs after the registry's lock, and first takes off the instances gone. */
  #locked(statements: string): string {
    return `BEGIN;
      select pg_advisory_xact_lock(${PRESENCE_LOCK}, 0);
      delete from mock_instances where case when id <> ${this.#me} and seen < now() - interval '${EXPIRY_S} s'
        then pg_try_advisory_xact_lock(${PRESENCE_LOCK}, hashtext(id)) else false end;
      ${statements};
      COMMIT`;
  }

  async #register(): Promise<void> {
    const results = await this.#run(
      this.#locked(`insert into mock_instances (id, seen) values (${this.#me}, now()) on conflict (id) do update set seen = now();
        select coalesce(extract(epoch from max(alone_until) - now()) * 1000, 0)::float8 as wait from mock_instances where id <> ${this.#me} and alone_until > now()`),
    );
    // From when the answer came (later than the database's now()), with a margin for the clocks' rates.
    const wait = Number(results[4]?.rows[0]?.wait ?? 0);
    this.#ready = wait > 0 ? new Promise((resolve) => setTimeout(resolve, Math.ceil(wait * 1.01) + 5)) : Promise.resolve();
  }

  /** The statement that fences a transaction's writes (see the class comment). */
  get fence(): string {
    return `select mock_fence(${this.#me})`;
  }

  async #beat(): Promise<void> {
    const sent = performance.now();
    let alone: boolean | undefined;
    try {
      const results = await this.#run(
        this.#locked(`update mock_instances set seen = now(), alone_until = case
            when not exists (select 1 from mock_instances o where o.id <> ${this.#me})
              and not exists (select 1 from pg_stat_activity where application_name = '${UNREGISTERED_NAME}' and datname = current_database())
            then now() + interval '${ALONE_MS} ms' else alone_until end
          where id = ${this.#me} returning alone_until = now() + interval '${ALONE_MS} ms' as alone`),
      );
      alone = results[3]?.rows[0]?.alone as boolean | undefined;
    } catch {
      this.#since = null;
      return;
    }
    if (this.#closed) return;
    if (alone === undefined) {
      // Taken off while away: registered again, and not alone before a heartbeat says so.
      this.#since = null;
      await this.#register().catch(() => undefined);
      return;
    }
    const now = performance.now();
    if (!alone) this.#since = null;
    else {
      // A time alone goes on only if the last grant still held when this one came back.
      if (this.alone() === null) this.#since = now;
      this.#until = sent + ALONE_MS;
    }
  }

  /** A text of several statements (no parameters: sent as one simple query), the result of each. */
  async #run(text: string) {
    return (await this.db.query(text, [])) as unknown as Array<{ rows: Array<Record<string, unknown>> }>;
  }
}
