import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import lockfile from 'proper-lockfile';
import { StoreError } from './wal.js';

interface Owner {
  pid: number;
  host: string;
}

function readOwner(file: string): Owner | null {
  try {
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

/**
 * One server per state file: two servers on one file would each overwrite the other's writes.
 * proper-lockfile holds `<file>.lock` (a directory whose time it keeps fresh; another host's lock
 * counts as stale after 10 s without an update), and `<file>.owner` names the process, so that a
 * refusal can say who holds the file and a lock left by kill -9 on this host is taken over at once:
 * its process is gone, or it is this very process (a container restarted with its volume is pid 1
 * again). Resolves with the function that releases the lock.
 */
export async function lockStateFile(file: string, warn: (message: string) => void): Promise<() => Promise<void>> {
  const dir = `${file}.lock`;
  const ownerFile = `${file}.owner`;
  const held = readOwner(ownerFile);
  const here = hostname();
  if (held && held.host === here && (held.pid === process.pid || !alive(held.pid))) await rm(dir, { recursive: true, force: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      stale: 10_000,
      onCompromised: (e) => warn(`The lock on state file ${file} was lost (${e.message}): another server may now write to it`),
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e;
    const who = held ? `pid ${held.pid}${held.host === here ? '' : ` on ${held.host}`}` : 'another process';
    throw new StoreError(`State file ${file} is in use by another mock-server (${who}): stop that one, or give this one another --db (or --db memory).`);
  }
  await writeFile(ownerFile, JSON.stringify({ pid: process.pid, host: here }));
  return async () => {
    await rm(ownerFile, { force: true });
    await release();
  };
}
