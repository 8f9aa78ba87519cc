import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors } from './errors.js';

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
  if (missing) return `${where} "${path ? `${path}.` : ''}${missing}" is required`;
  if (extra) return `${where} "${path ? `${path}.` : ''}${extra}" is not allowed`;
  const allowed = first.params?.allowedValues as unknown[] | undefined;
  const tail = allowed ? `: one of ${allowed.join(', ')}` : '';
  return `${where} "${path || '(root)'}" ${first.message ?? 'is invalid'}${tail}`;
}

/** Maps anything thrown to the one error shape; unexpected errors are logged, never echoed. */
export function toApiError(err: FastifyError | ApiError | Error): ApiError {
  if (err instanceof ApiError) return err;
  const fe = err as FastifyError & { validationContext?: string; validation?: ValidationItem[] };
  if (fe.validation) return errors.validation(validationMessage(fe.validationContext, fe.validation));
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(String(fe.message.split(': ').pop() ?? ''));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.validation('Request body is empty: send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.validation(`Request body is not valid JSON: ${fe.message}`);
  }
  if (err instanceof SyntaxError && fe.statusCode === 400) {
    return errors.validation(`Request body is not valid JSON: ${err.message}`);
  }
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError(status, '0', fe.message);
  return errors.internal();
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(err);
    if (apiError.statusCode >= 500) request.log.error({ err }, 'unexpected error');
    reply.code(apiError.statusCode).headers(apiError.headers).send(apiError.toJSON());
  });
  app.setNotFoundHandler((request, reply) => {
    const e = errors.routeNotFound(request.method, request.url.split('?')[0] ?? request.url);
    reply.code(404).send(e.toJSON());
  });
}
