/**
 * The one catalog of errors the server answers with. Every error body is {code, message}, code a
 * string, as the spec's Error object says. Codes are the real API's where it has one.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Which request value broke which rule, for observers (the integration report). */
    readonly check?: { context: string; keyword: string; field: string },
    /** Fields the body carries besides code and message (what a 409 conflicts with); the route's schema names them. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toJSON(): { code: string; message: string } {
    return { code: this.code, message: this.message, ...this.details };
  }
}

/** The schema of every error body, for the OpenAPI documents. */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'error code, a string even when numeric (e.g. "1400")' },
    message: { type: 'string', description: 'what went wrong, for people' },
  },
} as const;

/**
 * `response` schemas for a route's error statuses, by status with what each means. Errors only: a
 * 2xx schema would make Fastify serialize with it and drop fields; error bodies are {code, message}
 * already, so serializing them with this schema changes nothing.
 */
export function errorResponses(statuses: Record<number, string>) {
  return Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, { description, ...ERROR_SCHEMA }]));
}

/**
 * How many characters of a request value an error message may echo: a UUID, a date, a header value
 * or a short path whole, and no more. With the text around it a message stays under 300 characters.
 */
export const MAX_ECHO = 64;
/** Paths and URLs may echo more: a route's path with two UUIDs in it is some 130 characters. */
export const MAX_ECHO_PATH = 160;

/**
 * A request value as an error message may echo it: at most MAX_ECHO characters, then an ellipsis
 * and the full length, so a 1 MB header or id never comes back as a 1 MB answer.
 */
export function clip(value: unknown, max = MAX_ECHO): string {
  const s = String(value);
  if (s.length <= max) return s;
  // Never cut a surrogate pair in half: the answer must stay valid UTF-16 (and so valid UTF-8).
  const end = /[\uD800-\uDBFF]/.test(s.charAt(max - 1)) ? max - 1 : max;
  return `${s.slice(0, end)}… (${s.length} characters)`;
}

