import type { FastifyReply, FastifyRequest } from 'fastify';
import { redactHeaders, redactText } from '../redact.js';

/** Characters of each body the journal keeps; the rest is cut and the body marked `truncated`. */
export const BODY_CAP = 16_384;
/** Requests (of all applications together) whose headers and bodies are kept: the latest ones. */
export const KEEP_DETAILS = 500;

/** One side of an exchange as the journal shows it: secrets masked, the body cut at BODY_CAP characters. */
export interface JournalMessage {
  headers: Record<string, string>;
  /** The body as text (a JSON request body as the server parsed it, written out again); null when there was none. */
  body: string | null;
  /** The body was longer than BODY_CAP characters: `body` holds its start. */
  truncated: boolean;
  /** The whole body's size in bytes. */
  bytes: number;
}

type Headers = Record<string, string | number | string[] | undefined>;

/**
 * What the journal keeps of one request's exchange, taken on the hot path of every partner request,
 * so as little as possible is done there: headers and the answer's body are kept by reference (they
 * exist already; a catalog answer is a cached Buffer) and decoded, cut and masked only when read.
 * Copies are made where a secret would otherwise be kept in clear (an Authorization header, a request
 * body, the answer to a write or a `Cache-Control: no-store` answer such as a token), and for long
 * answers once those held whole pass HELD_BYTES.
 */
export interface Captured {
  requestHeaders: Headers;
  requestBody: string | null;
  requestBytes: number;
  responseHeaders: Headers;
  responseBody: string | Buffer | null;
  /** Bytes of a body over the cap kept whole, counted against HELD_BYTES. */
  held: number;
}

/** Bodies over the cap kept whole (by reference) by all kept exchanges together, at most. */
export const HELD_BYTES = 32 * 1024 * 1024;

/** The first BODY_CAP characters as a string of their own (a slice would keep the whole body alive), one more to tell it was cut. */
const cut = (s: string) => (s.length <= BODY_CAP ? s : Buffer.from(s.slice(0, BODY_CAP + 1)).toString());
const text = (b: string | Buffer) => (typeof b === 'string' ? b : b.toString('utf8', 0, 4 * (BODY_CAP + 1)));

function requestBody(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return text(body);
  return JSON.stringify(body) ?? null;
}

/** `heldNow`: bytes held whole by the exchanges kept so far. */
export function capture(request: FastifyRequest, reply: FastifyReply, payload: unknown, heldNow: number): Captured {
  let requestHeaders: Headers = request.headers;
  if (requestHeaders.authorization !== undefined || requestHeaders.cookie !== undefined || requestHeaders['proxy-authorization'] !== undefined) {
    requestHeaders = { ...requestHeaders, ...redactHeaders({ authorization: requestHeaders.authorization, cookie: requestHeaders.cookie, 'proxy-authorization': requestHeaders['proxy-authorization'] }) };
  }
  const sent = requestBody(request.body);
  const responseHeaders = reply.getHeaders();
  let responseBody = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : null;
  let held = 0;
  if (responseBody !== null) {
    const cc = responseHeaders['cache-control'];
    if (request.method !== 'GET' || (typeof cc === 'string' && cc.includes('no-store'))) responseBody = cut(redactText(text(responseBody)));
    else if (responseBody.length > BODY_CAP) {
      if (heldNow + responseBody.length > HELD_BYTES) responseBody = cut(text(responseBody));
      else held = responseBody.length;
    }
  }
  return {
    requestHeaders,
    requestBody: sent === null ? null : cut(redactText(sent)),
    requestBytes: sent === null ? 0 : Number(requestHeaders['content-length'] ?? Buffer.byteLength(sent)),
    responseHeaders,
    responseBody,
    held,
  };
}

/** The kept exchange as the control API answers it; every part is masked again, whatever was done when it was taken. */
export function show(c: Captured): { request: JournalMessage; response: JournalMessage } {
  const message = (headers: Headers, body: string | Buffer | null, bytes: number): JournalMessage => {
    const all = body === null ? null : text(body);
    return {
      headers: redactHeaders(headers),
      body: all === null ? null : redactText(all.slice(0, BODY_CAP)),
      truncated: all !== null && all.length > BODY_CAP,
      bytes,
    };
  };
  const responseBytes = c.responseBody === null ? 0 : Number(c.responseHeaders['content-length'] ?? Buffer.byteLength(c.responseBody));
  return { request: message(c.requestHeaders, c.requestBody, c.requestBytes), response: message(c.responseHeaders, c.responseBody, responseBytes) };
}
