// A postgres:// --db is a database URL, never a path: from a flag, the environment or a config file,
// the CLI starts from a working folder it cannot write (the image's /app) and makes nothing there.
// Once, it ran the URL through the state file's checks: exit 2 "State directory /app cannot be
// written", and from a writable folder it left folders named after the URL, password included.
// Root writes anywhere a mode forbids, so each test also checks that no entry appeared, and one runs
// from /proc, which not even root can add to.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { bin } from '../cli-process.js';
import { startPostgres } from '../pg/server.js';
import { tempDir } from '../tmp.js';

const server = await startPostgres(t);
const H = { 'x-service-application': 'url-test' };

interface Served {
  origin: string;
  out: () => string;
  /** SIGTERM, then the exit code. */
  stop: () => Promise<number | null>;
}

/** Runs the CLI in `cwd` until its banner is complete; it is killed when the test ends, however it ends. */
function serve(t: Test, cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawn(process.execPath, [bin, '--port', '0', '--catalog-size', '5', ...args], { cwd, env: { PATH: process.env.PATH, ...env } });
  const kill = () => void child.kill('SIGKILL');
  process.once('exit', kill);
  t.teardown(() => {
    kill();
    process.off('exit', kill);
  });
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (kill(), reject(new Error(`no banner within 60 s: ${out}`))), 60_000);
    void exited.then((code) => (clearTimeout(timer), reject(new Error(`exited ${code}: ${out}`))));
    child.stdout.on('data', () => {
      const m = /API\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v3[\s\S]*headers /.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ origin: m[1] as string, out: () => out, stop: () => (child.kill('SIGTERM'), exited) });
    });
  });
}

/** A folder no one but root may write; root's writes are caught by the entry checks. */
function readOnlyDir(t: Test): string {
  const dir = join(tempDir(t), 'app');
  mkdirSync(dir);
  chmodSync(dir, 0o555);
  return dir;
}

async function booksAndStops(t: Test, s: Served): Promise<void> {
  const health = await fetch(`${s.origin}/__admin/health`);
  t.equal(health.status, 200, 'health 200');
  t.match(await health.json(), { store: { kind: 'postgres', database: 'up' } }, 'on PostgreSQL');
  const cart = await fetch(`${s.origin}/api/v3/carts`, { method: 'POST', headers: H });
  t.equal(cart.status, 200, 'a write is answered 200');
  t.equal(await s.stop(), 0, 'SIGTERM: exit 0');
}

t.test('--db postgres://… from a read-only working folder: starts, books, makes nothing there', async (t) => {
  const cwd = readOnlyDir(t);
  const s = await serve(t, cwd, ['--db', await server.createDatabase('flag')]);
  t.match(s.out(), /store\s+PostgreSQL postgres:\/\/mock:\*\*\*@127\.0\.0\.1:\d+\/flag\n/, 'the banner names the database');
  t.notMatch(s.out(), /state file/, 'and no state file');
  await booksAndStops(t, s);
  t.same(readdirSync(cwd), [], 'no entry in the working folder');
});

t.test('MOCK_SERVER_DB=postgres://… from /proc (not writable even for root): starts', async (t) => {
  const before = readdirSync('/proc').filter((n) => n.startsWith('postgres'));
  const s = await serve(t, '/proc', [], { MOCK_SERVER_DB: await server.createDatabase('env') });
  await booksAndStops(t, s);
  t.same(
    readdirSync('/proc').filter((n) => n.startsWith('postgres')),
    before,
    'nothing made in /proc',
  );
});

t.test('"db": "postgresql://…" in a config file, from a read-only working folder: starts, makes nothing', async (t) => {
  const cwd = readOnlyDir(t);
  const url = (await server.createDatabase('file')).replace(/^postgres:/, 'postgresql:');
  const config = join(tempDir(t), 'mock.json');
  writeFileSync(config, JSON.stringify({ db: url }));
  const s = await serve(t, cwd, ['--config', config]);
  await booksAndStops(t, s);
  t.same(readdirSync(cwd), [], 'no entry in the working folder');
});

t.test('the password is in no path, log line, banner, answer or error', async (t) => {
  // Characters a URL must escape, so that both the written and the decoded forms are looked for.
  const password = 'pw:@/url-test-secret%x';
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query(`CREATE ROLE url_test LOGIN PASSWORD ${admin.escapeLiteral(password)}`);
  await admin.query('CREATE DATABASE url_test OWNER url_test');
  await admin.end();
  const { port } = server;
  const url = (pw: string) => `postgres://url_test:${encodeURIComponent(pw)}@127.0.0.1:${port}/url_test`;
  const leaks = (text: string, pw = password) => [pw, encodeURIComponent(pw)].filter((f) => text.includes(f));
  const cwd = tempDir(t);

  const s = await serve(t, cwd, ['--db', url(password), '--log-level', 'trace', '--log-format', 'json', '--admin-token', 'admin-token']);
  const auth = { authorization: 'Bearer admin-token' };
  const seen: string[] = [s.out()];
  const look = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${s.origin}${path}`, init);
    seen.push(`${path} ${res.status} ${await res.text()}`);
  };
  await look('/api/v3/carts', { method: 'POST', headers: H });
  for (const path of ['/__admin/health', '/__admin/requests', '/__admin/report', '/__admin/orders']) await look(path, { headers: auth });
  t.equal(await s.stop(), 0, 'SIGTERM: exit 0');
  seen.push(s.out());
  t.same(leaks(seen.join('\n')), [], 'not in the banner, the log, or any answer');

  // A database that refuses: a wrong password, an unknown database. Exit 2, one line, nothing shown.
  const wrong = 'wrong:@/other-secret';
  for (const [what, db, message] of [
    ['a wrong password', url(wrong), /password authentication failed/],
    ['an unknown database', url(password).replace(/\/url_test$/, '/nope'), /database "nope" does not exist/],
  ] as const) {
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, '--port', '0', '--db', db], { cwd, env: { PATH: process.env.PATH } });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('exit', (code) => (clearTimeout(timer), resolve({ code, out })));
    });
    t.equal(r.code, 2, `${what}: exit 2`);
    t.match(r.out, message, `${what}: ${r.out.trim()}`);
    t.same([...leaks(r.out), ...leaks(r.out, wrong)], [], `${what}: no password`);
  }
  t.same(readdirSync(cwd), [], 'no path made in the working folder (it would hold the password)');
});
