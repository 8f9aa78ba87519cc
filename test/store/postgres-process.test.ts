// The CLI as real processes on one PostgreSQL: a kill -9 under concurrent writes loses no acknowledged
// write, and the database's password is never printed (banner, logs, the error of an unreachable one).
import t, { type Test } from 'tap';
import { run, start, type Started } from '../cli-process.js';
import { startPostgres } from '../pg/server.js';
import { until } from '../until.js';

const server = await startPostgres(t);
const password = new URL(server.url).password;
const H = { 'x-service-application': 'survivor' };

async function instance(t: Test, url: string, args: string[] = []): Promise<Started> {
  const s = await start(['--db', url, ...args]);
  t.teardown(() => void s.child.kill('SIGKILL'));
  return s;
}

t.test('kill -9 of an instance under concurrent writes: every acknowledged write is read back from the other', async (t) => {
  const url = await server.createDatabase('kill');
  const [a, b] = await Promise.all([instance(t, url), instance(t, url)]);
  const acked: string[] = [];
  let failed = 0;
  // 16 writers on a, each creating carts one after another until a is gone (bounded: 2,000 tries each).
  const writer = async () => {
    for (let i = 0; i < 2000; i++) {
      try {
        const res = await fetch(`${a.url}/carts`, { method: 'POST', headers: H });
        if (res.status !== 200) return void failed++;
        acked.push((await res.json()).uuid);
      } catch {
        return;
      }
    }
  };
  const writers = Array.from({ length: 16 }, writer);
  await until('150 writes acknowledged', () => acked.length >= 150, { ms: 60_000 });
  a.child.kill('SIGKILL');
  await Promise.all(writers);
  await a.exited;
  t.ok(acked.length >= 150, `${acked.length} writes acknowledged before the kill`);
  t.equal(failed, 0, 'none answered other than 200 while a lived');
  const missing: string[] = [];
  for (const uuid of acked) {
    const res = await fetch(`${b.url}/carts/${uuid}`, { headers: H });
    if (res.status !== 200) missing.push(uuid);
  }
  t.same(missing, [], 'every acknowledged cart is on the other instance');
  const again = await instance(t, url);
  const back = await Promise.all(acked.map((uuid) => fetch(`${again.url}/carts/${uuid}`, { headers: H }).then((r) => r.status)));
  t.equal(back.filter((s) => s === 200).length, acked.length, 'and on an instance started after the kill');
});

t.test('the password is never printed: banner, logs, health', async (t) => {
  const url = await server.createDatabase('quiet');
  const s = await instance(t, url, ['--log-level', 'debug']);
  // start() resolves at the banner's API line: the rest of it may still be on its way.
  for (let i = 0; i < 100 && !s.stdout().includes('headers'); i++) await new Promise((r) => setTimeout(r, 50));
  t.match(s.stdout(), /store\s+PostgreSQL postgres:\/\/mock:\*\*\*@127\.0\.0\.1:\d+\/quiet/);
  const health = await fetch(`${s.origin}/__admin/health`);
  t.equal(health.status, 200);
  t.match(await health.json(), { store: { kind: 'postgres', database: 'up' } });
  await fetch(`${s.url}/carts`, { method: 'POST', headers: H });
  s.child.kill('SIGTERM');
  await s.exited;
  const all = s.stdout() + s.stderr();
  t.ok(all.length > 0);
  t.notOk(all.includes(password), 'not in anything the process wrote');
});

t.test('an unreachable database: exit 2 at once, one line, no password', async (t) => {
  const started = Date.now();
  const r = await run(['--port', '0', '--db', 'postgres://mock:s3cret-pw@127.0.0.1:1/mock']);
  t.equal(r.code, 2);
  t.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  t.match(r.stderr, /^mock-server: Cannot use the database postgres:\/\/mock:\*\*\*@127\.0\.0\.1:1\/mock: .*ECONNREFUSED/);
  t.notOk((r.stdout + r.stderr).includes('s3cret-pw'));
  t.ok(Date.now() - started < 10_000, `exited after ${Date.now() - started} ms`);
});
