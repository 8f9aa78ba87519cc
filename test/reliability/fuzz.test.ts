/**
 * Reliability: every operation of the partner API (from the server's own OpenAPI document) and of
 * the hidden control API, fuzzed with fast-check: valid-ish values from the schemas and real ids,
 * each combined with one family of hostile mutations (deep nesting, huge strings, prototype keys,
 * bad percent-encodings, long path parameters, wrong content types, odd headers).
 *
 * Properties, for every request: an answer within 10 s, never 5xx; a 4xx is JSON {code, message}
 * (nothing else) with a message of at most 300 characters that does not call well-formed JSON
 * invalid; and another application ("victim") can still write and reads its cart and order as
 * before (Object.prototype untouched too). Control routes that act on every application by design
 * (reset, clock, faults, …) are held to the first two only.
 * Fixed seed: a failure prints the seed and the counterexample; rerun with the same seed to reproduce.
 */
import t, { type Test } from 'tap';
import fc from 'fast-check';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createStore } from '../../src/store/index.js';
import { buildTestApp } from '../helper.js';
import { tempDir } from '../tmp.js';
import { mutationFamilies, requestArb, type Family, type Mutation } from './arbitraries.js';
import { BASE, hiddenOperations, partnerOperations, templateOf, type Operation } from './operations.js';
import { checkRequest } from './request.js';
import { renewAttacker, setupWorld, victimSnapshot, VICTIM, type World } from './world.js';

const SEED = 42;
/** Runs per operation and mutation family; RELIABILITY_RUNS=n scales them all (2n for 'none' and 'deep'). */
const SCALE = Number(process.env.RELIABILITY_RUNS ?? 2);
const RUNS: Record<Family, number> = { none: SCALE * 2, deep: SCALE * 2, hugeBody: SCALE, hugeQuery: SCALE, hugeParam: SCALE, hugeHeader: SCALE, proto: SCALE, badPercent: SCALE, longParam: SCALE, contentType: SCALE, header: SCALE };

/** Deep-nesting requests per write operation against the file store. */
const FILE_RUNS = 3;

const key = (op: Operation) => `${op.method} ${op.path}`;

/** One subtest per mutation family: a failure names the operation and the family. */
async function fuzzOperation(t: Test, app: FastifyInstance, op: Operation, world: World, after?: () => Promise<void>) {
  await renewAttacker(app, world);
  for (const [family, mutation] of Object.entries(mutationFamilies) as [Family, fc.Arbitrary<Mutation>][]) {
    await t.test(family, async (t) => {
      const arb = (focused: boolean) => requestArb(op, mutation, world.pools, world.examples[key(op)], focused);
      // Deep nesting does its damage inside handlers, so aimed at them; huge bodies half the time.
      const requests = family === 'deep' ? arb(true) : family === 'hugeBody' ? fc.oneof(arb(true), arb(false)) : arb(false);
      const property = fc.asyncProperty(requests, async (spec) => {
        let status = 0;
        try {
          status = await checkRequest(app, op, spec, world);
        } finally {
          await after?.();
          // A write that worked may have deleted, ordered or cancelled what the next request needs.
          if (op.kind === 'partner' && op.method !== 'GET' && status >= 200 && status < 300) await renewAttacker(app, world);
        }
      });
      await fc.assert(property, { seed: SEED, numRuns: RUNS[family] });
      t.pass(`${RUNS[family]} requests`);
    });
  }
}

t.test('the operations to fuzz are the server\'s', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const partner = await partnerOperations(app);
  t.ok(partner.length >= 70, `${partner.length} partner operations in /docs/json`);
  for (const op of [...partner, ...hiddenOperations]) {
    const url = templateOf(op).split(' ')[1]!;
    t.ok(app.hasRoute({ method: op.method, url }), `${op.method} ${url} is a route`);
  }
});

t.test('partner API and the tenant-neutral control routes', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const world = await setupWorld(app);
  const ops = [...(await partnerOperations(app)), ...hiddenOperations.filter((op) => !op.global)];
  t.comment(`${ops.length} operations × ${Object.keys(mutationFamilies).length} mutation families, seed ${SEED}`);
  for (const op of ops) await t.test(key(op), (t) => fuzzOperation(t, app, op, world));
});

t.test('control routes that act on every application (isolation not asserted: global by design)', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const world = await setupWorld(app);
  const start = (await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT0S' } })).json().now as string;
  // Undo what the last request set for everyone: faults, the clock, the webhook target.
  const restore = async () => {
    await app.inject({ method: 'DELETE', url: '/__admin/faults' });
    await app.inject({ method: 'POST', url: '/__admin/clock', payload: { set: start } });
    await app.inject({ method: 'PUT', url: '/__admin/webhooks/config', payload: { url: null } });
  };
  for (const op of hiddenOperations.filter((o) => o.global)) await t.test(key(op), (t) => fuzzOperation(t, app, op, world, restore));
});

t.test('deep nesting against a file store: other applications still write, close() succeeds', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const app = await buildTestApp({ store: await createStore(file) });
  let closed = false;
  t.teardown(async () => {
    // Only when the run failed before close() was tried; that failure is the one to report.
    if (!closed) await app.close().catch(() => undefined);
  });
  const world = await setupWorld(app);
  const ops = new Map((await partnerOperations(app)).filter((op) => op.method !== 'GET').map((op) => [key(op), op]));
  const deep = fc.record({
    kind: fc.constant('deep' as const),
    depth: fc.constantFrom(5000, 10000, 1000),
    shape: fc.constantFrom('arrays' as const, 'objects' as const),
    at: fc.constantFrom('extra' as const, 'field' as const, 'root' as const),
  });
  for (const [name, op] of ops) {
    await t.test(`${name}: answers, and the victim still writes after each request`, async (t) => {
      await fc.assert(
        fc.asyncProperty(requestArb(op, deep, world.pools, world.examples[name], true), async (spec) => {
          const status = await checkRequest(app, op, spec, world);
          if (status >= 200 && status < 300) await renewAttacker(app, world);
        }),
        { seed: SEED, numRuns: FILE_RUNS },
      );
      t.pass(`${FILE_RUNS} requests`);
    });
  }
  const bystander = await app.inject({ method: 'POST', url: `${BASE}/carts`, headers: { 'x-service-application': 'bystander' } });
  t.equal(bystander.statusCode, 200, `a third application still writes: ${bystander.body.slice(0, 200)}`);
  const before = await victimSnapshot(app, world.victim);
  closed = true;
  await t.resolves(app.close(), 'app.close() flushes the file store');

  // The state written survives: a new app on the same file shows the victim's cart as it was.
  const again = await buildTestApp({ store: await createStore(file) });
  t.teardown(() => again.close());
  t.same(await victimSnapshot(again, world.victim), before, "victim's cart and order read back from the file");
  const res = await again.inject({ method: 'POST', url: `${BASE}/carts`, headers: { 'x-service-application': VICTIM } });
  t.equal(res.statusCode, 200, 'the victim still writes after a restart');
});
