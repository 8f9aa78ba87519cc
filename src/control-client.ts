/**
 * A typed client of the control API (`/__admin`, docs/control-api.md), over Node's global fetch.
 * Every method sends one request and resolves to the answer's parsed JSON body as the server wrote
 * it; a non-2xx answer rejects with a ControlApiError carrying the status and the body's code and
 * message. The types here are written out on purpose (not imported from the server's sources), so
 * the package's published declarations stand alone.
 */

/** The order-item statuses of the lifecycle (docs/webhooks.md, Lifecycle). */
export type OrderItemStatus = 'PENDING' | 'OK' | 'KO' | 'CANCELLATION_ERROR' | 'REFUND_STARTED' | 'REFUNDED';

/** GET /__admin/health */
export interface HealthAnswer {
  /** 'unavailable' (with status 503) when the PostgreSQL store's database does not answer. */
  status: 'ok' | 'unavailable';
  version: string;
  seed: number;
  uptime_s: number;
  /** Which store runs, and its counters (for PostgreSQL, flushes are commits). */
  store: {
    kind: 'file' | 'memory' | 'postgres';
    writes: number;
    flushes: number;
    compactions: number;
    /** PostgreSQL only: the database URL without its password, and whether it answered. */
    location?: string;
    database?: 'up' | 'down';
  };
}

/** POST /__admin/clock: the server time after the move. */
export interface ClockAnswer {
  /** ISO 8601, UTC: the server's time, or the application's. */
  now: string;
  /** The application whose clock it is; null: the server clock. */
  application: string | null;
}

/** GET /__admin/clock */
export interface ClockReading extends ClockAnswer {
  /** How far the clock is from real time (ms): the server clock's offset, plus the application's own. */
  offset_ms: number;
  /** The application's own offset on top of the server clock (ms); null for the server clock. */
  application_offset_ms: number | null;
}

/** POST /__admin/reset: `"all"` or the application reset. */
export interface ResetAnswer {
  reset: string;
}

export interface AdminOrderItem {
  uuid: string;
  /** For people (vouchers, e-mails); paths take the uuid. */
  code: string;
  status: OrderItemStatus;
  version: number;
  activity_uuid: string;
  product_identifier: string;
  /** The day, then the time when the product has one: `2026-03-01 09:00`. */
  date: string;
  quantity: number;
  updated_at: string;
  /** The statuses the lifecycle allows this item to move to now. */
  moves: OrderItemStatus[];
  /** The item's scenario run, if one was started on it. */
  scenario: { name: string; started_at: string; steps_done: number; steps: number; next_step_at: string | null; stopped: string | null } | null;
}

export interface AdminOrder {
  application: string;
  uuid: string;
  id: number;
  identifier: string;
  paid: boolean;
  version: number;
  created_at: string;
  updated_at: string;
  items: AdminOrderItem[];
}

/** GET /__admin/orders */
export interface OrdersAnswer {
  orders: AdminOrder[];
}

/** POST /__admin/order-items/{uuid}/status: the item after the move. */
export interface MovedItem {
  application: string;
  order_uuid: string;
  uuid: string;
  status: OrderItemStatus;
  version: number;
  updated_at: string;
}

/** A step of a scenario: `after` is an ISO 8601 duration from the start of the run. */
export type ScenarioStepInfo =
  | { after: string; status: OrderItemStatus }
  | { after: string; receiver: 'down' | 'up' }
  /** From this step on, the item's webhooks get this chaos (duplicates, reordering, delays, first attempts failing). */
  | { after: string; chaos: Record<string, unknown> };

/** Which order items a scenario attaches to by itself; every field given must match. */
export interface ScenarioAttachRule {
  activity_uuid?: string;
  product_id?: string | number;
  lead_booker_email?: string;
  on: 'payment' | 'cancellation';
}

export interface ScenarioInfo {
  name: string;
  description: string;
  /** The status an item must have for the scenario to start on it. */
  from: OrderItemStatus;
  /** When the scenario starts by itself (on payment or cancellation of matching items), or null. */
  attach: ScenarioAttachRule | null;
  steps: ScenarioStepInfo[];
  file: string;
  builtin: boolean;
}

