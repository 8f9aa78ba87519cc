// A noisy neighbour on a shared sandbox: application "quiet" reads the catalog at a steady 100
// req/s (two connections) while application "noisy" sends as fast as 50 connections allow (from a
// process of its own). The
// quiet application's p99 alone, then beside the noisy one: with the default --rate-limit (100 per
// second per application) and without a limit. Run alone: `npm run build && node bench/run.js tenants`.
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, root, startProcess, stop } from './lib.js';

const cli = join(root, 'dist/bin/mock-server.js');
const PATHS = ['/api/v3/activities?limit=20', '/api/v3/cities?limit=10', '/api/v3/currencies'];

// The admin token acts for each application: a shared sandbox charges requests to the application of
// their token, and those without one to their address (both partners here would share 127.0.0.1's).
const TOKEN = 'bench';

function cannon(base, application, opts) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      { url: base, duration: opts.duration, connections: opts.connections, overallRate: opts.rate, headers: { 'x-service-application': application, authorization: `Bearer ${TOKEN}` }, requests: [{ setupRequest: (req) => ({ ...req, path: PATHS[i++ % PATHS.length] }) }] },
      (err, r) => (err ? reject(err) : resolve({ rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts })),
    );
  });
}

const quiet = (base, duration) => cannon(base, 'quiet', { duration, connections: 2, rate: 50 });
/**
 * The noisy client runs in a process of its own: in the quiet client's event loop, reading the noisy
 * one's answers (100 KB lists among them) would delay the quiet one's timestamps, and the bench
 * would measure its own load generator. Two partners are two machines.
 */
const noisy = (base, duration) =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['noisy', base, String(duration)]);
    child.once('message', (m) => (child.disconnect(), resolve(m)));
    child.once('error', reject);
  });
if (process.argv[2] === 'noisy') process.send(await cannon(process.argv[3], 'noisy', { duration: Number(process.argv[4]), connections: 50 }));

async function neighbours(rateLimit, duration) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { child } = await startProcess(cli, ['--port', String(port), '--db', 'memory', '--log-level', 'warn', '--shared', '--admin-token', TOKEN, '--rate-limit', String(rateLimit)], `${base}/__admin/health`);
  try {
    await quiet(base, 2); // warm-up
    const alone = await quiet(base, duration);
    const [beside, loud] = await Promise.all([quiet(base, duration), noisy(base, duration)]);
    return { alone, beside, loud };
  } finally {
    await stop(child);
  }
}

export async function run({ duration }) {
  const out = {};
  for (const limit of [100, 0]) {
    const { alone, beside, loud } = await neighbours(limit, duration);
    out[`rate limit ${limit === 0 ? 'off' : `${limit}/s`}`] = {
      'quiet p99 alone ms': alone.p99,
      'quiet p99 beside noisy ms': beside.p99,
      'ratio': beside.p99 / Math.max(alone.p99, 1),
      'quiet non-2xx': beside.non2xx,
      'noisy req/s': loud.rps,
      'noisy 2xx/s': loud.rps - loud.non2xx / duration,
    };
  }
  return out;
}