export const errors = {
  /** 400 2271: the application header is required on every request. */
  applicationRequired: (header: string) =>
    new ApiError(400, '2271', `Missing header: ${header.toLowerCase()} is required`),
  /** 400 -1: unknown market code. */
  invalidMarket: (header: string, value: string) =>
    new ApiError(400, '-1', `Invalid market "${clip(value)}" in ${header}`),
  invalidCurrency: (header: string, value: string) =>
    new ApiError(400, '0', `Invalid currency "${clip(value)}" in ${header}: use a code from /currencies`),
  invalidVersion: (header: string, value: string) =>
    new ApiError(400, '0', `Invalid version "${clip(value)}" in ${header}: expected a version like 3.4.0`),
  /** 400 0: an HTTP/1.1 request without Host (Node's own answer had no body). */
  hostRequired: () => new ApiError(400, '0', 'Missing header: host is required in HTTP/1.1 requests'),
  /** 400 0: a request parameter or body failed validation. */
  validation: (message: string) => new ApiError(400, '0', message),
  /** 400 0: a value outside a list the route checks by hand (sort_by and the like), like a schema's enum. */
  outsideList: (context: 'querystring' | 'body', field: string, message: string) => new ApiError(400, '0', message, {}, { context, keyword: 'enum', field }),
  /** 404 1400: resource does not exist. */
  notFound: (message = 'Resource does not exist') => new ApiError(404, '1400', message),
  routeNotFound: (method: string, url: string) =>
    new ApiError(404, '1400', `No route for ${clip(method, 20)} ${clip(url, MAX_ECHO_PATH)}`),
  /** 400 1440: a date range that ends before it starts (or before today). */
  endBeforeStart: () => new ApiError(400, '1440', 'End date cannot be before start date.'),
  /** 404 1402: no schedule for that day, ticket count or pickup. */
  noSchedule: (message: string) => new ApiError(404, '1402', message),
  /** 422 2201: the date is temporarily or permanently unavailable. */
  dateUnavailable: (day: string) =>
    new ApiError(422, '2201', `Dates cannot be fetched: ${day} is unavailable, try another date`),
  /** 409: a voucher cannot be generated (the item is not confirmed). */
  voucherNotReady: (message: string) => new ApiError(409, '0', message),
  /** 409: the item's status does not allow a cancellation. */
  notCancellable: (uuid: string, status: string) =>
    new ApiError(409, '0', `Order item ${clip(uuid)} cannot be cancelled in status ${status}`),
  /**
   * 409 0: POST /__admin/scenarios/{name}/run on an item whose scenario run is still going: a second
   * start would restart it at step 0 and leave the item half-way. `run` describes the run.
   */
  scenarioRunning: (uuid: string, run: { name: string; started_at: string; steps_done: number; steps: number }) =>
    new ApiError(
      409,
      '0',
      `Order item ${clip(uuid)} has scenario ${run.name} running (started ${run.started_at}, ${run.steps_done} of ${run.steps} steps done): no scenario starts on it until that run ends`,
      {},
      undefined,
      { run: { order_item_uuid: uuid, ...run } },
    ),
  /** 409 0: POST /__admin/scenarios/{name}/run on an item in another status than the scenario's `from`. */
  notScenarioStart: (scenario: string, from: string, uuid: string, status: string) =>
    new ApiError(409, '0', `Scenario ${scenario} starts from ${from}; order item ${uuid} is ${status}`),
  /** 423: the order was paid already. */
  alreadyPaid: (uuid: string) => new ApiError(423, '0', `Order ${clip(uuid)} has already been paid`),
  /** 422: no-payment for an order above zero needs the no-payment scope. */
  paymentNotAllowed: () =>
    new ApiError(422, '0', 'The order total is above zero and this client has no no-payment permission'),
  /** 423 -1: a cart connected to an order cannot change. */
  cartLocked: () => new ApiError(423, '-1', "Cart is already connected to order with state 'closed'"),
  /** 403 0: the activity exists but is not published. */
  activityNotAccessible: (uuid: string, status: string) =>
    new ApiError(403, '0', `Activity ${clip(uuid)} is not accessible (status ${status})`),
  /** 401 1401: POST /login refused the client (unknown id, wrong secret, application not allowed). */
  invalidClient: (message: string) => new ApiError(401, '1401', message),
  /** 401 1401: a bearer token that is unknown, expired or issued to another application (RFC 6750 header). */
  invalidToken: (message: string) =>
    new ApiError(401, '1401', message, { 'WWW-Authenticate': 'Bearer realm="mock-server", error="invalid_token"' }),
  /** 401 1401: the endpoint needs a bearer token and none was sent. */
  authenticationRequired: () =>
    new ApiError(401, '1401', 'Authentication required: send Authorization: Bearer <token> (get one from POST /login)', {
      'WWW-Authenticate': 'Bearer realm="mock-server"',
    }),
  /** 401 1401: --shared, and a request that touches an application's state came without a token bound to it. */
  sharedNeedsToken: (application: string) =>
    new ApiError(
      401,
      '1401',
      `This sandbox is shared: acting for application "${clip(application)}" needs its access token: Authorization: Bearer <token> from POST /login, with the client_id and client_secret its operator registered for you`,
      { 'WWW-Authenticate': 'Bearer realm="mock-server"' },
    ),
  /** 403 0: the token lacks a scope the operation needs (callers with a documented status pass their own). */
  missingScope: (scope: string) => new ApiError(403, '0', `The access token lacks the "${scope}" scope`),
  /** 409 0: the order-item lifecycle (INTERFACE.md section 3) forbids this move. */
  forbiddenStatusMove: (from: string, to: string, allowed: readonly string[]) =>
    new ApiError(
      409,
      '0',
      `Order item status cannot move from ${from} to ${to}: ${allowed.length ? `from ${from} it can move to ${allowed.join(', ')}` : `${from} is final`}`,
    ),
  methodNotAllowed: (method: string, url: string) =>
    new ApiError(405, '0', `Method ${clip(method, 20)} is not allowed on ${clip(url, MAX_ECHO_PATH)}`),
  payloadTooLarge: () => new ApiError(413, '0', 'Request body is too large'),
  unsupportedMediaType: (type: string) =>
    new ApiError(415, '0', `Unsupported Content-Type "${clip(type)}": send application/json`),
  /** 401 1401: the control API was started with --admin-token and the request lacks it (or sent another; `why`: a partner token's own refusal, an expired one's). */
  adminToken: (sent: boolean, why?: string) =>
    new ApiError(
      401,
      '1401',
      why ?? `${sent ? "The token sent is neither this server's admin token nor a live partner token" : 'The control API needs the admin token'}: send Authorization: Bearer <admin token> (the server's --admin-token or MOCK_SERVER_ADMIN_TOKEN), or a partner's access token from POST /login for its own application`,
      { 'WWW-Authenticate': `Bearer realm="mock-server-admin"${sent ? ', error="invalid_token"' : ''}` },
    ),
  /**
   * 429: a shared sandbox's request rate (--rate-limit) was used up: an application's (its token's
   * requests), or a source address's (its requests without a token).
   */
  rateLimited: (who: { application: string } | { address: string }, perSecond: number, retryAfterS: number) =>
    new ApiError(
      429,
      '0',
      'application' in who
        ? `Application "${clip(who.application)}" sent more than ${perSecond} requests in a second, the limit per application of this shared sandbox: retry after ${retryAfterS} s`
        : `Address ${clip(who.address)} sent more than ${perSecond} requests without a token in a second, the limit per address of this shared sandbox (a token's requests count for its application alone): retry after ${retryAfterS} s`,
      { 'Retry-After': String(retryAfterS) },
    ),
  /** 429: a source address failed to authenticate too often (src/auth/failures.ts); its credentials are not looked at. */
  tooManyFailures: (address: string, burst: number, retryAfterS: number) =>
    new ApiError(
      429,
      '0',
      `Address ${clip(address)} sent ${burst} wrong credentials (tokens, client secrets) within a minute: none it sends is checked for ${retryAfterS} s more`,
      { 'Retry-After': String(retryAfterS) },
    ),
  /**
   * 409: a control API list is at its documented cap (armed faults, chaos settings). 409, not 400:
   * the request is well-formed and would be taken once the list has room, which the message says how to make.
   */
  atCapacity: (message: string) => new ApiError(409, '0', message),
  /**
   * 429: a shared sandbox's application keeps as many records as it may (--state-limit), after its
   * carts never ordered and its expired tokens were let go: `kept` says what is left, by kind.
   */
  stateFull: (application: string, kept: string, max: number) =>
    new ApiError(
      429,
      '0',
      `Application "${clip(application, 32)}" is full: ${kept} (at most ${max}; unordered carts and expired tokens went first). POST /__admin/reset of it starts afresh, orders included`,
      { 'Retry-After': '3600' },
    ),
  /** 403: a partner's token on a server-wide control operation (a full reset, the server clock, partner registration, …). */
  adminOnly: () =>
    new ApiError(403, '0', "This control operation is server-wide: it needs the admin token. A partner's access token may act on its own application only"),
  /** 409: GET /__admin/report while the server was started with --report off. */
  reportOff: () => new ApiError(409, '0', 'The integration report is off: the server was started with --report off'),
  /** 409: a certification run that cannot do that now (not passed yet, ended, nothing to check an answer against). */
  certification: (message: string) => new ApiError(409, '0', message),
    /** 502: the webhook receiver to check did not answer at all. */
  receiverUnreachable: (message: string) => new ApiError(502, '0', message),
  /** 502: `mock-server proxy` got no whole answer from the upstream (refused, timed out, cut off); the message says which. */
  upstreamFailed: (message: string) => new ApiError(502, '0', message),
    /** 503: the state file did not take the write, so it was not acknowledged (the message says why). */
  notStored: (message: string) => new ApiError(503, '0', message),
    /** 503: the shared database (PostgreSQL store) did not answer or did not take the change; nothing was acknowledged. */
  databaseUnavailable: (message: string) => new ApiError(503, '0', message, { 'retry-after': '1' }),
    /** 503: a request that arrived while the server shuts down (Fastify's own answer had no code). */
  closing: () => new ApiError(503, '0', 'The server is shutting down: send the request again once it is back'),
    /** 500: anything unexpected; the message never carries internals. */
  internal: () => new ApiError(500, '0', 'There was an error'),
} as const;
