import t, { type Test } from 'tap';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { Http1Client } from '../../src/webhooks/http1.js';
import { ResponseReader, type Outcome } from '../../src/webhooks/response-reader.js';
import { deadPort } from './receiver.js';

/** Feeds a response whole and one byte at a time; both must give the same outcome. */
function read(raw: string): Outcome | Error {
  const results = [[raw], [...raw]].map((pieces) => {
    const r = new ResponseReader();
    try {
      let out: Outcome | null = null;
      for (const p of pieces) out = r.feed(p) ?? out;
      return out ?? r.end() ?? new Error('incomplete');
    } catch (e) {
      return e as Error;
    }
  });
  return JSON.stringify(results[0], Object.getOwnPropertyNames(results[0])) === JSON.stringify(results[1], Object.getOwnPropertyNames(results[1])) ? results[0]! : new Error('whole and byte by byte differ');
}

t.test('response framing: lengths, chunks, close, interim answers and bad input', async (t) => {
  const cases: Array<[string, string, Outcome | RegExp]> = [
    ['content-length', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello', { status: 200, reusable: true }],
    ['no body with length 0', 'HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n', { status: 500, reusable: true }],
    ['204 has no body whatever it says', 'HTTP/1.1 204 No Content\r\n\r\n', { status: 204, reusable: true }],
    ['chunked, extensions and trailers', 'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n', { status: 201, reusable: true }],
    ['chunked, empty', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n', { status: 200, reusable: true }],
    ['chunk data holding CRLF and a fake terminator', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n7\r\n0\r\n\r\n\r\n\r\n0\r\n\r\n', { status: 200, reusable: true }],
    ['no length: until the connection ends', 'HTTP/1.1 200 OK\r\n\r\nbody until close', { status: 200, reusable: false }],
    ['a coding other than chunked: until close', 'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nxx', { status: 200, reusable: false }],
    ['Connection: close', 'HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 0\r\n\r\n', { status: 200, reusable: false }],
    ['HTTP/1.0 closes by default', 'HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n', { status: 200, reusable: false }],
    ['HTTP/1.0 with keep-alive', 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\ncontent-length: 0\r\n\r\n', { status: 200, reusable: true }],
    ['100 Continue and 103 Early Hints are skipped', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok', { status: 200, reusable: true }],
    ['bytes after the response', 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA', { status: 200, reusable: false }],
    ['cut short', 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort', /incomplete/],
    ['not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', /not an HTTP\/1.x response/],
    ['status out of range', 'HTTP/1.1 042 Odd\r\n\r\n', /status 042 out of range/],
    ['101 Switching Protocols', 'HTTP/1.1 101 Switching Protocols\r\n\r\n', /switched protocols/],
    ['bad content-length', 'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n', /bad content-length/],
    ['two different content-lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nxx', /bad content-length "2"/],
    ['header line without a colon', 'HTTP/1.1 200 OK\r\nnonsense\r\n\r\n', /malformed header line/],
    ['bad chunk size', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n', /malformed chunk size "zz"/],
    ['endless head', `HTTP/1.1 200 OK\r\nx: ${'a'.repeat(70000)}`, /response head longer than 65536 bytes/],
  ];
  for (const [name, raw, want] of cases) {
    const got = read(raw);
    if (want instanceof RegExp) t.match(got instanceof Error ? got.message : got, want, name);
    else t.same(got, want, name);
  }
});

type Script = (socket: net.Socket, request: string, index: number) => void;

/** A raw TCP server that answers each complete request (head + content-length body) with the script. */
async function rawServer(t: Test, script: Script) {
  const requests: Array<{ text: string; port: number }> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      buf += d;
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        const text = buf.slice(0, end + 4 + len);
        buf = buf.slice(end + 4 + len);
        requests.push({ text, port: socket.remotePort ?? 0 });
        script(socket, text, requests.length - 1);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { requests, sockets, url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?x=1`) };
}

const OK = 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n';

function client(t: Test, opts?: ConstructorParameters<typeof Http1Client>[0]): Http1Client {
  const c = new Http1Client(opts);
  t.teardown(() => c.close());
  return c;
}

t.test('the request: one write with the path, host, headers and exact body', async (t) => {
  const srv = await rawServer(t, (s) => s.write(OK));
  const status = await client(t).post(srv.url, { 'x-a': '1' }, '{"é":"€"}', 1000);
  t.equal(status, 200);
  const [head, body] = srv.requests[0]!.text.split('\r\n\r\n');
  t.same(head!.split('\r\n'), ['POST /hook?x=1 HTTP/1.1', `host: ${srv.url.host}`, 'connection: keep-alive', 'x-a: 1', `content-length: ${Buffer.byteLength('{"é":"€"}')}`]);
  t.equal(Buffer.from(body!, 'latin1').toString('utf8'), '{"é":"€"}');
});

t.test('a line break in a header is refused before anything is sent', async (t) => {
  const srv = await rawServer(t, (s) => s.write(OK));
  await t.rejects(client(t).post(srv.url, { 'x-a': 'ok\r\nx-evil: 1' }, '{}', 1000), /header "x-a" holds a line break/);
  t.equal(srv.requests.length, 0);
});

t.test('keep-alive: sequential requests share a connection unless the answer forbids it', async (t) => {
  const answers = [OK, 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', 'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n', OK, 'HTTP/1.1 500 x\r\n\r\nuntil close', OK];
  const srv = await rawServer(t, (s, _r, i) => (i === 4 ? s.end(answers[i]!) : s.write(answers[i]!)));
  const c = client(t);
  const got = [];
  for (let i = 0; i < answers.length; i++) got.push(await c.post(srv.url, {}, '{}', 1000));
  t.same(got, [200, 200, 200, 200, 500, 200]);
  const ports = srv.requests.map((r) => r.port);
  t.equal(new Set(ports.slice(0, 3)).size, 1, 'the first three on one connection');
  t.not(ports[3], ports[2], 'a new connection after "Connection: close"');
  t.equal(ports[4], ports[3]);
  t.not(ports[5], ports[4], 'a new connection after a body delimited by close');
});

t.test('an idle connection the receiver closed is not reused', async (t) => {
  const srv = await rawServer(t, (s) => s.write(OK));
  const c = client(t);
  t.equal(await c.post(srv.url, {}, '{}', 1000), 200);
  for (const s of srv.sockets) s.end();
  await new Promise((r) => setTimeout(r, 50));
  t.equal(await c.post(srv.url, {}, '{}', 1000), 200, 'no error: a fresh connection');
  t.not(srv.requests[1]!.port, srv.requests[0]!.port);
});

t.test('bytes nobody asked for drop the connection', async (t) => {
  const srv = await rawServer(t, (s) => {
    s.write(OK);
    setTimeout(() => s.write('HTTP/1.1 200 OK\r\n\r\n'), 20);
  });
  const c = client(t);
  t.equal(await c.post(srv.url, {}, '{}', 1000), 200);
  await new Promise((r) => setTimeout(r, 60));
  t.equal(await c.post(srv.url, {}, '{}', 1000), 200);
  t.not(srv.requests[1]!.port, srv.requests[0]!.port);
});

t.test('failures: cut short, malformed, silent, refused', async (t) => {
  const srv = await rawServer(t, (s, _r, i) => {
    if (i === 0) s.end('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort');
    else if (i === 1) s.write('garbage\r\n\r\n');
    else if (i !== 2) s.write(OK); // i === 2: no answer at all
  });
  const c = client(t);
  await t.rejects(c.post(srv.url, {}, '{}', 1000), { code: 'ECONNRESET', message: /connection closed before the answer ended/ });
  await t.rejects(c.post(srv.url, {}, '{}', 1000), /not an HTTP\/1.x response: "garbage"/);
  const started = performance.now();
  await t.rejects(c.post(srv.url, {}, '{}', 100), /^timeout after 100 ms$/);
  t.ok(performance.now() - started >= 95, 'waited for the timeout');
  t.equal(await c.post(srv.url, {}, '{}', 1000), 200, 'the next request works');
  t.equal(srv.requests.length, 4);
  await t.rejects(c.post(new URL(`http://127.0.0.1:${await deadPort()}/`), {}, '{}', 1000), { code: 'ECONNREFUSED' });
});

t.test('at most maxSockets connections; the rest wait their turn, and may time out waiting', async (t) => {
  const srv = await rawServer(t, (s) => setTimeout(() => s.write(OK), 30));
  const c = client(t, { maxSockets: 2 });
  const all = await Promise.allSettled([...Array.from({ length: 5 }, () => c.post(srv.url, {}, '{}', 2000)), c.post(srv.url, {}, '{}', 10)]);
  t.same(all.slice(0, 5).map((r) => r.status === 'fulfilled' && r.value), [200, 200, 200, 200, 200]);
  t.match(all[5], { status: 'rejected', reason: { message: 'timeout after 10 ms' } });
  t.equal(new Set(srv.requests.map((r) => r.port)).size, 2, 'two connections');
  t.equal(srv.requests.length, 5, 'the one that timed out in the queue was never sent');
});

t.test('close() fails what is in flight and what waits, and refuses new requests', async (t) => {
  const srv = await rawServer(t, () => undefined);
  const c = new Http1Client({ maxSockets: 1 });
  const both = Promise.allSettled([c.post(srv.url, {}, '{}', 5000), c.post(srv.url, {}, '{}', 5000)]);
  await new Promise((r) => setTimeout(r, 30));
  c.close();
  const [inFlight, waiting] = await both;
  t.match(inFlight, { status: 'rejected', reason: { code: 'ECONNRESET' } });
  t.match(waiting, { status: 'rejected', reason: { message: 'the webhook client is closed' } });
  await t.rejects(c.post(srv.url, {}, '{}', 5000), /the webhook client is closed/);
});

t.test("https: the receiver's certificate is checked, and a trusted one carries keep-alive requests", async (t) => {
  // A self-signed certificate for 127.0.0.1 and localhost, valid until 2126, made for this test.
  const cert = readFileSync(new URL('tls/cert.pem', import.meta.url));
  const key = readFileSync(new URL('tls/key.pem', import.meta.url));
  const seen: Array<{ url: string; port: number | undefined }> = [];
  const server = https.createServer({ cert, key }, (req, res) => {
    seen.push({ url: req.url ?? '', port: req.socket.remotePort });
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as AddressInfo).port;
  await t.rejects(client(t).post(new URL(`https://127.0.0.1:${port}/hook`), {}, '{}', 2000), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, 'an untrusted certificate fails the attempt');
  t.equal(seen.length, 0, 'nothing was sent to it');
  const trusting = client(t, { tls: { ca: cert } });
  t.equal(await trusting.post(new URL(`https://127.0.0.1:${port}/hook?a=1`), {}, '{}', 2000), 200);
  t.equal(await trusting.post(new URL(`https://localhost:${port}/hook`), {}, '{}', 2000), 200, 'by name: the name is sent for SNI and checked');
  t.equal(await trusting.post(new URL(`https://127.0.0.1:${port}/hook`), {}, '{}', 2000), 200);
  t.same(seen.map((s) => s.url), ['/hook?a=1', '/hook', '/hook']);
  t.equal(seen[2]!.port, seen[0]!.port, 'the connection to 127.0.0.1 was kept alive');
});
