// The dashboard in a real browser (headless Chromium) when its server stops: the page says "server
// stopped" instead of "live", and is live again once a server answers on the same
// address. The browser's own EventSource retries end at the first refused connection.
import t from 'tap';
import type { Page } from 'puppeteer-core';
import { openPage } from '../browser.js';
import { buildTestApp } from '../helper.js';

const badge = (page: Page) => page.$eval('header .live', (e) => e.textContent);
async function shows(page: Page, text: string) {
  try {
    await page.waitForFunction((want: string) => document.querySelector('header .live')?.textContent === want, { timeout: 10_000 }, text);
  } catch {
    throw new Error(`the header never showed "${text}"; it shows "${await badge(page)}"`);
  }
}

t.test('the page says the server stopped, then reconnects when it is back', { timeout: 60_000 }, async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page } = opened;
  const first = await buildTestApp();
  await first.listen({ port: 0, host: '127.0.0.1' });
  const port = (first.server.address() as { port: number }).port;
  await page.goto(`http://127.0.0.1:${port}/__admin/ui/#Orders`);
  await shows(page, 'live');

  const closing = Date.now();
  await first.close();
  t.ok(Date.now() - closing < 2000, `the server stopped at once with the page open (${Date.now() - closing} ms)`);
  await shows(page, 'server stopped');
  t.pass('the page says the server stopped');

  const second = await buildTestApp();
  t.teardown(() => second.close());
  await second.listen({ port, host: '127.0.0.1' });
  await shows(page, 'live');
  t.pass('live again once the server is back');
});
