import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { Memo } from '../memo.js';

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
    return `"${raw}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${raw}" must be an http or https URL`;
  try {
    splitCredentials(raw);
  } catch {
    return `"${raw}" has user:password credentials that are not valid percent-encoding`;
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
 * Sends webhook POSTs over keep-alive agents: a new TCP (and TLS) connection per delivery would cap
 * throughput to a local receiver well below the 1,000/s the benchmark asks for.
 */
export class WebhookSender {
  timeoutMs: number;
  readonly #http = new http.Agent({ keepAlive: true, maxSockets: 256 });
  readonly #https = new https.Agent({ keepAlive: true, maxSockets: 256 });
  /** Parsed targets: every delivery of an application goes to the same URL. */
  readonly #targets = new Memo<{ url: URL; authorization: string | null }>(1000);

  constructor(opts: SenderOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  send(target: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    let url: URL;
    let authorization: string | null;
    try {
      ({ url, authorization } = this.#targets.get(target, () => splitCredentials(target)));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
    } catch (e) {
      return Promise.resolve({ error: `bad URL: ${(e as Error).message}`, duration_ms: 0, delivered: false });
    }
    const secure = url.protocol === 'https:';
    const all: Record<string, string | number> = {
      ...headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body, 'utf8'),
      'user-agent': 'mock-server-webhooks',
    };
    if (authorization) all.authorization = authorization;
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (r: Omit<AttemptResult, 'duration_ms' | 'delivered'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...r, duration_ms: elapsed(), delivered: r.status_code === 200 });
      };
      const req = (secure ? https : http).request(
        {
          method: 'POST',
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || (secure ? 443 : 80),
          path: `${url.pathname}${url.search}`,
          headers: all,
          agent: secure ? this.#https : this.#http,
        },
        (res) => {
          // The body is ignored, but it must be read for the socket to go back to the pool.
          res.resume();
          res.on('end', () => finish({ status_code: res.statusCode }));
          res.on('error', () => finish({ status_code: res.statusCode }));
        },
      );
      const timer = setTimeout(() => {
        finish({ error: `timeout after ${this.timeoutMs} ms` });
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => finish({ error: e.code ? `${e.code}: ${e.message}` : e.message }));
      // A string body (not a Buffer) goes out in the same socket write as the headers.
      req.end(body, 'utf8');
    });
  }

  /** Closes pooled connections (in-flight requests fail with an error). */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
