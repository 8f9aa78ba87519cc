// The CLI as a real process: what `npx mock-server` runs, built the way `npm ci` builds it (prepare).
import t from 'tap';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { tempDir } from './tmp.js';

const bin = join(packageRoot, 'dist/bin/mock-server.js');

t.before(() => {
  // Always rebuild: a stale dist/ would test yesterday's code.
  execFileSync('npm', ['run', 'build'], { cwd: packageRoot, stdio: 'ignore' });
});

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts the server on port 0 and resolves with its API URL once the banner shows it. */
function start(args: string[]): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null>; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--port', '0', '--db', 'memory', '--catalog-size', '5', '--log-level', 'warn', ...args]);
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /API\s+(http:\/\/127\.0\.0\.1:(\d+)\/api\/v3)/.exec(out);
      if (m) {
        clearTimeout(timer);
        // --port 0: the banner must show the port the OS picked.
        if (m[2] === '0') reject(new Error(`the banner shows port 0: ${out}`));
        else resolve({ child, url: m[1] as string, exited, stderr: () => err });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

t.test('--version and --help', async (t) => {
  const v = await run(['--version']);
  t.equal(v.code, 0);
  t.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
  const h = await run(['--help']);
  t.equal(h.code, 0);
  for (const flag of ['--port N', '--fixtures DIR', '--config FILE', 'MOCK_SERVER_PORT, then PORT', 'Exit codes']) t.match(h.stdout, flag);
});

t.test('user mistakes exit 2 with one line', async (t) => {
  const dir = tempDir(t, 'cli-');
  const badConfig = join(dir, 'bad.json');
  writeFileSync(badConfig, '{"port": "eighty"}');
  for (const args of [['--bogus'], ['--port', 'x'], ['--config', badConfig], ['replay', 'x.yaml'], ['--fixtures', join(dir, 'nope')]]) {
    const r = await run(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, /^mock-server: .+\n$/, `one line: ${r.stderr}`);
  }
});

t.test('serves over HTTP and stops cleanly on SIGTERM and SIGINT', async (t) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const { child, url, exited, stderr } = await start([]);
    const origin = url.replace('/api/v3', '');
    const health = await fetch(`${origin}/__admin/health`);
    t.equal(health.status, 200);
    t.match(await health.json(), { status: 'ok', seed: 1 });
    const currencies = await fetch(`${url}/currencies`, { headers: { 'x-service-application': 'cli-test' } });
    t.equal(currencies.status, 200);
    t.equal((await fetch(`${url}/currencies`)).status, 400, 'header rules apply');
    // A request still in flight when the signal comes is answered before the process exits.
    const inFlight = fetch(`${url}/currencies`, { headers: { 'x-service-application': 'cli-test', prefer: 'delay=800' } });
    await new Promise((r) => setTimeout(r, 200));
    const signalledAt = Date.now();
    child.kill(signal);
    t.equal((await inFlight).status, 200, `${signal}: the in-flight request is finished`);
    t.equal(await exited, 0, `${signal}: exit 0`);
    // The in-flight request's keep-alive connection must not hold the process up (it did, for 72 s).
    t.ok(Date.now() - signalledAt < 5000, `${signal}: exits within seconds, took ${Date.now() - signalledAt} ms`);
    t.equal(stderr(), '', `${signal}: nothing on stderr (no warnings, no deprecation notices)`);
  }
});

t.test('a port in use exits 2', async (t) => {
  const { child, url, exited } = await start([]);
  const port = new URL(url).port;
  const r = await run(['--port', port, '--db', 'memory', '--catalog-size', '1']);
  t.equal(r.code, 2);
  t.match(r.stderr, /cannot listen/);
  child.kill('SIGTERM');
  await exited;
});

t.test('replay: exit 0 when every expectation held, 1 when one did not', async (t) => {
  const pass = await run(['replay', join(packageRoot, 'scenarios/replays/instant-confirmation.yaml'), '--catalog-size', '5']);
  t.equal(pass.code, 0, pass.stderr);
  t.match(pass.stdout, /PASS\n$/);
  const fail = await run(['replay', join(packageRoot, 'test/fixtures/replay-fails.yaml'), '--catalog-size', '5']);
  t.equal(fail.code, 1);
  t.match(fail.stdout, /FAILED\n$/);
});
