// Shared pieces of the benchmarks: start a server as a real child process, wait for it,
// run autocannon for a bounded time, read resident memory. Everything listens on 127.0.0.1.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const APP_HEADER = { 'x-service-application': 'bench' };

/** A free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Spawns `node <script> ...args` and resolves when `readyUrl` answers 200 (or rejects after timeoutMs). */
export async function startProcess(script, args, readyUrl, { timeoutMs = 30000, headers = {} } = {}) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited ${child.exitCode}: ${stderr}`);
    try {
      const res = await fetch(readyUrl, { headers });
      if (res.status === 200) {
        await res.arrayBuffer();
        break;
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} not ready after ${timeoutMs} ms: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const startupMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { child, startupMs };
}

export function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** Resident set size of a process in MB (Linux). */
export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Runs autocannon for `duration` seconds over `paths` (rotated per request). */
export function load(baseUrl, paths, { duration = 10, connections = 50, headers = APP_HEADER } = {}) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: baseUrl,
        connections,
        duration,
        headers,
        requests: [
          {
            setupRequest: (req) => {
              req.path = paths[i++ % paths.length];
              return req;
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        resolve({
          rps: result.requests.average,
          p99: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
        });
      },
    );
  });
}
