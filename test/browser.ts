// The dashboard's browser tests' common parts: Debian's Chromium driven by puppeteer-core (its own
// browser download cannot run here), a page whose script errors are kept, and a wait on its text.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import puppeteer, { type Page } from 'puppeteer-core';
import { packageRoot } from '../src/paths.js';

const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));

/** Where the tests' screenshots go (test artefacts, not committed). */
export const shots = join(packageRoot, '.tap', 'dashboard');

/**
 * A page of a headless Chromium that is closed at the test's end, with the script errors it meets;
 * null, and the test failed, when there is no Chromium.
 */
export async function openPage(t: Test): Promise<{ page: Page; errors: string[] } | null> {
  if (!chromium) {
    t.fail('Chromium is needed for the dashboard browser tests: apt-get install chromium (or set CHROMIUM_PATH); .ci/run installs it');
    return null;
  }
  mkdirSync(shots, { recursive: true });
  const browser = await puppeteer.launch({ executablePath: chromium, args: ['--no-sandbox', '--headless=new'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, errors };
}

/** Waits until the text of the element matching `within` matches, or fails naming what was expected. */
export async function sees(page: Page, pattern: RegExp, within = 'main', timeout = 10_000): Promise<void> {
  try {
    await page.waitForFunction((source: string, flags: string, sel: string) => new RegExp(source, flags).test(document.querySelector(sel)?.textContent ?? ''), { timeout }, pattern.source, pattern.flags, within);
  } catch {
    throw new Error(`the page never showed ${pattern} in ${within}; it shows: ${await page.$eval(within, (e) => e.textContent?.slice(0, 600))}`);
  }
}
