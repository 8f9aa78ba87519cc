import { performance } from 'node:perf_hooks';
import { Memo } from '../memo.js';
import { EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { splitCredentials } from './url.js';
import { publicOnlyLookup } from './guard.js';
import { redactAuthorization } from '../redact.js';

const TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** One attempt's outcome, as the delivery log records it. */
export interface AttemptResult {
  /** The receiver's status code, when it answered. */
  status_code?: number;
  /** Why there was no answer (timeout, refused connection, bad URL, ...). */
  error?: string;
  duration_ms: number;
  /** Only 200 counts: the spec's rule, stricter than the usual "any 2xx". */
  delivered: boolean;
  /** The headers sent, when a request was made: Authorization (Basic credentials of the URL) masked; the signing secret is never among them. */
  headers?: Record<string, string>;
}

export interface SenderOptions {
  /** Per phase: connecting, waiting for the answer's status and headers, each pause in its body. Default 5000 ms. */
  timeoutMs?: number;
  /** The whole attempt, from sending to the answer's last byte, whatever the receiver does. Default 10000 ms. */
  deadlineMs?: number;
  /** Keep-alive connections per receiver (origin); default 256. The dispatcher passes its own total, so that its per-application shares bind first. */
  connections?: number;
  /**
   * Proxies, as undici's EnvHttpProxyAgent takes them; by default HTTP_PROXY, HTTPS_PROXY and
   * NO_PROXY (or their lower-case forms) from the environment. Tests pass their own.
   */
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  /** Extra TLS trust for https receivers (tests); the CLI's way is NODE_EXTRA_CA_CERTS. */
  ca?: string | Buffer;
  /** Connect only to public addresses, whatever a name resolves to (receivers a partner set on a shared sandbox). */
  publicOnly?: boolean;
}

/** Why an attempt was cut off at its deadline (the abort reason, told apart from other errors). */
class Deadline extends Error {}

/**
 * Sends webhook POSTs with undici: a keep-alive pool of connections per receiver (a new TCP and TLS
 * connection per delivery would cap throughput to a local receiver well below the 1,000/s the
 * benchmark asks for), through the proxy the environment names.
 */
export class WebhookSender {
  timeoutMs: number;
  deadlineMs: number;
  readonly #agent: Dispatcher;
  /** Parsed targets: every delivery of an application goes to the same URL. */
  readonly #targets = new Memo<{ url: URL; authorization: string | null }>(1000);

  constructor(opts: SenderOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.deadlineMs = opts.deadlineMs ?? 10_000;
    // undici's own timers bound each phase (connecting, waiting for the answer's head, between its
    // body's chunks); the deadline of each send bounds the whole, a body trickling in included.
    const t = this.timeoutMs;
    this.#agent = new EnvHttpProxyAgent({ connections: opts.connections ?? 256, headersTimeout: t, bodyTimeout: t, connect: { timeout: t, ...(opts.ca ? { ca: opts.ca } : {}), ...(opts.publicOnly ? { lookup: publicOnlyLookup } : {}) }, ...opts.proxy });
  }

  /** One POST, ended after `deadlineMs` at the latest (its connection then closed, not kept). */
  async send(target: string, body: string, headers: Record<string, string>, deadlineMs = this.deadlineMs): Promise<AttemptResult> {
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
    const sent = authorization ? { ...all, authorization: redactAuthorization(authorization) } : all;
    let r: Omit<AttemptResult, 'duration_ms' | 'delivered' | 'headers'>;
    let status: number | undefined;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Deadline()), deadlineMs);
    try {
      const res = await request(url, { method: 'POST', headers: all, body, dispatcher: this.#agent, signal: abort.signal });
      status = res.statusCode;
      // Read to the end (the body itself is ignored), so the connection can carry the next one; an
      // answer that never ends is no answer (a longer body than the limit is cut, which is no error).
      await res.body.dump({ limit: 128 * 1024, signal: abort.signal });
      const cut = res.body.errored as NodeJS.ErrnoException | null;
      if (cut?.code !== undefined && TIMEOUTS.has(cut.code)) throw cut;
      r = { status_code: res.statusCode };
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      if (e instanceof Deadline) {
        r = { error: `timeout after ${deadlineMs} ms (the deadline of an attempt): ${status === undefined ? 'no answer' : `status ${status} came, its body did not end`}` };
      } else if (err.code !== undefined && TIMEOUTS.has(err.code)) r = { error: `timeout after ${this.timeoutMs} ms` };
      else {
        // undici wraps some socket errors; the cause holds the system's code (ECONNREFUSED, ...).
        const cause = err.code?.startsWith('UND_ERR') && err.cause?.code ? err.cause : err;
        r = { error: cause.code ? `${cause.code}: ${cause.message}` : cause.message };
      }
    } finally {
      clearTimeout(timer);
    }
    return { ...r, duration_ms: Math.round((performance.now() - started) * 100) / 100, delivered: r.status_code === 200, headers: sent };
  }

  /** Closes pooled connections (in-flight requests fail with an error). */
  close(): Promise<void> {
    return this.#agent.destroy();
  }
}
