import pg from 'pg';
import { unavailable } from './errors.js';

/**
 * When this process last stood still for a second or more (a long GC pause, SIGSTOP, a suspended
 * VM), as seen by a timer that ticks every 100 ms. On waking, the timers that ran out meanwhile fire
 * before the answers that came meanwhile are read: a connection's timeout then says nothing of the
 * database. The timer is the first thing to fire on waking (it was due first), so it has seen the
 * stall before such a timeout is handled.
 */
const stalls = {
  last: 0,
  at: -Infinity,
  timer: null as NodeJS.Timeout | null,
  watch(): void {
    this.last = performance.now();
    this.timer ??= setInterval(() => {
      const now = performance.now();
      if (now - this.last >= 1000) this.at = now;
      this.last = now;
    }, 100).unref();
  },
  /** Whether the process stood still within the last second. */
  recent: () => performance.now() - stalls.at < 1000,
};

/** SQL text, or a named statement: prepared on a connection the first time it runs there. */
export type Statement = string | { name: string; text: string };

/**
 * The pool, with every driver error turned into the 503 the routes answer (without the password).
 * For a second after a connection could not be made, the next attempts fail at once: requests queued
 * behind each other must not each wait out the connection timeout.
 */
export class Db {
  #unreachable: { at: number; error: Error } | null = null;
  /** The connections on which the round statements are prepared (sql.ts ROUND_STATEMENTS). */
  readonly #prepared = new WeakSet<pg.PoolClient>();

  constructor(
    readonly pool: pg.Pool,
    private readonly url: string,
  ) {
    stalls.watch();
  }

  /** A connection; one that failed right after this process stood still is asked for once more (see stalls). */
  async connect(): Promise<pg.PoolClient> {
    if (this.#unreachable && Date.now() - this.#unreachable.at < 1000) throw this.#unreachable.error;
    try {
      const client = await this.pool.connect().catch((e: unknown) => {
        if (stalls.recent()) return this.pool.connect();
        throw e;
      });
      this.#unreachable = null;
      return client;
    } catch (e) {
      const error = unavailable(e, this.url, 'cannot be reached');
      this.#unreachable = { at: Date.now(), error };
      throw error;
    }
  }

  /** One statement (a named one is prepared once per connection), on `client` (a transaction's) or on a connection of its own. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows as the driver gives them, read field by field
  async query(sql: Statement, params: unknown[], client?: pg.PoolClient): Promise<pg.QueryResult<any>> {
    const c = client ?? (await this.connect());
    try {
      const result = await c.query(typeof sql === 'string' ? { text: sql, values: params } : { ...sql, values: params });
      if (!client) c.release();
      return result;
    } catch (e) {
      if (!client) c.release(true);
      throw this.failed(e, 'did not answer');
    }
  }

  /**
   * Prepares `statements` (SQL PREPARE texts) on `client` once in its life. A failure throws the 503
   * and leaves the connection to be dropped by its caller.
   */
  async prepare(client: pg.PoolClient, statements: string): Promise<void> {
    if (this.#prepared.has(client)) return;
    try {
      await client.query(statements);
    } catch (e) {
      throw this.failed(e, 'did not answer');
    }
    this.#prepared.add(client);
  }

  /** Several statements in one round trip (no parameters: literals escaped); the connection is dropped on failure. */
  async simple(sql: string): Promise<void> {
    const client = await this.connect();
    try {
      await client.query(sql);
      client.release();
    } catch (e) {
      client.release(true);
      throw this.failed(e, 'did not take the change, so it was not acknowledged');
    }
  }

  /** Resolves when the database answers within 3 s. */
  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(this.failed(new Error('no answer within 3 s'), 'does not answer')), 3000)));
    try {
      await Promise.race([this.query('select 1', []), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  failed(err: unknown, what: string): Error {
    return unavailable(err, this.url, what);
  }

  /**
   * pg.escapeLiteral's literal, built with one replace: its loop adds a character at a time, which
   * on a round's megabyte of JSON took 100-200 ms to build and more again to flatten when sent.
   */
  literal(s: string): string {
    const body = s.replace(/['\\]/g, '$&$&');
    return s.includes('\\') ? ` E'${body}'` : `'${body}'`;
  }
}
