// Shared pieces of the benchmarks: start a server as a real child process, wait for it,
// run autocannon for a bounded time, read resident memory. Everything listens on 127.0.0.1.
import { spawn } from 'node:child_process';
import http from 'node:http';
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

/** Spawns `node <script> ...args` (with `env` added) and resolves when `readyUrl` answers 200 (or rejects after timeoutMs). */
export async function startProcess(script, args, readyUrl, { timeoutMs = 30000, headers = {}, env = {} } = {}) {
  const started = process.hrtime.bigint();
  // BENCH_CPU_PROF=DIR: every server writes a V8 CPU profile into DIR when it stops (for a shortfall's why).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...prof, script, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
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
          total: result.requests.total,
          p50: result.latency.p50,
          p99: result.latency.p99,
          max: result.latency.max,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
        });
      },
    );
  });
}

/**
 * A JSON client on node:http with keep-alive sockets, for benchmarks that script a flow. fetch()
 * spent more CPU per request than the server did and became the limit of what was measured.
 * Resolves with the status and the raw body text; `more` adds headers to one request.
 */
export function httpClient(base, headers, { connections = 20 } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const request = (method, path, body, more) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const sent = more ? { ...headers, ...more } : headers;
      const h = payload === undefined ? sent : { ...sent, 'content-length': Buffer.byteLength(payload) };
      const req = http.request(base + path, { method, agent, headers: h }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.on('error', reject);
      req.end(payload);
    });
  return { request, close: () => agent.destroy() };
}

/** p50 and p99 of `n` sequential requests (one keep-alive connection, APP_HEADER), in microseconds: autocannon's latencies have a 1 ms grain. */
export async function sequential(base, paths, n = 2000) {
  const client = httpClient(base, APP_HEADER, { connections: 1 });
  const times = [];
  try {
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      const res = await client.request('GET', paths[i % paths.length]);
      times.push(Number(process.hrtime.bigint() - t0) / 1e3);
      if (res.status !== 200) throw new Error(`${paths[i % paths.length]} answered ${res.status}`);
    }
  } finally {
    client.close();
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)], p99: times[Math.floor(n * 0.99)] };
}

/**
 * Servers compared in the same run: a 3 s warm-up each, then each in turn twice (the machine's
 * speed drifts over a run), `measure(base, seconds)` for half the duration and then 2,000
 * sequential requests; per server, the worse of its two rounds.
 */
export async function inTurn(servers, paths, duration, measure) {
  const runs = Object.fromEntries(Object.keys(servers).map((k) => [k, []]));
  const seq = Object.fromEntries(Object.keys(servers).map((k) => [k, []]));
  for (const s of Object.values(servers)) await measure(s.base, 3);
  for (let round = 0; round < 2; round++) {
    for (const [name, s] of Object.entries(servers)) {
      runs[name].push(await measure(s.base, duration / 2));
      seq[name].push(await sequential(s.base, paths));
    }
  }
  return Object.fromEntries(
    Object.keys(servers).map((name) => {
      const [a, b] = runs[name];
      const [x, y] = seq[name];
      return [name, {
        rps: (a.rps + b.rps) / 2,
        p50_ms: Math.max(a.p50, b.p50),
        p99_ms: Math.max(a.p99, b.p99),
        max_ms: Math.max(a.max, b.max),
        sequential_p50_us: Math.max(x.p50, y.p50),
        sequential_p99_us: Math.max(x.p99, y.p99),
        non2xx: a.non2xx + b.non2xx,
        errors: (a.errors ?? 0) + (b.errors ?? 0),
      }];
    }),
  );
}
