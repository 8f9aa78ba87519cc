import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clip } from '../http/errors.js';
import { headerNames } from '../http/service-headers.js';
import { TOKEN_LIFETIME_S } from '../auth/tokens.js';
import { isPartnerUrl } from '../admin/journal.js';
import type { Order } from '../booking/records.js';
import { AppBook, ReportBooks, type RawExample, type Report } from './book.js';
import type { FindingId, Step } from './findings.js';

export { FINDINGS, STEPS, ERROR_PATHS, type FindingId, type Severity } from './findings.js';
export type { Report, Finding, Example } from './book.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The integration report: what each application's client does, and gets wrong. null with --report off. */
    integrationReport: { get(application: string): Report; applications(): string[] } | null;
  }
}

/** Partner operations (method and route below the base path) that are a step of a booking once answered 2xx. */
const STEP_OF: Record<string, Step> = {
  'POST /login': 'login',
  'GET /activities': 'search',
  'GET /activities/:activityUuid/dates': 'dates',
  'GET /activities/:activityUuid/dates/:day': 'day schedule',
  'POST /carts': 'cart',
  'POST /carts/:cartUuid/items': 'add item',
  'GET /carts/:cartUuid/customer/schema': 'customer schema',
  'PUT /carts/:cartUuid/customer': 'customer info',
  'PUT /carts/:cartUuid/items/:cartItemUuid/participants': 'participants',
  'POST /orders': 'order',
  'POST /payments/no/payment': 'no-payment',
  'GET /orders/:orderUuid/activities/:activityUuid/voucher': 'voucher PDF',
  'GET /orders/:orderUuid/items/:orderItemUuid/refund-policies': 'refund policies',
  'DELETE /orders/:orderUuid/items/:orderItemUuid': 'cancellation',
  'GET /orders/:orderUuid/refunds': 'refunds read',
};

type Params = Record<string, string | undefined>;
type PropertiesSchema = { properties?: Record<string, unknown>; additionalProperties?: unknown; items?: PropertiesSchema; anyOf?: PropertiesSchema[] };

/**
 * Names of an object schema's properties (of an array's items, or of any branch of a union); null
 * when there is nothing to compare with, or when the schema takes any field on purpose
 * (additionalProperties: true, as the customer's, which its cart's schema decides).
 */
function knownFields(schema: PropertiesSchema | undefined): Set<string> | null {
  if (!schema || schema.additionalProperties === true) return null;
  if (schema.properties) return new Set(Object.keys(schema.properties));
  for (const s of [schema.items, ...(schema.anyOf ?? [])]) {
    const known = knownFields(s);
    if (known) return known;
  }
  return null;
}

/** The first five names a client sent that the schema does not know, each clipped: they are its input. */
const names = (extra: string[]) => extra.slice(0, 5).map((k) => clip(k)).join(', ');

function unknownKeys(value: unknown, known: Set<string>): string[] {
  const out: string[] = [];
  const check = (o: unknown) => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return;
    for (const k of Object.keys(o)) if (!known.has(k) && !out.includes(k)) out.push(k);
  };
  if (Array.isArray(value)) value.forEach(check);
  else check(value);
  return out;
}

/**
 * Observes every partner request per application, after it was answered (it never changes an
 * answer), and every webhook attempt: findings and coverage for GET /__admin/report. Memory is
 * bounded: aggregates per finding, per step and per error path; a few bounded sets for the findings
 * that need to remember (refund policies read, customer schemas read, logins, polls).
 */
