import { clip, MAX_ECHO_PATH } from '../http/errors.js';
import { ERROR_PATHS, FINDINGS, STEPS, type ErrorPath, type FindingId, type Severity, type Step } from './findings.js';

/** Where a finding was seen: the request (or the webhook delivery) and when, on the server clock. */
export interface Example {
  method: string;
  path: string;
  reqId: string;
  at: string;
}

/**
 * An example as noted on every request: the URL as sent and the time in ms. The path and the ISO
 * time are made only when a report is asked for (a split and a date format on each request showed).
 */
export interface RawExample {
  method: string;
  url: string;
  reqId: string;
  at: number;
}

const shown = (e: RawExample): Example => ({ method: e.method, path: clip(e.url.split('?')[0] ?? e.url, MAX_ECHO_PATH), reqId: e.reqId, at: new Date(e.at).toISOString() });

export interface Finding {
  id: FindingId;
  severity: Severity;
  message: string;
  advice: string;
  count: number;
  first: Example;
  last: Example;
}

export interface Report {
  application: string;
  since: string;
  requests: number;
  verdict: 'pass' | 'fail';
  findings: Finding[];
  coverage: { steps: Array<{ name: Step; done: boolean; count: number }>; error_paths: Array<{ name: ErrorPath; done: boolean; count: number }> };
}

/** A set that forgets its oldest members past a size: what a report remembers stays bounded. */
class BoundedSet {
  readonly #set = new Set<string>();
  constructor(private readonly max: number) {}
  add(v: string): void {
    this.#set.add(v);
    if (this.#set.size > this.max) this.#set.delete(this.#set.values().next().value as string);
  }
  has(v: string): boolean {
    return this.#set.has(v);
  }
}

interface Poll {
  start: number;
  last: number;
  count: number;
  reported: boolean;
}

/** Everything the report keeps about one application: aggregates and a little bounded memory. */
export class AppBook {
  requests = 0;
  readonly findings = new Map<string, { id: FindingId; detail: string | null; count: number; first: RawExample; last: RawExample }>();
  readonly steps = new Map<Step, number>();
  readonly errorPaths = new Map<ErrorPath, number>();
  readonly refundPoliciesRead = new BoundedSet(10_000);
  readonly customerSchemaRead = new BoundedSet(10_000);
  /** Server-clock times of the latest logins. */
  logins: number[] = [];
  readonly #polls = new Map<string, Poll>();

  constructor(readonly since: string) {}

  note(id: FindingId, example: RawExample, detail: string | null = null): void {
    const key = detail === null ? id : `${id}\u0000${detail}`;
    const f = this.findings.get(key);
    if (f) {
      f.count++;
      f.last = example;
    } else if (this.findings.size < 1000) this.findings.set(key, { id, detail, count: 1, first: example, last: example });
  }

  step(name: Step): void {
    this.steps.set(name, (this.steps.get(name) ?? 0) + 1);
  }

  errorPath(name: ErrorPath): void {
    this.errorPaths.set(name, (this.errorPaths.get(name) ?? 0) + 1);
  }

  /**
   * One read of an order at `now` (ms): true once when the order has been read more than once a
   * second for over 10 s without a pause of more than a second.
   */
  poll(order: string, now: number): boolean {
    let p = this.#polls.get(order);
    if (!p || now - p.last > 1000) {
      p = { start: now, last: now, count: 0, reported: false };
      this.#polls.delete(order);
      this.#polls.set(order, p);
      if (this.#polls.size > 1000) this.#polls.delete(this.#polls.keys().next().value as string);
    }
    p.count++;
    p.last = now;
    const span = now - p.start;
    if (p.reported || span <= 10_000 || p.count / (span / 1000) <= 1) return false;
    p.reported = true;
    return true;
  }

  report(application: string): Report {
    const findings = [...this.findings.values()].map(({ id, detail, count, first, last }) => {
      const kind = FINDINGS[id];
      return { id, severity: kind.severity, message: detail === null ? kind.message : `${kind.message}: ${detail}`, advice: kind.advice, count, first: shown(first), last: shown(last) };
    });
    const order = { error: 0, warning: 1, info: 2 };
    findings.sort((a, b) => order[a.severity] - order[b.severity] || b.count - a.count);
    return {
      application,
      since: this.since,
      requests: this.requests,
      verdict: findings.some((f) => f.severity === 'error') ? 'fail' : 'pass',
      findings,
      coverage: {
        steps: STEPS.map((name) => ({ name, done: this.steps.has(name), count: this.steps.get(name) ?? 0 })),
        error_paths: ERROR_PATHS.map((name) => ({ name, done: this.errorPaths.has(name), count: this.errorPaths.get(name) ?? 0 })),
      },
    };
  }
}

/** The books of the most recently active applications: memory stays bounded however many names arrive. */
export class ReportBooks {
  readonly #books = new Map<string, AppBook>();
  /** The most recently active application's book: most requests in a row come from one application. */
  #last: { application: string; book: AppBook } | null = null;
  constructor(private readonly max = 200) {}

  /** The book of an application, created when missing; `since` gives its creation time (server clock). */
  of(application: string, since: () => Date): AppBook {
    if (this.#last?.application === application) return this.#last.book;
    let book = this.#books.get(application);
    if (book) this.#books.delete(application);
    else book = new AppBook(since().toISOString());
    this.#books.set(application, book);
    this.#last = { application, book };
    if (this.#books.size > this.max) this.#books.delete(this.#books.keys().next().value as string);
    return book;
  }

  get(application: string): AppBook | undefined {
    return this.#books.get(application);
  }

  applications(): string[] {
    return [...this.#books.keys()];
  }

  clear(application: string | null): void {
    this.#last = null;
    if (application === null) this.#books.clear();
    else this.#books.delete(application);
  }
}