/** GET /__admin/scenarios */
export interface ScenariosAnswer {
  scenarios: ScenarioInfo[];
}

/** What a scenario runs on: one order item, or every item of an order. */
export type ScenarioTarget = { order_item_uuid: string; order_uuid?: undefined } | { order_uuid: string; order_item_uuid?: undefined };

/** POST /__admin/scenarios/{name}/run */
export interface ScenarioRunAnswer {
  runs: Array<{ scenario: string; application: string; order_uuid: string; order_item_uuid: string; started_at: string }>;
}

/** The "Update order item" webhook body. */
export interface WebhookPayload {
  order_id: string;
  order_uuid: string;
  order_created: string;
  order_updated: string;
  order_version: string;
  order_item_uuid: string;
  order_item_created: string;
  order_item_updated: string;
  order_item_version: string;
  order_item_status: OrderItemStatus;
}

/** One POST to the receiver; `at` is server-clock time. */
export interface DeliveryAttempt {
  at: string;
  /** The receiver's status code, when it answered. */
  status_code?: number;
  /** Why there was no answer (timeout, refused connection, ...). */
  error?: string;
  duration_ms: number;
  /** What webhook chaos did to this attempt on purpose, if anything. */
  chaos?: 'duplicate' | 'reorder' | 'delay' | 'fail_first';
  /** The headers sent: webhook-id, webhook-timestamp, webhook-signature and the vendor's (Authorization masked); absent when no request was made. */
  headers?: Record<string, string>;
}

/** Why a pending delivery waits, computed when asked. */
export interface DeliveryWait {
  reason: 'ordering' | 'retry' | 'no_receiver' | 'receiver_down' | 'chaos_delay' | 'sending' | 'due';
  /** E.g. "waiting for version 1 of this order item to be delivered first (…)", "next attempt at … (attempt 2 of 6)". */
  message: string;
  /** Server-clock time of its next attempt, when one is scheduled and not under way. */
  next_attempt_at: string | null;
  /** ordering: the id of the delivery that goes first. */
  after: string | null;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  id: string;
  application: string;
  order_uuid: string;
  order_item_uuid: string;
  order_item_version: number;
  payload: WebhookPayload;
  attempts: DeliveryAttempt[];
  state: DeliveryState;
  /** Server-clock time of the next attempt while pending; null once delivered or failed. */
  next_attempt_at: string | null;
  created_at: string;
  seq: number;
  /** Attempts before this index belong to earlier rounds (a redeliver starts a new one). */
  round_start: number;
  /** Why it waits while pending; null once delivered or failed. */
  waiting: DeliveryWait | null;
  /** 'listener': relayed to the application's `mock-server listen`; absent: its receiver. */
  target?: 'listener';
  /** The item's status before the move. */
  from_status?: string;
}

export interface DeliveriesFilter {
  order_item_uuid?: string;
  application?: string;
}

/** GET /__admin/webhooks/deliveries, oldest first. */
export interface DeliveriesAnswer {
  deliveries: WebhookDelivery[];
}

/** POST /__admin/webhooks/deliveries/{id}/redeliver (202) */
export interface RedeliverAnswer {
  delivery: WebhookDelivery;
}

/** PUT /__admin/webhooks/config body. */
export interface WebhookConfigInput {
  /** http(s) URL (user:password in it sends Basic credentials); null removes the setting (back to the server-wide receiver, or to --webhook-url). */
  url: string | null;
  /** Absent or null: signed with --webhook-secret when the server has one. */
  secret?: string | null;
  /** Only this application's receiver; absent: the default for all. */
  application?: string;
}

/** A receiver and where it comes from; the URL with any password hidden. */
export interface WebhookTargetInfo {
  url: string;
  /** 'flag': --webhook-url; 'stored': PUT /__admin/webhooks/config (at set_at). */
  source: 'flag' | 'stored';
  set_at: string | null;
  /** 'own' secret, 'server' (--webhook-secret), or 'none'. */
  signing: 'own' | 'server' | 'none';
  signed: boolean;
}

