// `mock-server certify` as a real process: it starts a run, prints the checklist as it changes, and
// writes the certificate when a correct integration passed it (exit 0); stopped (Ctrl-C) or out of
// time it prints what is missing and ends the run (exit 1); nothing at --url is exit 2.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { systemClock } from '../../src/clock.js';
import { spawnOwned } from '../child.js';
import { bin, run as cli } from '../cli-process.js';
import { buildTestApp } from '../helper.js';
import { playRun, receiver, until } from './client.js';

const SANDBOX = { client_id: 'sandbox-client', client_secret: 'sandbox-secret' };

async function sandbox(): Promise<{ app: FastifyInstance; origin: string }> {
  const app = await buildTestApp({ clock: systemClock() });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, origin: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

/** The CLI running, its output so far, and its exit code once it ends; killed with the test. */
function certify(args: string[]) {
  const child = spawnOwned(process.execPath, [bin, 'certify', ...args], { env: { PATH: process.env.PATH } });
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  return { child, out: () => stdout, exited };
}

/** The run the CLI started for an application. */
const runOf = (app: FastifyInstance, application: string) =>
  until(`a run of ${application}`, async () => (await app.inject({ url: `/__admin/certifications?application=${application}` })).json().runs[0]);

t.test('certify: the checklist live, and the certificate once a correct integration passed', async (t) => {
  const { app, origin } = await sandbox();
  const out = join(t.testdir(), 'cert.jwt');
  const c = certify(['--application', 'cli-app', '--url', origin, '--out', out, '--timeout', '240']);
  const run = await runOf(app, 'cli-app');
  await until('the checklist', () => /Certifying application cli-app against partner-booking-1 \(run cert_\w+\): 15 requirements/.test(c.out()));
  const hook = await receiver();
  t.teardown(hook.close);
  await playRun(app, { application: 'cli-app', credentials: SANDBOX, receiver: hook, run: run.id });
  t.equal(await c.exited, 0, c.out());
  t.match(c.out(), /\[ \] login: Log in once/, 'the checklist');
  t.match(c.out(), /^PASS retry-after \(req-\w+, req-\w+\)$/m, 'a change as it came, with its evidence');
  t.match(c.out(), new RegExp(`CERTIFIED: 15 of 15 requirements passed; the certificate is in ${out}`));
  t.ok(existsSync(out));
  const verified = await cli(['certify', 'verify', out, '--url', origin]);
  t.equal(verified.code, 0, verified.stdout);
});

t.test('certify: out of time or stopped, what is missing, the run ended', async (t) => {
  const { app, origin } = await sandbox();
  const late = certify(['--application', 'idle', '--url', origin, '--timeout', '1', '--format', 'junit']);
  t.equal(await late.exited, 1);
  t.match(late.out(), /<testsuite name="partner-booking-1 idle" tests="15" failures="15"/);
  t.match(late.out(), /<testcase classname="certify.partner-booking-1" name="login: [^"]*"><failure message="pending: /);
  t.equal((await runOf(app, 'idle')).state, 'ended', 'the run ended with the CLI');

  const stopped = certify(['--application', 'stopped', '--url', origin]);
  await runOf(app, 'stopped');
  // The CLI takes SIGINT before it prints the checklist: a signal sent before that (the run exists as
  // soon as the server answers) would find Node's default, exit by the signal.
  await until('the checklist', () => /Certifying application stopped/.test(stopped.out()));
  stopped.child.kill('SIGINT');
  t.equal(await stopped.exited, 1);
  t.match(stopped.out(), /NOT CERTIFIED \(stopped\): 0 of 15 requirements passed; missing:\n {2}login \(pending\): /);
  t.equal((await runOf(app, 'stopped')).state, 'ended');

  const nobody = await cli(['certify', '--application', 'a', '--url', 'http://127.0.0.1:9']);
  t.equal(nobody.code, 2);
  t.match(nobody.stderr, /nothing answers at http:\/\/127\.0\.0\.1:9/);
});
