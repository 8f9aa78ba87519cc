import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clip } from '../http/errors.js';
import { attributedApplication, headerNames } from '../http/service-headers.js';
import { TOKEN_LIFETIME_S } from '../auth/tokens.js';
import { isPartnerUrl } from '../admin/journal.js';
import type { Order } from '../booking/records.js';
import { AppBook, type Answer, type RawExample, type Report } from './book.js';
import { ReportBooks, UNATTRIBUTED } from './books.js';
import { BOOKING_OPS, bookingRules } from './booking-rules.js';
import { fieldChecks, schemaFields, type Fields } from './fields.js';
import { LISTING, STEP_OF, type FindingId, type Step } from './findings.js';
import { classify, normalize } from './refusals.js';

export { FINDINGS, STEPS, ERROR_PATHS, type FindingId, type Severity } from './findings.js';
export type { Report, Finding, Example } from './book.js';
export { UNATTRIBUTED } from './books.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The integration report: what each application's client does, and gets wrong. null with --report off. */
    integrationReport: { get(application: string): Report; applications(): string[]; flush(): Promise<void> } | null;
  }
}

const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;
type Params = Record<string, string | undefined>;
type SchemaWithFields = { querystring?: Parameters<typeof schemaFields>[0]; body?: Parameters<typeof schemaFields>[0]; deprecated?: boolean };
interface RouteInfo {
  op: string;
  shown: string;
  step: Step | undefined;
  /** A booking operation bookingRules() looks at (kept off the catalog's hot path). */
  booking: boolean;
  deprecated: boolean;
  query: Fields | null;
  body: Fields | null;
}

/** Findings about a request's headers, whatever its operation: the others are noted with the operation they were met on. */
const REQUEST_WIDE = new Set<FindingId>(['no-version-header', 'unknown-version', 'unsupported-locale']);

/** Fields the vendor's order request takes beyond what the mock reads (accepted, not modelled), and the deprecated ones. */
const BODY_EXTRA: Record<string, { known: string[]; deprecated: string[] }> = { 'POST /orders': { known: ['channel', 'sms_notification_to', 'cart_id'], deprecated: ['cart_id'] } };

/**
 * Observes every partner request per application, after it was answered (it never changes an
 * answer), and every webhook attempt: findings and coverage for GET /__admin/report. Every 4xx
 * counts toward a finding named by its reason (refusals.ts), carrying the server's message. Memory
 * is bounded (books.ts): aggregates per finding, per step and per error path, and a few bounded sets.
 */