/** PUT /__admin/webhooks/config answer: the receiver that applies now to the application (or server-wide). */
export type WebhookConfigAnswer = { application: string | null } & (WebhookTargetInfo | { url: null; source: null; set_at: null; signing: 'none'; signed: false });

/** A `mock-server listen` (docs/webhooks-on-your-laptop.md): a delivery target beside the receiver. */
export interface ListenerInfo {
  /** null: every application's. */
  application: string | null;
  /** false: away, its deliveries wait (retried on the schedule). */
  connected: boolean;
  since: string;
  /** Only these statuses; null: all. */
  events: string[] | null;
  /** Where it forwards, as it said. */
  forward_to: string | null;
}

/** GET /__admin/webhooks/config */
export interface WebhookConfigList {
  default: WebhookTargetInfo | null;
  applications: Record<string, WebhookTargetInfo>;
  listeners: ListenerInfo[];
}

/** POST /__admin/webhooks/check body: a URL, or the receiver configured for an application (or all). */
export interface WebhookCheckInput {
  url?: string;
  secret?: string | null;
  /** user:password */
  basic?: string;
  application?: string;
}

/** POST /__admin/webhooks/check answer (docs/webhooks.md, Checking your receiver). */
export interface WebhookCheckReport {
  receiver: string;
  passed: boolean;
  checks: Array<{ id: string; title: string; result: 'passed' | 'failed' | 'skipped'; sent: string[]; got: string[]; advice: string }>;
}

/** PUT /__admin/webhooks/chaos body (docs/webhooks.md, Chaos on demand). */
export interface ChaosInput {
  application?: string;
  /** 0..1: share of delivered webhooks sent a second time. */
  duplicate?: number;
  /** After a newer version is delivered, send the previous one again. */
  reorder?: boolean;
  /** [min, max] ms each attempt waits first. */
  delay_ms?: [number, number];
  /** Attempts of each delivery that fail on purpose. */
  fail_first?: number;
}

export interface ChaosSetting {
  duplicate: number;
  reorder: boolean;
  delay_ms: [number, number];
  fail_first: number;
}

/** GET /__admin/webhooks/chaos */
export interface ChaosList {
  all: ChaosSetting | null;
  applications: Record<string, ChaosSetting>;
}

/** POST /__admin/faults body. */
export interface FaultInput {
  /** GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS (any case) or `*`. */
  method: string;
  /** Under the base path (or the full path); `*` matches anything. */
  path: string;
  /** 400..599 */
  status: number;
  /** How many matching requests fail; default 1. */
  times?: number;
  delay_ms?: number;
  /** Only this application's requests; absent: every application's. */
  application?: string;
}

export interface Fault {
  id: number;
  /** null: a server-wide fault. */
  application: string | null;
  method: string;
  path: string;
  status: number;
  times: number;
  delay_ms: number;
}

/** GET /__admin/faults */
export interface FaultsAnswer {
  faults: Fault[];
}

export interface JournalEntry {
  id: number;
  at: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  application: string | null;
  /** The request's id in the logs and in the integration report's examples. */
  req_id: string;
}

/** One side of a journaled exchange: secrets masked (`Bearer ***`, `"client_secret":"***"`), the body cut at 16,384 bytes. */
export interface JournalMessage {
  /** Names in lower case. */
  headers: Record<string, string>;
  /** The body as text; null when there was none. */
  body: string | null;
  /** The body was longer than the cap: `body` holds its start. */
  truncated: boolean;
  /** The whole body's size in bytes. */
  bytes: number;
}

/** GET /__admin/requests/{id}: the entry with its headers and bodies; null once the journal no longer keeps them (it keeps the latest 500 requests'). */
export interface JournalDetail extends JournalEntry {
  request: JournalMessage | null;
  response: JournalMessage | null;
}

export interface RequestsFilter {
  application?: string;
  /** 1..1000, default 100. */
  limit?: number;
}

