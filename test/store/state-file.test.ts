import t from 'tap';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStore, StoreError } from '../../src/store/index.js';
import { VERSION } from '../../src/version.js';
import { tempDir } from '../tmp.js';

const deep = (n: number): unknown => JSON.parse('['.repeat(n) + ']'.repeat(n));

t.test('a value that cannot be serialized fails its own update, not the writes after it', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  await s.update('a', (tn) => void (tn.carts.c1 = { uuid: 'c1', customer: null }));
  // 20,000 nested arrays overflow JSON.stringify's stack: once, this poisoned every later flush.
  await t.rejects(
    s.update('a', (tn) => {
      const cart = tn.carts.c1;
      if (cart) cart.customer = { extra: deep(20_000) };
    }),
    RangeError,
  );
  t.equal(s.tenant('a').carts.c1?.customer, null, 'the failed update was rolled back');
  await t.rejects(s.update('new', (tn) => void (tn.carts.x = { uuid: 'x', bad: deep(20_000) })), RangeError);
  t.notOk(s.applications().includes('new'), 'a tenant the failed update created is gone');
  await s.update('b', (tn) => void (tn.carts.c2 = { uuid: 'c2' }));
  await s.update('a', (tn) => void (tn.carts.c3 = { uuid: 'c3' }));
  await s.close();
  const r = await createStore(file);
  t.ok(r.tenant('b').carts.c2, "another application's later write is on disk");
  t.ok(r.tenant('a').carts.c3, 'so is a later write of the same application');
  t.equal(r.tenant('a').carts.c1?.customer, null);
  await r.close();
});

t.test('state files that are not state are refused and left untouched', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'state.json');
  for (const bad of ['null', 'false', '0', '""', '"state"', '{"version":1,"tenants":{},"server":[]}']) {
    writeFileSync(file, bad);
    const err = await createStore(file).catch((e: unknown) => e);
    t.type(err, StoreError, `refused: ${bad}`);
    t.match((err as Error).message, /not a mock-server state file/);
    t.equal(readFileSync(file, 'utf8'), bad, 'the file is unchanged');
  }
  t.notOk(existsSync(`${file}.wal`), 'no log was created');
});

t.test('a state file of a newer mock-server is refused naming it (its version when the file tells, else the state version) and left untouched', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  await s.update('a', (tn) => void (tn.carts.c = { uuid: 'c' }));
  await s.close();
  t.equal(JSON.parse(readFileSync(file, 'utf8')).mock_server, VERSION, 'a file this mock-server wrote names it');
  for (const [newer, named] of [
    ['{"version":2,"mock_server":"0.9.0","server":{},"tenants":{"a":{"carts":{"c":{"uuid":"c"}},"wallets":{}}}}', /was written by a newer mock-server \(0\.9\.0, state version 2; this is mock-server \d+\.\d+\.\d+, which reads state version 1\)\. It was left untouched: /],
    ['{"version":7,"tenants":{}}', /was written by a newer mock-server \(state version 7; this is mock-server /],
  ] as const) {
    writeFileSync(file, newer);
    const before = readFileSync(file);
    const err = await createStore(file).catch((e: unknown) => e);
    t.type(err, StoreError);
    t.match((err as Error).message, named);
    t.notMatch((err as Error).message, /not a mock-server state file/);
    t.same(readFileSync(file), before, 'the file is byte for byte as it was');
    t.equal(readFileSync(`${file}.wal`, 'utf8'), '', 'nothing was logged');
  }
});

t.test('a read-only state file or directory is refused at start, even for root', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'state.json');
  const s = await createStore(file);
  await s.update('a', (tn) => void (tn.carts.c = { uuid: 'c' }));
  await s.close();
  const before = readFileSync(file, 'utf8');
  chmodSync(file, 0o444);
  const err = await createStore(file).catch((e: unknown) => e);
  t.type(err, StoreError);
  t.match((err as Error).message, /cannot be written \(it is read-only\)/);
  t.equal(readFileSync(file, 'utf8'), before, 'the file is unchanged');
  t.equal(statSync(file).mode & 0o777, 0o444, 'and keeps its mode');
  chmodSync(file, 0o644);

  const ro = join(dir, 'ro');
  mkdirSync(ro);
  chmodSync(ro, 0o555);
  t.teardown(() => chmodSync(ro, 0o755));
  const dirErr = await createStore(join(ro, 'state.json')).catch((e: unknown) => e);
  t.type(dirErr, StoreError);
  t.match((dirErr as Error).message, /State directory .* cannot be written/);
  t.notOk(existsSync(join(ro, 'state.json')), 'nothing was written in it');
});

t.test('a bad state file points at the last good state', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file, { compactBytes: 1 });
  await s.update('a', (tn) => void (tn.carts.c = { uuid: 'c' }));
  await s.flush();
  await s.close();
  t.ok(existsSync(`${file}.bak`), 'a compaction kept the state file it replaced');
  writeFileSync(file, '{"version":1,"tenants":');
  const err = await createStore(file).catch((e: unknown) => e);
  t.match((err as Error).message, `The last good state is ${file}.bak`);
});

t.test('the state directory removed while running: the next write puts everything back', async (t) => {
  const dir = join(tempDir(t), 'state-dir');
  const file = join(dir, 'state.json');
  const warnings: string[] = [];
  const s = await createStore(file, { warn: (m) => warnings.push(m) });
  await s.update('a', (tn) => void (tn.carts.c1 = { uuid: 'c1' }));
  rmSync(dir, { recursive: true });
  await s.update('a', (tn) => void (tn.carts.c2 = { uuid: 'c2' }));
  t.ok(existsSync(file), 'the state file is there again when the write is acknowledged');
  t.match(warnings.join('\n'), /written afresh/);
  const r = await createStore(file);
  t.same(Object.keys(r.tenant('a').carts).sort(), ['c1', 'c2'], 'the write before the removal and the one after');
  await r.close();

  // The directory cannot come back (a file took its name): the write is refused, never acknowledged.
  rmSync(dir, { recursive: true });
  writeFileSync(dir, 'not a directory');
  const err = await s.update('a', (tn) => void (tn.carts.c3 = { uuid: 'c3' })).catch((e: unknown) => e);
  t.equal((err as { statusCode?: number }).statusCode, 503, 'refused with 503');
  t.match((err as Error).message, /could not be saved to the state file .* not acknowledged/);
  rmSync(dir);
  await s.update('b', (tn) => void (tn.carts.c4 = { uuid: 'c4' }));
  await s.close();
  const back = await createStore(file);
  t.ok(back.tenant('b').carts.c4, 'writes resume once the disk takes them');
  t.ok(back.tenant('a').carts.c1);
  await back.close();
});

t.test('server-wide state survives a crash', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  t.same(s.server(), { clock_offset_ms: 0 });
  await s.updateServer((srv) => void (srv.clock_offset_ms = 5 * 3600_000));
  await s.reset();
  const r = await createStore(file);
  t.equal(r.server().clock_offset_ms, 5 * 3600_000, 'read back without a clean close; a reset keeps it');
  await r.close();
  await s.close();
  const m = await createStore('memory');
  await m.updateServer((srv) => void (srv.clock_offset_ms = 1));
  t.equal(m.server().clock_offset_ms, 1);
});
