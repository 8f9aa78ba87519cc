import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { errorResponses, errors } from '../http/errors.js';
import { attributedApplication } from '../http/service-headers.js';
import { ApplicationQuery } from './docs.js';
import { Type, type Static } from 'typebox';
import { BODY_CAP, capture, KEEP_DETAILS, show, type Captured, type JournalEntry } from './journal-detail.js';
import { redactUrl } from '../redact.js';
import { sharedJournal, type JournalApi } from './journal-shared.js';

export type { JournalDetail, JournalEntry, JournalMessage } from './journal-detail.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer's body as sent, for the journal (set by its onSend hook). */
    journalPayload: unknown;
  }
  interface FastifyInstance {
    journal: JournalApi;
  }
}

const KEEP = 1000;
/** Applications whose journal is kept: the least recently active go first, so memory stays bounded however many names clients send. */
export const KEEP_APPLICATIONS = 200;

/** `exchange`: null once a later request took its place among the latest KEEP_DETAILS. */
type Recorded = Omit<JournalEntry, 'at' | 'duration_ms'> & { at: number; elapsed: number; exchange: Captured | null };

/**
 * Whether a URL belongs to the partner API. The control API, the docs and the certificate keys never count, even with
 * `--base-path /` where every URL starts with the base path; `/api/v3x` is not under `/api/v3`.
 */
export function isPartnerUrl(url: string, basePath: string): boolean {
  if (url.startsWith('/__admin') || url.startsWith('/docs') || url.startsWith('/.well-known/')) return false;
  if (basePath === '/') return true;
  return url.startsWith(basePath) && (url.length === basePath.length || '/?'.includes(url.charAt(basePath.length)));
}

/**
 * The request journal: every partner API request, newest first, per application (the last KEEP of
 * each of the KEEP_APPLICATIONS most recently active). Kept in memory on purpose: writing it through
 * the store would make every request wait for a disk flush. A store shared by several instances
 * keeps it instead, written in the background (journal-shared.ts).
 */
async function journalPlugin(app: FastifyInstance, opts: { basePath: string }) {
  app.decorateRequest('journalPayload', null);
  // Only a reference to the body already serialized: nothing is copied or parsed here.
  app.addHook('onSend', (request, _reply, payload, done) => {
    request.journalPayload = payload;
    done(null, payload);
  });
  if (app.store.journal) {
    app.decorate('journal', sharedJournal(app, app.store.journal, (url) => isPartnerUrl(url, opts.basePath)));
    return;
  }
  // Entries keep the server time as a number and become JournalEntry objects only when listed:
  // formatting a date on every request showed in the hot path's profile.
  const byApp = new Map<string, Recorded[]>();
  // The latest KEEP_DETAILS entries, in a ring by id: an entry keeps its exchange while it holds its
  // slot. One array store per request; every object kept costs garbage collection work.
  const ring: Array<Recorded | undefined> = [];
  let held = 0;
  const release = (e: Recorded | undefined) => {
    held -= e?.exchange?.held ?? 0;
    if (e) e.exchange = null;
  };
  let seq = 0;
  app.addHook('onResponse', (request, reply, done) => {
    if (isPartnerUrl(request.url, opts.basePath)) {
      const application = attributedApplication(request, reply);
      const key = application ?? '';
      const list = byApp.get(key) ?? [];
      const entry: Recorded = { id: ++seq, at: app.clock.now().getTime(), method: request.method, path: redactUrl(request.url), status: reply.statusCode, elapsed: reply.elapsedTime, application, req_id: String(request.id), exchange: null };
      list.push(entry);
      const slot = entry.id % KEEP_DETAILS;
      release(ring[slot]);
      entry.exchange = capture(request, reply, request.journalPayload, held);
      held += entry.exchange.held;
      ring[slot] = entry;
      // Deleted and set again: a Map keeps insertion order, so its first key is the least recently active.
      byApp.delete(key);
      // Trimmed in chunks: dropping one entry per request would shift the whole array every time.
      byApp.set(key, list.length > 2 * KEEP ? list.slice(-KEEP) : list);
      if (byApp.size > KEEP_APPLICATIONS) byApp.delete(byApp.keys().next().value as string);
    }
    done();
  });
  // POST /__admin/reset drops all mutable state: the journal of that application (or all) too.
  const drop = (application?: string | null) => {
    if (application === undefined || application === null) {
      byApp.clear();
      ring.forEach(release);
      ring.length = 0;
      return;
    }
    byApp.delete(application);
    ring.forEach((e, i) => {
      if (e && (e.application ?? '') === application) {
        release(e);
        ring[i] = undefined;
      }
    });
  };
  app.store.onReset((application) => drop(application));
  const shown = ({ at, elapsed, exchange: _, ...r }: Recorded): JournalEntry => ({ ...r, at: new Date(at).toISOString(), duration_ms: Math.round(elapsed * 100) / 100 });
  app.decorate('journal', {
    async list(application, limit = 100) {
      const keep = (l: Recorded[]) => l.slice(-KEEP);
      const all = application === undefined ? [...byApp.values()].flatMap(keep) : keep(byApp.get(application) ?? []);
      return all
        .sort((a, b) => b.id - a.id)
        .slice(0, limit)
        .map(shown);
    },
    async get(id) {
      const kept = ring[id % KEEP_DETAILS];
      if (kept?.id === id && kept.exchange) return { ...shown(kept), ...show(kept.exchange) };
      for (const list of byApp.values()) {
        const entry = list.find((e) => e.id === id);
        // Older than the latest KEEP_DETAILS: its line is in the journal, its exchange is not.
        if (entry && list.length - list.indexOf(entry) <= KEEP) return { ...shown(entry), request: null, response: null };
      }
      return undefined;
    },
    async clear(application) {
      drop(application);
      seq++; // so that latest() tells watchers (the dashboard) that the journal changed
    },
    latest: () => seq,
  });
}

