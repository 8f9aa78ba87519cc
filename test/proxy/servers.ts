// Servers for the proxy, recording and drift tests, all on 127.0.0.1: an upstream that is another
// mock (another seed), a fake service that departs from the document, and the proxy itself.
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import { defaults, type Config } from '../../src/config.js';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { loggerOptions } from '../../src/logging.js';
import { testCatalog } from '../helper.js';

export const BASE = '/api/v3';
export const APP_HEADER = 'x-service-application';

export interface Listening {
  app: FastifyInstance;
  /** Origin, e.g. http://127.0.0.1:5000. */
  origin: string;
  /** Origin and base path. */
  api: string;
  close(): Promise<void>;
}

/** A mock server listening on a free port (the upstream of a test, or the mock a drift check compares). */
export async function startMock(config: Partial<Config> = {}, deps: Partial<AppDeps> = {}): Promise<Listening> {
  const c: Config = { ...defaults, seed: 2, catalogSize: 5, db: 'memory', ...config };
  const app = await buildApp({ config: c, clock: fixedClock(), catalog: await testCatalog(c.seed, c.catalogSize, c.fixtures), store: await createStore('memory'), ...deps });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { app, origin, api: `${origin}${c.basePath === '/' ? '' : c.basePath}`, close: () => app.close() };
}

/** Lines the app logs (JSON, every level, the server's own serializers), kept to look for secrets in. */
export async function logSink(): Promise<{ lines: string[]; logger: AppDeps['logger'] }> {
  const lines: string[] = [];
  const destination = {
    write(chunk: string) {
      lines.push(chunk);
      return true;
    },
  };
  return { lines, logger: await loggerOptions({ ...defaults, logLevel: 'trace', logFormat: 'json' }, { destination }) };
}

/** A proxy server (the `mock-server proxy` app) in front of `upstream` (its API base URL). */
export function startProxy(upstream: string, config: Partial<Config> = {}, deps: Partial<AppDeps> = {}): Promise<Listening> {
  return startMock({ seed: 1, catalogSize: 0, upstream, ...config }, deps);
}

/** A plain HTTP server of the test's own; `handle` answers each request with its whole body read. */
export async function startFake(handle: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void | Promise<void>): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** A forward proxy (HTTP_PROXY) that tunnels CONNECT requests, as undici sends them, and records each target. */
export async function startForwardProxy() {
  const tunnels: string[] = [];
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    tunnels,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** A port nothing listens on. */
export { deadPort } from '../helper.js';

/** One request, the answer's status, headers and body bytes. */
export async function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const res = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}
