import type { FastifyReply, FastifyRequest } from 'fastify';
import { redactHeaders, redactText } from '../redact.js';
import type { SharedDetail, SharedListed, SharedMessage } from '../store/index.js';

/** Bytes of each body the journal keeps; the rest is cut and the body marked `truncated`. */
export const BODY_CAP = 16_384;
/** Requests (of all applications together) whose headers and bodies are kept: the latest ones. */
export const KEEP_DETAILS = 500;

/** One side of an exchange as the journal shows it: secrets masked, the body cut at BODY_CAP bytes. */
export type JournalMessage = SharedMessage;
/** A request as GET /__admin/requests lists it: the same wherever the journal is kept. */
export type JournalEntry = SharedListed;
/** GET /__admin/requests/{id}: an entry with its headers and bodies, both ways; null once no longer kept. */
export type JournalDetail = SharedDetail;

type Headers = Record<string, string | number | string[] | undefined>;

/**
 * What the journal keeps of one request's exchange, taken on the hot path of every partner request,
 * so as little as possible is done there: headers, and an answer's body within the cap, are kept by
 * reference (they exist already; a catalog answer is a cached Buffer) and decoded and masked only
 * when read. A longer body costs a copy of its first BODY_CAP bytes (a reference would keep all of
 * it), unless it is a Buffer and those kept whole stay under HELD_BYTES. Secrets are masked when
 * taken where they would otherwise be kept in clear: an Authorization header, a request body, the
 * answer to a write or a `Cache-Control: no-store` answer (a token).
 */
export interface Captured {
  requestHeaders: Headers;
  requestBody: Buffer | null;
  requestBytes: number;
  responseHeaders: Headers;
  /** Its size is the content-length header's. */
  responseBody: string | Buffer | null;
  /** Bytes of a body over the cap kept whole, counted against HELD_BYTES. */
  held: number;
}

/** Bytes of answers over the cap kept whole (by reference) by all kept exchanges together, at most. */
export const HELD_BYTES = 64 * 1024 * 1024;

/** The first BODY_CAP bytes, copied (a subarray or a sliced string would keep the whole body alive). */
const prefix = (b: string | Buffer): Buffer => (typeof b === 'string' ? Buffer.from(b.length > BODY_CAP ? b.slice(0, BODY_CAP) : b) : Buffer.from(b.subarray(0, BODY_CAP)));
const over = (b: string | Buffer) => b.length > BODY_CAP;
const head = (b: string | Buffer) => (typeof b === 'string' ? b.slice(0, BODY_CAP) : b.toString('utf8', 0, BODY_CAP));

function requestBody(body: unknown): string | Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return JSON.stringify(body) ?? null;
}

/**
 * Fastify keeps a reply's headers in an object of its own under this symbol; the journal keeps a
 * reference to it instead of the copy reply.getHeaders() makes (a copy per request showed in the
 * profile). Found by its description once; without it, getHeaders().
 */
let replyHeadersKey: symbol | null | undefined;
function replyHeaders(reply: FastifyReply): Headers {
  if (replyHeadersKey === undefined) replyHeadersKey = Object.getOwnPropertySymbols(reply).find((k) => k.description === 'fastify.reply.headers') ?? null;
  const own = replyHeadersKey ? (reply as unknown as Record<symbol, unknown>)[replyHeadersKey] : undefined;
  return own && typeof own === 'object' ? (own as Headers) : reply.getHeaders();
}

/** `heldNow`: bytes over the cap that kept exchanges hold by reference so far. */
export function capture(request: FastifyRequest, reply: FastifyReply, payload: unknown, heldNow: number): Captured {
  let requestHeaders: Headers = request.headers;
  if (requestHeaders.authorization !== undefined || requestHeaders.cookie !== undefined || requestHeaders['proxy-authorization'] !== undefined) {
    requestHeaders = { ...requestHeaders, ...redactHeaders({ authorization: requestHeaders.authorization, cookie: requestHeaders.cookie, 'proxy-authorization': requestHeaders['proxy-authorization'] }) };
  }
  const sent = requestBody(request.body);
  const responseHeaders = replyHeaders(reply);
  let responseBody = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : null;
  let held = 0;
  if (responseBody !== null) {
    const cc = responseHeaders['cache-control'];
    const secretive = request.method !== 'GET' || (typeof cc === 'string' && cc.includes('no-store'));
    if (secretive) responseBody = masked(head(responseBody));
    else if (over(responseBody)) {
      // A Buffer is most likely a catalog answer the body cache holds anyway: kept whole while the
      // bodies kept so stay under HELD_BYTES. Copying 16 KB per request cost a catalog read of 20
      // activities 30% more CPU (77 -> 101 µs per request).
      if (typeof responseBody !== 'string' && heldNow + responseBody.length <= HELD_BYTES) held = responseBody.length;
      else responseBody = prefix(responseBody);
    }
  }
  return {
    requestHeaders,
    requestBody: sent === null ? null : masked(head(sent)),
    requestBytes: sent === null ? 0 : Number(requestHeaders['content-length'] ?? Buffer.byteLength(sent)),
    responseHeaders,
    responseBody,
    held,
  };
}

/**
 * The masked text of bodies kept as Buffers, made once per Buffer: a catalog answer is one cached
 * Buffer sent again and again, and a journal in PostgreSQL shows 400 exchanges a second.
 */
const shown = new WeakMap<Buffer, string>();

function bodyText(body: string | Buffer): string {
  const done = typeof body === 'string' ? undefined : shown.get(body);
  if (done !== undefined) return done;
  // A character cut in half at the cap is left out, not shown broken; a decoder of its own, since
  // streaming keeps that half for its next call.
  const text = redactText(new TextDecoder().decode((typeof body === 'string' ? Buffer.from(body) : body).subarray(0, BODY_CAP), { stream: true }));
  if (typeof body !== 'string') shown.set(body, text);
  return text;
}

/** A body masked as it is taken, its first BODY_CAP bytes; show() need not mask it again when they hold all of it. */
function masked(text: string): Buffer {
  const safe = redactText(text);
  const b = prefix(safe);
  if (safe.length <= BODY_CAP && b.length <= BODY_CAP) shown.set(b, safe);
  return b;
}

/** The kept exchange as the control API answers it; every part masked, whatever was done when it was taken (a body masked then is kept with its text). */
export function show(c: Captured): { request: JournalMessage; response: JournalMessage } {
  const message = (headers: Headers, body: string | Buffer | null, bytes: number): JournalMessage => ({
    headers: redactHeaders(headers),
    body: body === null ? null : bodyText(body),
    truncated: bytes > BODY_CAP,
    bytes,
  });
  const responseBytes = c.responseBody === null ? 0 : Number(c.responseHeaders['content-length'] ?? Buffer.byteLength(c.responseBody));
  return { request: message(c.requestHeaders, c.requestBody, c.requestBytes), response: message(c.responseHeaders, c.responseBody, responseBytes) };
}
