import type { Store } from '../store/index.js';
import { AppBook, BoundedSet, type Noted, type Paid, type RawExample } from './book.js';
import type { ErrorPath, Step } from './findings.js';
import { addShare, adopt, baseOf, EMPTY_BASE, type Base } from './merge.js';

/** The entry of requests that carried neither an application header nor a valid token. */
export const UNATTRIBUTED = '(unattributed)';

/** How much of each remembered set a saved report keeps (the newest). */
const KEEP_MEMORY = 500;

interface Summary {
  since: string;
  requests: number;
  steps: Record<string, number>;
  errorPaths: Record<string, number>;
  logins: number[];
  /** The last documented version header the client sent (the version advice names it). */
  version?: string;
}
interface Memory {
  refund: string[];
  customer: string[];
  participants: string[];
  paid: Array<[string, Paid]>;
  unpaid?: Array<[string, RawExample]>;
}

/**
 * A finding apart from the one it copies: its details (`others`) grow as the book notes more, which
 * must not change the store's copy outside a write (nor a stored one the book's).
 */
const copied = (f: Noted): Noted => (f.others ? { ...f, others: [...f.others] } : { ...f });

/**
 * Writes a book's summary, the findings `keys` and (if `memory`) its memory into its tenant's
 * `report` collection (inside store.update). It leaves the book as it is: a write retried on a
 * fresher tenant runs it again.
 */
function save(book: AppBook, report: Record<string, unknown>, keys: Iterable<string>, memory: boolean): void {
  const summary: Summary = { since: book.since, requests: book.requests, steps: Object.fromEntries(book.steps), errorPaths: Object.fromEntries(book.errorPaths), logins: book.logins, ...(book.versionSeen ? { version: book.versionSeen } : {}) };
  report.book = summary;
  for (const key of keys) {
    const f = book.findings.get(key);
    if (f) report[`f:${key}`] = copied(f);
  }
  if (memory) {
    const kept: Memory = { refund: book.refundPoliciesRead.newest(KEEP_MEMORY), customer: book.customerSchemaRead.newest(KEEP_MEMORY), participants: book.participantsSchemaRead.newest(KEEP_MEMORY), paid: [...book.paid].slice(-KEEP_MEMORY), unpaid: [...book.unpaid].slice(-KEEP_MEMORY) };
    report.memory = kept;
  }
}

/** Takes what a book has to save and clears it: what the book notes from now on goes with the next save. */
function pending(book: AppBook): { keys: string[]; memory: boolean } {
  const taken = { keys: [...book.changed], memory: book.memoryChanged };
  book.changed.clear();
  book.memoryChanged = false;
  return taken;
}

/** A save that failed: what it took is to be saved again. */
function restore(book: AppBook, taken: { keys: string[]; memory: boolean }): void {
  for (const key of taken.keys) book.changed.add(key);
  book.memoryChanged ||= taken.memory;
}

/** A book as a saved report left it, or null when there is none (or it is not one). */
function load(report: Readonly<Record<string, unknown>> | undefined): AppBook | null {
  const s = report?.book as Summary | undefined;
  if (!report || typeof s?.since !== 'string') return null;
  const book = new AppBook(s.since);
  book.requests = Number(s.requests) || 0;
  for (const [k, v] of Object.entries(s.steps ?? {})) book.steps.set(k as Step, v);
  for (const [k, v] of Object.entries(s.errorPaths ?? {})) book.errorPaths.set(k as ErrorPath, v);
  book.logins = Array.isArray(s.logins) ? s.logins : [];
  if (typeof s.version === 'string') book.versionSeen = s.version;
  for (const [k, v] of Object.entries(report)) if (k.startsWith('f:')) book.findings.set(k.slice(2), copied(v as Noted));
  const m = report.memory as Memory | undefined;
  if (m) {
    book.refundPoliciesRead = new BoundedSet(10_000, m.refund);
    book.customerSchemaRead = new BoundedSet(10_000, m.customer);
    book.participantsSchemaRead = new BoundedSet(10_000, m.participants);
    for (const [order, p] of m.paid) book.paid.set(order, { ...p });
    for (const [order, e] of m.unpaid ?? []) book.unpaid.set(order, e);
  }
  return book;
}

/**
 * The books of the most recently active applications (memory stays bounded however many names
 * arrive), kept in the store with the rest of each application's state: what changed is written
 * about once a second, and when the server closes. Only applications that have state (a token, a
 * cart, …) are written: a report alone never creates a tenant, so the state file grows with the
 * applications it holds already, not with every name a client sends.
 */
