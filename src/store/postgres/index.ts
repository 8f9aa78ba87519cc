import pg from 'pg';
import type { StoreOptions } from '../types.js';
import { Db } from './db.js';
import { cannotStart, scrub } from './errors.js';
import { Listener } from './listen.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { PostgresStore } from './store.js';

export { PostgresStore } from './store.js';

/**
 * Bounds on every wait, so that a database that is away answers 503 soon rather than hanging a
 * request: a connection (or a free one from the pool) within 5 s, a statement within 10 s (lock waits
 * included), and a transaction left idle by a stuck instance loses its locks after 10 s.
 */
const LIMITS = {
  connectionTimeoutMillis: 5000,
  query_timeout: 10_000,
  statement_timeout: 10_000,
  idle_in_transaction_session_timeout: 10_000,
  keepAlive: true,
  // Not UNREGISTERED_NAME: an instance that sees a connection by that name is never alone (presence.ts).
  application_name: `mock-server/${SCHEMA_VERSION}`,
  // A prepared statement is planned once per connection, not at each run: the rounds' statements
  // take arrays of any length, whose values a custom plan would gain nothing from, and planning
  // them every time cost more PostgreSQL CPU than running them.
  // Every statement finds its rows through an index, and a plan made once must hold however large
  // the tables grow: a queue (mock_due) is often empty, or never analyzed on a new database, when a
  // connection plans its write, and the planner then scanned the whole table for each due row the
  // write dropped (900 rows: 810,900 read, 150 ms). So no sequential scan where an index serves.
  options: '-c plan_cache_mode=force_generic_plan -c enable_seqscan=off',
} satisfies pg.ClientConfig;

/**
 * Opens the PostgreSQL store: creates or migrates the tables, listens for other instances' resets and
 * loads every tenant. A database that cannot be reached or used is a StoreError (one line, exit 2),
 * whose message never holds the password.
 */
export async function createPostgresStore(db: string, opts: StoreOptions = {}): Promise<PostgresStore> {
  const warn = opts.warn ?? ((m: string) => process.emitWarning(m));
  const config = { connectionString: db, ...LIMITS };
  const pool = new pg.Pool({ ...config, max: 10 });
  // A connection whose server went away (a restart ends every session with 57P01) emits an error,
  // idle in the pool or checked out between two statements; unhandled, it would end the process. The
  // statement under way, if any, fails on its own and answers 503; the pool drops the connection.
  let lastWarned = 0;
  const lost = (err: Error) => {
    if (Date.now() - lastWarned < 10_000) return;
    lastWarned = Date.now();
    warn(`a database connection was lost (${scrub(err.message, db)}); requests get 503 until the database answers again`);
  };
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  let listener: Listener | null = null;
  try {
    const client = await pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
    const { rows } = await pool.query('select doc, version from mock_server where id = 1');
    const onClose = async () => {
      await listener?.close();
      await pool.end();
    };
    const store = new PostgresStore(new Db(pool, db), db, { doc: rows[0].doc, version: Number(rows[0].version) }, onClose, (m) => warn(scrub(m, db)));
    listener = new Listener({
      config,
      onMessage: (payload) => store.heard(payload),
      onReconnect: () => void store.missedNotifications().catch(() => undefined),
      warn: (m) => warn(scrub(m, db)),
    });
    await listener.start();
    await store.start();
    await store.syncAll();
    return store;
  } catch (e) {
    await listener?.close();
    await pool.end().catch(() => undefined);
    throw cannotStart(e, db);
  }
}
