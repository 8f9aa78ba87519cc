import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, clip, errors, MAX_ECHO_PATH } from './errors.js';

interface ValidationItem {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
}

/** Turns an ajv failure into a message that names the field, e.g. `querystring "limit" must be <= 100`. */
export function validationMessage(context: string | undefined, items: ValidationItem[]): string {
  const first = items[0] ?? {};
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const missing = first.params?.missingProperty as string | undefined;
  const extra = first.params?.additionalProperty as string | undefined;
  const where = context ?? 'request';
  // Paths and property names come from the request body (keys are the client's), so they are clipped.
  if (missing) return `${where} "${clip(path ? `${path}.${missing}` : missing)}" is required`;
  if (extra) return `${where} "${clip(path ? `${path}.${extra}` : extra)}" is not allowed`;
  const allowed = first.params?.allowedValues as unknown[] | undefined;
  const tail = allowed ? `: one of ${allowed.join(', ')}` : '';
  return `${where} "${path ? clip(path) : '(root)'}" ${first.message ?? 'is invalid'}${tail}`;
}

/** Maps anything thrown to the one error shape; unexpected errors are logged, never echoed. */
export function toApiError(err: FastifyError | ApiError | Error, request?: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  // The store's StoreWriteError (named, not imported: the store knows nothing of HTTP).
  if (err.name === 'StoreWriteError') return errors.notStored(err.message);
  if (err.name === 'StoreUnavailableError') return errors.databaseUnavailable(err.message);
  const fe = err as FastifyError & { validationContext?: string; validation?: ValidationItem[] };
  if (fe.validation) return errors.validation(validationMessage(fe.validationContext, fe.validation));
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // Fastify 5's message is just "Unsupported Media Type": name the type the client sent.
      return errors.unsupportedMediaType(request?.headers['content-type'] ?? '(none)');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.validation('Request body is empty: send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.validation(`Request body is not valid JSON: ${clip(fe.message)}`);
  }
  if (err instanceof SyntaxError && fe.statusCode === 400) {
    return errors.validation(`Request body is not valid JSON: ${clip(err.message)}`);
  }
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError(status, '0', clip(fe.message, 200));
  return errors.internal();
}

/**
 * Fastify's `frameworkErrors`: errors found while routing, before any hook or handler runs (bad
 * percent-encoding in the path, a path parameter over the router's maxParamLength). Fastify's own
 * answer is {error, code: "FST_ERR_…", message, statusCode} with the whole URL in the message.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? request.url;
  let apiError: ApiError;
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      apiError = errors.validation(`Request path is not a valid URL (bad percent-encoding): ${clip(path, MAX_ECHO_PATH)}`);
      break;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      apiError = new ApiError(414, '0', `A path parameter is too long: ${clip(path, MAX_ECHO_PATH)}`);
      break;
    default:
      apiError = toApiError(err, request);
  }
  if (apiError.statusCode >= 500) request.log.error({ err }, 'unexpected error');
  reply.code(apiError.statusCode).headers(apiError.headers).send(apiError.toJSON());
}

/** What Node's HTTP parser (llhttp) reports, as a status and a message that echoes nothing. */
function describeClientError(err: NodeJS.ErrnoException & { reason?: string }): { status: number; message: string } {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'Request timeout: the request headers and body were not received in time' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'Request headers are too large' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, message: 'Malformed HTTP request: invalid method (methods are upper case, e.g. GET)' };
    case 'HPE_INVALID_URL':
      return { status: 400, message: 'Malformed HTTP request: invalid characters in the request target (percent-encode them)' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'Malformed HTTP request: invalid or duplicate Content-Length header' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return { status: 400, message: 'Malformed HTTP request: invalid Transfer-Encoding header' };
  }
  // llhttp's reasons are fixed strings ("Invalid header value char"), never the request's bytes.
  const reason = typeof err.reason === 'string' ? `: ${clip(err.reason.replace(/\.$/, ''))}` : '';
  return { status: 400, message: `Malformed HTTP request${reason}` };
}

/**
 * Fastify's `clientErrorHandler`: errors Node's HTTP parser raises before there is a request
 * (bad method, raw bytes in the path, bad Content-Length, headers over 16 KB, request timeout).
 * As Fastify's default handler does, it only writes a minimal response on the socket, here with the
 * API's {code, message} body and `Connection: close`, and destroys the socket.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer; a destroyed socket was answered already.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = describeClientError(err);
  this.log.debug({ err }, `client error ${status}`);
  // A request timeout can fire while a response is being written (Node's own handler checks the
  // same internal field): raw bytes then would corrupt it, so the socket is only closed.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ code: '0', message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The error this request was answered with, for observers (the integration report). */
    apiError?: { code: string; message: string; validation?: { context: string; keyword: string; field: string } };
  }
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(err, request);
    if (apiError.statusCode >= 500) request.log.error({ err }, 'unexpected error');
    const v = (err as { validation?: ValidationItem[]; validationContext?: string }).validation?.[0];
    const field = v ? clip([(v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.'), v.params?.missingProperty].filter(Boolean).join('.')) : '';
    const validation = v ? { context: (err as { validationContext?: string }).validationContext ?? 'request', keyword: v.keyword ?? '', field } : apiError.check;
    request.apiError = { code: apiError.code, message: apiError.message, ...(validation ? { validation } : {}) };
    reply.code(apiError.statusCode).headers(apiError.headers).send(apiError.toJSON());
  });
  app.setNotFoundHandler((request, reply) => {
    const e = errors.routeNotFound(request.method, request.url.split('?')[0] ?? request.url);
    request.apiError = { code: e.code, message: e.message };
    reply.code(404).send(e.toJSON());
  });
}
