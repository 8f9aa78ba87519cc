import { constants, type Stats } from 'node:fs';
import { access, lstat, mkdir, open, realpath, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { StoreError } from '../types.js';

/** The files a file store keeps beside its state file, besides the lock's. */
export function companions(file: string) {
  return { log: `${file}.wal`, oldLog: `${file}.wal.old`, backup: `${file}.bak`, temp: join(dirname(file), `.${basename(file)}.tmp`) };
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code;

/**
 * Makes a directory and its missing parents one level at a time, after checking that the nearest
 * existing one may be written. fs.mkdir's `recursive` spins for ever (100% CPU, no output) where the
 * file system answers ENOENT to a mkdir whose parent exists, as /proc does.
 */
export async function makeDirectory(dir: string, file: string): Promise<void> {
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    const st = await stat(at).catch((e: unknown) => {
      if (code(e) === 'ENOENT') return null;
      throw new StoreError(`Cannot use the directory of state file ${file}: ${(e as Error).message}`);
    });
    if (st) {
      if (!st.isDirectory()) throw new StoreError(`Cannot create the directory of state file ${file}: ${at} is not a directory.`);
      if (missing.length > 0) await writable(at, st, 'directory');
      break;
    }
    missing.unshift(at);
    if (dirname(at) === at) break;
    at = dirname(at);
  }
  for (const d of missing) {
    try {
      await mkdir(d);
    } catch (e) {
      if (code(e) === 'EEXIST' && (await stat(d)).isDirectory()) continue;
      const why = code(e) === 'ENOENT' ? `this file system does not allow ${d} to be created` : (e as Error).message;
      throw new StoreError(`Cannot create the directory of state file ${file}: ${why}`);
    }
  }
}

/**
 * The state file's real path: its directory made and resolved, and a symbolic link to the file
 * followed. Every server reaching one file through a link then writes, logs and locks the same
 * paths; a link's own name would have been replaced by a file of its own at the first compaction.
 */
export async function resolveStateFile(db: string): Promise<string> {
  return userFacing(resolve(db), () => resolveFile(resolve(db)));
}

async function resolveFile(given: string): Promise<string> {
  await makeDirectory(dirname(given), given);
  const file = join(await realpath(dirname(given)), basename(given));
  const st = await lstat(file).catch(() => null);
  if (!st?.isSymbolicLink()) return file;
  try {
    return await realpath(file);
  } catch (e) {
    throw new StoreError(`State file ${given} is a symbolic link that cannot be followed: ${(e as Error).message}`);
  }
}

/**
 * Refuses, before anything is written, what the store could not use or should not touch: a state
 * directory that cannot be written, and a state file, log, old log, backup or temporary file that
 * cannot be read and written (permission bits count even for root, who could write anyway: a file
 * made read-only is meant to stay as it is) or that is foreign: not a regular file (a symbolic link,
 * a directory, a FIFO that would block a read for ever), or owned by a user who is neither this
 * process's nor the directory's. The user learns at start, not at the first booking or compaction.
 * Returns whether the state file exists.
 */
export function checkFiles(file: string): Promise<boolean> {
  return userFacing(file, () => check(file));
}

async function check(file: string): Promise<boolean> {
  const dir = await stat(dirname(file));
  await writable(dirname(file), dir, 'directory');
  const { log, oldLog, backup, temp } = companions(file);
  const found = await Promise.all(
    [file, log, oldLog, backup, temp].map(async (path) => {
      const st = await lstat(path).catch((e: unknown) => {
        if (code(e) === 'ENOENT') return null;
        throw new StoreError(`State file ${path} cannot be used: ${(e as Error).message}`);
      });
      if (!st) return false;
      const what = path === file ? 'file' : path === backup ? 'backup' : path === temp ? 'temporary file' : 'log';
      const kind = st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : 'not a regular file';
      if (!st.isFile()) throw new StoreError(`State ${what} ${path} is ${kind}: move it away, choose another --db, or start with --db memory.`);
      const uid = process.getuid?.();
      if (uid !== undefined && st.uid !== uid && st.uid !== dir.uid) {
        throw new StoreError(`State ${what} ${path} belongs to another user (uid ${st.uid}): move it away, choose another --db, or start with --db memory.`);
      }
      await writable(path, st, what);
      return true;
    }),
  );
  // Mode bits do not tell everything: sysfs, say, refuses new files in a directory marked writable.
  // A name of this process's own: the temporary file may be a running server's, mid-compaction.
  const probe = join(dirname(file), `.${basename(file)}.${process.pid}.probe`);
  await open(probe, 'wx')
    .then((fh) => fh.close())
    .then(() => rm(probe, { force: true }))
    .catch((e: Error) => {
      throw new StoreError(`State directory ${dirname(file)} cannot be written (${e.message}): choose another --db, or start with --db memory.`);
    });
  return found[0] as boolean;
}

/** Everything above for a --db, with no lock taken: the CLI's check before it loads the server. */
export async function checkStatePath(db: string): Promise<void> {
  await checkFiles(await resolveStateFile(db));
}

/** Any other failure (a directory without search permission, say) is still one line for the user. */
async function userFacing<T>(file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof StoreError) throw e;
    throw new StoreError(`State file ${file} cannot be used: ${(e as Error).message}`);
  }
}

async function writable(path: string, st: Stats, what: string): Promise<void> {
  const unreadable = (st.mode & 0o400) === 0;
  const problem = unreadable ? 'it is not readable' : (st.mode & 0o200) === 0 ? 'it is read-only' : await access(path, constants.R_OK | constants.W_OK).then(() => null, (e: Error) => e.message);
  if (problem) throw new StoreError(`State ${what} ${path} cannot be ${unreadable ? 'read' : 'written'} (${problem}): make it ${unreadable ? 'readable and writable' : 'writable'}, choose another --db, or start with --db memory.`);
}