/** GET /__admin/requests, newest first. */
export interface RequestsAnswer {
  requests: JournalEntry[];
}

/** Where a report finding was seen: the request (or webhook delivery) and when, on the server clock. */
export interface ReportExample {
  method: string;
  path: string;
  reqId: string;
  at: string;
}

export interface ReportFinding {
  /** Stable: docs/report.md lists every id. */
  id: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  advice: string;
  count: number;
  first: ReportExample;
  last: ReportExample;
  /** The operation it was seen on, as /docs writes it (`POST /carts/{cartUuid}/items`), when it is about one. */
  operation?: string;
  /** For a refusal (a 4xx): the server's answer the first time, as the client got it. */
  answer?: { status: number; code: string; message: string };
}

/** GET /__admin/report: what an application's client got wrong, and how much of a booking it did. */
export interface IntegrationReport {
  application: string;
  since: string;
  requests: number;
  /** Requests that carried neither an application header nor a valid token: GET /__admin/report?application=(unattributed) shows them. */
  unattributed: number;
  /** fail when any error finding exists. */
  verdict: 'pass' | 'fail';
  findings: ReportFinding[];
  coverage: {
    steps: Array<{ name: string; done: boolean; count: number }>;
    error_paths: Array<{ name: string; done: boolean; count: number }>;
  };
}

/** POST /__admin/clients body. */
export interface ClientInput {
  /** The application values the client may log in with. */
  applications: string[];
  scopes: Array<'no-payment' | 'order-item-cancellation' | 'comment'>;
  name?: string;
}

/** A registered partner client, as listed (no secret). */
export interface RegisteredClientInfo {
  client_id: string;
  name: string | null;
  applications: string[];
  scopes: Array<'no-payment' | 'order-item-cancellation' | 'comment'>;
  created_at: string;
}

/** POST /__admin/clients answer: the only time the secret is shown. */
export interface ClientRegistration extends RegisteredClientInfo {
  client_secret: string;
}

/** One piece of evidence of a certification requirement: what the certificate names by `id`. */
export interface CertificationEvidence {
  kind: 'request' | 'order_item' | 'delivery' | 'finding' | 'requests' | 'probe' | 'answer';
  id: string;
  what: string;
}

/** A certification run (docs/certification.md). */
export interface CertificationRun {
  id: string;
  suite: string;
  suite_version: number;
  application: string;
  state: 'running' | 'passed' | 'ended';
  started_at: string;
  passed_at: string | null;
  ended_at: string | null;
  /** The last version header the client sent during the run. */
  api_version: string | null;
  passed: number;
  total: number;
  requirements: Array<{
    id: string;
    title: string;
    status: 'pending' | 'passed' | 'failed';
    /** What to do, in one or two sentences. */
    instructions: string;
    /** The same facts as fields: the activity, lead booker e-mail, question, fault, for a CI to play the run. */
    setup: Record<string, unknown>;
    evidence: CertificationEvidence[];
    /** Pending: what it waits for; failed: what broke it. */
    reason: string | null;
    /** What a failure means. */
    failure: string;
    question?: { ask: string; answer: string | null };
  }>;
}

