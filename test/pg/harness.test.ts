// The PostgreSQL every store test stands on (server.ts): real, password-protected, on loopback,
// surviving its own restarts, and never outliving its test process.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { spawnOwned } from '../child.js';
import { query, startPostgres, sweepOrphans } from './server.js';

const server = await startPostgres(t);


t.test('answers on 127.0.0.1 as a password-protected user owning its database', async (t) => {
  const url = new URL(server.url);
  t.equal(url.hostname, '127.0.0.1');
  t.match(url.password, /^[0-9a-f]{32}$/);
  const { rows } = await query(server.url, 'select version() as version, current_user as usr, current_database() as db');
  t.match(rows[0].version, /^PostgreSQL \d+/);
  t.equal(rows[0].usr, 'mock');
  t.equal(rows[0].db, 'mock');
  const listen = await query(server.adminUrl, "select current_setting('listen_addresses') as l, current_setting('unix_socket_directories') as s");
  t.same(listen.rows[0], { l: '127.0.0.1', s: '' });
});

t.test('refuses a wrong password', async (t) => {
  const url = new URL(server.url);
  url.password = 'wrong';
  await t.rejects(query(url.href, 'select 1'), { code: '28P01' }); // invalid_password
});

t.test('createDatabase gives a test a database of its own', async (t) => {
  const url = await server.createDatabase('own_db');
  await query(url, 'create table t (n int)');
  const seen = await query(server.url, "select count(*)::int as n from information_schema.tables where table_name = 't'");
  t.equal(seen.rows[0].n, 0, 'the table is not in database mock');
  t.equal((await query(url, 'select current_database() as db')).rows[0].db, 'own_db');
});

t.test('servers started at once are clusters of their own, copied from one initdb', async (t) => {
  const [a, b] = await Promise.all([startPostgres(t), startPostgres(t)]);
  t.not(a.dataDir, b.dataDir);
  t.not(new URL(a.url).password, new URL(b.url).password, "each server's user has its own password");
  await query(a.url, 'create table only_in_a (n int)');
  const seen = await query(b.url, "select count(*)::int as n from information_schema.tables where table_name = 'only_in_a'");
  t.equal(seen.rows[0].n, 0, 'a table made on one is not on the other');
  t.equal(new URL(a.adminUrl).password, new URL(b.adminUrl).password, 'the superuser is the template cluster\'s');
  await Promise.all([a.stop(), b.stop()]);
});

t.test('committed data survives a clean stop and a crash of the server', async (t) => {
  await query(server.url, 'create table kept (n int)');
  await query(server.url, 'insert into kept values (1)');
  await server.stopServer();
  await t.rejects(query(server.url, 'select 1'), { code: 'ECONNREFUSED' }, 'the database is away');
  await server.startServer();
  await query(server.url, 'insert into kept values (2)');
  await server.stopServer('immediate');
  await server.startServer();
  t.same((await query(server.url, 'select n from kept order by n')).rows, [{ n: 1 }, { n: 2 }]);
  t.equal(new URL(server.url).port, String(server.port), 'same port');
});

t.test('a killed test process leaves no server behind', async (t) => {
  const hold = join(dirname(fileURLToPath(import.meta.url)), 'hold.ts');
  const child = spawnOwned(process.execPath, [...process.execArgv, hold], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`hold.ts exited ${code}: ${out}`)));
  });
  const { dataDir } = JSON.parse(line) as { dataDir: string };
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  t.ok(alive(pid), 'its postgres runs');
  child.kill('SIGKILL');
  const deadline = Date.now() + 10_000;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.notOk(alive(pid), 'its postgres ended with it');
  await sweepOrphans();
  t.notOk(existsSync(dirname(dataDir)), 'the next start removed its folder');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
