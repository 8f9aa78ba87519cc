// One server per state file, whatever path leads to it: a symbolic link, a hard link, or the same
// path after the state directory was removed and made again. Real CLI processes.
import t from 'tap';
import { existsSync, linkSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { spawnOwned } from '../child.js';
import { bin, start, type Started } from '../cli-process.js';
import { tempDir } from '../tmp.js';

/** Starts a second server and resolves with how it ended; one that starts is stopped and reported. */
function second(db: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawnOwned(process.execPath, [bin, '--port', '0', '--catalog-size', '5', '--db', db], { env: { PATH: process.env.PATH, ...env } });
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.on('data', (d) => {
      stdout += d;
      if (stdout.includes('listening')) child.kill('SIGKILL');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: stdout.includes('listening') ? `it started: ${stdout}` : stderr });
    });
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function first(t: { teardown(fn: () => Promise<void>): void }, db: string, env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const server = await start(['--db', db], env);
  t.teardown(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
  });
  return server;
}

const write = async (server: Started) => {
  const res = await fetch(`${server.url}/carts`, { method: 'POST', headers: { 'x-service-application': 'shop' } });
  if (res.status !== 200) throw new Error(`POST /carts: ${res.status}`);
};

t.test('a symbolic link to a running server’s state file, or to its directory: the second server is refused', async (t) => {
  const root = tempDir(t);
  const db = join(root, 'state', 'state.json');
  const a = await first(t, db);
  mkdirSync(join(root, 'elsewhere'));
  const link = join(root, 'elsewhere', 'link.json');
  symlinkSync(db, link);
  symlinkSync(join(root, 'state'), join(root, 'dir-link'));
  for (const path of [link, join(root, 'dir-link', 'state.json')]) {
    const b = await second(path);
    t.equal(b.code, 2, `refused: ${path}`);
    t.match(b.stderr, new RegExp(`^mock-server: State file ${escape(db)} is in use by another mock-server \\(pid ${a.child.pid}\\)[^\\n]*\\n$`), 'one line naming the real file and its holder');
  }
  await write(a);
  t.ok(statSync(link, { throwIfNoEntry: false }), 'the link is still there');
});

t.test('a hard link to a running server’s state file is refused, also after a compaction gave the state a new file', async (t) => {
  const root = tempDir(t);
  const db = join(root, 'state', 'state.json');
  // Every write folds the log into a new state file (a new inode).
  const a = await first(t, db, { MOCK_SERVER_COMPACT_BYTES: '1' });
  mkdirSync(join(root, 'elsewhere'));
  const refusal = new RegExp(`^mock-server: State file ${escape(join(root, 'elsewhere'))}/hard-\\d\\.json \\(the same file as ${escape(db)}: a hard link\\) is in use by another mock-server \\(pid ${a.child.pid}\\)[^\\n]*\\n$`);
  const hard1 = join(root, 'elsewhere', 'hard-1.json');
  linkSync(db, hard1);
  const b = await second(hard1);
  t.equal(b.code, 2);
  t.match(b.stderr, refusal, 'one line naming the file it is the same as, and its holder');

  const before = statSync(db).ino;
  await write(a);
  for (let i = 0; i < 100 && statSync(db).ino === before; i++) await new Promise((r) => setTimeout(r, 50));
  t.not(statSync(db).ino, before, 'a compaction replaced the state file');
  // The integration report is saved with the state about a second after a request, which compacts
  // once more: link the file once it has stayed the same for longer than that, so that the link is
  // to the server's current file and not to one that a later compaction left behind.
  for (let still = 0, ino = statSync(db).ino, i = 0; still < 1500 && i < 200; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const now = statSync(db).ino;
    still = now === ino ? still + 50 : 0;
    ino = now;
  }
  const hard2 = join(root, 'elsewhere', 'hard-2.json');
  linkSync(db, hard2);
  const c = await second(hard2);
  t.equal(c.code, 2, 'the lock moved to the new file');
  t.match(c.stderr, refusal);
});

t.test('a lock left on an inode number whose file is gone does not refuse the file given that number since', async (t) => {
  const root = tempDir(t);
  const db = join(root, 'state.json');
  // A registry of this test's own (the servers' TMPDIR): the machine's is shared with whatever else
  // runs, and a suite running beside this one may free and clean up the inode number forged here.
  const registry = { TMPDIR: join(root, 'tmp') };
  mkdirSync(registry.TMPDIR);
  const made = await first(t, db, registry);
  await write(made);
  made.child.kill('SIGKILL');
  await made.exited;
  const holder = spawnOwned(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  t.teardown(() => void holder.kill('SIGKILL'));
  /** The registry's lock of the state file's inode number as of now, held by another live server for `its`. */
  const heldFor = (its: string) => {
    const { dev, ino } = statSync(db);
    const base = join(registry.TMPDIR, 'mock-server-locks', `inode-${dev}-${ino}`);
    mkdirSync(`${base}.lock`, { recursive: true });
    writeFileSync(`${base}.owner`, JSON.stringify({ pid: holder.pid, host: hostname(), file: its }));
  };
  // Its file was removed (its directory, say): the number was freed, and this file got it.
  heldFor(join(root, 'gone', 'state.json'));
  const b = await second(db, registry);
  t.match(b.stderr, /^it started/, 'the server starts on its file');
  // Its file is still there with this number: a hard link to this one, refused.
  const hard = join(root, 'hard.json');
  linkSync(db, hard);
  heldFor(hard);
  const c = await second(db, registry);
  t.equal(c.code, 2);
  t.match(c.stderr, /\(the same file as .*hard\.json: a hard link\) is in use by another mock-server/);
});

t.test('the state directory removed and made again: a second server on the same path is refused, and the first one keeps it', async (t) => {
  const root = tempDir(t);
  const dir = join(root, 'state');
  const db = join(dir, 'state.json');
  const a = await first(t, db);
  await write(a);
  rmSync(dir, { recursive: true });
  mkdirSync(dir);
  const b = await second(db);
  t.equal(b.code, 2);
  t.match(b.stderr, new RegExp(`^mock-server: State file ${escape(db)} is in use by another mock-server \\(pid ${a.child.pid}\\)[^\\n]*\\n$`));
  await write(a);
  t.ok(existsSync(db), 'the first server wrote its state afresh');
  t.ok(existsSync(`${db}.lock`), 'and took back the lock beside it');
  a.child.kill('SIGTERM');
  t.equal(await a.exited, 0);
  const c = await start(['--db', db]);
  t.pass('once it stopped, another server starts on the file');
  c.child.kill('SIGTERM');
  t.equal(await c.exited, 0);
});
