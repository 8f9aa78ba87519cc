import { EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { errors, type ApiError } from '../http/errors.js';

/** How the proxy reaches the real service. */
export interface UpstreamOptions {
  /** Per phase: connecting, waiting for the answer's head, each pause in its body. Default 30000 ms. */
  timeoutMs?: number;
  /**
   * Proxies, as undici's EnvHttpProxyAgent takes them; by default HTTP_PROXY, HTTPS_PROXY and
   * NO_PROXY (or their lower-case forms) from the environment. Tests pass their own.
   */
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  /** Keep-alive connections to the upstream; default 128. */
  connections?: number;
}

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Largest answer passed through: a catalog page or a voucher PDF is far below it. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

// Connection-level headers (RFC 9110 7.6.1) belong to one hop, not to the message: undici refuses
// some of them outright, and Node writes its own on the way back. Host is the upstream's.
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect', 'host', 'content-length']);

const TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The headers of one message with the hop-by-hop ones (and those the Connection header names) left out. */
export function endToEnd(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const named = String(headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim());
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP.has(lower) || named.includes(lower)) continue;
    out[lower] = value;
  }
  return out;
}

/**
 * The real service, reached with undici through the proxy the environment names (HTTPS_PROXY),
 * over a keep-alive pool: a new connection per request would cost the proxy far more than its
 * budget of 2 ms.
 */
export class Upstream {
  readonly base: URL;
  readonly timeoutMs: number;
  readonly #agent: Dispatcher;

  constructor(base: string, opts: UpstreamOptions = {}) {
    this.base = new URL(base.replace(/\/+$/, ''));
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    const t = this.timeoutMs;
    this.#agent = new EnvHttpProxyAgent({ connections: opts.connections ?? 128, headersTimeout: t, bodyTimeout: t, connect: { timeout: t }, ...opts.proxy });
  }

  /** The upstream's URL for a path below the base path (with its query), e.g. `/activities?limit=5`. */
  url(pathAndQuery: string): string {
    return `${this.base.origin}${this.base.pathname === '/' ? '' : this.base.pathname}${pathAndQuery}`;
  }

  /** Forwards one request; a failure to get a whole answer is a 502 ApiError that says why. */
  async send(method: string, pathAndQuery: string, headers: Record<string, string | string[] | undefined>, body: Buffer | null): Promise<UpstreamAnswer> {
    try {
      const res = await request(this.url(pathAndQuery), { method: method as Dispatcher.HttpMethod, headers: endToEnd(headers), body: body && body.length ? body : null, dispatcher: this.#agent });
      const declared = Number(res.headers['content-length']);
      // A body of a known, allowed length is read in one go (fewer promises per request than chunk by chunk).
      const answer = declared <= MAX_ANSWER_BYTES ? Buffer.from(await res.body.arrayBuffer()) : await capped(res.body, () => errors.upstreamFailed(`The upstream's answer to ${method} ${clipPath(pathAndQuery)} is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB`));
      return { status: res.statusCode, headers: endToEnd(res.headers as Record<string, string | string[] | undefined>), body: answer };
    } catch (e) {
      if ((e as ApiError).statusCode === 502) throw e;
      throw errors.upstreamFailed(`The upstream ${this.base.origin} did not answer ${method} ${clipPath(pathAndQuery)}: ${why(e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException }, this.timeoutMs)}`);
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

/** A body of unknown length, read until MAX_ANSWER_BYTES at most. */
async function capped(body: Dispatcher.ResponseData['body'], tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** The path without its query: a query may hold a token, and the message is shown to the partner and logged. */
const clipPath = (pathAndQuery: string) => (pathAndQuery.split('?')[0] ?? '').slice(0, 160);

function why(err: NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException }, timeoutMs: number): string {
  if (err.code !== undefined && TIMEOUTS.has(err.code)) return `timeout after ${timeoutMs} ms`;
  // undici wraps socket errors; the cause holds the system's code (ECONNREFUSED, ENOTFOUND, ...).
  const cause = err.cause?.code ? err.cause : err;
  return cause.code ? `${cause.code}` : cause.message;
}
