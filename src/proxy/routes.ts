import { hash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import activityBodies from '../catalog/activity-bodies.js';
import catalogRoutes from '../catalog/index.js';
import bookingRoutes from '../booking/index.js';
import loginRoutes from '../auth/login.routes.js';
import { headerNames, LATEST_VERSION } from '../http/service-headers.js';
import { resolveLocale } from '../http/locale.js';
import { departures } from './schema-check.js';
import { Upstream, type UpstreamAnswer, type UpstreamOptions } from './upstream.js';
import { Recorder } from './record.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Where the upstream's answer departs from the document (proxy only), for the integration report. */
    upstreamDrift?: string[];
  }
}

export interface ProxyOptions extends UpstreamOptions {
  upstream: string;
  /** A directory to record the upstream's catalog into, or null. */
  record: string | null;
}

type Responses = Record<string, Record<string, unknown>>;
const alwaysValid = () => true;
/** JSON answers larger than this are passed through without being checked or recorded. */
const INSPECT_BYTES = 8 * 1024 * 1024;

/**
 * The partner API of `mock-server proxy`: every request goes to the upstream as it came, and its
 * answer back as it came. The mock's own routes are registered with their schemas and a forwarding
 * handler, so that the journal, the report and the dashboard see the same operations as for mocked
 * traffic; their checks of headers, tokens and values are the upstream's to make, so none runs here.
 */
export default async function proxyRoutes(app: FastifyInstance, opts: ProxyOptions) {
  const upstream = new Upstream(opts.upstream, opts);
  const recorder = opts.record === null ? null : new Recorder(opts.record, (m) => app.log.warn(m), () => app.clock.now().toISOString().slice(0, 10), opts.upstream);
  const base = app.prefix;
  const names = headerNames(app.config.headerPrefix);
  const checked = new Bounded<string[]>(10_000);
  app.addHook('onClose', async () => {
    await recorder?.flush();
    await upstream.close();
  });

  // The journal and the report read the application, version and language from here; nothing is
  // refused: a missing application header is the upstream's to answer.
  app.decorateRequest('service', null as unknown as FastifyRequest['service']);
  app.addHook('onRequest', (request, _reply, done) => {
    const h = request.headers;
    const application = single(h[names.application]);
    if (application !== undefined) {
      request.service = { application, currency: single(h[names.currency]) ?? '', market: single(h[names.market]) ?? '', version: single(h[names.version]) ?? LATEST_VERSION, locale: resolveLocale(single(h['accept-language'])), partner: null };
    }
    done();
  });
  // Bodies go on as the bytes that came: any type, no depth check, no schema.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : null;
    // Observers (the journal, the report's field checks) see a JSON body parsed.
    if (raw?.length && /json/i.test(String(request.headers['content-type']))) {
      try {
        request.body = JSON.parse(raw.toString('utf8'));
      } catch {
        // not JSON after all: the report sees the bytes
      }
    }
    const answer = await upstream.send(request.method, request.url.slice(base.length) || '/', request.headers, raw);
    reply.code(answer.status).headers(answer.headers).send(answer.body);
    // After the answer is written: checking and recording cost the partner no wait.
    inspect(request, answer);
    return reply;
  };

  function inspect(request: FastifyRequest, answer: UpstreamAnswer) {
    const route = request.routeOptions.url;
    const ok = answer.status >= 200 && answer.status < 300;
    // The same bytes depart the same way: a catalog answer repeats, and parsing and checking it again
    // was most of what the proxy cost a request. Not when recording (every answer is read) or for
    // errors (the report reads their {code, message}).
    const key = route !== undefined && ok && !recorder ? `${request.method} ${route} ${answer.status} ${hash('sha1', answer.body, 'base64')}` : null;
    const found = key === null ? undefined : checked.get(key);
    if (found) {
      if (found.length) request.upstreamDrift = found;
      return;
    }
    const body = jsonBody(answer);
    if (body === undefined) return;
    const e = body as { code?: unknown; message?: unknown } | null;
    if (answer.status >= 400 && e && typeof e === 'object' && e.message !== undefined) request.apiError = { code: String(e.code ?? '?'), message: String(e.message) };
    if (route === undefined) return;
    const departed = departures(responsesOf(request.method, route, request.routeOptions.schema as { response?: Responses } | undefined), answer.status, body);
    if (key !== null) checked.set(key, departed);
    if (departed.length) request.upstreamDrift = departed;
    if (recorder && ok) recorder.observe(`${request.method} ${route.slice(base.length)}`, request, body);
  }

  // What /docs/json says each operation answers: the routes' own schemas (the 2xx bodies, inline)
  // over the document's, which adds the errors every operation may answer.
  let documented: Map<string, Responses> | undefined;
  const responsesOf = (method: string, route: string, schema: { response?: Responses } | undefined): Responses => {
    documented ??= new Map(
      Object.entries((app as unknown as { swagger(): { paths?: Record<string, Record<string, { responses?: Responses }>> } }).swagger().paths ?? {}).flatMap(([path, item]) =>
        Object.entries(item).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op.responses ?? {}] as const),
      ),
    );
    return { ...documented.get(`${method} ${route.slice(base.length).replace(/:(\w+)/g, '{$1}')}`), ...schema?.response };
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    route.handler = forward;
    route.validatorCompiler = () => alwaysValid;
    for (const hook of ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse'] as const) delete route[hook];
  });
  await app.register(activityBodies);
  await app.register(loginRoutes);
  await app.register(catalogRoutes);
  await app.register(bookingRoutes);
  // Paths the document does not have go to the upstream too (the report counts them as unknown routes).
  app.setNotFoundHandler(forward);
}

/** Departures found per answer (by its digest), at most `max`: the oldest go first. */
class Bounded<V> {
  readonly #map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    return this.#map.get(key);
  }
  set(key: string, value: V): void {
    this.#map.set(key, value);
    if (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value as string);
  }
}

function single(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

/** The answer's JSON, decoded as sent (gzip, br, deflate); undefined when it is not JSON or too large. */
function jsonBody(answer: UpstreamAnswer): unknown {
  if (!/json/i.test(String(answer.headers['content-type'] ?? '')) || answer.body.length === 0 || answer.body.length > INSPECT_BYTES) return undefined;
  try {
    const encoding = String(answer.headers['content-encoding'] ?? '').toLowerCase();
    const bytes = encoding === 'gzip' ? gunzipSync(answer.body) : encoding === 'br' ? brotliDecompressSync(answer.body) : encoding === 'deflate' ? inflateSync(answer.body) : answer.body;
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