export interface ControlClient {
  /** The control API's URL, e.g. `http://127.0.0.1:8080/__admin`. */
  readonly url: string;
  clock: {
    /** The server time, and how far it was moved from real time. */
    now(application?: string): Promise<ClockReading>;
    /** Moves the server clock (or only an application's) by an ISO 8601 duration (`PT2H`, `P1D`, `-PT30M`). */
    advance(duration: string, application?: string): Promise<ClockAnswer>;
    /** Sets the server clock (or only an application's) to a date-time with a zone. */
    set(dateTime: string | Date, application?: string): Promise<ClockAnswer>;
  };
  /** Drops all mutable state, or one application's. */
  reset(application?: string): Promise<ResetAnswer>;
  orders(application?: string): Promise<OrdersAnswer>;
  /** One allowed status move (with its webhook); 409 for a move the lifecycle forbids. */
  moveItem(uuid: string, status: OrderItemStatus, application?: string): Promise<MovedItem>;
  runScenario(name: string, target: ScenarioTarget): Promise<ScenarioRunAnswer>;
  scenarios(): Promise<ScenariosAnswer>;
  deliveries(filter?: DeliveriesFilter): Promise<DeliveriesAnswer>;
  redeliver(id: string): Promise<RedeliverAnswer>;
  webhooks: {
    config(input: WebhookConfigInput): Promise<WebhookConfigAnswer>;
    getConfig(): Promise<WebhookConfigList>;
    /** Runs the receiver check; a receiver that does not answer at all rejects with status 502. */
    check(input?: WebhookCheckInput): Promise<WebhookCheckReport>;
    chaos: {
      set(input: ChaosInput): Promise<ChaosSetting & { application: string | null }>;
      get(): Promise<ChaosList>;
      clear(application?: string): Promise<void>;
    };
  };
  faults: {
    add(fault: FaultInput): Promise<Fault>;
    /** All, or those that apply to an application's requests (its own and the server-wide ones). */
    list(application?: string): Promise<FaultsAnswer>;
    /** All, or an application's own. */
    clear(application?: string): Promise<void>;
  };
  requests(filter?: RequestsFilter): Promise<RequestsAnswer>;
  /** One journal entry (an `id` of requests()) with its headers and bodies, both ways. */
  request(id: number): Promise<JournalDetail>;
  clearRequests(application?: string): Promise<void>;
  /** The integration report of an application (needed when more than one has made requests). */
  report(application?: string): Promise<IntegrationReport>;
  /** Open even when the server has an admin token. */
  health(): Promise<HealthAnswer>;
  /** Certification runs: start one, follow it, answer its questions, get its certificate (a compact JWS). */
  certifications: {
    start(application: string): Promise<CertificationRun>;
    get(id: string, application?: string): Promise<CertificationRun>;
    /** Ends a running run (its fault is disarmed, its scenarios stop attaching). */
    end(id: string, application?: string): Promise<void>;
    answer(id: string, requirement: string, answer: string): Promise<CertificationRun>;
    /** The signed certificate, once every requirement passed (409 before). */
    certificate(id: string, application?: string): Promise<string>;
  };
  /** Partner clients for a shared sandbox (--shared): POST /login takes them for their applications. */
  clients: {
    register(input: ClientInput): Promise<ClientRegistration>;
    list(): Promise<{ clients: RegisteredClientInfo[] }>;
    /** The client can no longer log in; its tokens stop working. */
    revoke(clientId: string): Promise<void>;
  };
}

export interface ControlClientOptions {
  /** The server's --admin-token: sent as `Authorization: Bearer <token>`. */
  adminToken?: string | null;
}

/** A non-2xx answer of the control API. */
export class ControlApiError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The `code` of the `{code, message}` error body; null when the body had none. */
  readonly code: string | null;
  readonly method: string;
  readonly url: string;
  /** The parsed body (or its text when it was not JSON). */
  readonly body: unknown;

  constructor(init: { status: number; code: string | null; message: string; method: string; url: string; body: unknown }) {
    super(init.message);
    this.name = 'ControlApiError';
    this.status = init.status;
    this.code = init.code;
    this.method = init.method;
    this.url = init.url;
    this.body = init.body;
  }
}

type Query = Record<string, string | number | undefined>;

function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/**
 * A client of the control API at `controlUrl` (e.g. `http://localhost:8080/__admin`), for a server
 * started elsewhere (a container, `npx mock-server`); startMockServer gives one already made.
 */
