// The CLI as real processes on one PostgreSQL that is stopped (`-m fast`: every session ended with
// 57P01; `-m immediate`: a crash, recovery at the next start) while 20 writers keep writing, five
// times: no instance exits, writes meanwhile answer 503 {code, message} with Retry-After, the
// instances recover without a restart, and every write answered 200 is there afterwards.
import t, { type Test } from 'tap';
import { start, type Started } from '../cli-process.js';
import { startPostgres } from '../pg/server.js';

const server = await startPostgres(t);
const WRITERS = 20;
const ROUNDS = 5;

interface Tally {
  acked: Array<{ app: string; uuid: string }>;
  /** Per instance: answers 200 and 503 so far. */
  ok: number[];
  unavailable: number[];
  /** Answers that are neither 200 nor a proper 503, and requests that got no answer at all. */
  wrong: string[];
}

const until = async (what: string, check: () => boolean, ms = 60_000) => {
  for (const end = Date.now() + ms; !check(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
  }
};

async function instance(t: Test, db: string): Promise<Started> {
  const s = await start(['--db', db]);
  t.teardown(() => void s.child.kill('SIGKILL'));
  return s;
}

/** One writer: carts created one after another on `s` until `stop` says so (and at most 3 minutes). */
async function writer(s: Started, i: number, n: number, tally: Tally, stop: () => boolean): Promise<void> {
  const app = `outage-${n % 4}`;
  for (const end = Date.now() + 180_000; !stop() && Date.now() < end; ) {
    let res: Response;
    try {
      res = await fetch(`${s.url}/carts`, { method: 'POST', headers: { 'x-service-application': app } });
    } catch (e) {
      tally.wrong.push(`instance ${i}: no answer (${(e as Error).message})`);
      return;
    }
    const body = await res.text();
    if (res.status === 200) {
      tally.ok[i]!++;
      tally.acked.push({ app, uuid: JSON.parse(body).uuid });
      continue;
    }
    const json = (() => {
      try {
        return JSON.parse(body);
      } catch {
        return null;
      }
    })();
    if (res.status === 503 && typeof json?.code === 'string' && typeof json?.message === 'string' && res.headers.get('retry-after') === '1') tally.unavailable[i]!++;
    else tally.wrong.push(`instance ${i}: ${res.status} ${body.slice(0, 200)}`);
    // A client backs off a little after a 503.
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const mode of ['fast', 'immediate'] as const) {
  t.test(`stopped with -m ${mode} under ${WRITERS} writers, ${ROUNDS} rounds: no instance exits and no acknowledged write is lost`, async (t) => {
    const db = await server.createDatabase(`outage_${mode}`);
    // One after the other: two starting at once on a loaded machine can outlast the banner's wait.
    const instances = [await instance(t, db), await instance(t, db)];
    const exits: string[] = [];
    instances.forEach((s, i) => void s.exited.then((code) => exits.push(`instance ${i} exited with ${code}: ${s.stderr().slice(-2000)}`)));
    const tally: Tally = { acked: [], ok: [0, 0], unavailable: [0, 0], wrong: [] };
    let stopped = false;
    const writers = Array.from({ length: WRITERS }, (_, n) => writer(instances[n % 2]!, n % 2, n, tally, () => stopped || exits.length > 0));
    const alive = () => exits.length === 0;
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const ok = [...tally.ok];
        await until(`writes on both instances before round ${round}`, () => !alive() || tally.ok.every((n, i) => n >= ok[i]! + 20));
        if (!alive()) break;
        await server.stopServer(mode);
        const unavailable = [...tally.unavailable];
        await until(`503s on both instances in round ${round}`, () => !alive() || tally.unavailable.every((n, i) => n > unavailable[i]!));
        await server.startServer();
        const back = [...tally.ok];
        await until(`both instances writing again after round ${round}`, () => !alive() || tally.ok.every((n, i) => n > back[i]!));
      }
    } finally {
      stopped = true;
      await Promise.all(writers);
    }
    t.same(exits, [], 'no instance exited');
    t.same(tally.wrong, [], 'every answer was 200, or 503 {code, message} with Retry-After: 1');
    t.ok(tally.unavailable.every((n) => n > 0), `503s while the database was away: ${tally.unavailable.join(', ')}`);
    t.ok(tally.acked.length > 0, `${tally.acked.length} carts acknowledged`);
    if (exits.length > 0) return;
    for (const [i, s] of instances.entries()) {
      const missing: string[] = [];
      for (let k = 0; k < tally.acked.length; k += 50) {
        const batch = tally.acked.slice(k, k + 50);
        const codes = await Promise.all(batch.map(({ app, uuid }) => fetch(`${s.url}/carts/${uuid}`, { headers: { 'x-service-application': app } }).then((r) => r.status)));
        codes.forEach((c, j) => c !== 200 && missing.push(`${batch[j]!.uuid}: ${c}`));
      }
      t.same(missing, [], `every acknowledged cart is read back on instance ${i}`);
      t.equal((await fetch(`${s.origin}/__admin/health`)).status, 200, `instance ${i} is healthy without a restart`);
    }
  });
}
