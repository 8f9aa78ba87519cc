/**
 * What one instance does to one application (writes, syncs, resets it learns of) runs in order on a
 * promise chain of its own: a cached tenant is never changed by two at once, and applications do not
 * wait for each other.
 */
export class Chains {
  readonly #chains = new Map<string, { tail: Promise<void>; batch: unknown[] | null }>();

  /** Runs `job` after everything queued for `key`. */
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const chain = this.#chain(key);
    chain.batch = null;
    const p = chain.tail.then(job);
    const tail = p.then(
      () => undefined,
      () => undefined,
    );
    chain.tail = tail;
    void tail.then(() => {
      if (chain.tail === tail) this.#chains.delete(key);
    });
    return p;
  }

  /**
   * Adds `item` to the batch queued last for `key`, if the last job queued is a batch still open;
   * else queues a new batch, which `job` runs with every item that joined it. A batch takes items
   * until its job calls `close` (when its transaction takes them, which may be after the job has
   * started: it waits for the database) or another job is queued behind it. Group commit: writes
   * that queue up behind one transaction share the next one.
   */
  batch<I>(key: string, item: I, job: (items: I[], close: () => void) => Promise<void>): void {
    const chain = this.#chain(key);
    if (chain.batch) {
      chain.batch.push(item);
      return;
    }
    const items = [item];
    const close = () => {
      if (chain.batch === items) chain.batch = null;
    };
    this.run(key, () => job(items, close)).catch(() => undefined); // job settles each item itself
    chain.batch = items;
  }

  /** Resolves once every chain has run out. */
  async idle(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all([...this.#chains.values()].map((c) => c.tail));
  }

  #chain(key: string) {
    let c = this.#chains.get(key);
    if (!c) this.#chains.set(key, (c = { tail: Promise.resolve(), batch: null }));
    return c;
  }
}
