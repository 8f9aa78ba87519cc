// The dashboard in a real browser (headless Chromium driven by puppeteer-core): a booking made
// through the API shows under Orders, a move changes the item and sends a delivery, Redeliver adds
// an attempt, and advancing the clock runs a due retry. Screenshots of each view go to
// .tap/dashboard/ (test artefacts, not committed).
import t from 'tap';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import { buildTestApp } from '../helper.js';
import { bookOverHttp } from '../book-order.js';
import { startReceiver } from '../webhooks/receiver.js';
import { packageRoot } from '../../src/paths.js';

const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
const shots = join(packageRoot, '.tap', 'dashboard');

/** Waits until the page's visible text matches, or fails naming what was expected. */
async function sees(page: Page, pattern: RegExp, within = 'main') {
  try {
    await page.waitForFunction((source: string, flags: string, sel: string) => new RegExp(source, flags).test(document.querySelector(sel)?.textContent ?? ''), { timeout: 10_000 }, pattern.source, pattern.flags, within);
  } catch {
    throw new Error(`the page never showed ${pattern} in ${within}; it shows: ${await page.$eval(within, (e) => e.textContent?.slice(0, 600))}`);
  }
}

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
  if (!chromium) {
    t.fail('Chromium is needed for the dashboard browser test: apt-get install chromium (or set CHROMIUM_PATH); .ci/run installs it');
    return;
  }
  mkdirSync(shots, { recursive: true });
  let answer = 200;
  const receiver = await startReceiver(() => answer);
  t.teardown(receiver.close);
  const app = await buildTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${origin}/__admin${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  await control('PUT', '/webhooks/config', { application: 'ui-shop', url: receiver.url });

  const browser = await puppeteer.launch({ executablePath: chromium, args: ['--no-sandbox', '--headless=new'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
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
  await page.screenshot({ path: join(shots, 'webhooks.png') });

  // A delivery the receiver refuses waits for its retry; advancing the clock runs it.
  answer = 500;
  await view(page, 'Orders');
  await click(page, row, 'REFUND_STARTED');
  await sees(page, /REFUND_STARTED/, `${row} td:nth-child(2)`);
  await view(page, 'Webhooks');
  await sees(page, /pending[\s\S]*next/, 'table.deliveries tbody tr:first-child');
  answer = 200;
  await view(page, 'Clock');
  const before = await page.$eval('.clock', (e) => e.textContent);
  await click(page, 'main', '+1m');
  await page.waitForFunction((b: string) => document.querySelector('.clock')?.textContent !== b, { timeout: 10_000 }, before ?? '');
  await sees(page, /^2026-01-15 10:01:/, '.clock');
  await page.screenshot({ path: join(shots, 'clock.png') });
  await view(page, 'Webhooks');
  await sees(page, /REFUND_STARTED[\s\S]*delivered/, 'table.deliveries tbody tr:first-child');
  t.equal(await page.$$eval('table.deliveries tbody tr:first-child ol.attempts li', (l) => l.length), 2, 'the refused attempt and the retry');
  t.equal(receiver.received.length, 4);

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
  await view(page, 'Report');
  await sees(page, /Report: ui-shop[\s\S]*unknown-query-parameter[\s\S]*Booking steps/);
  await page.screenshot({ path: join(shots, 'report.png') });

  t.same(pageErrors, [], 'no script error on the page');
});

t.test('with --admin-token: the page asks for the token once, then everything works, live', { timeout: 60_000 }, async (t) => {
  if (!chromium) {
    t.fail('Chromium is needed for the dashboard browser test: apt-get install chromium (or set CHROMIUM_PATH); .ci/run installs it');
    return;
  }
  const app = await buildTestApp({ config: { adminToken: 'ui-secret' } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const browser = await puppeteer.launch({ executablePath: chromium, args: ['--no-sandbox', '--headless=new'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
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
});
