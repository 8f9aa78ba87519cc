import t from 'tap';
import { readFileSync, writeFileSync, existsSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStore, StoreError } from '../../src/store/index.js';
import { tempDir } from '../tmp.js';

const token = (clientId: string) => ({ clientId, scopes: [], issuedAt: '2026-01-15T10:00:00Z', expiresAt: '2026-01-15T11:00:00Z' });

t.test('a file store creates its directories and reads back what was written after a restart', async (t) => {
  const file = join(tempDir(t), 'nested', 'dir', 'state.json');
  const a = await createStore(file);
  await a.update('app-a', (tn) => {
    tn.tokens.t1 = token('c1');
    tn.orders.o1 = { uuid: 'o1', status: 'PENDING' };
    tn.webhookConfig = { url: 'http://127.0.0.1:9/hook', secret: null };
    tn.counters.order = 7;
  });
  await a.update('app-a', (tn) => {
    const o = tn.orders.o1;
    if (o) o.status = 'OK';
  });
  // Simulates a crash: the second store opens the same files without the first being closed.
  const b = await createStore(file);
  t.same(b.tenant('app-a').tokens.t1, token('c1'));
  t.equal(b.tenant('app-a').orders.o1?.status, 'OK', 'a nested change of a read record is written');
  t.same(b.tenant('app-a').webhookConfig, { url: 'http://127.0.0.1:9/hook', secret: null });
  t.equal(b.tenant('app-a').counters.order, 7);
  t.same(b.applications(), ['app-a']);
  await b.close();
  await a.close();
  const onDisk = JSON.parse(readFileSync(file, 'utf8'));
  t.equal(onDisk.tenants['app-a'].orders.o1.status, 'OK', 'close folds the log into the state file');
  t.notOk(onDisk.catalog, 'the catalog is never written');
  const c = await createStore(file);
  t.equal(c.tenant('app-a').orders.o1?.status, 'OK');
  await c.close();
});

t.test('concurrent updates all land and share flushes', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  const n = 500;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      s.update(i % 2 ? 'app-a' : 'app-b', (tn) => {
        tn.tokens[`k${i}`] = token(`c${i}`);
        return i;
      }),
    ),
  );
  t.equal(results.length, n);
  t.equal(results[499], 499, 'update resolves with the function result');
  t.ok(s.stats.flushes >= 1 && s.stats.flushes <= 2, `one flush served ${n} writers (flushes: ${s.stats.flushes})`);
  // Writers arriving while a flush is on disk share one follow-up flush.
  const first = s.update('app-a', (tn) => void (tn.tokens.x = token('x')));
  await new Promise((r) => setImmediate(r));
  const more = Array.from({ length: 50 }, (_, i) => s.update('app-a', (tn) => void (tn.tokens[`y${i}`] = token('y'))));
  const before = s.stats.flushes;
  await Promise.all([first, ...more]);
  t.equal(s.stats.flushes - before, 2, 'the 50 writers during a flush shared one follow-up flush');
  const r = await createStore(file);
  t.equal(Object.keys(r.tenant('app-a').tokens).length, n / 2 + 51);
  t.equal(Object.keys(r.tenant('app-b').tokens).length, n / 2);
  await r.close();
  await s.close();
});

t.test('a throwing update leaves no partial state and writes nothing', async (t) => {
  const s = await createStore(join(tempDir(t), 'state.json'));
  await s.update('a', (tn) => void (tn.orders.o1 = { uuid: 'o1', n: 1 }));
  const flushes = s.stats.flushes;
  await t.rejects(
    s.update('a', (tn) => {
      const o = tn.orders.o1;
      if (o) o.n = 2;
      tn.orders.o2 = { uuid: 'o2' };
      tn.counters.x = 1;
      throw new Error('validation failed');
    }),
    { message: 'validation failed' },
  );
  t.same(s.tenant('a').orders.o1, { uuid: 'o1', n: 1 });
  t.equal(s.tenant('a').orders.o2, undefined);
  t.equal(s.tenant('a').counters.x, undefined);
  await t.rejects(s.update('new-app', () => { throw new Error('no'); }));
  t.notOk(s.applications().includes('new-app'), 'a tenant created by a failed update is dropped');
  await t.rejects(s.update('a', () => Promise.resolve(1)), TypeError, 'async functions are refused');
  t.equal(s.stats.flushes, flushes);
  await s.close();
});

