import t, { type Test } from 'tap';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { fixedClock } from '../../src/clock.js';
import { defaults } from '../../src/config.js';
import { createStore } from '../../src/store/index.js';
import { testCatalog } from '../helper.js';

/** A real server on 127.0.0.1: these errors come from Node's HTTP parser, which inject bypasses. */
async function listening(t: Test, requestTimeoutMs?: number): Promise<{ app: FastifyInstance; port: number }> {
  const config = { ...defaults, seed: 1, catalogSize: 20, db: 'memory' };
  const app = await buildApp({
    config,
    clock: fixedClock(),
    catalog: await testCatalog(1, 20),
    store: await createStore('memory'),
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  return { app, port: (app.server.address() as AddressInfo).port };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Writes `chunks` on a fresh connection (`gapMs` apart) and reads until the server closes it.
 * Stops writing once the server has answered.
 */
function raw(t: Test, port: number, chunks: (string | Buffer)[], gapMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    t.teardown(() => socket.destroy());
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    let answered = false;
    const writeFrom = (i: number) => {
      if (answered || i >= chunks.length || socket.destroyed) return;
      socket.write(chunks[i] as string | Buffer);
      timer = setTimeout(() => writeFrom(i + 1), gapMs);
    };
    socket.on('connect', () => writeFrom(0));
    socket.on('data', (d) => {
      answered = true;
      received.push(d);
    });
    socket.on('error', () => {}); // a reset after the answer is fine: 'close' follows
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = Number(statusLine.split(' ')[1]);
      if (!Number.isInteger(status)) return reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let parsed: unknown = body;
      try {
        parsed = JSON.parse(body);
      } catch {
        // left as text: the assertions on {code, message} fail and show it
      }
      resolve({ status, headers, body: parsed, closedAfterMs: Date.now() - started });
    });
  });
}

/** The API's error shape, and a closed connection. */
function isApiError(t: Test, res: RawAnswer, status: number, message: RegExp) {
  t.equal(res.status, status, JSON.stringify(res.body));
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.headers.connection, 'close');
  t.equal(Number(res.headers['content-length']), Buffer.byteLength(JSON.stringify(res.body)));
  t.same(Object.keys(res.body as object).sort(), ['code', 'message'], 'only code and message');
  t.match(res.body, { code: '0', message });
}

