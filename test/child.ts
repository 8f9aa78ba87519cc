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
// tap adds its process-info hooks to every child's NODE_OPTIONS, at the spawn itself (after the
// environment given to spawn). Without coverage (`npm test`) they are of no use in a child, and on
// Node before 24.13 they run in a worker thread that every module goes through: a server start took
// 3.5 s of CPU with them, 1.5 s without. The command then goes through `env`, which sets the child's
// NODE_OPTIONS last, without them. With coverage they stay: the CLI processes' coverage counts. A
// command whose coverage is of no use (npm and tsc packing the package) goes without them either way:
// under coverage, packing took over the 120 s it is given on a loaded machine.
const ENV = ['/usr/bin/env', '/bin/env'].find((p) => existsSync(p));
const COVERAGE = process.env._TAPJS_PROCESSINFO_COVERAGE_ !== '0';

/**
 * `file args` as a command line that dies with this process (through setpriv, where there is one),
 * and the environment to start it with (childEnv of `env`). `covered: false` leaves tap's
 * process-info hooks out even when the run measures coverage.
 */
export function owned(file: string, args: string[], env: NodeJS.ProcessEnv = process.env, { covered = COVERAGE } = {}): [string, string[], NodeJS.ProcessEnv] {
  const forChild = childEnv(env);
  const command = ENV && !covered ? [ENV, `NODE_OPTIONS=${forChild.NODE_OPTIONS ?? ''}`, file, ...args] : [file, ...args];
  return SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', ...command], forChild] : [command[0]!, command.slice(1), forChild];
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
 * check that there are none); and tap's process-info hooks, which tap adds again where it wants them
 * (see ENV above).
 */
export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const options = env.NODE_OPTIONS?.replace(/(^|\s)"?--no-warnings"?(?=\s|$)/g, '').replace(/(^|\s)"?--import=[^"\s]*@tapjs\/processinfo\/[^"\s]*"?(?=\s|$)/g, '');
  return { ...env, NODE_OPTIONS: options?.trim() };
}

/** spawn(), for a child that dies with the test process (see above). */
export function spawnOwned(file: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const [command, argv, env] = owned(file, args, options.env);
  const child = spawn(command, argv, { ...options, env });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}
