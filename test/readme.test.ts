// README's shell lines, pasted into bash as a newcomer would (curl and jq, from the top of the page)
// against the CLI as a real process: the walkthrough's answers are the ones README's text names, and
// its last line, the integration report, shows no warning and no error.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnOwned } from './child.js';
import { bin, start } from './cli-process.js';
import { packageRoot } from '../src/paths.js';

const missing = ['bash', 'curl', 'jq'].filter((tool) => {
  try {
    execFileSync('bash', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});

/** The README's `sh` blocks, in page order, aimed at this server and this clone's CLI. */
function readmeLines(origin: string): string {
  const blocks = [...readFileSync(join(packageRoot, 'README.md'), 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  return blocks.join('\n').replaceAll('http://127.0.0.1:8080', origin).replaceAll('npx mock-server report', `"${process.execPath}" "${bin}" report --url ${origin}`);
}

t.test("README's lines, from the top, book and cancel with no warning in the report", async (t) => {
  t.same(missing, [], 'bash, curl and jq are installed (apt-get install curl jq)');
  if (missing.length) return;
  const server = await start([]);
  t.teardown(() => void server.child.kill());
  const script = readmeLines(server.origin);
  t.match(script, /X-Service-Version/, 'the lines were found');
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawnOwned('bash', ['--norc', '--noprofile', '-c', script], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
  t.equal(out.code, 0, out.stderr);
  t.match(out.stdout, /"identifier": "MUS\d+",\s*"status": "OK",\s*"items": \[\s*\{\s*"code": "MUS\d+-1",\s*"status": "OK"/, 'the payment answers the item OK');
  t.match(out.stdout, /^204$/m, 'the DELETE answers 204');
  t.match(out.stdout, /"status": "REFUNDED",\s*"version": 4/, 'the control API shows the item REFUNDED at version 4');
  const price = /"total_price": \{\s*"currency": "USD",\s*"value": ([\d.]+)/.exec(out.stdout)?.[1];
  t.ok(price, 'the cart item answered its price');
  t.match(out.stdout, new RegExp(`^\\{\\s*"currency": "USD",\\s*"value": ${price?.replace('.', '\\.')},`, 'm'), 'the refund is the whole price');
  t.match(out.stdout, /Integration report for application my-app\n\d+ requests since .*; verdict PASS/, 'the report is the last line');
  t.match(out.stdout, /Findings:\n {2}none\n/, 'no warning, no error: the walkthrough is a careful client');
});
