/**
 * The request journal of a store shared by several instances (the PostgreSQL store): every
 * instance adds its partner requests, and each one lists everybody's. The file and memory stores
 * have none: their instance keeps its journal in memory (src/admin/journal.ts).
 */

/** One side of a request's exchange as the journal shows it: secrets masked, the body cut (see src/admin/journal-detail.ts). */
export interface SharedMessage {
  headers: Record<string, string>;
  /** The body as text (a JSON request body as the server parsed it, written out again); null when there was none. */
  body: string | null;
  /** The body was longer than the journal keeps: `body` holds its start. */
  truncated: boolean;
  /** The whole body's size in bytes. */
  bytes: number;
}

/** What the journal keeps of every request. */
interface SharedFields {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  application: string | null;
  /** The request's id in the logs and in the integration report's examples. */
  req_id: string;
}

/** A request as an instance adds it. */
export interface SharedEntry extends SharedFields {
  /** Server time, ms. */
  at: number;
  /**
   * Its headers and bodies, made only when the entry is written (in the background, not on the
   * request's path), and only for the latest ones; null: not kept.
   */
  detail: () => { request: SharedMessage; response: SharedMessage } | null;
}

/** A request as the journal lists it; `id` orders every instance's requests together (GET /__admin/requests). */
export interface SharedListed extends SharedFields {
  id: number;
  at: string;
}

/** An entry with its headers and bodies, both ways (GET /__admin/requests/{id}); null parts once no longer kept. */
export type SharedDetail = SharedListed & { request: SharedMessage | null; response: SharedMessage | null };

export interface SharedJournal {
  /**
   * Queues an entry: written with the others queued within a quarter of a second, in one statement
   * off the request's path. Bounded like the in-memory journal: the latest 1,000 per application,
   * the 200 most recently active applications, headers and bodies for the latest 500.
   */
  add(entry: SharedEntry): void;
  /** Writes what is queued (a list asked for on this instance then holds this instance's requests). */
  flush(): Promise<void>;
  /** Newest first: `application` ('' for requests without one) or every application. */
  list(application: string | undefined, limit: number): Promise<SharedListed[]>;
  /** One entry with its exchange (null parts once no longer kept); undefined when gone. */
  get(id: number): Promise<SharedDetail | undefined>;
  /** Forgets the queued entries of one application ('' for requests without one), or all: it was reset. */
  forget(application?: string): void;
  /** Drops the entries of one application ('' for requests without one), or all. */
  clear(application?: string): Promise<void>;
  /** Counts the batches (and clears) this instance wrote: it changes once the others can see them. */
  readonly written: number;
}
