// The dashboard in a real browser (headless Chromium driven by puppeteer-core): a booking made
// through the API shows under Orders, a move changes the item and sends a delivery, Redeliver adds
// an attempt, a delivery opens on its payload and signature headers, a later version waits for an
// earlier one and says so, advancing the clock runs a due retry, a receiver is set and cleared, and a
// request opens on its headers and bodies (secrets masked). Screenshots of each view go to
// .tap/dashboard/ (test artefacts, not committed).
import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { buildTestApp } from '../helper.js';
import { bookOverHttp } from '../book-order.js';
import { openPage, sees, shots } from '../browser.js';
import { startReceiver } from '../webhooks/receiver.js';


async function view(page: Page, name: string) {
  const [tab] = await page.$$(`xpath/.//nav/button[text()="${name}"]`);
  if (!tab) throw new Error(`no ${name} tab`);
  await tab.click();
  await sees(page, new RegExp(name), 'main h2');
}

/** Clicks the button with this text inside the element matching `scope`. */
async function click(page: Page, scope: string, text: string) {
  const [button] = await page.$$(`${scope} ::-p-xpath(.//button[normalize-space(.)="${text}"])`);
  if (!button) throw new Error(`no "${text}" button in ${scope}`);
  await button.click();
}

t.test('a tester drives the sandbox from the dashboard', { timeout: 120_000 }, async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page, errors: pageErrors } = opened;
  let answer = 200;
  const receiver = await startReceiver(() => answer);
  t.teardown(receiver.close);
  const app = await buildTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${origin}/__admin${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  await control('PUT', '/webhooks/config', { application: 'ui-shop', url: receiver.url, secret: 'ui-signing-secret' });

  await page.goto(`${origin}/__admin/ui/`);
  await sees(page, /live/, 'header');

  // A booking made through the API shows up under Orders, live (no reload).
  await view(page, 'Orders');
  await sees(page, /No order yet/);
  const order = await bookOverHttp(`${origin}/api/v3`, 'ui-shop');
  const item = order.items[0]!;
  const row = `tr[data-item="${item.uuid}"]`;
  await sees(page, new RegExp(`${order.identifier}[\\s\\S]*${item.code}[\\s\\S]*PENDING`));
  await page.screenshot({ path: join(shots, 'orders.png') });

  // A move the lifecycle allows: the item changes and a delivery appears.
  await click(page, row, 'OK');
  await sees(page, /OK/, `${row} td:nth-child(2)`);
  t.equal(receiver.received.length, 1, 'the webhook went out');
  await view(page, 'Webhooks');
  await sees(page, /delivered/, 'table.deliveries tbody');
  const delivery = `tr[data-delivery]`;
  t.equal(await page.$$eval(`${delivery} ol.attempts li`, (l) => l.length), 1);

  // Redeliver adds an attempt.
  await click(page, delivery, 'Redeliver');
  await page.waitForFunction((sel: string) => document.querySelectorAll(sel).length === 2, { timeout: 10_000 }, `${delivery} ol.attempts li`);
  t.equal(receiver.received.length, 2, 'sent again');

  // A delivery opens on its payload and the headers each attempt sent: the signature, never the secret.
  await page.click(`${delivery} td:first-child`);
  await sees(page, /Payload[\s\S]*"order_item_status": "OK"[\s\S]*Headers sent[\s\S]*attempt 2/, 'tr.detail');
  const signature = receiver.received[1]!.headers['webhook-signature'] as string;
  t.match(signature, /^v1,/);
  await sees(page, new RegExp(`webhook-signature: ${signature.replace(/[+/]/g, '\\$&')}`), 'tr.detail');
  await sees(page, /webhook-id: whd_[0-9a-f]+[\s\S]*webhook-timestamp: \d+/, 'tr.detail');
  t.notOk((await page.content()).includes('ui-signing-secret'), 'the signing secret is nowhere on the page');
  await page.screenshot({ path: join(shots, 'webhooks.png') });
  await page.click(`${delivery} td:first-child`);

  // A delivery the receiver refuses waits for its retry; advancing the clock runs it.
  answer = 500;
  await view(page, 'Orders');
  await click(page, row, 'REFUND_STARTED');
  await sees(page, /REFUND_STARTED/, `${row} td:nth-child(2)`);
  await view(page, 'Webhooks');
  await sees(page, /pending[\s\S]*next attempt at 2026-01-15T10:00:10\.000Z \(attempt 2 of 6\)/, 'table.deliveries tbody tr:first-child');

  // A later version of the item waits for it, and says so (not a "next" time already past).
  await view(page, 'Orders');
  await click(page, row, 'REFUNDED');
  await sees(page, /REFUNDED/, `${row} td:nth-child(2)`);
  await view(page, 'Webhooks');
  await sees(page, /REFUNDED[\s\S]*pending[\s\S]*waiting for version \d+ of this order item to be delivered first/, 'table.deliveries tbody tr:first-child');
  await page.screenshot({ path: join(shots, 'webhooks-waiting.png') });
  t.equal(receiver.received.length, 3, 'the later version is held back');
  answer = 200;
  await view(page, 'Clock');
  const before = await page.$eval('.clock', (e) => e.textContent);
  await click(page, 'main', '+1m');
  await page.waitForFunction((b: string) => document.querySelector('.clock')?.textContent !== b, { timeout: 10_000 }, before ?? '');
  await sees(page, /^2026-01-15 10:01:/, '.clock');
  await page.screenshot({ path: join(shots, 'clock.png') });
  // With an application chosen, the view shows and moves that application's clock only.
  await page.select('header select[aria-label="Application"]', 'ui-shop');
  await click(page, 'main', '+1h');
  await sees(page, /^2026-01-15 11:01:/, '.clock');
  await sees(page, /of ui-shop: the server clock, 1 h ahead/, 'main .bar');
  t.match(await (await control('GET', '/clock')).json(), { now: /^2026-01-15T10:01:/ }, 'the server clock did not move');
  t.match(await (await control('GET', '/clock?application=ui-shop')).json(), { now: /^2026-01-15T11:01:/, application_offset_ms: 3_600_000 });
  await page.select('header select[aria-label="Application"]', '');
  await sees(page, /^2026-01-15 10:01:/, '.clock');
  await view(page, 'Webhooks');
  await sees(page, /REFUNDED[\s\S]*delivered/, 'table.deliveries tbody tr:first-child');
  await sees(page, /REFUND_STARTED[\s\S]*delivered/, 'table.deliveries tbody tr:nth-child(2)');
  t.equal(await page.$$eval('table.deliveries tbody tr:nth-child(2) ol.attempts li', (l) => l.length), 2, 'the refused attempt and the retry');
  t.equal(receiver.received.length, 5);
  t.same(receiver.received.slice(3).map((r) => JSON.parse(r.body).order_item_status), ['REFUND_STARTED', 'REFUNDED'], 'in order');

  // A receiver set and cleared from the page.
  await page.type('main input[aria-label="Receiver application"]', 'ui-other');
  await page.type('main input[aria-label="Receiver url"]', receiver.url);
  await page.type('main input[aria-label="Receiver secret"]', 'other-secret');
  await click(page, 'main', 'Set receiver');
  await sees(page, new RegExp(`ui-other: ${receiver.url.replace(/[.]/g, '\\.')} \\(stored by PUT [^)]*, signed with its own secret\\)`), 'ul.receivers');
  t.match((await (await control('GET', '/webhooks/config')).json()).applications['ui-other'], { url: receiver.url, source: 'stored', signing: 'own', signed: true });
  await page.screenshot({ path: join(shots, 'receivers.png') });
  await click(page, 'li[data-receiver="ui-other"]', 'Clear');
  await page.waitForFunction(() => !document.querySelector('li[data-receiver="ui-other"]'), { timeout: 10_000 });
  t.equal((await (await control('GET', '/webhooks/config')).json()).applications['ui-other'], undefined, 'cleared');

  // Faults: add one for two requests from the page; the partner API answers the first with it and
  // the page shows one left; clear. (With the form's default of one, the live update after that
  // request took the fault, and the Clear button with it, away before the test could click it.)
  await view(page, 'Faults');
  const times = await page.$('main input[aria-label="Times"]');
  await times!.click({ count: 3 });
  await times!.type('2');
  await click(page, 'main', 'Add fault');
  await sees(page, /GET[\s\S]*\/activities[\s\S]*503/, 'main table');
  t.equal((await fetch(`${origin}/api/v3/activities`, { headers: { 'x-service-application': 'ui-shop' } })).status, 503);
  await sees(page, /^1$/, 'main table tbody tr:first-child td:nth-child(6)');
  await page.screenshot({ path: join(shots, 'faults.png') });
  await click(page, 'main', 'Clear all faults');
  await sees(page, /No fault armed/);

  // Requests, with the report's findings beside them; and the Report view.
  await fetch(`${origin}/api/v3/cities?country_in=IT`, { headers: { 'x-service-application': 'ui-shop' } });
  await view(page, 'Requests');
  await sees(page, /\/api\/v3\/cities\?country_in=IT[\s\S]*unknown-query-parameter/, 'table.requests tbody tr:first-child');
  await page.screenshot({ path: join(shots, 'requests.png') });
  // The login opens on its headers and bodies, both ways, the secret and the token masked.
  const [login] = await page.$$('xpath/.//tr[@data-request][td[@class="path" and text()="/api/v3/login"]]');
  if (!login) throw new Error('no POST /api/v3/login row');
  await login.click();
  await sees(page, /Request: POST \/api\/v3\/login[\s\S]*content-type: application\/json[\s\S]*"client_secret": "\*\*\*"[\s\S]*Response: 200[\s\S]*cache-control: no-store[\s\S]*"access_token": "\*\*\*"/, 'tr.detail');
  t.notOk((await page.content()).includes('sandbox-secret'), 'the client secret is nowhere on the page');
  await page.screenshot({ path: join(shots, 'request-detail.png') });
  await view(page, 'Report');
  await sees(page, /Report: ui-shop[\s\S]*unknown-query-parameter[\s\S]*Booking steps/);
  await page.screenshot({ path: join(shots, 'report.png') });
  // A careful client's report: one plain empty state, no empty table under it.
  await bookOverHttp(`${origin}/api/v3`, 'ui-careful');
  await page.waitForSelector('header select[aria-label="Application"] option[value="ui-careful"]');
  await page.select('header select[aria-label="Application"]', 'ui-careful');
  await sees(page, /Report: ui-careful[\s\S]*Findings\s*No finding: nothing this application sent needs fixing\.\s*Booking steps/);
  t.equal(await page.$('main table.findings'), null, 'no findings table when there is no finding');
  await page.screenshot({ path: join(shots, 'report-empty.png') });

  t.same(pageErrors, [], 'no script error on the page');
});

