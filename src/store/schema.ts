/**
 * The shape of the state file: every piece of mutable state, partitioned by application (tenancy).
 * The catalog is not here: it is rebuilt from the seed at every start.
 *
 * Rules that keep group commit cheap (see store.ts): a tenant's fields are either collections
 * (plain objects keyed by id, changes tracked per key) or small values replaced whole. Later
 * features add a collection here, in emptyTenant() and nowhere else: files written before it
 * existed get the empty default when loaded.
 */

/** A bearer token issued by POST /login, stored under the SHA-256 of the token (never the token). */
export interface TokenRecord {
  clientId: string;
  scopes: string[];
  /** ISO 8601, server clock. */
  issuedAt: string;
  /** ISO 8601, server clock; the token is refused from this instant on. */
  expiresAt: string;
}

/** Placeholders until the booking and webhook features define them: keyed by uuid or id. */
export interface CartRecord {
  uuid: string;
  [field: string]: unknown;
}
export interface OrderRecord {
  uuid: string;
  [field: string]: unknown;
}
export interface DeliveryRecord {
  id: string;
  [field: string]: unknown;
}
export interface JournalEntry {
  id: string;
  [field: string]: unknown;
}
export interface WebhookConfig {
  url: string;
  /** null: signed with --webhook-secret when the server has one, else unsigned. */
  secret: string | null;
  /** When PUT /__admin/webhooks/config stored it (server clock); absent in files of earlier versions. */
  set_at?: string;
  /** 'partner': set with a partner's token (on a shared sandbox it then reaches public addresses only); absent: the admin. */
  set_by?: 'partner';
}

/** An application's changes to an activity's destinations (PUT/DELETE), keyed by activity uuid. */
export interface DestinationChanges {
  added: number[];
  removed: number[];
}

/** A certification run (src/certification/record.ts). */
export interface CertificationRecord {
  id: string;
  [field: string]: unknown;
}

/** A scenario running on one order item (see src/booking/scenario-runner.ts). */
export interface ScenarioRunRecord {
  order_item_uuid: string;
  [field: string]: unknown;
}

export interface Tenant {
  tokens: Record<string, TokenRecord>;
  /** Scenario runs by order item uuid; finished runs stay for the record. */
  scenario_runs: Record<string, ScenarioRunRecord>;
  destinations: Record<string, DestinationChanges>;
  carts: Record<string, CartRecord>;
  orders: Record<string, OrderRecord>;
  /** null: the server-wide receiver applies. */
  webhookConfig: WebhookConfig | null;
  deliveries: Record<string, DeliveryRecord>;
  journal: Record<string, JournalEntry>;
  /** Sequences (e.g. the numeric order id): name -> last value used. */
  counters: Record<string, number>;
  /**
   * How far POST /__admin/clock with this application moved its clock from the server clock, in ms:
   * its token expiry, cutoffs, refund tiers, scenario steps and webhook retries follow the server
   * clock plus this. 0: the server clock.
   */
  clock_offset_ms: number;
  /** The integration report (src/report/books.ts): its summary, remembered reads and one key per finding. */
  report: Record<string, unknown>;
  /** Chaos on this application's live deliveries (PUT /__admin/webhooks/chaos with its application); null: none of its own. */
  webhook_chaos: ChaosSetting | null;
  /** Faults armed for this application's requests (POST /__admin/faults with its application), by id. */
  faults: Record<string, FaultRecord>;
  /** Goes up whenever a fault is armed, used up or dropped: an instance rebuilds its index when it moves. */
  faults_rev: number;
  /** Certification runs (POST /__admin/certifications), by id: the latest few, running or not. */
  certifications: Record<string, CertificationRecord>;
}

/** An armed fault as stored (src/http/faults.ts matches and applies it). */
export interface FaultRecord {
  id: number;
  /** null: a fault on every application's requests. */
  application: string | null;
  method: string;
  path: string;
  status: number;
  /** How many more matching requests it answers. */
  times: number;
  delay_ms: number;
  /** Seconds sent as Retry-After with the answer (a certification run's 503); absent: none. */
  retry_after_s?: number;
}

/** A chaos setting as stored (src/webhooks/chaos.ts says what each field does). */
export interface ChaosSetting {
  duplicate: number;
  reorder: boolean;
  delay_ms: [number, number];
  fail_first: number;
}

/** A partner registered through POST /__admin/clients; its secret is kept only as a digest. */
export interface RegisteredClient {
  client_id: string;
  /** SHA-256 of the secret, hex. */
  secret_sha256: string;
  name: string | null;
  /** The application values it may log in with. */
  applications: string[];
  scopes: Array<'no-payment' | 'order-item-cancellation' | 'comment'>;
  /** Server clock. */
  created_at: string;
}

