import { performance } from 'node:perf_hooks';
import { clip } from '../http/errors.js';
import { Memo } from '../memo.js';
import { Http1Client } from './http1.js';

/** One attempt's outcome, as the delivery log records it. */
export interface AttemptResult {
  /** The receiver's status code, when it answered. */
  status_code?: number;
  /** Why there was no answer (timeout, refused connection, bad URL, ...). */
  error?: string;
  duration_ms: number;
  /** Only 200 counts: the spec's rule, stricter than the usual "any 2xx". */
  delivered: boolean;
}

export interface SenderOptions {
  /** Whole-exchange limit per attempt, default 5000 ms. */
  timeoutMs?: number;
}

/**
 * Why a webhook URL cannot be used, or null when it can: the flag, the env and the control API all
 * refuse it up front, rather than take it and fail every attempt later.
 */
export function webhookUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${clip(raw)}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${clip(raw)}" must be an http or https URL`;
  try {
    splitCredentials(raw);
  } catch {
    // Not echoed: the value holds a password.
    return 'the URL has user:password credentials that are not valid percent-encoding';
  }
  return null;
}

/** The URL with its password hidden, for terminals, logs and control answers. */
export function redactUrl(raw: string): string {
  const u = new URL(raw);
  if (u.password) u.password = '***';
  return u.toString();
}

/** A URL with the user:password part removed, and the Authorization header it stands for. */
export function splitCredentials(raw: string): { url: URL; authorization: string | null } {
  const url = new URL(raw);
  let authorization: string | null = null;
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url, authorization };
}

/**
 * Sends webhook POSTs over keep-alive connections: a new TCP (and TLS) connection per delivery would
 * cap throughput to a local receiver well below the 1,000/s the benchmark asks for.
 */
export class WebhookSender {
  timeoutMs: number;
  readonly #client = new Http1Client({ maxSockets: 256 });
  /** Parsed targets: every delivery of an application goes to the same URL. */
  readonly #targets = new Memo<{ url: URL; authorization: string | null }>(1000);

  constructor(opts: SenderOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  async send(target: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    let url: URL;
    let authorization: string | null;
    try {
      ({ url, authorization } = this.#targets.get(target, () => splitCredentials(target)));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
    } catch (e) {
      return { error: `bad URL: ${(e as Error).message}`, duration_ms: 0, delivered: false };
    }
    const all: Record<string, string> = { ...headers, 'content-type': 'application/json', 'user-agent': 'mock-server-webhooks' };
    if (authorization) all.authorization = authorization;
    let r: Omit<AttemptResult, 'duration_ms' | 'delivered'>;
    try {
      r = { status_code: await this.#client.post(url, all, body, this.timeoutMs) };
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      r = { error: err.code ? `${err.code}: ${err.message}` : err.message };
    }
    return { ...r, duration_ms: Math.round((performance.now() - started) * 100) / 100, delivered: r.status_code === 200 };
  }

  /** Closes pooled connections (in-flight requests fail with an error). */
  close(): void {
    this.#client.close();
  }
}