t.test('with --admin-token: the page asks for the token once, then everything works, live', { timeout: 60_000 }, async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page } = opened;
  const app = await buildTestApp({ config: { adminToken: 'ui-secret' } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  await page.goto(`${origin}/__admin/ui/`);
  await page.waitForSelector('form.token input[type=password]', { timeout: 10_000 });
  await page.type('form.token input[type=password]', 'wrong');
  await page.click('form.token button[type=submit]');
  await sees(page, /That token was refused/, 'form.token');
  t.pass('a wrong token: asked again');
  await page.type('form.token input[type=password]', 'ui-secret');
  await page.click('form.token button[type=submit]');
  await sees(page, /live/, 'header');
  await view(page, 'Orders');
  await bookOverHttp(`${origin}/api/v3`, 'token-shop');
  await sees(page, /MUS\d+[\s\S]*PENDING/);
  t.equal(await page.evaluate(() => sessionStorage.getItem('mock-server-admin-token')), 'ui-secret', 'kept for the tab');

  // A partner's own access token: the same page, showing its application only.
  await bookOverHttp(`${origin}/api/v3`, 'partner-shop');
  const login = await fetch(`${origin}/api/v3/login`, { method: 'POST', headers: { 'x-service-application': 'partner-shop', 'content-type': 'application/json' }, body: JSON.stringify({ client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' }) });
  const partnerToken = ((await login.json()) as { access_token: string }).access_token;
  const other = await page.browser().newPage();
  await other.goto(`${origin}/__admin/ui/#Orders`);
  await other.waitForSelector('form.token input[type=password]', { timeout: 10_000 });
  await other.type('form.token input[type=password]', partnerToken);
  await other.click('form.token button[type=submit]');
  await sees(other, /live/, 'header');
  await sees(other, /partner-shop/);
  const shown = await other.$eval('main', (e) => e.textContent ?? '');
  t.notMatch(shown, /token-shop/, "another application's order is not shown to a partner's token");
  const apps = await other.$$eval('header select[aria-label="Application"] option', (o) => o.map((x) => (x as HTMLOptionElement).value));
  t.same(apps.filter(Boolean), ['partner-shop'], 'the application menu holds its own only');
});