t.test("Node's HTTP parser errors answer {code, message} and close the connection", async (t) => {
  const { port } = await listening(t);

  t.test('lowercase method: 400', async (t) => {
    const res = await raw(t, port, ['get /api/v3/currencies HTTP/1.1\r\nHost: x\r\nX-Service-Application: a\r\n\r\n']);
    isApiError(t, res, 400, /^Malformed HTTP request: invalid method/);
  });

  t.test('raw non-ASCII bytes in the path: 400, and the bytes are not echoed', async (t) => {
    const line = Buffer.concat([Buffer.from('GET /api/v3/activities/'), Buffer.from('café', 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]);
    const res = await raw(t, port, [line]);
    isApiError(t, res, 400, /^Malformed HTTP request: invalid characters in the request target/);
    t.notMatch(JSON.stringify(res.body), /caf/);
  });

  t.test('duplicate Content-Length: 400', async (t) => {
    const res = await raw(t, port, ['POST /api/v3/carts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}']);
    isApiError(t, res, 400, /Content-Length/);
  });

  t.test('negative Content-Length: 400', async (t) => {
    const res = await raw(t, port, ['POST /api/v3/carts HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n']);
    isApiError(t, res, 400, /Content-Length/);
  });

  t.test('over 16 KB of headers: 431', async (t) => {
    const res = await raw(t, port, [`GET /api/v3/currencies HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`]);
    isApiError(t, res, 431, /headers are too large/);
    t.ok(JSON.stringify(res.body).length < 200, 'the header is not echoed');
  });

  t.test('a well-formed request on the same server still works', async (t) => {
    const res = await raw(t, port, ['GET /api/v3/currencies HTTP/1.1\r\nHost: x\r\nX-Service-Application: a\r\nConnection: close\r\n\r\n']);
    t.equal(res.status, 200);
  });
});

t.test('slow clients get 408 {code, message} and are disconnected after requestTimeoutMs', async (t) => {
  const { port } = await listening(t, 1000);

  t.test('a body that trickles in', async (t) => {
    const body = JSON.stringify({ firstname: 'Ada', lastname: 'Lovelace' });
    const head = `PUT /api/v3/carts/00000000-0000-4000-8000-000000000000/customer HTTP/1.1\r\nHost: x\r\nX-Service-Application: a\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // One byte every 150 ms: the body would take over 5 s to arrive.
    const res = await raw(t, port, [head, ...body.split('')], 150);
    isApiError(t, res, 408, /^Request timeout/);
    t.ok(res.closedAfterMs >= 900, `not before the timeout (${res.closedAfterMs} ms)`);
    t.ok(res.closedAfterMs < 3000, `within about the timeout (${res.closedAfterMs} ms)`);
  });

  t.test('headers that trickle in', async (t) => {
    const head = 'GET /api/v3/currencies HTTP/1.1\r\nHost: x\r\nX-Service-Application: a\r\nX-Slow: ' + 'a'.repeat(40) + '\r\n\r\n';
    const res = await raw(t, port, head.split(''), 150);
    isApiError(t, res, 408, /^Request timeout/);
    t.ok(res.closedAfterMs < 3000, `within about the timeout (${res.closedAfterMs} ms)`);
  });

  t.test('a prompt request is not affected', async (t) => {
    const res = await raw(t, port, ['GET /api/v3/currencies HTTP/1.1\r\nHost: x\r\nX-Service-Application: a\r\nConnection: close\r\n\r\n']);
    t.equal(res.status, 200);
  });
});

t.test("Node's and Fastify's own answers carry {code, message} too (they were empty, or had no code)", async (t) => {
  const { app, port } = await listening(t);

  t.test('HTTP/1.1 without Host: 400 (Node answered with an empty body)', async (t) => {
    const res = await raw(t, port, ['GET /api/v3/currencies HTTP/1.1\r\nX-Service-Application: a\r\n\r\n']);
    isApiError(t, res, 400, /^Missing header: host is required in HTTP\/1\.1 requests$/);
    const old = await raw(t, port, ['GET /api/v3/currencies HTTP/1.0\r\nX-Service-Application: a\r\n\r\n']);
    t.equal(old.status, 200, 'HTTP/1.0 has no Host to require');
  });

  t.test('Expect: teapot: 417 (Node answered with an empty body)', async (t) => {
    const res = await raw(t, port, ['GET /api/v3/currencies HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nX-Service-Application: a\r\n\r\n']);
    isApiError(t, res, 417, /^Expectation failed: "Expect: teapot" cannot be met; the only expectation served is 100-continue$/);
    const long = await raw(t, port, [`GET /api/v3/currencies HTTP/1.1\r\nHost: x\r\nExpect: ${'e'.repeat(10_000)}\r\n\r\n`]);
    isApiError(t, long, 417, /e… \(10000 characters\)"/);
  });

  t.test('CONNECT: 405 (Node closed the connection without an answer)', async (t) => {
    const res = await raw(t, port, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']);
    isApiError(t, res, 405, /^CONNECT is not served/);
    t.match(res.headers.allow, /GET/);
  });

  t.test('a request that arrives while the server closes: 503 (Fastify answered {error, message, statusCode})', async (t) => {
    // Half a request on an open connection keeps it busy (not idle) when close() begins; its
    // second half arrives while the server is closing.
    const answer = new Promise<RawAnswer>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      t.teardown(() => socket.destroy());
      const received: Buffer[] = [];
      socket.on('data', (d) => received.push(d));
      socket.on('error', reject);
      socket.on('connect', () => {
        socket.write('GET /api/v3/currencies HTTP/1.1\r\nHost: x\r\n');
        setTimeout(() => {
          void app.close();
          setTimeout(() => socket.write('X-Service-Application: a\r\n\r\n'), 50);
        }, 50);
      });
      socket.on('close', () => {
        const text = Buffer.concat(received).toString('utf8');
        const [head = '', body = ''] = text.split('\r\n\r\n', 2);
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        try {
          resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body), closedAfterMs: 0 });
        } catch {
          reject(new Error(`no JSON answer: ${JSON.stringify(text)}`));
        }
      });
    });
    const res = await answer;
    t.equal(res.status, 503);
    t.equal(res.headers.connection, 'close');
    t.same(res.body, { code: '0', message: 'The server is shutting down: send the request again once it is back' });
  });
});
