// A process a test starts dies with the test process, however that ends:
// - at the end of the test file (tap's root teardown), any still running is killed: a test that failed
//   before its own stop leaves nothing, and its running child does not hold the file up;
// - on the process's exit, likewise;
// - when the test process is killed outright (tap's timeout: SIGALRM, then SIGKILL), the kernel kills
//   the child: it is started through `setpriv --pdeathsig SIGKILL` (Linux, util-linux), which sets
//   that up and then becomes the command (same pid). Elsewhere, only the first two apply.
// The kernel's signal reaches the child only, not processes it starts itself (npm's own children):
// those end with their work.
import t from 'tap';
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/** `file args` as a command line that dies with this process (through setpriv, where there is one). */
export function owned(file: string, args: string[]): [string, string[]] {
  return SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', file, ...args]] : [file, args];
}

const running = new Set<ChildProcess>();
const killAll = () => {
  for (const child of running) child.kill('SIGKILL');
};
process.on('exit', killAll);
t.teardown(async () => {
  const left = [...running].map((child) => new Promise((r) => child.once('exit', r)));
  killAll();
  await Promise.all(left);
});

/**
 * The environment for a child: on Node 22 tap puts --no-warnings in NODE_OPTIONS (type-strip-only in
 * .taprc), taken out here, so that the child shows its warnings as it would to a user (some tests
 * check that there are none).
 */
export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, NODE_OPTIONS: env.NODE_OPTIONS?.replace(/(^|\s)"?--no-warnings"?(?=\s|$)/g, '').trim() };
}

/** spawn(), for a child that dies with the test process (see above). */
export function spawnOwned(file: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(...owned(file, args), { ...options, env: childEnv(options.env) });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}