export const journal = fp(journalPlugin, { name: 'journal', dependencies: ['store'], fastify: '5.x' });

const Message = Type.Union(
  [
    Type.Object({
      headers: Type.Record(Type.String(), Type.String(), { description: 'names in lower case; Authorization shows its scheme only (`Bearer ***`), other secret-named headers `***`' }),
      body: Type.Union([Type.String(), Type.Null()], { description: `the body as text, secret fields and query values masked (\`***\`); at most ${BODY_CAP} bytes; null: none` }),
      truncated: Type.Boolean({ description: `the body was longer than ${BODY_CAP} bytes` }),
      bytes: Type.Integer({ description: "the whole body's size in bytes" }),
    }),
    Type.Null(),
  ],
  { description: `null once the journal no longer keeps it (only the latest ${KEEP_DETAILS} requests keep their headers and bodies)` },
);
const Detail = Type.Object({
  id: Type.Integer(),
  at: Type.String(),
  method: Type.String(),
  path: Type.String(),
  status: Type.Integer(),
  duration_ms: Type.Number(),
  application: Type.Union([Type.String(), Type.Null()]),
  req_id: Type.String(),
  request: Message,
  response: Message,
});

const Query = Type.Object({ application: Type.Optional(Type.String()), limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }) });

/** GET and DELETE /__admin/requests. */
export default async function journalRoutes(app: FastifyInstance) {
  app.get<{ Querystring: Static<typeof Query> }>('/requests', { schema: { summary: 'List partner API requests', description: 'Newest first: the last 1000 of each application, `limit` of them (default 100).', querystring: Query, response: errorResponses({ 400: 'A bad limit' }) } }, async (request) => ({
    requests: await app.journal.list(request.query.application, request.query.limit),
  }));
  app.get<{ Params: { id: number }; Querystring: { application?: string } }>(
    '/requests/:id',
    {
      schema: {
        querystring: ApplicationQuery,
        summary: 'One partner API request, with its headers and bodies',
        description: `The journal entry with \`request\` and \`response\`: headers and body each way, secrets masked, bodies cut at ${BODY_CAP} bytes (\`truncated\`). The latest ${KEEP_DETAILS} requests keep them; older entries answer null there.`,
        params: Type.Object({ id: Type.Integer({ minimum: 1, description: 'the entry id of GET /__admin/requests' }) }),
        response: { 200: Detail, ...errorResponses({ 400: 'An id that is not a positive integer', 404: 'The journal has no such entry' }) },
      },
    },
    async (request) => {
      const detail = await app.journal.get(request.params.id);
      const only = request.query.application;
      if (!detail || (only !== undefined && detail.application !== only)) throw errors.notFound(`The request journal has no entry ${request.params.id}`);
      return detail;
    },
  );
  app.delete<{ Querystring: { application?: string } }>(
    '/requests',
    { schema: { summary: 'Clear the request journal', description: 'Of every application, or of `application`. Answers 204.', querystring: ApplicationQuery } },
    async (request, reply) => {
      await app.journal.clear(request.query.application);
      return reply.code(204).send();
    },
  );
}
