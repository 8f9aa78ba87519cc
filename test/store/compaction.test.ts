import t from 'tap';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStore } from '../../src/store/index.js';
import { tempDir } from '../tmp.js';

const order = (i: number) => ({ uuid: `o${i}`, items: Array.from({ length: 20 }, (_, j) => ({ uuid: `o${i}-${j}`, note: 'x'.repeat(400) })) });

/** Copies the files as they are now: what a kill -9 at this instant would leave. */
function crashCopy(file: string, dir: string): string {
  const copy = join(dir, 'crash.json');
  for (const suffix of ['', '.wal', '.wal.old']) {
    if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
  }
  return copy;
}

t.test('writes go on while a big state is compacted, and a crash at any point keeps every acknowledged one', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'state.json');
  const s = await createStore(file, { compactBytes: 64 * 1024 });
  // About 20 MB of orders: the state file is written in many slices.
  for (let batch = 0; batch < 20; batch++) {
    await Promise.all(Array.from({ length: 100 }, (_, k) => s.update('big', (tn) => void (tn.orders[`o${batch * 100 + k}`] = order(batch * 100 + k)))));
  }
  await s.flush();
  const compactionsBefore = s.stats.compactions;
  // Grow the log past the state file's size, so that the next write starts a compaction.
  const acknowledged: string[] = [];
  let during = 0;
  let crashChecked = false;
  for (let i = 0; s.stats.compactions === compactionsBefore && i < 20_000; i++) {
    await s.update('big', (tn) => {
      const o = tn.orders[`o${i % 2000}`];
      if (o) o.rev = i;
      tn.counters.last = i;
    });
    acknowledged.push(`o${i % 2000}`);
    if (existsSync(`${file}.wal.old`)) {
      during++;
      // A second store on the files as they are mid-compaction: a crash now.
      if (!crashChecked && during === 3) {
        crashChecked = true;
        const c = await createStore(crashCopy(file, dir));
        t.equal(c.tenant('big').counters.last, i, 'a crash mid-compaction keeps the last acknowledged write');
        t.equal(Object.keys(c.tenant('big').orders).length, 2000);
        await c.close();
      }
    }
  }
  t.ok(during >= 3, `${during} writes were acknowledged while the compaction ran`);
  t.ok(crashChecked, 'a crash copy was taken mid-compaction');
  await s.flush();
  t.notOk(existsSync(`${file}.wal.old`), 'the old log is dropped once the state file holds it');
  const last = s.tenant('big').counters.last;
  const r = await createStore(crashCopy(file, dir));
  t.equal(r.tenant('big').counters.last, last);
  t.equal(r.tenant('big').orders.o0?.rev, s.tenant('big').orders.o0?.rev);
  await r.close();
  await s.close();
  const onDisk = JSON.parse(readFileSync(file, 'utf8'));
  t.equal(onDisk.tenants.big.counters.last, last, 'close folds everything into the state file');
});

t.test('a start replays the old log then the new one, whichever step a crash cut', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'state.json');
  const s = await createStore(file);
  await s.update('a', (tn) => void (tn.counters.n = 1));
  await s.close();
  const { writeFileSync } = await import('node:fs');
  // Renamed, fresh log written, state file not yet replaced.
  writeFileSync(`${file}.wal.old`, '[["k","a","counters","n",2]]\n[["k","a","counters","m",1]]\n');
  writeFileSync(`${file}.wal`, '[["k","a","counters","n",3]]\n');
  const r = await createStore(file);
  t.same({ ...r.tenant('a').counters }, { n: 3, m: 1 });
  await r.close();
  t.notOk(existsSync(`${file}.wal.old`), 'folded at start');
  t.equal(readFileSync(`${file}.wal`, 'utf8'), '');
});
