// Catalog reads against a bare Fastify server that sends the same bytes, in the same run, plus
// start-up time and memory of the real CLI process. Each case: 3 s warm-up per server, then mock,
// baseline, mock, baseline for half the duration each; rps is the mean, p99 the worse half.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_HEADER, freePort, load, root, rssMb, startProcess, stop } from './lib.js';

const cli = join(root, 'dist/bin/mock-server.js');
const SEARCH = '/api/v3/activities?limit=20&country_in=IT,FR&category_in=museums,tours&sort_by=-rating';

async function startMock(catalogSize, extra = []) {
  const port = await freePort();
  const args = ['--port', String(port), '--db', 'memory', '--catalog-size', String(catalogSize), '--log-level', 'warn', ...extra];
  const base = `http://127.0.0.1:${port}`;
  const { child, startupMs } = await startProcess(cli, args, `${base}/api/v3/activities?limit=1`, { headers: APP_HEADER });
  return { child, startupMs, base };
}

async function body(url) {
  const res = await fetch(url, { headers: APP_HEADER });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

/** Loads each case against the mock, then against a baseline serving the bodies the mock sent. */
async function compare(mock, cases, duration) {
  const bodies = {};
  for (const [, paths] of cases) for (const p of paths) bodies[p] = await body(mock.base + p);
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  writeFileSync(join(dir, 'bodies.json'), JSON.stringify(bodies));
  const port = await freePort();
  const baseline = await startProcess(join(root, 'bench/baseline.js'), [String(port), join(dir, 'bodies.json')], `http://127.0.0.1:${port}/__admin/health`);
  const out = {};
  try {
    const base = `http://127.0.0.1:${port}`;
    for (const [name, paths] of cases) {
      // A warm-up each (the JIT is still optimizing the mock's handlers after one second: its ratio
      // kept rising over the first runs), then two alternating halves: on this shared 2-core machine
      // the speed drifts over a run, and a fixed order (mock first) would hand the drift to one side.
      await load(mock.base, paths, { duration: 3 });
      await load(base, paths, { duration: 3 });
      const m = [], b = [];
      for (let round = 0; round < 2; round++) {
        m.push(await load(mock.base, paths, { duration: duration / 2 }));
        b.push(await load(base, paths, { duration: duration / 2 }));
      }
      const merged = (runs) => ({ rps: (runs[0].rps + runs[1].rps) / 2, p99: Math.max(runs[0].p99, runs[1].p99), non2xx: runs[0].non2xx + runs[1].non2xx, errors: runs[0].errors + runs[1].errors });
      const [mm, bb] = [merged(m), merged(b)];
      out[name] = { mock: mm, baseline: bb, ratio: mm.rps / bb.rps };
    }
  } finally {
    await stop(baseline.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/**
 * What the integration report's observation of every request costs: the same reads against a
 * server with it (the default) and one started with --report off, alternating as compare() does.
 */
async function observationCost(duration) {
  const on = await startMock(200);
  const off = await startMock(200, ['--report', 'off']);
  const out = {};
  try {
    const list = JSON.parse(await body(`${on.base}/api/v3/activities?limit=100`));
    const cases = [
      ['report on / --report off: GET /activities/{uuid}', list.data.map((a) => `/api/v3/activities/${a.uuid}`)],
      ['report on / --report off: GET /activities?limit=20', ['/api/v3/activities?limit=20']],
    ];
    for (const [name, paths] of cases) {
      await load(on.base, paths, { duration: 3 });
      await load(off.base, paths, { duration: 3 });
      const a = [], b = [];
      for (let round = 0; round < 2; round++) {
        a.push(await load(on.base, paths, { duration: duration / 2 }));
        b.push(await load(off.base, paths, { duration: duration / 2 }));
      }
      const merged = (runs) => ({ rps: (runs[0].rps + runs[1].rps) / 2, p99: Math.max(runs[0].p99, runs[1].p99), non2xx: runs[0].non2xx + runs[1].non2xx, errors: runs[0].errors + runs[1].errors });
      const [m, base] = [merged(a), merged(b)];
      out[name] = { mock: m, baseline: base, ratio: m.rps / base.rps };
    }
  } finally {
    await stop(on.child);
    await stop(off.child);
  }
  return out;
}

/**
 * A dashboard left open on the mock (/__admin/events), as a tester would keep one beside their
 * client: the catalog figures are taken with it streaming. Counts the change events it got.
 */
function openDashboard(base) {
  const controller = new AbortController();
  let events = 0;
  const done = fetch(`${base}/__admin/events`, { headers: { accept: 'text/event-stream' }, signal: controller.signal })
    .then(async (res) => {
      for await (const chunk of res.body) events += (Buffer.from(chunk).toString().match(/^event: change$/gm) ?? []).length;
    })
    .catch((e) => {
      if (e.name !== 'AbortError') throw e;
    });
  return { close: async () => (controller.abort(), await done, events) };
}

export async function run({ duration = 10 } = {}) {
  const results = {};
  const mock = await startMock(200);
  results.startup_default = { startup_ms: mock.startupMs, rss_mb_at_start: rssMb(mock.child.pid) };
  const dashboard = openDashboard(mock.base);
  try {
    const list = JSON.parse(await body(`${mock.base}/api/v3/activities?limit=100`));
    const uuidPaths = list.data.map((a) => `/api/v3/activities/${a.uuid}`);
    const day = new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10);
    Object.assign(results, await compare(mock, [
      ['GET /activities/{uuid} (100 rotating)', uuidPaths],
      ['GET /activities?limit=20', ['/api/v3/activities?limit=20']],
      ['search: two filters and a sort', [SEARCH]],
      ['GET /activities/{uuid}/dates/{day}', [`/api/v3/activities/5a002d99-781b-479b-9a9d-9efadfd34ec2/dates/${day}`]],
    ], duration));
    results.startup_default.rss_mb_after_load = rssMb(mock.child.pid);
  } finally {
    results.dashboard_open = { change_events_streamed: await dashboard.close() };
    await stop(mock.child);
  }
  Object.assign(results, await observationCost(duration));
  const big = await startMock(10000);
  results.startup_10000 = { startup_ms: big.startupMs, rss_mb: rssMb(big.child.pid) };
  try {
    Object.assign(results, await compare(big, [['search, --catalog-size 10000', [SEARCH]]], duration));
  } finally {
    await stop(big.child);
  }
  return results;
}