async function reportPlugin(app: FastifyInstance, opts: { basePath: string; headerPrefix: string; enabled: boolean }) {
  if (!opts.enabled) {
    app.decorate('integrationReport', null);
    return;
  }
  const books = new ReportBooks();
  const version = headerNames(opts.headerPrefix).version;
  const base = opts.basePath === '/' ? '' : opts.basePath;
  const now = () => app.clock.now();

  const routes = new Map<string, { op: string; shown: string; query: Set<string> | null; body: Set<string> | null }>();
  /** What a route's requests have in common: its operation (as matched and as the docs write it) and the fields its schemas know. */
  const routeInfo = (request: FastifyRequest) => {
    const key = `${request.method} ${request.routeOptions.url ?? ''}`;
    let info = routes.get(key);
    if (!info) {
      const route = (request.routeOptions.url ?? '').slice(base.length) || request.url.split('?')[0] || '';
      const op = `${request.method} ${route}`;
      const schema = request.routeOptions.schema as { querystring?: PropertiesSchema; body?: PropertiesSchema } | undefined;
      info = { op, shown: op.replace(/:(\w+)/g, '{$1}'), query: knownFields(schema?.querystring), body: knownFields(schema?.body) };
      // Unknown URLs (no route) share the one entry of their method.
      if (request.routeOptions.url) routes.set(key, info);
    }
    return info;
  };

  const observe = (request: FastifyRequest, reply: FastifyReply) => {
    const status = reply.statusCode;
    if (request.url.startsWith('/voucher/view/') && status === 200) {
      const found = app.orderItems.find((request.params as Params).itemUuid ?? '');
      if (found) books.of(found.application, now).step('voucher PDF');
      return;
    }
    if (!isPartnerUrl(request.url, opts.basePath)) return;
    const application = request.service?.application;
    if (!application) return;
    // Every request passes here: what does not depend on it is computed once per route, the
    // example of a finding only when there is one, the time only when something needs it.
    let atDate: Date | undefined;
    const at = () => (atDate ??= now());
    let example: RawExample | undefined;
    const book = books.of(application, at);
    book.requests++;
    const { op, shown, query, body } = routeInfo(request);
    const note = (id: FindingId, detail?: string) => {
      example ??= { method: request.method, url: request.url, reqId: request.id as string, at: at().getTime() };
      book.note(id, example, detail ?? null);
    };
    const params = (request.params ?? {}) as Params;
    const err = request.apiError;

    if (request.headers[version] === undefined) note('no-version-header');
    if (request.service.locale.fellBack) note('unsupported-locale', String(request.headers['accept-language']).slice(0, 40));
    if (query) {
      const extra = unknownKeys(request.query, query);
      if (extra.length) note('unknown-query-parameter', `${names(extra)} on ${shown}`);
    }
    if (body && request.body !== undefined) {
      const extra = unknownKeys(request.body, body);
      if (extra.length) note('unknown-body-field', `${names(extra)} on ${shown}`);
    }

    // Refund policies are read when they answer 404 ("this item has none") too.
    if (op === 'GET /orders/:orderUuid/items/:orderItemUuid/refund-policies' && (status === 200 || status === 404)) book.refundPoliciesRead.add(params.orderItemUuid ?? '');
    if (request.forced) book.errorPath(request.forced === 'fault' ? 'injected fault' : 'Prefer header');
    if (status >= 400 && status < 500) {
      book.errorPath('4xx answered');
      note('client-error', `${shown} ${status} code ${err?.code ?? '?'}`);
      const v = err?.validation;
      if (v?.keyword === 'enum') note('value-outside-enum', `${v.context} "${v.field}" of ${shown}`);
      if (v?.keyword === 'required' && v.context === 'body') note('missing-body-field', `"${v.field}" of ${shown}`);
      if (err && /this path takes its uuid/.test(err.message)) note('code-for-uuid', shown);
      if (err && /"language" (must be one of|is required)/.test(err.message)) note('language-not-offered', shown);
      if (status === 401 && err && /^Access token expired/.test(err.message)) note('expired-token');
      return;
    }
    if (status >= 300) return;

    const step = STEP_OF[op];
    if (step) book.step(step);
    switch (op) {
      case 'POST /login':
        login(book, at().getTime(), note);
        break;
      case 'GET /carts/:cartUuid/customer/schema':
        book.customerSchemaRead.add(params.cartUuid ?? '');
        break;
      case 'PUT /carts/:cartUuid/customer':
        if (!book.customerSchemaRead.has(params.cartUuid ?? '')) note('customer-without-schema');
        break;
      case 'DELETE /orders/:orderUuid/items/:orderItemUuid':
        if (!book.refundPoliciesRead.has(params.orderItemUuid ?? '')) note('cancel-without-refund-policies');
        break;
      case 'GET /orders/:orderUuid': {
        const order = app.store.tenant(application).orders[params.orderUuid ?? ''] as unknown as Order | undefined;
        if (order?.items.some((x) => x.status === 'OK')) book.step('order read with voucher links');
        if (book.poll(params.orderUuid ?? '', at().getTime())) note('order-polling');
        break;
      }
    }
  };

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
    const example: RawExample = { method: 'POST', url: `webhook ${d.id} (order item ${d.order_item_uuid}, ${d.payload.order_item_status})`, reqId: d.id, at: Date.parse(attempt.at) };
    if (attempt.status_code === 200) book.step('webhook answered 200');
    if (attempt.status_code === 200 && attempt.duration_ms > 5000) book.note('webhook-slow', example, `${Math.round(attempt.duration_ms)} ms`);
    if (next.state === 'failed' && !attempt.chaos) {
      book.note('webhook-failed', example, attempt.status_code !== undefined ? `the last attempt was answered ${attempt.status_code}` : `the last attempt: ${attempt.error ?? 'no answer'}`);
    }
  });

  app.store.onReset((application) => books.clear(application));
  app.decorate('integrationReport', {
    // An application not seen yet gets an empty report (no requests, nothing covered). The name is
    // the client's input (a header, a query value): a 15 KB one came back whole.
    get: (application: string) => (books.get(application) ?? new AppBook(now().toISOString())).report(clip(application)),
    applications: () => books.applications(),
  });
}

export default fp(reportPlugin, { name: 'report', dependencies: ['store', 'webhooks', 'order-items'], fastify: '5.x' });
