import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { StoreError } from '../types.js';

interface Owner {
  pid: number;
  host: string;
  /** The state file the holder opened (its real path). */
  file?: string;
}

/** What a file store holds while it runs; see lockStateFile. */
export interface StateLock {
  /** The state file was replaced by a new file (every compaction makes one): hold that one from now on. */
  follow(st: { dev: number; ino: number }): Promise<void>;
  /** After the state directory was made again: takes back the lock beside the file, gone with it. */
  restore(): Promise<void>;
  release(): Promise<void>;
}

interface Held {
  base: string;
  release(): Promise<void>;
}

const here = hostname();
const ignore = () => undefined;

function readOwner(file: string): Owner | null {
  try {
    // Only a file of ours: reading a FIFO put there would block for ever.
    if (!lstatSync(file).isFile()) return null;
    const o = JSON.parse(readFileSync(file, 'utf8')) as Owner;
    return typeof o.pid === 'number' && typeof o.host === 'string' ? o : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `path` is the file of device and inode `st`. */
function sameFile(path: string, st: { dev: number; ino: number }): boolean {
  try {
    const s = statSync(path);
    return s.dev === st.dev && s.ino === st.ino;
  } catch {
    return false;
  }
}

const who = (o: Owner | null) => (o ? `pid ${o.pid}${o.host === here ? '' : ` on ${o.host}`}` : 'another process');

/**
 * One proper-lockfile lock: the directory `<base>.lock`, whose time it keeps fresh (one of another
 * host counts as stale after 10 s without an update), and `<base>.owner` naming the process, so that a
 * refusal can say who holds it and a lock left by kill -9 on this host is taken over at once: its
 * process is gone, or it is this very process (a container restarted with its volume is pid 1 again).
 * Resolves with the holder when another live process has it.
 */
async function take(base: string, file: string, warn: (message: string) => void): Promise<Held | { holder: Owner | null }> {
  const ownerFile = `${base}.owner`;
  const held = readOwner(ownerFile);
  if (held && held.host === here && (held.pid === process.pid || !alive(held.pid))) await rm(`${base}.lock`, { recursive: true, force: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(base, {
      realpath: false,
      stale: 10_000,
      onCompromised: (e) => warn(`The lock on state file ${file} was lost (${e.message}): another server may now write to it`),
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOCKED') return { holder: readOwner(ownerFile) ?? held };
    throw e;
  }
  await writeFile(ownerFile, JSON.stringify({ pid: process.pid, host: here, file }));
  return {
    base,
    release: async () => {
      await rm(ownerFile, { force: true });
      await release().catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ERELEASED') throw e;
      });
    },
  };
}

/**
 * Where the locks that outlive the state directory live: one per real path (a directory removed and
 * made again loses the lock beside the file, not this one) and one per file (device and inode: a hard
 * link is another path to the same file). Shared by every user of the machine, as /tmp is.
 */
async function registry(): Promise<string> {
  const dir = join(tmpdir(), 'mock-server-locks');
  if (!existsSync(dir)) {
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o1777);
  }
  return dir;
}

/**
 * One server per state file, whatever path reaches it: two servers on one file would each overwrite
 * the other's writes. `file` is the real path (symbolic links resolved). Three locks are held: beside
 * the file (`<file>.lock`, seen by every host and container sharing the volume), and in this
 * machine's registry one for the real path and one for the file's device and inode, which follows the
 * file as compactions replace it. A refusal is a StoreError naming the holder.
 */
export async function lockStateFile(file: string, st: { dev: number; ino: number } | null, warn: (message: string) => void): Promise<StateLock> {
  // proper-lockfile frees its locks at exit through signal-exit, which also catches SIGXFSZ and raises
  // it again: a write past the file-size limit (RLIMIT_FSIZE) killed the server, where Node ignores
  // it. With a listener of ours signal-exit lets it be, and the write fails with EFBIG: a 503.
  if (!process.listeners('SIGXFSZ').includes(ignore)) process.on('SIGXFSZ', ignore);
  const refuse = (holder: Owner | null, via: string) =>
    new StoreError(`State file ${file}${via} is in use by another mock-server (${who(holder)}): stop that one, or give this one another --db (or --db memory).`);
  const held: Held[] = [];
  const releaseAll = () => Promise.all(held.splice(0).map((h) => h.release())).then(() => undefined);
  let reg: string | null = null;
  const noRegistry = (e: unknown) => {
    warn(`No lock registry in ${tmpdir()} (${(e as Error).message}): only the lock beside state file ${file} keeps a second server away`);
    reg = null;
  };
  /** A lock in the registry; a registry that cannot be used is told about and done without. */
  const fromRegistry = (base: string) => take(base, file, warn).catch((e: unknown) => void noRegistry(e));
  const inodeBase = (s: { dev: number; ino: number }) => join(reg as string, `inode-${s.dev}-${s.ino}`);
  let inode: Held | null = null;
  let beside: Held;
  try {
    reg = await registry().catch((e: unknown) => {
      noRegistry(e);
      return null;
    });
    const byPath = reg ? await fromRegistry(join(reg, `path-${createHash('sha256').update(file).digest('hex').slice(0, 32)}`)) : undefined;
    if (byPath && 'holder' in byPath) throw refuse(byPath.holder, '');
    if (byPath) held.push(byPath);
    const r = await take(file, file, warn);
    if ('holder' in r) throw refuse(r.holder, '');
    held.push((beside = r));
    const byInode = reg && st ? await fromRegistry(inodeBase(st)) : undefined;
    if (byInode && 'holder' in byInode) {
      const other = byInode.holder?.file;
      // Unless its holder's file is gone or is another file now: the inode number was freed (its
      // directory removed, say) and given to this file. That lock guards nothing of ours; this store
      // goes on without one, and the next compaction's new file takes one (follow).
      if (other === undefined || other === file || sameFile(other, st as { dev: number; ino: number })) {
        throw refuse(byInode.holder, other && other !== file ? ` (the same file as ${other}: a hard link)` : '');
      }
    } else if (byInode) inode = byInode;
  } catch (e) {
    await releaseAll();
    if (e instanceof StoreError) throw e;
    throw new StoreError(`Cannot lock state file ${file}: ${(e as Error).message}`);
  }
  return {
    async follow(next) {
      if (!reg || inode?.base === inodeBase(next)) return;
      const old = inode;
      try {
        const r = await take(inodeBase(next), file, warn);
        if ('holder' in r) warn(`The new state file ${file} counts as locked by ${who(r.holder)}: a stale lock on a reused inode number`);
        inode = 'holder' in r ? null : r;
        await old?.release();
      } catch (e) {
        warn(`Could not move the lock on state file ${file} to its new inode: ${(e as Error).message}`);
      }
    },
    async restore() {
      if (existsSync(`${file}.lock`)) return;
      await beside.release().catch(() => undefined);
      const r = await take(file, file, warn);
      if ('holder' in r) {
        warn(`State file ${file} was locked by ${who(r.holder)} while its directory was gone: both may now write to it`);
        return;
      }
      held[held.indexOf(beside)] = r;
      beside = r;
    },
    release: async () => {
      await inode?.release();
      inode = null;
      await releaseAll();
    },
  };
}
