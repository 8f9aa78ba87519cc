import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/index.js';
import type { RegisteredClient } from '../store/schema.js';
import { SANDBOX_CLIENT, type Client, type Scope } from './clients.js';

export type { RegisteredClient } from '../store/schema.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** A registered client by id: own keys only (a client_id such as "constructor" is just an unknown id). */
const registered = (store: Store, clientId: string): RegisteredClient | undefined => {
  const clients = store.server().clients;
  return clients && Object.hasOwn(clients, clientId) ? clients[clientId] : undefined;
};

/** What POST /__admin/clients answers, once: the only time the secret is shown. */
export interface Registration {
  client_id: string;
  client_secret: string;
  name: string | null;
  applications: string[];
  scopes: Scope[];
  created_at: string;
}

/** A registered client as listed: without its secret or the secret's digest. */
export type ListedClient = Omit<RegisteredClient, 'secret_sha256'>;
const listed = (r: RegisteredClient): ListedClient => ({ client_id: r.client_id, name: r.name, applications: r.applications, scopes: r.scopes, created_at: r.created_at });

/**
 * The OAuth clients POST /login accepts: the fixture clients and the built-in sandbox-client (of a
 * shared sandbox, --shared, only the --fixtures clients that name their applications: loadClients),
 * and the partners registered through POST /__admin/clients, which are kept in the store
 * (server-wide state) with only the SHA-256 of their secret. Registered secrets are 32 random
 * bytes: a fast digest is as safe as a slow one against guessing, and login stays cheap.
 */
export class ClientRegistry {
  readonly #fixtures: ReadonlyMap<string, Client>;

  constructor(
    private readonly store: Store,
    fixtures: ReadonlyMap<string, Client>,
    readonly shared: boolean,
  ) {
    this.#fixtures = fixtures;
  }

  /** The client with this id, or undefined. */
  find(clientId: string): Client | undefined {
    const fixture = this.#fixtures.get(clientId);
    if (fixture) return fixture;
    const r = registered(this.store, clientId);
    return r && { clientId: r.client_id, secret: null, secretSha256: r.secret_sha256, scopes: r.scopes, applications: r.applications };
  }

  /** Whether `secret` is the client's, compared in constant time. */
  static secretMatches(client: Client, secret: string): boolean {
    const expected = client.secret !== null ? sha256(client.secret) : Buffer.from(client.secretSha256 ?? '', 'hex');
    const sent = sha256(secret);
    return expected.length === sent.length && timingSafeEqual(expected, sent);
  }

  /** Whether a client id is taken (a fixture client, the sandbox client or a registered one). */
  taken(clientId: string): boolean {
    return clientId === SANDBOX_CLIENT.clientId || this.#fixtures.has(clientId) || registered(this.store, clientId) !== undefined;
  }

  list(): ListedClient[] {
    return Object.values(this.store.server().clients ?? {}).map(listed);
  }

  /** Registers a partner; answers its secret once. */
  async register(input: { applications: string[]; scopes: Scope[]; name?: string }, now: Date): Promise<Registration> {
    let clientId: string;
    do clientId = `cl_${randomBytes(9).toString('base64url')}`;
    while (this.taken(clientId));
    const secret = `cs_${randomBytes(32).toString('base64url')}`;
    const record: RegisteredClient = {
      client_id: clientId,
      secret_sha256: sha256(secret).toString('hex'),
      name: input.name ?? null,
      applications: [...new Set(input.applications)],
      scopes: [...new Set(input.scopes)],
      created_at: now.toISOString(),
    };
    await this.store.updateServer((s) => void (s.clients = { ...s.clients, [clientId]: record }));
    return { ...listed(record), client_secret: secret };
  }

  /** Revokes a registered client and every token it was given; false when there is none with that id. */
  async revoke(clientId: string): Promise<boolean> {
    if (!registered(this.store, clientId)) return false;
    // Decided under the store's lock, on the clients as they are then: of two revokes at once, on
    // any instances, one finds the client and the other answers that there is none.
    const found: { record?: RegisteredClient } = {};
    await this.store.updateServer((s) => {
      // Reset per run: a retried write may find the client revoked by another instance.
      found.record = undefined;
      const rest = { ...s.clients };
      if (!Object.hasOwn(rest, clientId)) return;
      found.record = rest[clientId];
      delete rest[clientId];
      s.clients = rest;
    });
    if (!found.record) return false;
    const known = new Set(this.store.applications());
    await Promise.all(
      found.record.applications.filter((a) => known.has(a)).map((application) =>
        this.store.update(application, (t) => {
          // Found under the lock (a token a login wrote meanwhile too), on the read-only view, which
          // is the tenant being written: only the tokens deleted count as written.
          const tokens = this.store.tenant(application).tokens;
          for (const k of Object.keys(tokens)) if (tokens[k]?.clientId === clientId) delete t.tokens[k];
        }),
      ),
    );
    return true;
  }
}
