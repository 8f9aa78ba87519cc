import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from './errors.js';
import { resolveLocale, type ResolvedLocale } from './locale.js';

/** The spec's X-Service-Version pattern, kept as written (its dot matches any character). */
const VERSION_PATTERN = /^[0-9]+?.[0-9]+?.[0-9]+?$/;
export const LATEST_VERSION = '3.5.0';
export const STABLE_VERSION = '3.4.0';

/** What the common request headers resolved to, for handlers to read. */
export interface ServiceContext {
  application: string;
  currency: string;
  market: string;
  /** The requested version, or the latest when the header is absent. */
  version: string;
  locale: ResolvedLocale;
  /** The authenticated partner (bearer token checked by the auth plugin), or null. */
  partner: Partner | null;
}

export interface Partner {
  clientId: string;
  scopes: string[];
}

export interface ServiceHeadersOptions {
  prefix: string;
  currencies: readonly string[];
  /** Market slug -> its default currency. */
  markets: ReadonlyMap<string, string>;
}

/**
 * The application a partner request counts for in the journal, the integration report and a
 * certification run: the one it named. In a shared sandbox (--shared) anyone may name any application,
 * so a request counts for it only with a token bound to it (or the operator's), or as a login or
 * refresh that its credentials got answered: a stranger's requests, refused or not, leave nothing in
 * another partner's journal, report or evidence.
 */
export function attributedApplication(request: FastifyRequest, reply: FastifyReply): string | null {
  const s = request.service as ServiceContext | undefined;
  if (!s) return null;
  const credentials = request.routeOptions.config.ignoreBearer === true && reply.statusCode < 400;
  return s.partner || credentials || !request.server.config.shared ? s.application : null;
}

declare module 'fastify' {
  interface FastifyRequest {
    service: ServiceContext;
  }
}

/** Header names for a prefix, lower-cased as Node delivers them. */
export function headerNames(prefix: string) {
  const p = prefix.toLowerCase();
  return {
    application: `${p}application`,
    currency: `${p}currency`,
    market: `${p}market`,
    version: `${p}version`,
  };
}

/**
 * Applies the spec's "Common request headers" rules to every route registered in the scope that
 * registers this plugin (the partner API), with the configured vendor prefix.
 */
async function serviceHeaders(app: FastifyInstance, opts: ServiceHeadersOptions) {
  const names = headerNames(opts.prefix);
  const display = {
    application: `${opts.prefix}Application`,
    currency: `${opts.prefix}Currency`,
    market: `${opts.prefix}Market`,
    version: `${opts.prefix}Version`,
  };
  const currencies = new Set(opts.currencies);

  /** The request's context, or throws the real API's error for the first header that breaks a rule. */
  const resolve = (h: FastifyRequest['headers']): ServiceContext => {
    const application = single(h[names.application]);
    if (!application) throw errors.applicationRequired(display.application);

    const marketHeader = single(h[names.market]);
    const market = marketHeader === undefined ? 'us' : marketHeader.toLowerCase();
    const marketCurrency = opts.markets.get(market);
    if (marketCurrency === undefined) throw errors.invalidMarket(display.market, marketHeader ?? '');

    const currencyHeader = single(h[names.currency]);
    const currency = currencyHeader === undefined ? marketCurrency : currencyHeader.toUpperCase();
    if (!currencies.has(currency)) throw errors.invalidCurrency(display.currency, currencyHeader ?? '');

    const versionHeader = single(h[names.version]);
    if (versionHeader !== undefined && !VERSION_PATTERN.test(versionHeader)) {
      throw errors.invalidVersion(display.version, versionHeader);
    }
    return {
      application,
      currency,
      market,
      version: versionHeader ?? LATEST_VERSION,
      locale: resolveLocale(single(h['accept-language'])),
      partner: null,
    };
  };

  app.decorateRequest('service', null as unknown as ServiceContext);
  // A callback hook, not an async one: this runs on every partner request and a promise per hook shows.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      request.service = resolve(request.headers);
    } catch (e) {
      return done(e as Error);
    }
    done();
  });
}

function single(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

/** Compares dotted versions numerically: negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/\D/).map(Number);
  const pb = b.split(/\D/).map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export default fp(serviceHeaders, { name: 'service-headers', fastify: '5.x' });