t.test('reset drops one tenant or all, durably', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  await s.update('a', (tn) => void (tn.tokens.t = token('a')));
  await s.update('b', (tn) => void (tn.tokens.t = token('b')));
  const seen: Array<string | null> = [];
  s.onReset((app) => seen.push(app));
  await s.reset('a');
  let r = await createStore(file);
  t.same(r.applications(), ['b']);
  t.equal(r.tenant('a').tokens.t, undefined);
  await r.close();
  await s.reset();
  r = await createStore(file);
  t.same(r.applications(), []);
  await r.close();
  t.same(seen, ['a', null]);
  await s.close();
});

t.test('keys such as __proto__ are plain keys', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  await s.update('__proto__', (tn) => void (tn.carts.__proto__ = { uuid: 'x' }));
  t.equal(({} as Record<string, unknown>).carts, undefined, 'Object.prototype is untouched');
  await s.close();
  const r = await createStore(file);
  t.same(r.applications(), ['__proto__']);
  t.equal(r.tenant('__proto__').carts.__proto__?.uuid, 'x');
  t.same(r.tenant('constructor'), r.tenant('nobody'), 'an unknown application reads as empty');
  await r.close();
});

t.test('a corrupt state file stops the start and is left untouched', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'state.json');
  for (const bad of ['{"version":1,"tenants":', '[]', '{"version":99,"tenants":{}}', '{"version":1,"tenants":{"a":{"tokens":[]}}}', '']) {
    writeFileSync(file, bad);
    const err = await createStore(file).catch((e: unknown) => e);
    t.type(err, StoreError, `refused: ${JSON.stringify(bad)}`);
    t.equal((err as StoreError).userFacing, true);
    t.match((err as StoreError).message, file, 'the message names the file');
    t.equal(readFileSync(file, 'utf8'), bad, 'the file is unchanged');
  }
  t.notOk(existsSync(`${file}.wal`) && readFileSync(`${file}.wal`, 'utf8') !== '', 'no log was written');
});

t.test('a corrupt log line stops the start; a torn last line (crash mid-write) is dropped', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  await s.update('a', (tn) => void (tn.tokens.ok = token('a')));
  const wal = readFileSync(`${file}.wal`, 'utf8');
  writeFileSync(`${file}.wal`, `${wal}[["k","a","tokens","half"`);
  const r = await createStore(file);
  t.ok(r.tenant('a').tokens.ok);
  t.equal(r.tenant('a').tokens.half, undefined);
  await r.close();
  writeFileSync(`${file}.wal`, `not json\n${wal}`);
  const err = await createStore(file).catch((e: unknown) => e);
  t.type(err, StoreError);
  t.match((err as Error).message, /line 1/);
  t.equal(readFileSync(`${file}.wal`, 'utf8'), `not json\n${wal}`, 'the log is unchanged');
  writeFileSync(`${file}.wal`, '[["zz"]]\n');
  t.type(await createStore(file).catch((e: unknown) => e), StoreError, 'an unknown operation is corrupt');
  await s.close();
});

