// What survives kill -9 of the real process: the server clock, the deliveries waiting on it, and a
// store that one bad request can no longer break.
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, start } from './cli-process.js';
import { tempDir } from './tmp.js';

const INSTANT = '4e451a8a-2ee5-493f-aa12-a39f13d7253e';
const LEAD = { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', musement_newsletter: 'NO', allow_profiling: 'NO', thirdparty_newsletter: 'NO', events_related_newsletter: 'NO' };

function client(url: string, application: string) {
  const headers: Record<string, string> = { 'x-service-application': application, 'content-type': 'application/json' };
  return async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${text.slice(0, 300)}`);
    const json = text ? JSON.parse(text) : undefined;
    if (path === '/login') headers.authorization = `Bearer ${json.access_token}`;
    return json;
  };
}

const control = async (origin: string, path: string, body: unknown) => {
  const res = await fetch(`${origin}/__admin${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
};

t.test('kill -9: the moved clock comes back, and a pending retry goes out on it, not hours later', async (t) => {
  const dir = tempDir(t);
  const db = join(dir, 'state.json');
  // A receiver that refuses at first (its port is closed), then listens on the same port.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const args = ['--db', db, '--webhook-url', `http://127.0.0.1:${port}/hooks`];

  const first = await start(args);
  const moved = await control(first.origin, '/clock', { advance: 'PT5H' });
  const api = client(first.url, 'shop');
  const days = await api('GET', `/activities/${INSTANT}/dates`);
  const [schedule] = await api('GET', `/activities/${INSTANT}/dates/${days[2].day}`);
  const product = schedule.groups[0].slots[0].products[0].product_id;
  const cart = await api('POST', '/carts');
  await api('POST', `/carts/${cart.uuid}/items`, [{ type: 'musement', product_identifier: product, quantity: 1 }]);
  await api('PUT', `/carts/${cart.uuid}/customer`, LEAD);
  const order = await api('POST', '/orders', { cart_uuid: cart.uuid, email_notification: 'NONE' });
  await api('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  await api('POST', '/payments/no/payment', { uuid: order.uuid });
  // Wait for the first attempt to fail (connection refused): the retry is then 10 s away on the server clock.
  let delivery: { state: string; attempts: unknown[]; next_attempt_at?: string } | undefined;
  for (let i = 0; i < 100 && !delivery?.attempts.length; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`${first.origin}/__admin/webhooks/deliveries`);
    delivery = ((await res.json()) as { deliveries: typeof delivery[] }).deliveries[0];
  }
  t.equal(delivery?.state, 'pending', 'the first attempt failed and a retry waits');
  first.child.kill('SIGKILL');
  await first.exited;

  const received: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(port, '127.0.0.1', r));
  t.teardown(() => receiver.close());
  const second = await start(args);
  t.teardown(() => second.child.kill('SIGKILL'));
  const now = await control(second.origin, '/clock', { advance: 'PT0S' });
  const drift = Date.parse(now.now as string) - Date.parse(moved.now as string);
  t.ok(drift >= 0 && drift < 60_000, `the server clock is still 5 h ahead after the restart (moved on ${drift} ms)`);
  // The retry was due 10 s after the failed attempt on the server clock: real seconds, not 5 hours.
  for (let i = 0; i < 300 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  t.equal(received.length, 1, 'the pending delivery went out after the restart');
  t.match(JSON.parse(received[0] ?? '{}'), { order_uuid: order.uuid, order_item_status: 'OK' });
  const still = client(second.url, 'shop');
  t.match(await still('GET', `/orders/${order.uuid}`), { items: [{ status: 'OK' }] }, 'the paid order is there');
});

t.test('the 10 KB request that once stopped every later write, against a file store', async (t) => {
  const dir = tempDir(t);
  const db = join(dir, 'state.json');
  const server = await start(['--db', db]);
  t.teardown(() => server.child.kill('SIGKILL'));
  const a = client(server.url, 'app-a');
  const b = client(server.url, 'app-b');
  const cart = await a('POST', '/carts');
  const nested = '['.repeat(5000) + ']'.repeat(5000);
  const body = `{${Object.entries(LEAD).map(([k, v]) => `"${k}":"${v}"`).join(',')},"extra":${nested}}`;
  t.ok(body.length > 10_000);
  const refused = await a('PUT', `/carts/${cart.uuid}/customer`, body, 400);
  t.match(refused, { code: '0', message: /nest/i }, 'refused with 400 and a message about nesting');
  await a('POST', '/orders', `{"cart_uuid":"${cart.uuid}","extra_data":${'{"x":'.repeat(6000)}1${'}'.repeat(6000)}}`, 400);
  const other = await b('POST', '/carts');
  await b('POST', '/login', { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  await a('PUT', `/carts/${cart.uuid}/customer`, LEAD);
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0, 'SIGTERM still stops it cleanly');
  const state = JSON.parse(readFileSync(db, 'utf8'));
  t.ok(state.tenants['app-b'].carts[other.uuid], "another application's write after the bad request is on disk");
});

t.test('a state file that is not state, or of a newer mock-server, stops the start with one line and is left untouched', async (t) => {
  const dir = tempDir(t);
  const db = join(dir, 'state.json');
  writeFileSync(db, 'null');
  const r = await run(['--db', db, '--port', '0']);
  t.equal(r.code, 2);
  t.match(r.stderr, /^mock-server: State file .* is not a mock-server state file: the top level must be a JSON object\. It was left untouched.*\n$/);
  t.equal(readFileSync(db, 'utf8'), 'null');
  const newer = '{"version":2,"mock_server":"9.0.0","server":{},"tenants":{}}';
  writeFileSync(db, newer);
  const refused = await run(['--db', db, '--port', '0']);
  t.equal(refused.code, 2);
  t.match(refused.stderr, /^mock-server: State file .* was written by a newer mock-server \(9\.0\.0, state version 2; this is mock-server .*\)\. It was left untouched: .*\n$/);
  t.equal(readFileSync(db, 'utf8'), newer, 'a newer state file is left as it was');
});

t.test('one server per state file: a second one is refused naming the holder; after kill -9 the lock is taken over at once', async (t) => {
  const dir = tempDir(t);
  const db = join(dir, 'state.json');
  const first = await start(['--db', db]);
  const second = await run(['--db', db, '--port', '0']);
  t.equal(second.code, 2);
  t.match(second.stderr, new RegExp(`^mock-server: State file ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another mock-server \\(pid ${first.child.pid}\\).*\\n$`));
  first.child.kill('SIGKILL');
  await first.exited;
  // The lock's directory is still there and fresh: only its dead owner lets this start.
  const again = await start(['--db', db]);
  again.child.kill('SIGTERM');
  t.equal(await again.exited, 0);
  const third = await start(['--db', db]);
  t.pass('a clean stop released the lock');
  third.child.kill('SIGTERM');
  await third.exited;
});
