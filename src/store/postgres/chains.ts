/**
 * What one instance does to one application (writes, syncs, resets it learns of) runs in order on a
 * promise chain of its own: a cached tenant is never changed by two at once, and applications do not
 * wait for each other.
 */
export class Chains {
  readonly #chains = new Map<string, { tail: Promise<void>; queued: Promise<void> | null }>();

  /** Runs `job` after everything queued for `key`. */
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const chain = this.#chain(key);
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
   * Runs a sync: one queued and not started yet serves every caller that comes meanwhile (it will
   * read the database after they came). One that has started may have read before: not shared.
   */
  sync(key: string, job: () => Promise<void>): Promise<void> {
    const chain = this.#chain(key);
    if (chain.queued) return chain.queued;
    const p = this.run(key, () => {
      chain.queued = null;
      return job();
    });
    chain.queued = p;
    return p;
  }

  /** Resolves once every chain has run out. */
  async idle(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all([...this.#chains.values()].map((c) => c.tail));
  }

  #chain(key: string) {
    let c = this.#chains.get(key);
    if (!c) this.#chains.set(key, (c = { tail: Promise.resolve(), queued: null }));
    return c;
  }
}
