// The dashboard's server side: its static files, the change stream it listens to, the admin token,
// and the control-API fields it shows (GET /__admin/clock, allowed moves and scenario runs of items).
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, H } from '../helper.js';
import { bookOverHttp } from '../book-order.js';

async function listening(t: Test, adminToken: string | null = null): Promise<{ app: FastifyInstance; origin: string }> {
  const app = await buildTestApp({ config: { adminToken } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const { port } = app.server.address() as { port: number };
  return { app, origin: `http://127.0.0.1:${port}` };
}

/** Reads server-sent events from a real connection; `next()` resolves with the next one. */
async function events(t: Test, url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  t.teardown(() => controller.abort());
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    res,
    async next(): Promise<{ event: string; data: { topics: string[] } }> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) return { event, data: JSON.parse(data) };
          continue; // a heartbeat comment
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the event stream ended');
        buffer += value;
      }
    },
  };
}

t.test('static files: the page, its script, styles and Preact with htm from node_modules (no CDN)', async (t) => {
  const { origin } = await listening(t);
  const bare = await fetch(`${origin}/__admin/ui`, { redirect: 'manual' });
  t.equal(bare.status, 302);
  t.equal(bare.headers.get('location'), '/__admin/ui/');
  const page = await fetch(`${origin}/__admin/ui/`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  const html = await page.text();
  t.match(html, /<script type="module" src="app.js"><\/script>/);
  t.notMatch(html, /https?:\/\//, 'nothing loaded from elsewhere');
  const app = await (await fetch(`${origin}/__admin/ui/app.js`)).text();
  t.ok(app.includes(`'./vendor/preact-htm.js'`), 'Preact and htm come from the server itself');
  t.notMatch(app, /https?:\/\//, 'no URL of another origin in the script');
  const vendor = await fetch(`${origin}/__admin/ui/vendor/preact-htm.js`);
  t.equal(vendor.status, 200);
  t.match(vendor.headers.get('content-type'), /javascript/);
  t.match(await vendor.text(), /export\{.*\bhtml\b.*\brender\b/s);
  t.equal((await fetch(`${origin}/__admin/ui/style.css`)).status, 200);
  t.equal((await fetch(`${origin}/__admin/ui/nothing.js`)).status, 404);
  const root = await (await fetch(`${origin}/`)).json();
  t.match(root, { dashboard: '/__admin/ui', control_docs: '/__admin/docs' }, 'GET / points to it');
});

t.test('GET /__admin/events names what changed: requests, state, faults', async (t) => {
  const { origin } = await listening(t);
  const stream = await events(t, `${origin}/__admin/events`);
  t.match(stream.res.headers.get('content-type'), /^text\/event-stream/);
  t.same(await stream.next(), { event: 'hello', data: { topics: ['requests', 'state', 'faults'] } });

  await fetch(`${origin}/api/v3/currencies`, { headers: H });
  t.same(await stream.next(), { event: 'change', data: { topics: ['requests'] } }, 'a partner request');
  await fetch(`${origin}/__admin/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advance":"PT1H"}' });
  t.same(await stream.next(), { event: 'change', data: { topics: ['state'] } }, 'the clock moved (a store write)');
  await fetch(`${origin}/__admin/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"method":"GET","path":"/currencies","status":503}' });
  t.same(await stream.next(), { event: 'change', data: { topics: ['state', 'faults'] } }, 'a fault is kept with the state');
  await fetch(`${origin}/api/v3/currencies`, { headers: H });
  t.same(await stream.next(), { event: 'change', data: { topics: ['requests', 'state', 'faults'] } }, 'the fault was used up by a request');

  const refused = await fetch(`${origin}/__admin/events`, { headers: { accept: 'application/json' } });
  t.equal(refused.status, 406, 'the stream is only a stream');
});

t.test('with --admin-token: the page is open, its data wants the token (a header, or ?access_token= for the stream)', async (t) => {
  const { origin } = await listening(t, 'ui-secret');
  t.equal((await fetch(`${origin}/__admin/ui/`)).status, 200, 'static code, no state');
  t.equal((await fetch(`${origin}/__admin/ui/vendor/preact-htm.js`)).status, 200);
  t.equal((await fetch(`${origin}/__admin/orders`)).status, 401);
  t.equal((await fetch(`${origin}/__admin/events`)).status, 401);
  t.equal((await fetch(`${origin}/__admin/events?access_token=wrong`)).status, 401);
  t.equal((await fetch(`${origin}/__admin/orders?access_token=ui-secret`)).status, 401, 'the query form is for the stream only');
  const byQuery = await events(t, `${origin}/__admin/events?access_token=ui-secret`);
  t.equal((await byQuery.next()).event, 'hello');
  const byHeader = await events(t, `${origin}/__admin/events`, { authorization: 'Bearer ui-secret' });
  t.equal((await byHeader.next()).event, 'hello');
});

t.test('what the dashboard shows: the server clock, allowed moves and scenario runs of items', async (t) => {
  const { origin } = await listening(t);
  const clock = await (await fetch(`${origin}/__admin/clock`)).json();
  t.match(clock, { now: /^\d{4}-\d\d-\d\dT/, offset_ms: Number });
  const order = await bookOverHttp(`${origin}/api/v3`, 'ui-shop');
  const item = order.items[0]!;
  const listed = async () => (await (await fetch(`${origin}/__admin/orders?application=ui-shop`)).json()).orders[0].items[0];
  t.match(await listed(), { uuid: item.uuid, code: item.code, status: 'PENDING', moves: ['OK', 'KO'], scenario: null });
  const run = await fetch(`${origin}/__admin/scenarios/delayed-confirmation/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ order_item_uuid: item.uuid }) });
  t.equal(run.status, 200, await run.clone().text());
  t.match(await listed(), { scenario: { name: 'delayed-confirmation', steps_done: 0, steps: Number, next_step_at: /^\d{4}-/, stopped: null } });
});
