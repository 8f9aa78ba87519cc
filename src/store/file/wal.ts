import { readFile } from 'node:fs/promises';
import { applyOp } from '../changes.js';
import type { State, Tenant } from '../schema.js';
import { StoreError } from '../types.js';

export interface Replay {
  /** Complete lines applied. */
  lines: number;
  /** The last line had no newline: a flush cut short by a crash, never acknowledged, so dropped. */
  tornTail: boolean;
}

/**
 * Replays the write-ahead log over the state read from the state file. Each line is one flush (a
 * JSON array of operations) and ends with a newline written in the same call, so only the last
 * line can be incomplete. A bad complete line means the file was damaged: refuse, touch nothing.
 */
export async function readLog(file: string, state: State, emptyTenant: () => Tenant): Promise<Replay> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: 0, tornTail: false };
    throw new StoreError(`State log ${file} cannot be read: ${(e as Error).message}`);
  }
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  let n = 0;
  for (const line of lines) {
    n++;
    try {
      const ops: unknown = JSON.parse(line);
      if (!Array.isArray(ops)) throw new Error('not an array of operations');
      for (const op of ops) applyOp(state, op, emptyTenant);
    } catch (e) {
      throw new StoreError(
        `State log ${file} is corrupt at line ${n}: ${(e as Error).message}. It was left untouched: move it away (losing the writes since the last compaction) or start with --db memory.`,
      );
    }
  }
  return { lines: n, tornTail: tail !== '' };
}
