import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../http/errors.js';
import { ApplicationQuery } from './docs.js';
import { Type, type Static } from 'typebox';

export interface JournalEntry {
  /** Order of arrival, across applications. */
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

declare module 'fastify' {
  interface FastifyInstance {
    journal: {
      list(application?: string, limit?: number): JournalEntry[];
      clear(application?: string): void;
      /** The id of the latest entry (0 before any): it changes with every partner request. */
      latest(): number;
    };
  }
}

const KEEP = 1000;
/** Applications whose journal is kept: the least recently active go first, so memory stays bounded however many names clients send. */
export const KEEP_APPLICATIONS = 200;

type Recorded = Omit<JournalEntry, 'at' | 'duration_ms'> & { at: number; elapsed: number };

/**
 * Whether a URL belongs to the partner API. The control API and the docs never count, even with
 * `--base-path /` where every URL starts with the base path; `/api/v3x` is not under `/api/v3`.
 */
export function isPartnerUrl(url: string, basePath: string): boolean {
  if (url.startsWith('/__admin') || url.startsWith('/docs')) return false;
  if (basePath === '/') return true;
  return url.startsWith(basePath) && (url.length === basePath.length || '/?'.includes(url.charAt(basePath.length)));
}

/**
 * The request journal: every partner API request, newest first, per application (the last KEEP of
 * each of the KEEP_APPLICATIONS most recently active). Kept in memory on purpose: writing it through
 * the store would make every request wait for a disk flush.
 */
async function journalPlugin(app: FastifyInstance, opts: { basePath: string }) {
  // Entries keep the server time as a number and become JournalEntry objects only when listed:
  // formatting a date on every request showed in the hot path's profile.
  const byApp = new Map<string, Recorded[]>();
  let seq = 0;
  app.addHook('onResponse', (request, reply, done) => {
    if (isPartnerUrl(request.url, opts.basePath)) {
      const application = request.service?.application ?? null;
      const key = application ?? '';
      const list = byApp.get(key) ?? [];
      list.push({ id: ++seq, at: app.clock.now().getTime(), method: request.method, path: request.url, status: reply.statusCode, elapsed: reply.elapsedTime, application, req_id: String(request.id) });
      // Deleted and set again: a Map keeps insertion order, so its first key is the least recently active.
      byApp.delete(key);
      // Trimmed in chunks: dropping one entry per request would shift the whole array every time.
      byApp.set(key, list.length > 2 * KEEP ? list.slice(-KEEP) : list);
      if (byApp.size > KEEP_APPLICATIONS) byApp.delete(byApp.keys().next().value as string);
    }
    done();
  });
  // POST /__admin/reset drops all mutable state: the journal of that application (or all) too.
  app.store.onReset((application) => (application === null ? byApp.clear() : byApp.delete(application)));
  app.decorate('journal', {
    list(application, limit = 100) {
      const keep = (l: Recorded[]) => l.slice(-KEEP);
      const all = application === undefined ? [...byApp.values()].flatMap(keep) : keep(byApp.get(application) ?? []);
      return all
        .sort((a, b) => b.id - a.id)
        .slice(0, limit)
        .map(({ at, elapsed, ...r }) => ({ ...r, at: new Date(at).toISOString(), duration_ms: Math.round(elapsed * 100) / 100 }));
    },
    clear(application) {
      if (application === undefined) byApp.clear();
      else byApp.delete(application);
      seq++; // so that latest() tells watchers (the dashboard) that the journal changed
    },
    latest: () => seq,
  });
}

export const journal = fp(journalPlugin, { name: 'journal', dependencies: ['store'], fastify: '5.x' });

const Query = Type.Object({ application: Type.Optional(Type.String()), limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }) });

/** GET and DELETE /__admin/requests. */
export default async function journalRoutes(app: FastifyInstance) {
  app.get<{ Querystring: Static<typeof Query> }>('/requests', { schema: { summary: 'List partner API requests', description: 'Newest first: the last 1000 of each application, `limit` of them (default 100).', querystring: Query, response: errorResponses({ 400: 'A bad limit' }) } }, async (request) => ({
    requests: app.journal.list(request.query.application, request.query.limit),
  }));
  app.delete<{ Querystring: { application?: string } }>(
    '/requests',
    { schema: { summary: 'Clear the request journal', description: 'Of every application, or of `application`. Answers 204.', querystring: ApplicationQuery } },
    async (request, reply) => {
      app.journal.clear(request.query.application);
      return reply.code(204).send();
    },
  );
}