export class ReportBooks {
  readonly #books = new Map<string, AppBook>();
  /** The most recently active application's book: most requests in a row come from one application. */
  #last: { application: string; book: AppBook } | null = null;
  readonly #dirty = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  /**
   * A store shared by several instances (PostgreSQL): each saves its own share of a book, added to
   * what the others saved (merge.ts), and a report is what the store holds plus this share.
   */
  readonly #shared: boolean;
  /**
   * Shared: where each book stood when last loaded or saved. Kept with the book, not its application:
   * a book out of memory is still saved, after any save of it under way, from where that one left it.
   */
  readonly #bases = new WeakMap<AppBook, Base>();
  /** Shared: the save under way of each application. */
  readonly #saving = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly warn: (message: string) => void,
    private readonly max = 200,
    private readonly delayMs = 1000,
  ) {
    this.#shared = store.sync !== undefined;
  }

  /** The book of an application (loaded from the store, or created); `since` gives a new one's creation time. */
  of(application: string, since: () => Date): AppBook {
    if (this.#last?.application === application) return this.#last.book;
    let book = this.#books.get(application);
    if (book) this.#books.delete(application);
    else {
      const stored = load(this.store.tenant(application).report);
      book = stored ?? new AppBook(since().toISOString());
      if (this.#shared) this.#bases.set(book, stored ? baseOf(stored) : EMPTY_BASE);
    }
    this.#books.set(application, book);
    this.#last = { application, book };
    if (this.#books.size > this.max) {
      const oldest = this.#books.keys().next().value as string;
      void this.#save(oldest);
      this.#books.delete(oldest);
    }
    return book;
  }

  /** The book changed: it is saved with the next write. */
  touched(application: string): void {
    if (this.#dirty.has(application)) return;
    this.#dirty.add(application);
    this.#timer ??= setTimeout(() => void this.flush(), this.delayMs).unref();
  }

  get(application: string): AppBook | undefined {
    const local = this.#books.get(application);
    if (this.#shared && local) {
      // What every instance saved, with what this one counted since its last save.
      const stored = load(this.store.tenant(application).report);
      if (!stored) return local;
      addShare(stored, local, this.#bases.get(local) ?? EMPTY_BASE, this.#isPaid(application));
      return stored;
    }
    return local ?? load(this.store.tenant(application).report) ?? undefined;
  }

  /** Applications with a report: in memory, or saved. */
  applications(): string[] {
    const saved = this.store.applications().filter((a) => !this.#books.has(a) && this.store.tenant(a).report?.book !== undefined);
    return [...saved, ...this.#books.keys()];
  }

  clear(application: string | null): void {
    this.#last = null;
    if (application === null) {
      this.#books.clear();
      this.#dirty.clear();
    } else {
      this.#books.delete(application);
      this.#dirty.delete(application);
    }
  }

  /** Writes every changed book whose application has state; resolves once durable. */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const apps = [...this.#dirty];
    this.#dirty.clear();
    await Promise.all(apps.map((a) => this.#save(a)));
  }

  #save(application: string): Promise<void> {
    this.#dirty.delete(application);
    const book = this.#books.get(application);
    // An application without state reads as the store's one frozen empty tenant: telling it apart
    // costs nothing, where listing the applications cost O(applications) for each book saved (a
    // book is saved when another application's request takes its place: 25 ms a request at 20,000).
    if (!book || Object.isFrozen(this.store.tenant(application))) return Promise.resolve();
    if (this.#shared) {
      // One save of an application at a time: the next one's share starts where this one's ended.
      const saving = (this.#saving.get(application) ?? Promise.resolve()).then(() => this.#saveShare(application, book));
      this.#saving.set(application, saving);
      void saving.then(() => this.#saving.get(application) === saving && this.#saving.delete(application));
      return saving;
    }
    const taken = pending(book);
    return this.store.update(application, (t) => save(book, t.report, taken.keys, taken.memory)).catch((e: Error) => {
      restore(book, taken);
      this.warn(`The integration report of ${application} was not saved: ${e.message}`);
    });
  }

  /**
   * Adds this instance's share to the book the store holds, under the application's lock (the
   * tenant is then up to date), and takes the sum as its own once written. Read through tenant(),
   * which is the tenant being written: read through the tracked one, the whole report would count
   * as changed. The write changes only the tenant: a write retried on a fresher tenant runs it again.
   */
  async #saveShare(application: string, book: AppBook): Promise<void> {
    const taken = pending(book);
    try {
      const { stored, at } = await this.store.update(application, (t) => {
        const stored = load(this.store.tenant(application).report) ?? new AppBook(book.since);
        const at = baseOf(book);
        for (const key of addShare(stored, book, this.#bases.get(book) ?? EMPTY_BASE, this.#isPaid(application))) stored.changed.add(key);
        save(stored, t.report, stored.changed, stored.memoryChanged || taken.memory);
        return { stored, at };
      });
      // Also for a book out of memory meanwhile: a save of it queued behind this one starts here.
      const committed = baseOf(stored);
      // What the book counted while the write was under way stays its own share, to be saved next.
      addShare(stored, book, at, this.#isPaid(application));
      adopt(book, stored);
      this.#bases.set(book, committed);
    } catch (e) {
      restore(book, taken);
      this.warn(`The integration report of ${application} was not saved: ${(e as Error).message}`);
    }
  }

  #isPaid(application: string): (order: string) => boolean {
    const orders = this.store.tenant(application).orders as Readonly<Record<string, { paid?: boolean } | undefined>>;
    return (order) => orders[order]?.paid === true;
  }
}
