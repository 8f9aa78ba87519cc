import { link, open, readFile, rename, rm, copyFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { companions } from './checks.js';
import type { Adapter } from 'lowdb';
import type { State } from '../schema.js';

/** How long serialization may hold the event loop before it lets requests run (ms), and the write size. */
const SLICE_MS = 8;
const CHUNK_CHARS = 1 << 20;

/**
 * lowdb's adapter for the state file. lowdb's own JSONFile serializes the whole state in one
 * JSON.stringify call: with a 100 MB state that held the event loop for over a second at every
 * compaction. This one writes the same JSON record by record, in slices of a few milliseconds, so
 * requests keep being answered while a big state is written. Each write goes to a temporary file,
 * is made durable, and replaces the state file by a rename (a crash leaves the old or the new file,
 * never half of one); the file it replaces stays beside it as `<file>.bak`, the last good state.
 */
export class StateFile implements Adapter<State> {
  /** Bytes of the last file written. */
  bytes = 0;
  readonly backup: string;
  readonly #temp: string;

  /** `claim` is told about each new state file before it replaces the old one (the lock follows it). */
  constructor(
    readonly file: string,
    private readonly claim?: (st: { dev: number; ino: number }) => Promise<void>,
  ) {
    ({ backup: this.backup, temp: this.#temp } = companions(file));
  }

  /** The parsed file (any JSON value, for the caller to check), or null when there is none. */
  async read(): Promise<State | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return JSON.parse(text) as State;
  }

  async write(state: State): Promise<void> {
    const fh = await open(this.#temp, 'w');
    let bytes = 0;
    try {
      let batch: string[] = [];
      let chars = 0;
      let since = performance.now();
      for (const piece of pieces(state)) {
        batch.push(piece);
        chars += piece.length;
        if (chars >= CHUNK_CHARS || performance.now() - since >= SLICE_MS) {
          bytes += await writeAll(fh, batch.join(''));
          batch = [];
          chars = 0;
          await new Promise((r) => setImmediate(r));
          since = performance.now();
        }
      }
      bytes += await writeAll(fh, batch.join(''));
      await fh.sync();
      await this.claim?.(await fh.stat());
    } finally {
      await fh.close();
    }
    await this.#keepBackup();
    await rename(this.#temp, this.file);
    await syncDirectory(this.file);
    this.bytes = bytes;
  }

  /** The file about to be replaced becomes the backup (a hard link: no copy of a big file). */
  async #keepBackup(): Promise<void> {
    await rm(this.backup, { force: true });
    try {
      await link(this.file, this.backup);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      // File systems without hard links.
      await copyFile(this.file, this.backup);
    }
  }
}

/**
 * Writes all of `data` at the file's position, or throws. A write can take part of its buffer and
 * report no error (a disk filling up): taken as done, it left a file cut short, acknowledged.
 */
export async function writeAll(fh: FileHandle, data: string | Buffer): Promise<number> {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < buf.length; ) at += (await fh.write(buf, at, buf.length - at)).bytesWritten;
  return buf.length;
}

/** Makes the renames and creations in a file's directory durable. */
export async function syncDirectory(file: string): Promise<void> {
  const dir = await open(dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/**
 * The state as JSON, in pieces of about one record each: the same value JSON.stringify gives, one
 * record per line. The state may change between pieces (requests run between slices): every such
 * change is also in the write-ahead log that is replayed over this file, so a record written in an
 * older or newer version is put right at the next start.
 */
function* pieces(state: State): Generator<string> {
  const by = state.mock_server === undefined ? '' : `"mock_server":${JSON.stringify(state.mock_server)},`;
  yield `{"version":${JSON.stringify(state.version)},${by}"server":${JSON.stringify(state.server)},"tenants":{`;
  let sep = '';
  const tenants = state.tenants;
  for (const app of Object.keys(tenants)) {
    const tenant = tenants[app] as unknown as Record<string, unknown> | undefined;
    if (tenant === undefined) continue;
    yield `${sep}\n${JSON.stringify(app)}:{`;
    sep = ',';
    let fieldSep = '';
    for (const field of Object.keys(tenant)) {
      const value = tenant[field];
      if (value === undefined) continue;
      const head = `${fieldSep}\n${JSON.stringify(field)}:`;
      fieldSep = ',';
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        yield head + JSON.stringify(value);
        continue;
      }
      yield `${head}{`;
      let keySep = '';
      const coll = value as Record<string, unknown>;
      for (const key of Object.keys(coll)) {
        const json = JSON.stringify(coll[key]) as string | undefined;
        if (json === undefined) continue;
        yield `${keySep}\n${JSON.stringify(key)}:${json}`;
        keySep = ',';
      }
      yield '}';
    }
    yield '}';
  }
  yield '\n}}\n';
}
