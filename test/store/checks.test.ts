// Start-up checks cover the files beside the state file too: the log, the old log, the backup and the
// temporary file. One that cannot be read and written, or that is not ours, stops the start, and
// nothing is written. (The ownership case needs root, as every machine of this project is.)
import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStore, StoreError } from '../../src/store/index.js';
import { run } from '../cli-process.js';
import { tempDir } from '../tmp.js';

/** A state directory with a state file and a log, as a stopped server leaves them after a crash. */
async function stopped(t: { teardown(fn: () => void): void }): Promise<string> {
  const file = join(tempDir(t), 'state.json');
  const s = await createStore(file);
  await s.update('a', (tn) => void (tn.carts.c = { uuid: 'c' }));
  await s.close();
  writeFileSync(`${file}.wal`, '[["k","a","carts","d",{"uuid":"d"}]]\n');
  return file;
}

const refused = async (t: Test, file: string, message: RegExp, name: string) => {
  const before = readFileSync(file, 'utf8');
  const err = await createStore(file).catch((e: unknown) => e);
  t.type(err, StoreError, name);
  t.match((err as Error).message, message, name);
  t.equal(readFileSync(file, 'utf8'), before, `${name}: the state file is unchanged`);
};

t.test('a read-only log, old log or backup is refused at start', async (t) => {
  for (const suffix of ['.wal', '.wal.old', '.bak']) {
    const file = await stopped(t);
    const path = file + suffix;
    if (!existsSync(path)) writeFileSync(path, '');
    const before = readFileSync(path, 'utf8');
    chmodSync(path, 0o444);
    await refused(t, file, new RegExp(`^State (log|backup) ${path} cannot be written \\(it is read-only\\)`), suffix);
    t.equal(readFileSync(path, 'utf8'), before, `${suffix} is unchanged`);
    t.equal(statSync(path).mode & 0o777, 0o444, `${suffix} keeps its mode`);
  }
});

t.test('a log, backup or temporary file that is not a regular file, or not ours, is refused at start', async (t) => {
  const file = await stopped(t);
  rmSync(`${file}.bak`, { force: true });
  symlinkSync('/etc/hostname', `${file}.bak`);
  await refused(t, file, /^State backup .*state\.json\.bak is a symbolic link/, 'a symbolic link');

  const f2 = await stopped(t);
  mkdirSync(`${f2}.wal.old`);
  await refused(t, f2, /^State log .*state\.json\.wal\.old is a directory/, 'a directory');

  // A FIFO would have blocked the start for ever at its first read or open.
  const f3 = await stopped(t);
  execFileSync('mkfifo', [join(f3, '..', '.state.json.tmp')]);
  await refused(t, f3, /^State temporary file .*\.state\.json\.tmp is a FIFO/, 'a FIFO');

  const f4 = await stopped(t);
  chownSync(`${f4}.wal`, 4242, 4242);
  await refused(t, f4, /^State log .*state\.json\.wal belongs to another user \(uid 4242\)/, 'owned by a user who is neither the server nor the directory');
});

t.test('the CLI: a read-only log stops the start with one line, exit 2, and the log is left as it was', async (t) => {
  const file = await stopped(t);
  chmodSync(`${file}.wal`, 0o444);
  const r = await run(['--db', file, '--port', '0']);
  t.equal(r.code, 2);
  t.match(r.stderr, /^mock-server: State log .*state\.json\.wal cannot be written \(it is read-only\)[^\n]*\n$/);
  t.equal(r.stdout, '');
  t.equal(readFileSync(`${file}.wal`, 'utf8'), '[["k","a","carts","d",{"uuid":"d"}]]\n');
});
