import type { DueClaim } from '../types.js';
import type { Db } from './db.js';

export interface Given {
  kind: string;
  claim: DueClaim;
  at: number | null;
}

/**
 * The releases (or drops) asked for in one turn of the event loop, in one statement: a scenario
 * round's claims are given back together, one statement for hundreds rather than one each, which
 * queued in the pool ahead of the claims and rounds that wait for them.
 */
export class Batched {
  #queue: Array<{ given: Given; done: (held: boolean) => void; failed: (e: unknown) => void }> = [];

  constructor(
    private readonly db: Db,
    /** Returns the rows it found held (app, kind, key). */
    private readonly sql: string,
    private readonly params: (given: Given[]) => unknown[],
  ) {}

  add(given: Given): Promise<boolean> {
    return new Promise((done, failed) => {
      if (this.#queue.push({ given, done, failed }) === 1) setImmediate(() => void this.#send());
    });
  }

  async #send(): Promise<void> {
    const batch = this.#queue.splice(0);
    try {
      const { rows } = await this.db.query(this.sql, this.params(batch.map((b) => b.given)));
      const held = new Set(rows.map((r) => `${r.app}\u0000${r.kind}\u0000${r.key}`));
      for (const b of batch) b.done(held.has(`${b.given.claim.application}\u0000${b.given.kind}\u0000${b.given.claim.key}`));
    } catch (e) {
      for (const b of batch) b.failed(e);
    }
  }
}

/** $1-$4 of a batched statement: each claim's application, kind, key and token. */
export const claimsOf = (gs: Given[]): unknown[] => [gs.map((g) => g.claim.application), gs.map((g) => g.kind), gs.map((g) => g.claim.key), gs.map((g) => g.claim.token)];
