import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { builtinFixturesDir } from '../paths.js';

/** The partner scopes the spec names. */
export const SCOPES = ['no-payment', 'order-item-cancellation', 'comment'] as const;
export type Scope = (typeof SCOPES)[number];

/** An OAuth client the sandbox accepts at POST /login. */
export interface Client {
  clientId: string;
  /** The secret of a fixture client; null for a registered one, whose secret only the digest knows. */
  secret: string | null;
  /** A registered client's secret: SHA-256, hex. */
  secretSha256?: string;
  scopes: Scope[];
  /** Application values the client may log in with; '*' is any. */
  applications: '*' | string[];
}

/** Built in, shown in docs/booking-flow.md (Authentication) and the start-up banner: every partner scope, any application. */
export const SANDBOX_CLIENT: Client = Object.freeze({
  clientId: 'sandbox-client',
  secret: 'sandbox-secret',
  scopes: [...SCOPES],
  applications: '*',
});

/** A fixture file the user must fix (the CLI prints the message and exits 2). */
export class FixtureError extends Error {
  readonly userFacing = true;
  constructor(file: string, problem: string) {
    super(`Fixture file ${file}: ${problem}`);
    this.name = 'FixtureError';
  }
}

/** Reads a JSON fixture, or null when the file does not exist. */
export async function readFixture(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new FixtureError(file, (e as Error).message);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new FixtureError(file, `not valid JSON (${(e as Error).message})`);
  }
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** Validates a clients.json document: {clients: [{client_id, client_secret, scopes, applications}]}. */
export function parseClients(file: string, doc: unknown): Client[] {
  const list = (doc as { clients?: unknown } | null)?.clients;
  if (typeof doc !== 'object' || doc === null || !Array.isArray(list)) {
    throw new FixtureError(file, '"clients" must be an array');
  }
  const seen = new Set<string>();
  return list.map((c: unknown, i) => {
    const at = `clients[${i}]`;
    if (typeof c !== 'object' || c === null) throw new FixtureError(file, `${at} must be an object`);
    const r = c as Record<string, unknown>;
    if (!nonEmpty(r.client_id)) throw new FixtureError(file, `${at}.client_id must be a non-empty string`);
    if (seen.has(r.client_id)) throw new FixtureError(file, `${at}.client_id "${r.client_id}" appears twice`);
    seen.add(r.client_id);
    if (!nonEmpty(r.client_secret)) throw new FixtureError(file, `${at}.client_secret must be a non-empty string`);
    if (!Array.isArray(r.scopes)) throw new FixtureError(file, `${at}.scopes must be an array of scopes`);
    r.scopes.forEach((s, j) => {
      if (!SCOPES.includes(s as Scope)) {
        throw new FixtureError(file, `${at}.scopes[${j}] must be one of ${SCOPES.join(', ')}, got ${JSON.stringify(s)}`);
      }
    });
    const apps = r.applications ?? '*';
    if (apps !== '*' && !(Array.isArray(apps) && apps.length > 0 && apps.every(nonEmpty))) {
      throw new FixtureError(file, `${at}.applications must be "*" or a non-empty array of application values`);
    }
    return {
      clientId: r.client_id,
      secret: r.client_secret,
      scopes: [...new Set(r.scopes as Scope[])],
      applications: apps as '*' | string[],
    };
  });
}

/**
 * Every client: the built-in sandbox client, then fixtures/clients.json, then the user's fixture
 * directory (a client there replaces one with the same client_id). A shared sandbox keeps only the
 * user's clients that name their applications: the built-in ones are printed in the docs, and a
 * client for any application ("*") would open every partner's.
 */
export async function loadClients(userFixtures: string | null, shared = false): Promise<Map<string, Client>> {
  const clients = new Map<string, Client>(shared ? [] : [[SANDBOX_CLIENT.clientId, SANDBOX_CLIENT]]);
  for (const dir of shared ? [userFixtures] : [builtinFixturesDir, userFixtures]) {
    if (dir === null) continue;
    const file = join(dir, 'clients.json');
    const doc = await readFixture(file);
    if (doc === null) continue;
    for (const c of parseClients(file, doc)) if (!shared || c.applications !== '*') clients.set(c.clientId, c);
  }
  return clients;
}