/** Server-wide state that is no application's: what a restart must not forget. */
export interface ServerState {
  /** How far POST /__admin/clock moved the server clock from real time, in ms. */
  clock_offset_ms: number;
  /**
   * The webhook target of every application without its own, as PUT /__admin/webhooks/config without
   * an application set it; absent (or null, as earlier versions wrote "none"), --webhook-url applies.
   * A start with --webhook-url drops it: flags win at start.
   */
  webhook_default?: WebhookConfig | null;
  /** Partners registered through POST /__admin/clients, by client_id. */
  clients?: Record<string, RegisteredClient>;
  /** Chaos on every application's live deliveries (PUT /__admin/webhooks/chaos without an application). */
  webhook_chaos?: ChaosSetting;
  /** The last fault id given, of any application: ids grow across them all. */
  fault_seq?: number;
  /** Faults armed for every application's requests (POST /__admin/faults without an application), by id. */
  faults?: Record<string, FaultRecord>;
  /** As Tenant.faults_rev, for these. */
  faults_rev?: number;
  /** The Ed25519 key certificates are signed with (src/certification/signing.ts), made when first needed. */
  certificate_key?: { pkcs8: string };
}

export interface State {
  /** File format version; bumped with a migration when a change is not additive. */
  version: 1;
  /** The mock-server that last opened the file to write it, so that an older one can say which refuses it. */
  mock_server?: string;
  server: ServerState;
  tenants: Record<string, Tenant>;
}

export const STATE_VERSION = 1;

/**
 * An object without a prototype: keys come from request headers and paths, and a key such as
 * "__proto__" or "constructor" must be just a key, never Object.prototype.
 */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export function emptyTenant(): Tenant {
  return {
    tokens: dict(),
    scenario_runs: dict(),
    destinations: dict(),
    carts: dict(),
    orders: dict(),
    webhookConfig: null,
    deliveries: dict(),
    journal: dict(),
    counters: dict(),
    clock_offset_ms: 0,
    report: dict(),
    webhook_chaos: null,
    faults: dict(),
    faults_rev: 0,
    certifications: dict(),
  };
}

export function emptyServer(): ServerState {
  return { clock_offset_ms: 0 };
}

export function emptyState(): State {
  return { version: STATE_VERSION, server: emptyServer(), tenants: dict() };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * For a state file of a later format than this mock-server reads: which mock-server wrote it, as the
 * file tells (its version, else the format's); null for any other file.
 */
export function newerWriter(raw: unknown): string | null {
  if (!isObject(raw) || typeof raw.version !== 'number' || !(raw.version > STATE_VERSION)) return null;
  const by = typeof raw.mock_server === 'string' ? `${raw.mock_server.slice(0, 40)}, ` : '';
  return `${by}state version ${raw.version}`;
}

/**
 * Checks a parsed state file and fills collections added since it was written. Returns a message
 * naming the first bad field, or the normalized state.
 */
export function normalizeState(raw: unknown): State | string {
  if (!isObject(raw)) return 'the top level must be a JSON object';
  if (raw.version !== STATE_VERSION) return `"version" must be ${STATE_VERSION}, found ${JSON.stringify(raw.version)}`;
  if (!isObject(raw.tenants)) return '"tenants" must be an object';
  const server = problemInServer(raw);
  if (server) return server;
  const defaults = emptyTenant() as unknown as Record<string, unknown>;
  Object.setPrototypeOf(raw.tenants, null);
  for (const [app, tenant] of Object.entries(raw.tenants)) {
    if (!isObject(tenant)) return `"tenants.${app}" must be an object`;
    for (const [field, empty] of Object.entries(defaults)) {
      const v = tenant[field];
      if (v === undefined) tenant[field] = isObject(empty) ? dict() : empty;
      else if (isObject(empty) && !isObject(v)) return `"tenants.${app}.${field}" must be an object`;
      else if (typeof empty === 'number' && (typeof v !== 'number' || !Number.isFinite(v))) return `"tenants.${app}.${field}" must be a number`;
      else if (isObject(v)) Object.setPrototypeOf(v, null);
    }
  }
  return raw as unknown as State;
}

/** Fills or checks the "server" section (files written before it existed have none). */
function problemInServer(raw: Record<string, unknown>): string | null {
  if (raw.server === undefined) raw.server = emptyServer();
  const s = raw.server;
  if (!isObject(s)) return '"server" must be an object';
  const defaults = emptyServer();
  s.clock_offset_ms ??= defaults.clock_offset_ms;
  if (typeof s.clock_offset_ms !== 'number' || !Number.isFinite(s.clock_offset_ms)) return '"server.clock_offset_ms" must be a number';
  const hook = s.webhook_default;
  if (hook !== undefined && hook !== null && (!isObject(hook) || typeof hook.url !== 'string')) return '"server.webhook_default" must be null or {url, secret}';
  if (s.clients !== undefined && !isObject(s.clients)) return '"server.clients" must be an object';
  if (s.webhook_chaos !== undefined && !isObject(s.webhook_chaos)) return '"server.webhook_chaos" must be an object';
  if (s.faults !== undefined && !isObject(s.faults)) return '"server.faults" must be an object';
  if (isObject(s.faults)) Object.setPrototypeOf(s.faults, null);
  if (s.certificate_key !== undefined && (!isObject(s.certificate_key) || typeof s.certificate_key.pkcs8 !== 'string')) return '"server.certificate_key" must be {pkcs8}';
  return null;
}
