import type pg from 'pg';
import type { DueRow } from '../types.js';
import type { Db, Statement } from './db.js';
import type { Writes } from './rows.js';

/** What a round writes, every application's rows side by side (the arrays of mock_write, sql.ts). */
export class Batch {
  readonly apps: string[] = [];
  /** The version and birth each application's tenant was at: it is written only if it still is. */
  readonly versions: number[] = [];
  readonly borns: number[] = [];
  /** Applications whose settings (a tenant field replaced whole) are written. */
  readonly settings: string[] = [];
  readonly due: DueRow[] = [];
  readonly clearedApps: string[] = [];
  readonly clearedKinds: string[] = [];
  readonly #replaced: [string[], string[]] = [[], []];
  readonly #rows: [string[], string[], string[], Array<string | null>] = [[], [], [], []];

  add(app: string, version: number, born: number, writes: Writes, due: { rows: DueRow[]; cleared: string[] }): void {
    if (writes.keys.length === 0) return;
    this.apps.push(app);
    this.versions.push(version);
    this.borns.push(born);
    if (writes.fields.includes('')) this.settings.push(app);
    for (const f of writes.replaced) {
      this.#replaced[0].push(app);
      this.#replaced[1].push(f);
    }
    const [apps, fields, keys, values] = this.#rows;
    for (let i = 0; i < writes.keys.length; i++) {
      apps.push(app);
      fields.push(writes.fields[i] as string);
      keys.push(writes.keys[i] as string);
      values.push(writes.values[i] ?? null);
    }
    this.due.push(...due.rows);
    for (const kind of due.cleared) {
      this.clearedApps.push(app);
      this.clearedKinds.push(kind);
    }
  }

  /** Whether it writes rows alone: no field replaced whole, no due row, no due kind cleared. */
  get plain(): boolean {
    return this.#replaced[0].length === 0 && this.due.length === 0 && this.clearedApps.length === 0;
  }

  /** $1-$9 of mock_write. */
  params(): unknown[] {
    return [this.apps, this.versions, this.borns, ...this.#replaced, ...this.#rows];
  }
}

/**
 * Statements on a round's connection. A failure answers 503 and marks the connection broken: its
 * transaction state is unknown, so it is dropped rather than given back to the pool. A text of
 * several statements answers the result of each.
 */
export function transaction(client: pg.PoolClient, db: Db) {
  const tx = {
    broken: false,
    sql: async (sql: Statement, params: unknown[] = [], what = 'did not answer'): Promise<pg.QueryResult[]> => {
      try {
        const r = await client.query(typeof sql === 'string' ? { text: sql, values: params } : { ...sql, values: params });
        return Array.isArray(r) ? r : [r];
      } catch (e) {
        tx.broken = true;
        throw db.failed(e, what);
      }
    },
  };
  return tx;
}
