// Catalog reads against the bare-Fastify baseline in the same run, plus start-up time and memory.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_HEADER, freePort, load, root, rssMb, startProcess, stop } from './lib.js';

const cli = join(root, 'dist/bin/mock-server.js');

async function startMock(catalogSize) {
  const port = await freePort();
  const args = ['--port', String(port), '--db', 'memory', '--catalog-size', String(catalogSize), '--log-level', 'warn'];
  const base = `http://127.0.0.1:${port}`;
  const { child, startupMs } = await startProcess(cli, args, `${base}/api/v3/activities?limit=1`, { headers: APP_HEADER });
  return { child, startupMs, base };
}

async function body(url) {
  const res = await fetch(url, { headers: APP_HEADER });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

/** Paths to load, and their bodies as the mock sends them (so the baseline sends the same bytes). */
async function collect(base, extraPaths) {
  const list = JSON.parse(await body(`${base}/api/v3/activities?limit=100`));
  const uuidPaths = list.data.map((a) => `/api/v3/activities/${a.uuid}`);
  const bodies = {};
  for (const p of [...uuidPaths, ...extraPaths]) bodies[p] = await body(base + p);
  return { uuidPaths, bodies };
}

export async function run({ duration = 10 } = {}) {
  const results = {};
  const mock = await startMock(200);
  results.startup_default = { startup_ms: mock.startupMs };
  const extra = ['/api/v3/activities?limit=20', '/api/v3/activities?limit=20&country_in=IT,FR&sort_by=-relevance'];
  const { uuidPaths, bodies } = await collect(mock.base, extra.slice(0, 1));
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  writeFileSync(join(dir, 'bodies.json'), JSON.stringify(bodies));
  const basePort = await freePort();
  const baseline = await startProcess(join(root, 'bench/baseline.js'), [String(basePort), join(dir, 'bodies.json')], `http://127.0.0.1:${basePort}/__admin/health`);
  const baseUrl = `http://127.0.0.1:${basePort}`;
  try {
    const cases = [
      ['GET /activities/{uuid} (rotating)', uuidPaths],
      ['GET /activities?limit=20', [extra[0]]],
    ];
    for (const [name, paths] of cases) {
      const m = await load(mock.base, paths, { duration });
      const b = await load(baseUrl, paths, { duration });
      results[name] = { mock: m, baseline: b, ratio: m.rps / b.rps };
    }
    results.startup_default.rss_mb = rssMb(mock.child.pid);
  } finally {
    await stop(mock.child);
    await stop(baseline.child);
  }
  const big = await startMock(10000);
  results.startup_10000 = { startup_ms: big.startupMs, rss_mb: rssMb(big.child.pid) };
  await stop(big.child);
  return results;
}