export function createControlClient(controlUrl: string, options: ControlClientOptions = {}): ControlClient {
  let base: URL;
  try {
    base = new URL(controlUrl);
  } catch {
    throw new TypeError(`createControlClient: "${controlUrl}" is not a URL (expected e.g. http://localhost:8080/__admin)`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`createControlClient: "${controlUrl}" is not an http(s) URL`);
  const root = controlUrl.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const token = options.adminToken ?? null;

  async function call<T>(method: string, path: string, opts: { body?: unknown; query?: Query } = {}): Promise<T> {
    const url = `${root}${path}${queryString(opts.query)}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    } catch (e) {
      const cause = (e as Error & { cause?: Error }).cause;
      throw new Error(`mock-server control API: ${method} ${url} failed: ${cause?.message ?? (e as Error).message}`, { cause: e });
    }
    const text = await res.text();
    let body: unknown = text;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON (a proxy's error page, say): kept as text.
      }
    }
    if (!res.ok) {
      const b = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown };
      const code = b.code === undefined || b.code === null ? null : String(b.code);
      const detail = typeof b.message === 'string' ? b.message : typeof body === 'string' && body ? body.slice(0, 200) : res.statusText;
      throw new ControlApiError({ status: res.status, code, message: `${method} ${path}: ${res.status}${code === null ? '' : ` (code ${code})`}: ${detail}`, method, url, body });
    }
    return (text === '' ? undefined : body) as T;
  }

  const seg = encodeURIComponent;
  return {
    url: root,
    clock: {
      now: (application) => call('GET', '/clock', { query: { application } }),
      advance: (duration, application) => call('POST', '/clock', { body: { advance: duration, application } }),
      set: (dateTime, application) => call('POST', '/clock', { body: { set: dateTime instanceof Date ? dateTime.toISOString() : dateTime, application } }),
    },
    reset: (application) => call('POST', '/reset', { body: application === undefined ? {} : { application } }),
    orders: (application) => call('GET', '/orders', { query: { application } }),
    moveItem: (uuid, status, application) => call('POST', `/order-items/${seg(uuid)}/status`, { body: { status }, query: { application } }),
    runScenario: (name, target) => call('POST', `/scenarios/${seg(name)}/run`, { body: target }),
    scenarios: () => call('GET', '/scenarios'),
    deliveries: (filter = {}) => call('GET', '/webhooks/deliveries', { query: { order_item_uuid: filter.order_item_uuid, application: filter.application } }),
    redeliver: (id) => call('POST', `/webhooks/deliveries/${seg(id)}/redeliver`),
    webhooks: {
      config: (input) => call('PUT', '/webhooks/config', { body: input }),
      getConfig: () => call('GET', '/webhooks/config'),
      check: (input = {}) => call('POST', '/webhooks/check', { body: input }),
      chaos: {
        set: (input) => call('PUT', '/webhooks/chaos', { body: input }),
        get: () => call('GET', '/webhooks/chaos'),
        clear: (application) => call('DELETE', '/webhooks/chaos', { query: { application } }),
      },
    },
    faults: {
      add: (fault) => call('POST', '/faults', { body: fault }),
      list: (application) => call('GET', '/faults', { query: { application } }),
      clear: (application) => call('DELETE', '/faults', { query: { application } }),
    },
    requests: (filter = {}) => call('GET', '/requests', { query: { application: filter.application, limit: filter.limit } }),
    request: (id) => call('GET', `/requests/${seg(String(id))}`),
    clearRequests: (application) => call('DELETE', '/requests', { query: { application } }),
    report: (application) => call('GET', '/report', { query: { application } }),
    health: () => call('GET', '/health'),
    certifications: {
      start: (application) => call('POST', '/certifications', { body: { application } }),
      get: (id, application) => call('GET', `/certifications/${seg(id)}`, { query: { application } }),
      end: (id, application) => call('DELETE', `/certifications/${seg(id)}`, { query: { application } }),
      answer: (id, requirement, answer) => call('POST', `/certifications/${seg(id)}/answers`, { body: { requirement, answer } }),
      certificate: (id, application) => call('GET', `/certifications/${seg(id)}/certificate`, { query: { application } }),
    },
    clients: {
      register: (input) => call('POST', '/clients', { body: input }),
      list: () => call('GET', '/clients'),
      revoke: (clientId) => call('DELETE', `/clients/${seg(clientId)}`),
    },
  };
}
