import type { FastifyInstance } from 'fastify';
import type { SharedJournal } from '../store/index.js';
import { attributedApplication } from '../http/service-headers.js';
import { redactUrl } from '../redact.js';
import { capture, show, type JournalDetail, type JournalEntry } from './journal-detail.js';

/** What the routes and the dashboard ask of the journal, wherever it is kept. */
export interface JournalApi {
  list(application?: string, limit?: number): Promise<JournalEntry[]>;
  /** One entry with its exchange; undefined when the journal no longer has it. */
  get(id: number): Promise<JournalDetail | undefined>;
  clear(application?: string): Promise<void>;
  /** Changes with every partner request of this instance, and with a clear. */
  latest(): number;
}

/**
 * The journal of a store shared by several instances (PostgreSQL): the database holds it, so every
 * instance lists the requests of all. A request costs what it costs in memory: its exchange is taken
 * by reference, and made into text and written in the background (store/postgres/journal.ts).
 */
export function sharedJournal(app: FastifyInstance, shared: SharedJournal, isPartner: (url: string) => boolean): JournalApi {
  let seq = 0;
  app.addHook('onResponse', (request, reply, done) => {
    if (isPartner(request.url)) {
      // heldNow 0: a body is held by reference only until its batch is written, within a second.
      const exchange = capture(request, reply, request.journalPayload, 0);
      shared.add({
        at: app.clock.now().getTime(),
        method: request.method,
        path: redactUrl(request.url),
        status: reply.statusCode,
        duration_ms: reply.elapsedTime,
        application: attributedApplication(request, reply),
        req_id: String(request.id),
        detail: () => show(exchange),
      });
      seq++;
    }
    done();
  });
  // The store's reset drops the rows (on the instance that resets); requests queued here before it go too.
  app.store.onReset((application) => shared.forget(application ?? undefined));
  return {
    list: (application, limit = 100) => shared.list(application, limit),
    get: (id) => shared.get(id),
    clear: async (application) => {
      await shared.clear(application);
      seq++;
    },
    latest: () => seq,
  };
}
