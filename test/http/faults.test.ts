import t from 'tap';
import { globMatch, FaultIndex } from '../../src/http/fault-index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_FAULT_PATH, MAX_FAULTS, MAX_SERVER_FAULTS } from '../../src/http/faults.js';
import { APP, buildTestApp, H } from '../helper.js';

/** The matcher faults used before: correct, but exponential on some patterns. Only ever fed tiny inputs here. */
const regExpOf = (pattern: string) => new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);

t.test('globMatch agrees with the regular expression on every small pattern and path', async (t) => {
  // Every pattern over {a, b, /, *} up to 5 characters against every text over {a, b, /} up to 5:
  // prefixes, suffixes, overlaps, empty pieces and runs of stars are all in there.
  const words = (alphabet: string[], max: number) => {
    const out = [''];
    for (let n = 0, layer = ['']; n < max; n++) {
      layer = layer.flatMap((w) => alphabet.map((c) => w + c));
      out.push(...layer);
    }
    return out;
  };
  const patterns = words(['a', 'b', '/', '*'], 5);
  const texts = words(['a', 'b', '/'], 5);
  let disagreements = 0;
  let matched = 0;
  for (const p of patterns) {
    const re = regExpOf(p);
    for (const x of texts) {
      const want = re.test(x);
      if (globMatch(p, x) !== want) disagreements++;
      if (want) matched++;
    }
  }
  t.equal(disagreements, 0, `${patterns.length} patterns x ${texts.length} paths`);
  t.ok(matched > 10_000, `a fair share of the pairs match (${matched})`);
  t.ok(globMatch('/activities/*/dates', '/activities/x/y/dates'), '* crosses slashes, as documented');
  t.notOk(globMatch('ab*ba', 'aba'), 'the first and last pieces may not overlap');
});

t.test('a pattern of many stars against a 10 KB path is answered at once (it froze the server for 94 s)', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const pattern = `/activities/${'a*'.repeat(12)}b`;
  const armed = await app.inject({ method: 'POST', url: '/__admin/faults', payload: { method: 'GET', path: pattern, status: 503, times: 5 } });
  t.equal(armed.statusCode, 201);
  const started = Date.now();
  const miss = await app.inject({ url: `/api/v3/activities/${'a'.repeat(10 * 1024)}`, headers: H });
  t.same([miss.statusCode, miss.json().code], [400, '0'], 'no match: the route answers (not a UUID)');
  const hit = await app.inject({ url: `/api/v3/activities/${'a'.repeat(10 * 1024)}b`, headers: H });
  t.same([hit.statusCode, hit.json().code], [503, '503'], 'a path that does match gets the fault');
  // The regular expression took over a minute for 60 characters; anything near a second is a regression.
  t.ok(Date.now() - started < 2000, `both answered in ${Date.now() - started} ms`);
  t.equal((await app.inject({ url: '/__admin/faults' })).json().faults[0].times, 4);
});

t.test('the earliest armed fault wins, whichever bucket of the index it is in', async (t) => {
  const index = new FaultIndex<{ id: number; method: string; path: string }>();
  const f = (id: number, method: string, path: string) => ({ id, method, path });
  const wild = f(1, '*', '/*');
  const segment = f(2, 'GET', '/carts/*');
  const exact = f(3, 'GET', '/carts/42');
  const full = f(4, 'GET', '/api/v3/carts/42');
  for (const x of [exact, full, segment, wild]) index.add(x);
  t.equal(index.find('GET', ['/carts/42', '/api/v3/carts/42']), wild);
  index.remove(wild);
  t.equal(index.find('GET', ['/carts/42', '/api/v3/carts/42']), segment);
  index.remove(segment);
  t.equal(index.find('GET', ['/carts/42', '/api/v3/carts/42']), exact);
  t.equal(index.find('POST', ['/carts/42', '/api/v3/carts/42']), undefined, 'another method');
  index.remove(exact);
  t.equal(index.find('GET', ['/carts/42', '/api/v3/carts/42']), full, 'the full path');
  t.equal(index.find('GET', ['/carts/4', '/api/v3/carts/4']), undefined);
  t.same(index.list(), [full]);
  index.add(f(5, 'GET', '/c*s/42'));
  t.equal(index.find('GET', ['/carts/42'])?.id, 5, 'a star in the first segment');
  index.clear();
  t.equal(index.size, 0);
});

