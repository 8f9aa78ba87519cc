// Writes that arrive while the store writes the whole state afresh (after its directory was removed
// or a write failed) must be as durable as any other when they are acknowledged.
import t from 'tap';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createStore } from '../../src/store/index.js';
import { tempDir } from '../tmp.js';

const order = (i: number) => ({ uuid: `o${i}`, items: Array.from({ length: 20 }, (_, j) => ({ uuid: `o${i}-${j}`, note: 'x'.repeat(400) })) });

/** Copies the files as they are now: what a kill -9 at this instant would leave. */
function crashCopy(file: string, root: string): string {
  const dir = join(root, 'crash');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  for (const suffix of ['', '.wal', '.wal.old']) {
    if (existsSync(file + suffix)) copyFileSync(file + suffix, join(dir, `state.json${suffix}`));
  }
  return join(dir, 'state.json');
}

t.test('a write acknowledged while the state is written afresh survives a crash right after', async (t) => {
  const root = tempDir(t);
  const dir = join(root, 'state-dir');
  const file = join(dir, 'state.json');
  const s = await createStore(file, { warn: () => undefined });
  // 'a' is written first, then about 10 MB of 'big': the rewrite takes many slices.
  await s.update('a', (tn) => void (tn.counters.n = 0));
  for (let batch = 0; batch < 10; batch++) {
    await Promise.all(Array.from({ length: 100 }, (_, k) => s.update('big', (tn) => void (tn.orders[`o${batch * 100 + k}`] = order(batch * 100 + k)))));
  }
  await s.flush(); // no compaction under way
  rmSync(dir, { recursive: true });
  // The next write finds the log gone and writes the whole state afresh.
  const trigger = s.update('big', (tn) => void (tn.counters.m = 1));
  const temp = join(dir, '.state.json.tmp');
  const started = () => existsSync(temp) && statSync(temp).size > 0;
  for (let i = 0; i < 100_000 && !started(); i++) await new Promise((r) => setImmediate(r));
  t.ok(started(), 'the rewrite is under way: its first slice, with application a, is written');
  // 'a' is already in the new file by now: this change can reach the disk only through the log.
  const during = s.update('a', (tn) => void (tn.counters.n = 42));
  await Promise.all([trigger, during]);
  const c = await createStore(crashCopy(file, root), { warn: () => undefined });
  t.equal(c.tenant('a').counters.n, 42, 'the write acknowledged during the rewrite is on disk');
  t.equal(c.tenant('big').counters.m, 1, 'so is the one that started it');
  await c.close();
  await s.close();
});

t.test('the state directory removed while nobody writes: the state is back within seconds, without a write', async (t) => {
  const dir = join(tempDir(t), 'state-dir');
  const file = join(dir, 'state.json');
  const warnings: string[] = [];
  const s = await createStore(file, { warn: (m) => warnings.push(m) });
  await s.update('a', (tn) => void (tn.counters.n = 7));
  rmSync(dir, { recursive: true });
  // The warning comes once the recovery has ended (the state file appears a little earlier).
  for (let i = 0; i < 100 && warnings.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  t.match(warnings.join('\n'), /written afresh .*the log .* was removed/, 'written afresh with no write to notice the removal');
  t.ok(existsSync(file));
  const c = await createStore(crashCopy(file, join(dir, '..')), { warn: () => undefined });
  t.equal(c.tenant('a').counters.n, 7, 'what was acknowledged before the removal would survive a crash now');
  await c.close();
  await s.close();
});
