import { hashToken } from '../auth/tokens.js';
import type { Store } from '../store/index.js';
import { AppBook, BoundedSet, type Noted, type Paid, type RawExample } from './book.js';
import type { ErrorPath, Step } from './findings.js';

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
}
interface Memory {
  refund: string[];
  customer: string[];
  participants: string[];
  paid: Array<[string, Paid]>;
  unpaid?: Array<[string, RawExample]>;
}

/** Writes what changed in a book into its tenant's `report` collection (inside store.update). */
function save(book: AppBook, report: Record<string, unknown>): void {
  const summary: Summary = { since: book.since, requests: book.requests, steps: Object.fromEntries(book.steps), errorPaths: Object.fromEntries(book.errorPaths), logins: book.logins };
  report.book = summary;
  for (const key of book.changed) {
    const f = book.findings.get(key);
    if (f) report[`f:${key}`] = { ...f };
  }
  book.changed.clear();
  if (book.memoryChanged) {
    const memory: Memory = { refund: book.refundPoliciesRead.newest(KEEP_MEMORY), customer: book.customerSchemaRead.newest(KEEP_MEMORY), participants: book.participantsSchemaRead.newest(KEEP_MEMORY), paid: [...book.paid].slice(-KEEP_MEMORY), unpaid: [...book.unpaid].slice(-KEEP_MEMORY) };
    report.memory = memory;
    book.memoryChanged = false;
  }
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
  for (const [k, v] of Object.entries(report)) if (k.startsWith('f:')) book.findings.set(k.slice(2), { ...(v as Noted) });
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

  constructor(
    private readonly store: Store,
    private readonly warn: (message: string) => void,
    private readonly max = 200,
    private readonly delayMs = 1000,
  ) {}

  /** The book of an application (loaded from the store, or created); `since` gives a new one's creation time. */
  of(application: string, since: () => Date): AppBook {
    if (this.#last?.application === application) return this.#last.book;
    let book = this.#books.get(application);
    if (book) this.#books.delete(application);
    else book = load(this.store.tenant(application).report) ?? new AppBook(since().toISOString());
    this.#books.set(application, book);
    this.#last = { application, book };
    if (this.#books.size > this.max) {
      const oldest = this.#books.keys().next().value as string;
      this.#save(oldest);
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
    return this.#books.get(application) ?? load(this.store.tenant(application).report) ?? undefined;
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
    if (!book || !this.store.applications().includes(application)) return Promise.resolve();
    return this.store.update(application, (t) => save(book, t.report)).catch((e: Error) => this.warn(`The integration report of ${application} was not saved: ${e.message}`));
  }
}

/** The application a still valid token was issued to (a rare path: requests without an application header). */
export function tokenOwner(store: Store, token: string, now: number): string | undefined {
  const key = hashToken(token);
  return store.applications().find((a) => {
    const record = store.tenant(a).tokens[key];
    return record !== undefined && Date.parse(record.expiresAt) > now;
  });
}
