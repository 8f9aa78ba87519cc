// Any --db that cannot be used stops the CLI with exit 2 and one line, at once: once, a directory
// under /proc made fs.mkdir's recursive mode spin at 100% CPU for ever, with no output.
import t from 'tap';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { run } from './cli-process.js';
import { tempDir } from './tmp.js';

// Generous for a loaded 2-core machine: a refusal takes about 0.25 s, a normal start over 1 s.
const BOUND_MS = 5000;

t.test('a --db that cannot be used exits 2 with one line, within a bound', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'file.json');
  writeFileSync(file, '{}');
  const unreadable = join(dir, 'unreadable.json');
  writeFileSync(unreadable, '{}');
  chmodSync(unreadable, 0o000);
  const ro = join(dir, 'read-only');
  mkdirSync(ro);
  chmodSync(ro, 0o555);
  t.teardown(() => chmodSync(ro, 0o755));
  const fifo = join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  const dangling = join(dir, 'dangling.json');
  symlinkSync(join(dir, 'nowhere', 'state.json'), dangling);
  const cases: Array<[string, string, RegExp]> = [
    ['a new directory under /proc', '/proc/nope/x.json', /State directory \/proc cannot be written/],
    ['a new directory under /sys', '/sys/nope/x.json', /State directory \/sys cannot be written/],
    ['a directory of /sys whose mode bits allow writing', '/sys/kernel/x.json', /State directory \/sys\/kernel cannot be written/],
    ['a path through a regular file', join(file, 'x.json'), /is not a directory/],
    ['a directory', dir, /is a directory/],
    ['an unreadable file (mode 000, even for root)', unreadable, /cannot be read \(it is not readable\)/],
    ['a read-only directory', join(ro, 'state.json'), /State directory .* cannot be written \(it is read-only\)/],
    ['a name too long', join(dir, 'a'.repeat(300), 'state.json'), /ENAMETOOLONG/],
    ['a FIFO', fifo, /is a FIFO/],
    ['a symbolic link to nothing', dangling, /symbolic link that cannot be followed/],
    ['a device', '/dev/null', /not a regular file/],
  ];
  for (const [name, db, message] of cases) {
    const started = performance.now();
    // One still running after twice the bound is killed: a spin fails the test, it does not hang it.
    const r = await run(['--db', db, '--port', '0'], {}, { timeoutMs: 2 * BOUND_MS });
    const ms = Math.round(performance.now() - started);
    t.equal(r.code, 2, `${name}: exit 2`);
    t.match(r.stderr, /^mock-server: [^\n]+\n$/, `${name}: one line`);
    t.match(r.stderr, message, `${name}: ${r.stderr.trim().slice(0, 160)}`);
    t.equal(r.stdout, '', `${name}: nothing on stdout`);
    t.ok(ms < BOUND_MS, `${name}: answered in ${ms} ms`);
  }
});
