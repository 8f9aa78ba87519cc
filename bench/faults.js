// Fault matching: partner latency with 10,000 faults armed (the cap of one application's, for the
// application whose requests are measured) against none, in the same run.
// Four CLI servers: none armed; 10,000 on other paths (exact, full and starred paths of other
// routes); 10,000 beside the measured route (`/activities/other-i/*`: its first segment, another
// second one); 10,000 that every request must test (`/activities/*other-i`: the star right after
// the segment they share, the worst case the cap bounds). Each: a 3 s warm-up, then the servers in
// turn for half the duration, twice (the machine's speed drifts over a run). autocannon's latencies
// have a 1 ms grain, so a client on node:http also times 2,000 requests one after another per
// server, to the microsecond.
import { join } from 'node:path';
import { APP_HEADER, freePort, httpClient, inTurn, load, root, startProcess, stop } from './lib.js';

const cli = join(root, 'dist/bin/mock-server.js');
const ARMED = 10_000;

async function startMock() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = ['--port', String(port), '--db', 'memory', '--catalog-size', '200', '--log-level', 'warn'];
  const { child } = await startProcess(cli, args, `${base}/api/v3/activities?limit=1`, { headers: APP_HEADER });
  return { child, base };
}

/** Arms `ARMED` faults from `bodyOf(i)`, 20 requests at a time. */
async function arm(base, bodyOf) {
  const client = httpClient(base, { 'content-type': 'application/json' });
  try {
    for (let i = 0; i < ARMED; i += 20) {
      const batch = Array.from({ length: Math.min(20, ARMED - i) }, (_, k) => client.request('POST', '/__admin/faults', bodyOf(i + k)));
      for (const res of await Promise.all(batch)) if (res.status !== 201) throw new Error(`arming answered ${res.status}: ${res.text}`);
    }
  } finally {
    client.close();
  }
}

const METHODS = ['GET', 'POST', '*'];
/** Faults on other paths: exact, full-path, and stars after a literal first segment. */
const elsewhere = (i) => ({ application: 'bench', method: METHODS[i % 3], path: [`/other-${i}`, `/api/v3/other-${i}`, `/other-${i}/*/x`][i % 3], status: 503, times: 100000 });
/** Faults beside the measured route: its first segment, a path it never takes. */
const beside = (i) => ({ application: 'bench', method: 'GET', path: `/activities/other-${i}/*`, status: 503, times: 100000 });
/** Faults each request must test: nothing but their first segment is literal before the star. */
const tested = (i) => ({ application: 'bench', method: 'GET', path: `/activities/*other-${i}`, status: 503, times: 100000 });

export async function run({ duration = 10 } = {}) {
  const servers = { none: await startMock(), elsewhere: await startMock(), beside: await startMock(), 'each tested': await startMock() };
  try {
    await arm(servers.elsewhere.base, elsewhere);
    await arm(servers.beside.base, beside);
    await arm(servers['each tested'].base, tested);
    const list = await (await fetch(`${servers.none.base}/api/v3/activities?limit=100`, { headers: APP_HEADER })).json();
    const paths = list.data.map((a) => `/api/v3/activities/${a.uuid}`);
    const figures = await inTurn(servers, paths, duration, (base, seconds) => load(base, paths, { duration: seconds, connections: 10 }));
    const out = Object.fromEntries(Object.entries(figures).map(([name, f]) => [`GET /activities/{uuid}, 10 connections, faults ${name === 'none' ? 'none' : `${ARMED} ${name}`}`, f]));
    return out;
  } finally {
    for (const s of Object.values(servers)) await stop(s.child);
  }
}
