/** What one application brings to a round: updates to write under its lock, or a read of where it stands. */
export interface Entry<I> {
  items: I[] | null;
  resolve(): void;
  reject(err: unknown): void;
  /** A check's settlement, shared by the calls it serves. */
  done?: Promise<void>;
  /** Called when a round takes the entry: its items are final. */
  taken?: () => void;
}

/** A round: the applications it writes (their updates, in order) and those it only brings up to date. */
export interface Round<I> {
  writes: Map<string, Entry<I>>;
  checks: Map<string, Entry<I>>;
  /** performance.now() just before its first statement went out: what it read is at least that recent. */
  sentAt: number;
}

/**
 * Shares the database's round trips across applications: whatever every application brings while a
 * round is under way (its queued updates, a request's read of where it stands) goes into the next
 * one, a transaction for all of them (or one statement when nobody writes): group commit across
 * applications. At most `parallel` rounds are under way at once; an application is in one at a time
 * (its chain, chains.ts, sees to that).
 */
export class Rounds<I> {
  #writes = new Map<string, Entry<I>>();
  #checks = new Map<string, Entry<I>>();
  #running = 0;
  #scheduled = false;

  constructor(
    private readonly run: (round: Round<I>) => Promise<void>,
    private readonly parallel = 2,
  ) {}

  /**
   * Resolves once `items` of `app` are committed (each item is settled by the round itself). Items
   * added to the array before a round takes it (then `taken` is called) go in that round.
   */
  write(app: string, items: I[], taken?: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#writes.set(app, { items, resolve, reject, taken });
      this.#kick();
    });
  }

  /** Resolves once `app` is brought up to the database as it was after this call. */
  check(app: string): Promise<void> {
    // One queued already (the server state's, asked by several callers at once) serves this call too.
    const queued = this.#checks.get(app);
    if (queued?.done) return queued.done;
    const entry = { items: null } as Entry<I>;
    const done = new Promise<void>((resolve, reject) => Object.assign(entry, { resolve, reject }));
    entry.done = done;
    this.#checks.set(app, entry);
    this.#kick();
    return done;
  }

  #kick(): void {
    if (this.#scheduled || this.#running >= this.parallel || (this.#writes.size === 0 && this.#checks.size === 0)) return;
    this.#scheduled = true;
    // After this turn of the event loop: what the other requests of the turn bring goes in too.
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#running >= this.parallel) return;
      const round: Round<I> = { writes: this.#writes, checks: this.#checks, sentAt: 0 };
      if (round.writes.size === 0 && round.checks.size === 0) return;
      this.#writes = new Map();
      this.#checks = new Map();
      for (const entry of round.writes.values()) entry.taken?.();
      this.#running++;
      void this.run(round)
        .then(() => {
          for (const entry of [...round.writes.values(), ...round.checks.values()]) entry.resolve();
        })
        .catch((e: unknown) => {
          for (const entry of [...round.writes.values(), ...round.checks.values()]) entry.reject(e);
        })
        .finally(() => {
          this.#running--;
          this.#kick();
        });
    });
  }
}
