// The table "Who may do what" of docs/state-and-sharing.md, row by row: each row's request is made
// by each caller the table names, in a shared sandbox where acme-shop has a paid order, and gets
// what the table says. The table is read from the page, so the page and the server cannot drift.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helper.js';
import { bookOrder, CONFIRM, overInject } from '../book-order.js';

const ADMIN = 'adm1n';
const APPLICATION = 'acme-shop';
const CALLERS = ['anonymous', "a partner's token for acme-shop", "a partner's token for another application", "the operator's admin token"];

/** The rows of the table under "### Who may do what": what, request, then one cell per caller. */
function table(): { header: string[]; rows: string[][] } {
  const page = readFileSync(join(import.meta.dirname, '../../docs/state-and-sharing.md'), 'utf8');
  const section = page.split('### Who may do what')[1]?.split('\n## ')[0] ?? '';
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  const cells = (l: string) => l.slice(1, -1).split(' | ').map((c) => c.trim());
  return { header: cells(lines[0] ?? ''), rows: lines.slice(2).map(cells) };
}

async function register(app: FastifyInstance, application: string) {
  const res = await app.inject({ method: 'POST', url: '/__admin/clients', headers: { authorization: `Bearer ${ADMIN}` }, payload: { applications: [application], scopes: ['no-payment', 'order-item-cancellation'] } });
  return res.json() as { client_id: string; client_secret: string };
}

/** A shared sandbox where acme-shop has one paid order whose item is OK; the tokens of each caller. */
async function sandbox() {
  const app = await buildTestApp({ config: { shared: true, adminToken: ADMIN } });
  const order = await bookOrder(overInject(app, APPLICATION), CONFIRM, await register(app, APPLICATION));
  const item = order.items[0]?.uuid as string;
  await app.inject({ method: 'POST', url: `/__admin/order-items/${item}/status`, headers: { authorization: `Bearer ${ADMIN}` }, payload: { status: 'OK' } });
  const login = async (application: string) =>
    (await app.inject({ method: 'POST', url: '/api/v3/login', headers: { 'x-service-application': application }, payload: { ...(await register(app, application)), grant_type: 'client_credentials' } })).json().access_token as string;
  const tokens = [undefined, await login(APPLICATION), await login('other-shop'), ADMIN];
  const cart = Object.keys(app.store.tenant(APPLICATION).carts)[0] as string;
  const values: Record<string, string> = { application: APPLICATION, cart, order: order.uuid, item, activity: CONFIRM };
  return { app, tokens, fill: (s: string) => s.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`) };
}

t.test("the table's callers are the ones this test plays", async (t) => {
  const { header, rows } = table();
  t.same(header.slice(2), CALLERS);
  t.ok(rows.length >= 10, `${rows.length} rows`);
});

type Sandbox = Awaited<ReturnType<typeof sandbox>>;
// The reads share one sandbox: no row's read changes what the next one finds.
let reads: Promise<Sandbox> | undefined;
t.teardown(async () => (await reads)?.app.close());

for (const [what, request, ...cells] of table().rows) {
  t.test(`${what}: ${request}`, async (t) => {
    const m = /^`(GET|POST|PUT|DELETE) (\S+)(?: (.+))?`$/.exec(request ?? '');
    if (!m) throw new Error(`the request cell "${request}" is not \`METHOD /path [JSON body]\``);
    const fresh = async () => {
      const s = await sandbox();
      t.teardown(() => s.app.close());
      return s;
    };
    let current: Sandbox | undefined;
    for (const [i, cell] of cells.entries()) {
      const { app, tokens, fill } = m[1] === 'GET' ? await (reads ??= sandbox()) : (current ??= await fresh());
      const token = tokens[i];
      const res = await app.inject({
        method: m[1] as 'GET',
        url: fill(m[2] as string),
        headers: { 'x-service-application': APPLICATION, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(m[3] ? { payload: JSON.parse(fill(m[3])) } : {}),
      });
      // A write that was served may have changed what the next caller would find (a move, a reset): it gets a new sandbox.
      if (res.statusCode < 300) current = undefined;
      const expected = /^yes\b/.test(cell) ? 'yes' : /^no: (\d{3})$/.exec(cell)?.[1];
      if (!expected) throw new Error(`the cell "${cell}" is neither "yes" nor "no: <status>"`);
      const got = res.statusCode >= 200 && res.statusCode < 300 ? 'yes' : String(res.statusCode);
      t.equal(got, expected, `${CALLERS[i]}: ${cell} (${res.statusCode} ${res.statusCode >= 300 ? res.body.slice(0, 160) : ''})`);
    }
  });
}
