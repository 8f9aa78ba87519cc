import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ApiError, clip, errors } from './errors.js';

/**
 * Answers Node's HTTP server and Fastify would otherwise give without the API's {code, message}
 * body: an HTTP/1.1 request without Host (Node: 400, empty), an Expect other than 100-continue
 * (Node: 417, empty), CONNECT (Node: the socket closed without a word), a request that arrives
 * while the server closes (Fastify: 503 {error, message, statusCode}). The parser's own errors are
 * clientErrorHandler's (error-handler.ts). Needs `requireHostHeader: false` and
 * `return503OnClosing: false` in the server options, so that these requests reach us.
 */
export function installHttpLayerAnswers(app: FastifyInstance): void {
  // No Fastify request exists for these two: the answer is written on the response or socket.
  const head = (status: number, message: string, extra: Record<string, string> = {}) => {
    const body = JSON.stringify(new ApiError(status, '0', message).toJSON());
    const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close', ...extra };
    return { body, headers };
  };
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const { body, headers } = head(417, `Expectation failed: "Expect: ${clip(req.headers.expect)}" cannot be met; the only expectation served is 100-continue`);
    res.writeHead(417, headers).end(body);
  });
  app.server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const { body, headers } = head(405, 'CONNECT is not served: this is an API server, not a proxy', { Allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS' });
    const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.on('error', () => socket.destroy());
    socket.end(`HTTP/1.1 405 ${STATUS_CODES[405]}\r\n${lines}\r\n${body}`);
  });

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // First among the onRequest hooks (installed before any plugin): nothing else runs for these.
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (closing) {
      reply.header('connection', 'close');
      return done(errors.closing());
    }
    // RFC 9112 3.2: a server must answer 400 to an HTTP/1.1 request without Host (HTTP/1.0 has none).
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1) {
      reply.header('connection', 'close');
      return done(errors.hostRequired());
    }
    done();
  });
}
