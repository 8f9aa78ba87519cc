// The Certification view in a real browser (headless Chromium driven by puppeteer-core): a tester
// starts a run for an application, watches its checklist fill in live while the integration plays
// it, answers a question in the form, and opens the certificate once every requirement passed.
// A screenshot goes to .tap/dashboard/certification.png (a test artefact, not committed).
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import t from 'tap';
import { systemClock } from '../../src/clock.js';
import { openPage, sees as seesWithin, shots } from '../browser.js';
import { buildTestApp } from '../helper.js';
import { playRun, receiver, SECRET, until } from './client.js';

// The run plays fifteen integrations' worth of requests: a loaded machine takes a while.
const sees = (page: Page, pattern: RegExp, within = 'main') => seesWithin(page, pattern, within, 60_000);

t.test('a tester runs a certification from the dashboard', { timeout: 180_000 }, async (t) => {
  const opened = await openPage(t);
  if (!opened) return;
  const { page, errors: pageErrors } = opened;
  const app = await buildTestApp({ clock: systemClock() });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const hook = await receiver();
  t.teardown(hook.close);
  // The receiver makes the application one the page can choose.
  await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { application: 'ui-cert', url: hook.url, secret: SECRET } });

  await page.goto(`${origin}/__admin/ui/#Certification`);
  await sees(page, /live/, 'header');
  await sees(page, /Choose an application above/);
  await page.select('select[aria-label="Application"]', 'ui-cert');
  await sees(page, /No run yet for ui-cert/);
  const [start] = await page.$$('main ::-p-xpath(.//button[normalize-space(.)="Start a run"])');
  await start!.click();
  await sees(page, /0 of 15 passed/);
  t.equal((await page.$$('tr[data-requirement]')).length, 15, 'the checklist');
  const { runs } = (await app.inject({ url: '/__admin/certifications?application=ui-cert' })).json();

  // The integration plays the run; the refusal's question is left to the page.
  await playRun(app, { application: 'ui-cert', credentials: { client_id: 'sandbox-client', client_secret: 'sandbox-secret' }, receiver: hook, run: runs[0].id, leaveQuestions: ['refusal'] });
  // All but the refusal, and the two that are judged once every other requirement passed.
  await sees(page, /12 of 15 passed/);
  await sees(page, /answer the question/, 'tr[data-requirement="refusal"]');
  const status = [...hook.bookings.values()].find((b) => b.status === 'KO')?.status ?? '';
  await page.type('input[aria-label="Answer for refusal"]', status);
  const [answer] = await page.$$('tr[data-requirement="refusal"] ::-p-xpath(.//button[normalize-space(.)="Answer"])');
  await answer!.click();
  await sees(page, /15 of 15 passed/);
  await sees(page, /passed/, 'tr[data-requirement="refusal"] td:first-child');
  const [show] = await page.$$('main ::-p-xpath(.//button[normalize-space(.)="Show certificate"])');
  await show!.click();
  await sees(page, /[\w-]+\.[\w-]+\.[\w-]+/, 'pre.certificate');
  await page.screenshot({ path: join(shots, 'certification.png') });
  const cert = await page.$eval('pre.certificate', (e) => e.textContent ?? '');
  const served = (await app.inject({ url: `/__admin/certifications/${runs[0].id}/certificate` })).body;
  t.equal(cert, served, 'the page shows the certificate the API serves');
  await until('no page error', () => true);
  t.same(pageErrors, [], 'no error on the page');
});
