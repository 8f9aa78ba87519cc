// What `mock-server proxy` adds to a partner request: GET /activities/{uuid} (100 uuids rotating) at
// a fixed 500 req/s (autocannon's overallRate, 10 connections), straight to a mock (the upstream, a
// CLI process) and through a proxy in front of it (another CLI process), with the same upstream, in
// the same run. A 3 s warm-up each, then direct and proxied in turn for half the duration, twice;
// autocannon's latencies have a 1 ms grain, so each round also times 2,000 requests one after
// another on one keep-alive connection (node:http), to the microsecond. Target: the proxy adds at
// most 2 ms to p50 at 500 req/s.
import { join } from 'node:path';
import autocannon from 'autocannon';
import { APP_HEADER, freePort, inTurn, root, startProcess, stop } from './lib.js';

const cli = join(root, 'dist/bin/mock-server.js');
const RATE = 500;

async function startCli(args) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { child } = await startProcess(cli, ['--port', String(port), '--db', 'memory', '--log-level', 'warn', ...args], `${base}/api/v3/activities?limit=1`, { headers: APP_HEADER });
  return { child, base };
}

/** autocannon at a fixed overall rate, `paths` rotating. */
function paced(base, paths, duration) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      { url: base, duration, connections: 10, overallRate: RATE, headers: APP_HEADER, requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }) }] },
      (err, r) => (err ? reject(err) : resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, non2xx: r.non2xx, errors: r.errors + r.timeouts })),
    );
  });
}

export async function run({ duration = 10 } = {}) {
  const upstream = await startCli(['--catalog-size', '200']);
  const proxy = await startCli(['proxy', '--upstream', `${upstream.base}/api/v3`]);
  const servers = { direct: upstream, proxied: proxy };
  try {
    const list = await (await fetch(`${upstream.base}/api/v3/activities?limit=100`, { headers: APP_HEADER })).json();
    const paths = list.data.map((a) => `/api/v3/activities/${a.uuid}`);
    const figures = await inTurn(servers, paths, duration, (base, seconds) => paced(base, paths, seconds));
    const out = Object.fromEntries(Object.entries(figures).map(([name, f]) => [`GET /activities/{uuid} at ${RATE} req/s, ${name}`, f]));
    const [d, p] = [out[`GET /activities/{uuid} at ${RATE} req/s, direct`], out[`GET /activities/{uuid} at ${RATE} req/s, proxied`]];
    out['added by the proxy'] = { p50_ms: p.p50_ms - d.p50_ms, sequential_p50_us: p.sequential_p50_us - d.sequential_p50_us, sequential_p99_us: p.sequential_p99_us - d.sequential_p99_us };
    return out;
  } finally {
    for (const s of Object.values(servers)) await stop(s.child);
  }
}
