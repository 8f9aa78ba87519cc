// The CLI as a real process, for the tests that need one: bin/mock-server.ts bundled as `npm ci`
// builds it (prepare), into .test-build/ by tap's `before` (scripts/build-tests.js), once per run.
// Every process started here dies with the test process (child.ts), and none waits without a limit.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { spawnOwned } from './child.js';

export const bin = join(packageRoot, '.test-build/bin/mock-server.js');

/** Runs the CLI to its end; one still running after `timeoutMs` is killed, and the promise rejects saying so. */
export function run(args: string[], env: NodeJS.ProcessEnv = {}, { timeoutMs = 60_000 } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnOwned(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mock-server ${args.join(' ')} did not exit within ${timeoutMs} ms (killed)\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Started {
  child: ChildProcess;
  /** The API's base URL with the real port. */
  url: string;
  /** Scheme, host and port. */
  origin: string;
  exited: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
}

/** Starts the server on port 0 (memory store, small catalog unless args say otherwise) and resolves once the banner shows its URL; one with no banner within 60 s is killed. */
export function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawnOwned(process.execPath, [bin, '--port', '0', '--db', 'memory', '--catalog-size', '5', '--log-level', 'warn', ...args], { env: { ...process.env, ...env } });
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no banner within 60 s (killed): ${out}${err}`));
    }, 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /API\s+(http:\/\/[^\s/]+:(\d+))(\/api\/v3)/.exec(out);
      if (m) {
        clearTimeout(timer);
        // --port 0: the banner must show the port the OS picked.
        if (m[2] === '0') reject(new Error(`the banner shows port 0: ${out}`));
        else resolve({ child, url: `${m[1]}${m[3]}`, origin: m[1] as string, exited, stdout: () => out, stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${out}${err}`));
    });
  });
}