t.test('the index finds what a scan of every armed fault in order finds, through arming and removal', async (t) => {
  // A seeded walk (no Math.random: a failure must replay): patterns and paths over a few segments.
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)] as T;
  const segs = ['a', 'b', 'ab', 'a*', '*', '*b', 'a*b', ''];
  const pattern = () => `/${Array.from({ length: 1 + rand(3) }, () => pick(segs)).join('/')}`;
  const path = () => `/${Array.from({ length: 1 + rand(4) }, () => pick(['a', 'b', 'ab', 'ba', 'aab', ''])).join('/')}`;
  type F = { id: number; method: string; path: string };
  const index = new FaultIndex<F>();
  let armed: F[] = [];
  let checks = 0;
  let found = 0;
  for (let id = 1; id <= 3000; id++) {
    const f = { id, method: pick(['GET', 'POST', '*']), path: pattern() };
    index.add(f);
    armed.push(f);
    if (rand(3) === 0) {
      const gone = pick(armed);
      index.remove(gone);
      armed = armed.filter((x) => x !== gone);
    }
    for (let k = 0; k < 3; k++) {
      const method = pick(['GET', 'POST']);
      const paths = [path(), path()];
      const want = armed.find((x) => (x.method === '*' || x.method === method) && paths.some((p) => globMatch(x.path, p)));
      const got = index.find(method, paths);
      if (got !== want) t.fail(`${method} ${paths.join(' or ')}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      checks++;
      if (want) found++;
    }
  }
  t.same(index.list(), armed, 'the list is the armed faults in arming order');
  t.ok(found > checks / 10, `${checks} look-ups, ${found} found a fault`);
  for (const f of armed) index.remove(f);
  t.equal(index.size, 0);
  t.equal(index.find('GET', ['/a']), undefined);
});

t.test(`at most ${MAX_FAULTS} faults armed per application, ${MAX_SERVER_FAULTS} server-wide; paths of at most ${MAX_FAULT_PATH} characters`, async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const arm = (body: object) => app.inject({ method: 'POST', url: '/__admin/faults', payload: body });
  const long = await arm({ method: 'GET', path: `/${'x'.repeat(MAX_FAULT_PATH)}`, status: 500 });
  t.same([long.statusCode, long.json()], [400, { code: '0', message: `body "path" is ${MAX_FAULT_PATH + 1} characters long: at most ${MAX_FAULT_PATH}` }]);
  t.equal((await arm({ method: 'GET', path: `/${'x'.repeat(MAX_FAULT_PATH - 1)}`, status: 500, application: APP })).statusCode, 201, 'exactly at the limit');

  // Armed 100 at a time, as many clients would: the cap holds when they come at once.
  const fill = async (application: string | null, from: number, to: number) => {
    for (let i = from; i < to; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, to - i) }, (_, k) =>
          app.faults.add({ application, method: (i + k) % 2 ? 'GET' : '*', path: (i + k) % 3 ? `/other-${i + k}` : `/other-${i + k}/*`, status: 500, times: 1, delay_ms: 0 }),
        ),
      );
    }
  };
  await fill(APP, 1, MAX_FAULTS - 1);
  t.equal((await arm({ method: 'GET', path: '/currencies', status: 502, application: APP })).statusCode, 201, `the ${MAX_FAULTS}th`);
  const full = await arm({ method: 'GET', path: '/markets', status: 502, application: APP });
  t.same([full.statusCode, full.json()], [409, { code: '0', message: `${MAX_FAULTS} faults of application "${APP}" are armed, the most there can be: DELETE /__admin/faults disarms them` }]);
  t.equal((await app.inject({ url: '/api/v3/markets', headers: H })).statusCode, 200, 'the refused one was not armed');
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: H })).statusCode, 502, 'the last one armed still matches among the others');
  t.equal((await arm({ method: 'GET', path: '/markets', status: 502, application: APP })).statusCode, 201, 'a used-up fault makes room');
  t.equal((await arm({ method: 'GET', path: '/markets', status: 502, application: 'another' })).statusCode, 201, "another application's cap is its own");

  await fill(null, 0, MAX_SERVER_FAULTS - 1);
  t.equal((await arm({ method: 'GET', path: '/languages', status: 502 })).statusCode, 201, `the ${MAX_SERVER_FAULTS}th server-wide`);
  const fullServer = await arm({ method: 'GET', path: '/languages', status: 502 });
  t.same([fullServer.statusCode, fullServer.json().message], [409, `${MAX_SERVER_FAULTS} server-wide faults are armed, the most there can be: DELETE /__admin/faults disarms them`]);
  const ids = (await app.inject({ url: '/__admin/faults' })).json().faults.map((f: { id: number }) => f.id);
  t.equal(ids.length, MAX_FAULTS + 1 + MAX_SERVER_FAULTS, 'every armed fault listed');
  t.equal(new Set(ids).size, ids.length, 'ids are unique across applications');
  await app.inject({ method: 'DELETE', url: '/__admin/faults' });
  t.same((await app.inject({ url: '/__admin/faults' })).json().faults, []);
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: H })).statusCode, 200, 'disarmed');
});

t.test('armed faults are kept in the state file: a restart keeps them, with what is left of their count', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'faults-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'state.json');
  const first = await buildTestApp({ config: { db } });
  await first.inject({ method: 'POST', url: '/__admin/faults', payload: { application: APP, method: 'GET', path: '/currencies', status: 503, times: 3 } });
  await first.inject({ method: 'POST', url: '/__admin/faults', payload: { method: 'GET', path: '/languages', status: 502, times: 2 } });
  t.equal((await first.inject({ url: '/api/v3/currencies', headers: H })).statusCode, 503, 'one use before the restart');
  t.equal((await first.inject({ url: '/api/v3/languages', headers: H })).statusCode, 502);
  await first.close();

  const second = await buildTestApp({ config: { db } });
  t.teardown(() => second.close());
  t.match((await second.inject({ url: '/__admin/faults' })).json().faults, [{ application: APP, times: 2 }, { application: null, times: 1 }]);
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await second.inject({ url: '/api/v3/currencies', headers: H })).statusCode);
  t.same(statuses, [503, 503, 200], 'the two uses left, then the real answer');
  t.equal((await second.inject({ url: '/api/v3/languages', headers: H })).statusCode, 502);
  t.equal((await second.inject({ url: '/api/v3/languages', headers: H })).statusCode, 200);
  const next = await second.inject({ method: 'POST', url: '/__admin/faults', payload: { method: 'GET', path: '/markets', status: 500 } });
  t.equal(next.json().id, 3, 'ids go on from the last one given');
  await second.inject({ method: 'POST', url: '/__admin/reset' });
  t.same((await second.inject({ url: '/__admin/faults' })).json().faults, [], 'a reset of everything disarms the server-wide faults too');
});

t.test('a fault for one application never answers another; server-wide faults answer all', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const get = (application: string) => app.inject({ url: '/api/v3/currencies', headers: { 'x-service-application': application } });
  const armed = await app.inject({ method: 'POST', url: '/__admin/faults', payload: { application: 'team-a', method: 'GET', path: '/currencies', status: 503, times: 2 } });
  t.equal(armed.statusCode, 201);
  t.match(armed.json(), { application: 'team-a', times: 2 });
  t.equal((await get('team-b')).statusCode, 200, "B's request is not answered by A's fault");
  const a = await get('team-a');
  t.equal(a.statusCode, 503);
  t.match(a.json().message, /Fault \d+ of application "team-a"/);
  t.equal((await get('team-b')).statusCode, 200, 'still not');
  t.match((await app.inject({ url: '/__admin/faults?application=team-b' })).json(), { faults: [] }, "B's list holds none of A's");
  t.match((await app.inject({ url: '/__admin/faults?application=team-a' })).json(), { faults: [{ application: 'team-a', times: 1 }] });

  await app.inject({ method: 'POST', url: '/__admin/faults', payload: { method: 'GET', path: '/currencies', status: 500 } });
  t.equal((await app.inject({ url: '/__admin/faults?application=team-b' })).json().faults.length, 1, 'a server-wide fault applies to B too');
  t.equal((await get('team-a')).statusCode, 503, "A's own fault was armed first: it answers first");
  t.equal((await get('team-b')).statusCode, 500, 'the server-wide one answers B');

  await app.inject({ method: 'POST', url: '/__admin/faults', payload: { application: 'team-a', method: 'GET', path: '/currencies', status: 418 } });
  await app.inject({ method: 'DELETE', url: '/__admin/faults?application=team-b' });
  t.equal((await app.inject({ url: '/__admin/faults' })).json().faults.length, 1, "clearing B's faults leaves A's");
  await app.inject({ method: 'POST', url: '/__admin/reset', payload: { application: 'team-a' } });
  t.same((await app.inject({ url: '/__admin/faults' })).json().faults, [], "a reset of A disarms A's faults");
  t.equal((await get('team-a')).statusCode, 200);
});
