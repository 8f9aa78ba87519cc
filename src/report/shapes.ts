import { clip, MAX_ECHO_PATH } from '../http/errors.js';
import type { ErrorPath, FindingId, Severity, Step } from './findings.js';

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

export const shown = (e: RawExample): Example => ({ method: e.method, path: clip(e.url.split('?')[0] ?? e.url, MAX_ECHO_PATH), reqId: e.reqId, at: new Date(e.at).toISOString() });

/** The server's answer to a refused request: its status and {code, message}, as the client got it. */
export interface Answer {
  status: number;
  code: string;
  message: string;
}

export interface Finding {
  id: FindingId;
  severity: Severity;
  message: string;
  advice: string;
  count: number;
  first: Example;
  last: Example;
  /** The operation it was seen on, as /docs writes it (`POST /carts/{cartUuid}/items`), when it is about one. */
  operation?: string;
  /** For a refusal: the server's answer the first time. */
  answer?: Answer;
}

export interface Report {
  application: string;
  since: string;
  requests: number;
  /** Requests that carried no application header and no valid token (the "(unattributed)" entry). */
  unattributed: number;
  verdict: 'pass' | 'fail';
  findings: Finding[];
  coverage: { steps: Array<{ name: Step; done: boolean; count: number }>; error_paths: Array<{ name: ErrorPath; done: boolean; count: number }> };
}

/** A set that forgets its oldest members past a size: what a report remembers stays bounded. */
export class BoundedSet {
  readonly #set = new Set<string>();
  constructor(private readonly max: number, from: readonly string[] = []) {
    for (const v of from) this.add(v);
  }
  add(v: string): boolean {
    if (this.#set.has(v)) return false;
    this.#set.add(v);
    if (this.#set.size > this.max) this.#set.delete(this.#set.values().next().value as string);
    return true;
  }
  has(v: string): boolean {
    return this.#set.has(v);
  }
  /** The newest `n` members, oldest first. */
  newest(n: number): string[] {
    return [...this.#set].slice(-n);
  }
}
