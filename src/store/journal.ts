/**
 * The request journal of a store shared by several instances (the PostgreSQL store): every
 * instance adds its partner requests, and each one lists everybody's. The file and memory stores
 * have none: their instance keeps its journal in memory (src/admin/journal.ts).
 */

/** One side of a request's exchange as the journal shows it (see src/admin/journal-detail.ts). */
export interface SharedMessage {
  headers: Record<string, string>;
  body: string | null;
  truncated: boolean;
  bytes: number;
}

/** A request as an instance adds it. */
export interface SharedEntry {
  /** Server time, ms. */
  at: number;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  application: string | null;
  req_id: string;
  /**
   * Its headers and bodies, made only when the entry is written (in the background, not on the
   * request's path), and only for the latest ones; null: not kept.
   */
  detail: () => { request: SharedMessage; response: SharedMessage } | null;
}

/** A request as the journal lists it; `id` orders every instance's requests together. */
export interface SharedListed {
  id: number;
  at: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  application: string | null;
  req_id: string;
}

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
  get(id: number): Promise<(SharedListed & { request: SharedMessage | null; response: SharedMessage | null }) | undefined>;
  /** Forgets the queued entries of one application ('' for requests without one), or all: it was reset. */
  forget(application?: string): void;
  /** Drops the entries of one application ('' for requests without one), or all. */
  clear(application?: string): Promise<void>;
  /** Counts the batches (and clears) this instance wrote: it changes once the others can see them. */
  readonly written: number;
}
