import { StoreError } from '../types.js';

/** A postgres:// or postgresql:// URL selects the PostgreSQL store. */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db);

/** The URL as it may be shown (banner, health, logs): the password replaced by ***. */
export function redactUrl(db: string): string {
  try {
    const u = new URL(db);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    // Not a URL node can parse: show no more than the scheme.
    return `${db.split('//')[0]}//…`;
  }
}

/**
 * Removes the password from a message: driver errors may echo the connection string or its parts.
 * Both the raw and the percent-decoded forms are replaced.
 */
export function scrub(message: string, db: string): string {
  let password: string;
  try {
    password = new URL(db).password;
  } catch {
    // An unparsable URL: the whole of it goes.
    return message.split(db).join(redactUrl(db));
  }
  let out = message.split(db).join(redactUrl(db));
  for (const p of new Set([password, safeDecode(password)])) if (p.length >= 1) out = out.split(p).join('***');
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The database did not answer or did not take the change: answered 503 (a load balancer or the client
 * tries again), never acknowledged. The message names the database without its password.
 */
export class StoreUnavailableError extends Error {
  readonly statusCode = 503;
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** Wraps a driver error into the 503 the routes answer, without the password. */
export function unavailable(err: unknown, db: string, what: string): StoreUnavailableError {
  if (err instanceof StoreUnavailableError) return err;
  const cause = scrub(describe(err), db);
  return new StoreUnavailableError(`The database ${redactUrl(db)} ${what} (${cause}): try again`);
}

/** A database that cannot be used at start: one line, exit 2, like other bad --db values. */
export function cannotStart(err: unknown, db: string): StoreError {
  const cause = scrub(describe(err), db);
  return new StoreError(`Cannot use the database ${redactUrl(db)}: ${cause}`);
}

/** A driver error in a few words; a refused connection to several addresses is an AggregateError without a message. */
function describe(err: unknown): string {
  const e = err as (Error & { code?: string; errors?: Error[] }) | undefined;
  if (!e) return String(err);
  const inner = e.errors?.[0];
  return e.message || inner?.message || e.code || e.name || String(err);
}
