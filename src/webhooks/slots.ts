/**
 * The sender's capacity: requests in flight at once, in all and per application, so that one
 * application's slow receiver holds at most its own share and the others keep sending. Only a
 * request holds a slot: a delivery waiting out a chaos delay holds none. A slot that frees goes
 * first to the longest-waiting request whose application has room, then back to the dispatcher.
 */
export class SendSlots {
  #used = 0;
  readonly #byApp = new Map<string, number>();
  readonly #waiting: Array<{ app: string; resolve: (got: boolean) => void }> = [];

  constructor(
    readonly total: number,
    readonly perApplication: number,
  ) {}

  /** No slot left for anyone. */
  get full(): boolean {
    return this.#used >= this.total;
  }

  /** Whether a request of `app` may start now. */
  free(app: string): boolean {
    return this.#used < this.total && (this.#byApp.get(app) ?? 0) < this.perApplication;
  }

  /** Takes a slot that free(app) said is there. */
  take(app: string): void {
    this.#used++;
    this.#byApp.set(app, (this.#byApp.get(app) ?? 0) + 1);
  }

  /** A slot now, or when one frees; false when closed before that. */
  acquire(app: string): Promise<boolean> {
    if (this.free(app)) {
      this.take(app);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.#waiting.push({ app, resolve }));
  }

  release(app: string): void {
    this.#used--;
    const left = (this.#byApp.get(app) ?? 1) - 1;
    if (left > 0) this.#byApp.set(app, left);
    else this.#byApp.delete(app);
    const next = this.#waiting.findIndex((w) => this.free(w.app));
    if (next < 0) return;
    const [w] = this.#waiting.splice(next, 1);
    this.take(w!.app);
    w!.resolve(true);
  }

  /** Ends every wait (the dispatcher is closing). */
  close(): void {
    for (const w of this.#waiting.splice(0)) w.resolve(false);
  }
}
