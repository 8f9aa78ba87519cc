import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import type { ActivityRecord } from '../seed/types.js';
import { renderActivity, type RenderContext } from './activity.render.js';
import { BodyCache } from './body-cache.js';

/** Serialized activities for any endpoint that returns them (search, city, venue, category lists). */
export interface ActivityBodies {
  context(request: FastifyRequest): RenderContext;
  /** One activity as a JSON string for this request. */
  one(a: ActivityRecord, request: FastifyRequest): string;
  /** A JSON array of activities for this request. */
  list(list: readonly ActivityRecord[], request: FastifyRequest): string;
  /**
   * A whole response body, built once per (URL, language, currency, authentication, day): any
   * endpoint whose answer depends only on those and the immutable catalog may use it. `variant`
   * names anything else the answer depends on.
   */
  response(request: FastifyRequest, build: () => string, variant?: string): Buffer;
  /** The day (YYYY-MM-DD, UTC) of an application's clock (see app.now); the server clock's is worked out once per day. */
  today(application?: string): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    activityBodies: ActivityBodies;
  }
}

const DAY = 86_400_000;

async function activityBodiesPlugin(app: FastifyInstance) {
  const { catalog } = app;
  const cache = new BodyCache<string>();
  // Whole responses as bytes, so a hit costs no encoding at all.
  const responses = new BodyCache<Buffer>();
  // Everything a rendered body depends on besides the resource itself.
  const keyOf = (lang: string, fellBack: boolean, currency: string, authenticated: boolean, today: string) =>
    `${lang}|${fellBack ? 1 : 0}|${currency}|${authenticated ? 1 : 0}|${today}`;
  // The server's day, formatted once per day rather than once per request; an application whose
  // clock was moved on its own gets its day worked out each time.
  let day = { start: 0, end: 0, today: '' };
  const today = (application?: string) => {
    if (application !== undefined && app.store.tenant(application).clock_offset_ms !== 0) return app.now(application).toISOString().slice(0, 10);
    const t = app.clock.now().getTime();
    if (t < day.start || t >= day.end) {
      const start = t - (((t % DAY) + DAY) % DAY);
      day = { start, end: start + DAY, today: new Date(start).toISOString().slice(0, 10) };
    }
    return day.today;
  };
  const context = (request: FastifyRequest): RenderContext => {
    const s = request.service;
    const currency = catalog.currencyByCode.get(s.currency);
    if (!currency) throw errors.invalidCurrency('currency', s.currency);
    return {
      lang: s.locale.language,
      locale: s.locale.locale,
      currency,
      authenticated: s.partner !== null,
      today: today(s.application),
    };
  };
  const render = (a: ActivityRecord, ctx: RenderContext, fellBack: boolean) =>
    cache.get(`${a.uuid}|${keyOf(ctx.lang, fellBack, ctx.currency.code, ctx.authenticated, ctx.today)}`, () => {
      const rendered = renderActivity(a, catalog, ctx);
      // A language the catalog lacks is served in English and marked untranslated.
      if (fellBack) rendered.translated = false;
      return JSON.stringify(rendered);
    });
  app.decorate('activityBodies', {
    context,
    one: (a, request) => render(a, context(request), request.service.locale.fellBack),
    list(list, request) {
      const ctx = context(request);
      const fellBack = request.service.locale.fellBack;
      return `[${list.map((a) => render(a, ctx, fellBack)).join(',')}]`;
    },
    response(request, build, variant = '') {
      // From the request's service context directly: no render context is built on a hit.
      const s = request.service;
      const key = `${request.url}|${keyOf(s.locale.language, s.locale.fellBack, s.currency, s.partner !== null, today(s.application))}|${variant}`;
      return responses.get(key, () => Buffer.from(build()));
    },
    today,
  } satisfies ActivityBodies);
}

export default fp(activityBodiesPlugin, { name: 'activity-bodies', fastify: '5.x' });
