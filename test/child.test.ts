// No process a test starts outlives the test process (child.ts): a test file killed outright, as
// tap's timeout ends one (SIGKILL), or ending with its servers still running, leaves none behind.
import t from 'tap';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnOwned } from './child.js';
import { bin } from './cli-process.js';
import { until } from './until.js';

/** Whether the process runs (a zombie, waiting for init to reap it, has ended). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The CLI processes whose parent is `pid`. */
function servers(pid: number): number[] {
  const rows = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n');
  return rows
    .map((row) => row.trim().split(/\s+/).map(Number) as [number, number])
    .filter(([child, parent]) => parent === pid && readCmdline(child).includes(bin))
    .map(([child]) => child);
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** cli-hold.ts as a test file of its own, once both its servers run; resolves with their pids. */
async function holding(t: { comment(s: string): void }): Promise<{ file: ChildProcess; pids: number[]; exited: Promise<number | null> }> {
  const env: NodeJS.ProcessEnv = {};
  // A test file of its own, not a child of this tap run (the TypeScript setting stays).
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TAP') || k === 'TAP_TYPE_STRIP_ONLY') env[k] = v;
  const file = spawnOwned(process.execPath, [...process.execArgv, join(import.meta.dirname, 'cli-hold.ts')], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => file.once('exit', r));
  let out = '';
  file.stdout!.on('data', (d) => (out += d));
  file.stderr!.on('data', (d) => (out += d));
  await until(`cli-hold.ts says it started both servers (${out})`, () => out.includes('started\n') || file.exitCode !== null, { ms: 120_000, every: 50 });
  if (file.exitCode !== null) throw new Error(`cli-hold.ts exited ${file.exitCode}: ${out}`);
  const pids = await until(
    'two CLI processes under cli-hold.ts',
    () => {
      const found = servers(file.pid!);
      return found.length === 2 ? found : undefined;
    },
    { ms: 30_000, every: 50 },
  );
  t.comment(`cli-hold.ts ${file.pid}, its servers ${pids.join(', ')}`);
  return { file, pids, exited };
}

t.test('a test file killed outright (SIGKILL, as tap ends one on a timeout) leaves no server running', async (t) => {
  const { file, pids } = await holding(t);
  t.ok(pids.every(alive), 'both servers run');
  file.kill('SIGKILL');
  await until('both servers gone', () => !pids.some(alive), { ms: 10_000, every: 50 }).catch(() => undefined);
  t.same(pids.filter(alive), [], 'no server left running');
});

t.test('a test file that ends with its servers still running stops them, and exits', async (t) => {
  const { file, pids, exited } = await holding(t);
  file.stdin!.end('end\n');
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running after 30 s'), 30_000))]);
  t.equal(code, 0, 'the file passed and exited');
  t.same(pids.filter(alive), [], 'no server left running');
});
