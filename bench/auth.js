// What a wrong token costs as a shared sandbox grows: a CLI server (--shared) with 20,000
// applications, each holding a token, against one with none, and a bare Fastify sending the same
// 401 body, in the same run. A wrong bearer on the control API (GET /__admin/orders) and on the
// partner API (an order, in an application that exists), each token naming an existing application
// with a secret never issued. The failed-authentication limit lets an address make 30 wrong tries a
// minute: each address here makes 29, from 127.0.0.2 on (every 127/8 address is this machine's), so
// what is timed is the lookup and its 401, not the 429 that stops a flood. Per server, 2,000
// requests one after another on keep-alive connections, to the microsecond, twice in turn (the
// machine's speed drifts over a run); the worse round is kept. Then autocannon sends wrong tokens
// from one address on 10 connections: past the first 30 that is the flood's answer, a 429.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, httpClient, root, startProcess, stop } from './lib.js';

const cli = join(root, 'dist/bin/mock-server.js');
const ADMIN = 'bench-admin';
const APPLICATIONS = 20_000;
const PER_ADDRESS = 29;
const ORDER = '/api/v3/orders/00000000-0000-4000-8000-000000000000';

async function startMock() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = ['--port', String(port), '--db', 'memory', '--catalog-size', '20', '--log-level', 'warn', '--shared', '--admin-token', ADMIN, '--rate-limit', '0'];
  const { child } = await startProcess(cli, args, `${base}/__admin/health`);
  return { child, base };
}

/** 20,000 applications with a token each: 200 registered clients of 100 applications, 20 logins at a time. */
async function populate(base) {
  const client = httpClient(base, { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` });
  try {
    const names = Array.from({ length: APPLICATIONS }, (_, i) => `shop-${i}`);
    for (let i = 0; i < APPLICATIONS; i += 100) {
      const reg = await client.request('POST', '/__admin/clients', { applications: names.slice(i, i + 100), scopes: [] });
      if (reg.status !== 201) throw new Error(`registration answered ${reg.status}: ${reg.text}`);
      const { client_id, client_secret } = JSON.parse(reg.text);
      for (let j = i; j < i + 100; j += 20) {
        const logins = names.slice(j, j + 20).map((application) =>
          client.request('POST', '/api/v3/login', { client_id, client_secret, grant_type: 'client_credentials' }, { 'x-service-application': application }));
        for (const res of await Promise.all(logins)) if (res.status !== 200) throw new Error(`login answered ${res.status}: ${res.text}`);
      }
    }
  } finally {
    client.close();
  }
}

/** A wrong token naming an application (as a real one does) with a secret never issued. */
const wrongToken = (application) => `${Buffer.from(application).toString('base64url')}.${randomBytes(32).toString('base64url')}`;

let nextAddress = 2;
/** The next loopback address to send from: 127.0.0.2, …, 127.0.255.255. */
const address = () => {
  const n = nextAddress++;
  return `127.0.${(n >> 8) & 255}.${n & 255}`;
};

/** p50 and p99 (µs) of `n` wrong-token requests one after another, PER_ADDRESS per source address, each answered `expected`. */
async function timed(base, path, expected, n = 2000) {
  const times = [];
  for (let done = 0; done < n; ) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: address() });
    try {
      for (let i = 0; i < PER_ADDRESS && done < n; i++, done++) {
        const application = `shop-${done % APPLICATIONS}`;
        const t0 = process.hrtime.bigint();
        const status = await new Promise((resolve, reject) => {
          const req = http.request(base + path, { agent, headers: { authorization: `Bearer ${wrongToken(application)}`, 'x-service-application': application } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          });
          req.on('error', reject);
          req.end();
        });
        times.push(Number(process.hrtime.bigint() - t0) / 1e3);
        if (status !== expected) throw new Error(`${path} answered ${status}, not ${expected}`);
      }
    } finally {
      agent.destroy();
    }
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)], p99: times[Math.floor(n * 0.99)] };
}

/** autocannon, wrong tokens from one address: the first 30 are 401s, the rest the flood's 429. */
function flood(base, path, duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: base + path, connections: 10, duration, headers: { authorization: `Bearer ${wrongToken('shop-1')}`, 'x-service-application': 'shop-1' } },
      (err, r) => (err ? reject(err) : resolve({ rps: r.requests.average, p99: r.latency.p99, statuses: Object.keys(r.statusCodeStats ?? {}).join('/') })),
    );
  });
}

export async function run({ duration = 10 } = {}) {
  const servers = { 'no applications': await startMock(), [`${APPLICATIONS.toLocaleString('en')} applications`]: await startMock() };
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  let baseline;
  try {
    const t0 = Date.now();
    await populate(Object.values(servers)[1].base);
    console.error(`auth: ${APPLICATIONS} applications with a token each in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // The bare Fastify answers the mock's 401 body for both paths (with a 200: the bytes are what count).
    const body = await (await fetch(Object.values(servers)[0].base + '/__admin/orders', { headers: { authorization: 'Bearer x' } })).text();
    writeFileSync(join(dir, 'bodies.json'), JSON.stringify({ '/__admin/orders': body, [ORDER]: body }));
    const port = await freePort();
    baseline = (await startProcess(join(root, 'bench/baseline.js'), [String(port), join(dir, 'bodies.json')], `http://127.0.0.1:${port}/__admin/health`)).child;
    const all = { ...servers, 'bare Fastify': { base: `http://127.0.0.1:${port}`, status: 200 } };
    const out = {};
    for (const [what, path] of [['control API', '/__admin/orders'], ['partner API', ORDER]]) {
      const rounds = Object.fromEntries(Object.keys(all).map((k) => [k, []]));
      for (const s of Object.values(all)) await timed(s.base, path, s.status ?? 401, 200); // warm-up
      for (let round = 0; round < 2; round++) for (const [name, s] of Object.entries(all)) rounds[name].push(await timed(s.base, path, s.status ?? 401));
      for (const [name, [a, b]] of Object.entries(rounds)) {
        out[`wrong token, ${what}, ${name}, one at a time`] = { 'p50 µs': Math.max(a.p50, b.p50), 'p99 µs': Math.max(a.p99, b.p99) };
      }
    }
    for (const [name, s] of Object.entries(servers)) {
      const f = await flood(s.base, '/__admin/orders', duration / 2);
      out[`wrong tokens from one address, control API, ${name}, 10 connections`] = { 'req/s': f.rps, 'p99 ms': f.p99 };
    }
    return out;
  } finally {
    for (const s of Object.values(servers)) await stop(s.child);
    if (baseline) await stop(baseline);
    rmSync(dir, { recursive: true, force: true });
  }
}