t.test('compaction folds the log into the state file; replaying a log twice is harmless', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file, { compactBytes: 1 });
  const before = JSON.parse(readFileSync(file, 'utf8')).tenants;
  t.same(before, {}, 'opening writes an empty state file');
  let replaced = '';
  for (let i = 0; i < 5; i++) {
    const [before, compactions] = [readFileSync(file, 'utf8'), s.stats.compactions];
    await s.update('a', (tn) => void (tn.tokens[`t${i}`] = token('a')));
    await s.flush();
    if (s.stats.compactions > compactions) replaced = before;
  }
  t.ok(s.stats.compactions >= 2, 'compacted past the threshold');
  t.equal(readFileSync(`${file}.bak`, 'utf8'), replaced, 'the state file a compaction replaced is kept as the backup');
  // A crash right after the rename and before the log was emptied: the log is replayed over a state
  // that already holds it.
  const wal = readFileSync(`${file}.wal`, 'utf8');
  await s.update('a', (tn) => {
    delete tn.tokens.t0;
    tn.tokens.t9 = token('z');
  });
  const log = readFileSync(`${file}.wal`, 'utf8');
  await s.close();
  copyFileSync(file, `${file}.bak`);
  writeFileSync(`${file}.wal`, wal + log);
  const r = await createStore(file);
  t.same(Object.keys(r.tenant('a').tokens).sort(), ['t1', 't2', 't3', 't4', 't9']);
  await r.close();
});

t.test('memory store', async (t) => {
  const s = await createStore('memory');
  t.equal(s.location, 'memory');
  t.equal(s.logLocation, null);
  t.equal(await s.update('a', (tn) => ((tn.tokens.t = token('a')), 'done')), 'done');
  t.ok(s.tenant('a').tokens.t);
  await s.reset('a');
  t.equal(s.tenant('a').tokens.t, undefined);
  t.equal(s.stats.flushes, 0);
  await s.flush();
  await s.close();
  await t.rejects(s.update('a', () => 1), /closed/);
});

t.test('rollback restores keys changed before their whole collection was replaced', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  await s.update('a', (tn) => void (tn.orders.o1 = { uuid: 'o1', n: 1 }));
  await t.rejects(
    s.update('a', (tn) => {
      const o = tn.orders.o1;
      if (o) o.n = 2;
      tn.orders = {};
      tn.journal.j = { id: 'j' };
      throw new Error('late failure');
    }),
  );
  t.same(s.tenant('a').orders.o1, { uuid: 'o1', n: 1 });
  t.equal(s.tenant('a').journal.j, undefined);
  // A whole-collection replacement is logged whole and survives a restart.
  await s.update('a', (tn) => {
    tn.orders = { o2: { uuid: 'o2' } };
    delete (tn as unknown as Record<string, unknown>).counters;
  });
  const r = await createStore(file);
  t.same(Object.keys(r.tenant('a').orders), ['o2']);
  t.same(r.tenant('a').counters, {}, 'a dropped collection comes back empty');
  await r.close();
  await s.close();
});

t.test('copyData: a deep copy of JSON data that keeps dictionaries and "__proto__" keys as data', async (t) => {
  const { copyData } = await import('../../src/store/changes.js');
  const dict = Object.assign(Object.create(null) as Record<string, unknown>, { a: { b: [1, { c: 'x' }] } });
  const withProto = JSON.parse('{"__proto__": {"polluted": true}, "n": null}') as Record<string, unknown>;
  const copy = copyData({ dict, withProto, list: [dict], s: 'str', n: 1, f: false });
  t.same(copy, { dict, withProto, list: [dict], s: 'str', n: 1, f: false });
  t.equal(Object.getPrototypeOf(copy.dict), null, 'a null-prototype dictionary stays one');
  t.not(copy.dict, dict);
  t.not((copy.dict.a as { b: unknown[] }).b, (dict.a as { b: unknown[] }).b, 'nested arrays are copied');
  t.ok(Object.hasOwn(copy.withProto, '__proto__'), '"__proto__" is an own key of the copy');
  t.equal(Object.getPrototypeOf(copy.withProto), Object.prototype, 'and not its prototype');
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  ((copy.dict.a as { b: unknown[] }).b[1] as { c: string }).c = 'changed';
  t.equal(((dict.a as { b: unknown[] }).b[1] as { c: string }).c, 'x', 'the original is untouched');
});