async function reportPlugin(app: FastifyInstance, opts: { basePath: string; headerPrefix: string; enabled: boolean }) {
  if (!opts.enabled) {
    app.decorate('integrationReport', null);
    return;
  }
  const books = new ReportBooks(app.store, (m) => app.log.warn(m));
  const names = headerNames(opts.headerPrefix);
  const base = opts.basePath === '/' ? '' : opts.basePath;
  const now = () => app.clock.now();

  const routes = new Map<string, RouteInfo>();
  /** What a route's requests have in common: its operation (as matched and as the docs write it), its step and the fields its schemas know. */
  const routeInfo = (request: FastifyRequest): RouteInfo => {
    const key = `${request.method} ${request.routeOptions.url ?? ''}`;
    let info = routes.get(key);
    if (!info) {
      const route = (request.routeOptions.url ?? '').slice(base.length) || request.url.split('?')[0] || '';
      const op = `${request.method} ${route}`;
      const schema = request.routeOptions.schema as SchemaWithFields | undefined;
      info = {
        op, shown: op.replace(/:(\w+)/g, '{$1}'), step: STEP_OF[op] ?? (LISTING.test(op) ? 'search' : undefined), booking: BOOKING_OPS.has(op), deprecated: schema?.deprecated === true,
        query: schemaFields(schema?.querystring), body: schemaFields(schema?.body, BODY_EXTRA[op]?.known),
      };
      for (const f of BODY_EXTRA[op]?.deprecated ?? []) info.body?.deprecated.add(f);
      // Unknown URLs (no route) share the one entry of their method.
      if (request.routeOptions.url) routes.set(key, info);
    }
    return info;
  };

  /** The application of a request: its header, else the one its valid token was issued to, else the unattributed entry. */
  const applicationOf = (request: FastifyRequest): string => {
    // In a shared sandbox a name alone does not count (attributedApplication says why).
    const header = app.config.shared ? undefined : request.headers[names.application];
    const value = (Array.isArray(header) ? header[0] : header)?.trim();
    if (value) return value;
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const holder = token ? app.tokenHolder(token) : undefined;
    return holder && 'application' in holder ? holder.application : UNATTRIBUTED;
  };

  const observe = (request: FastifyRequest, reply: FastifyReply) => {
    const status = reply.statusCode;
    if (request.url.startsWith('/voucher/view/') && status === 200) {
      const found = app.orderItems.find((request.params as Params).itemUuid ?? '');
      if (found) books.of(found.application, now).step('voucher PDF');
      return;
    }
    if (!isPartnerUrl(request.url, opts.basePath)) return;
    const application = (request.service ? attributedApplication(request, reply) : null) ?? applicationOf(request);
    // Every request passes here: what does not depend on it is computed once per route, the
    // example of a finding only when there is one, the time only when something needs it.
    let atDate: Date | undefined;
    const at = () => (atDate ??= app.now(application));
    let example: RawExample | undefined;
    const book = books.of(application, at);
    book.requests++;
    books.touched(application);
    const info = routeInfo(request);
    const { op, shown } = info;
    const note = (id: FindingId, detail?: string, extra?: { key?: string; group?: string; operation?: string; answer?: Answer }) => {
      example ??= { method: request.method, url: request.url, reqId: request.id as string, at: at().getTime() };
      book.note(id, example, detail ?? null, REQUEST_WIDE.has(id) ? extra : { operation: shown, ...extra });
    };
    const params = (request.params ?? {}) as Params;
    // mock-server proxy: where the upstream's answer departed from the document (src/proxy/schema-check.ts).
    for (const d of request.upstreamDrift ?? []) note('upstream-schema-drift', `${shown} ${status}: ${d}`, { key: `${shown} ${status} ${d.replace(/ \((got|body) .*$/, '')}`, operation: shown });

    const version = request.headers[names.version];
    if (version === undefined) note('no-version-header');
    else if (version !== book.versionSeen) {
      // A pattern test once per change of version, not per request.
      if (typeof version === 'string' && /^\s*3\.[0-5]\.\d+\s*$/.test(version)) book.versionSeen = version;
      else if (request.service) note('unknown-version', String(version).slice(0, 20), { group: '' });
    }
    if (request.service?.locale.fellBack) note('unsupported-locale', String(request.headers['accept-language']).slice(0, 40), { group: '' });
    if (info.deprecated) note('deprecated-operation', shown);
    const query = request.query as Record<string, unknown> | undefined;
    if (query && 'access_token' in query) note('token-in-query', shown);
    if (info.query) fieldChecks(info.query, query, 'parameter', shown, note);
    if (info.body && request.body !== undefined) fieldChecks(info.body, request.body, 'field', shown, note);

    // Refund policies are read when they answer 404 ("this item has none") too; so are participant schemas.
    if (op === 'GET /orders/:orderUuid/items/:orderItemUuid/refund-policies' && (status === 200 || status === 404)) book.remember(book.refundPoliciesRead, params.orderItemUuid ?? '');
    if (op === 'GET /carts/:cartUuid/items/:cartItemUuid/participants/schema' && (status === 200 || status === 404)) book.remember(book.participantsSchemaRead, params.cartItemUuid ?? '');
    if (request.forced) book.errorPath(request.forced === 'fault' ? 'injected fault' : 'Prefer header');
    if (status >= 400 && status < 500) {
      book.errorPath('4xx answered');
      if (!request.forced) refused(request, status, info, book, note);
      return;
    }
    book.failed(null);
    if (status >= 300) return;

    if (info.step) book.step(info.step);
    if (op === 'POST /login') login(book, at().getTime(), note);
    else if (op === 'GET /orders/:orderUuid') {
      const order = app.store.tenant(application).orders[params.orderUuid ?? ''] as unknown as Order | undefined;
      if (order?.items.some((x) => x.status === 'OK')) book.step('order read with voucher links');
      book.orderSeen(params.orderUuid ?? '');
      if (book.poll(params.orderUuid ?? '', at().getTime())) note('order-polling');
    } else if (info.booking && request.service) bookingRules(app, request, op, book, note);
  };

  /** A 4xx (not forced): the finding of its reason, with the server's answer; and the retry loop. */
  function refused(request: FastifyRequest, status: number, info: RouteInfo, book: AppBook, note: (id: FindingId, detail?: string, extra?: { key?: string; operation?: string; answer?: Answer }) => void) {
    const err = request.apiError ?? { code: '?', message: '' };
    const routed = request.routeOptions.url !== undefined;
    const operation = routed ? info.shown : `${request.method} ${request.url.split('?')[0] ?? ''}`;
    const id = classify({ method: request.method, operation, routed, status, code: err.code, message: err.message, ...(err.validation ? { validation: err.validation } : {}) });
    if (id === null) {
      book.failed(null);
      return;
    }
    const answer = { status, code: err.code, message: clip(err.message, 300) };
    note(id, `${operation}: ${status} "${clip(err.message, 200)}"`, { key: `${operation}\u001f${status} ${err.code} ${normalize(err.message)}`, operation, answer });
    let body = '';
    try {
      body = JSON.stringify(request.body ?? null).slice(0, 2000);
    } catch {
      // A body that does not serialize is not one a client resends as is.
    }
    if (book.failed(`${request.method} ${request.url} ${body} ${status} ${err.code}`)) note('retry-without-change', `${operation}: ${status} "${clip(err.message, 120)}"`, { key: operation, operation, answer });
  }

  /** More than 3 logins within one token lifetime: the client does not keep its token. */
  function login(book: AppBook, t: number, note: (id: FindingId) => void) {
    book.logins = [...book.logins.filter((x) => t - x < TOKEN_LIFETIME_S * 1000), t].slice(-10);
    if (book.logins.length > 3) note('token-not-reused');
  }

  app.addHook('onResponse', (request, reply, done) => {
    observe(request, reply);
    done();
  });

  app.webhooks.observe((d, attempt, next) => {
    const book = books.of(d.application, now);
    books.touched(d.application);
    const example: RawExample = { method: 'POST', url: `webhook ${d.id} (order item ${d.order_item_uuid}, ${d.payload.order_item_status})`, reqId: d.id, at: Date.parse(attempt.at) };
    if (attempt.status_code === 200) {
      book.step('webhook answered 200');
      book.orderSeen(d.payload.order_uuid);
    }
    if (attempt.status_code === 200 && attempt.duration_ms > 5000) book.note('webhook-slow', example, `${Math.round(attempt.duration_ms)} ms`, { group: '' });
    if (next.state === 'failed' && !attempt.chaos) {
      book.note('webhook-failed', example, attempt.status_code !== undefined ? `the last attempt was answered ${attempt.status_code}` : `the last attempt: ${attempt.error ?? 'no answer'}`);
    }
  });

  app.store.onReset((application) => books.clear(application));
  // Before the store closes (its onClose hook was added first, so it runs after this one).
  app.addHook('onClose', async () => books.flush());
  app.decorate('integrationReport', {
    // An application not seen yet gets an empty report (no requests, nothing covered). The name is
    // the client's input (a header, a query value): a 15 KB one came back whole.
    get: (application: string) => {
      const unattributed = application === UNATTRIBUTED ? 0 : (books.get(UNATTRIBUTED)?.requests ?? 0);
      return (books.get(application) ?? new AppBook(now().toISOString())).report(clip(application), opts.headerPrefix, unattributed);
    },
    applications: () => books.applications(),
    flush: () => books.flush(),
  });
}

export default fp(reportPlugin, { name: 'report', dependencies: ['store', 'webhooks', 'order-items'], fastify: '5.x' });
