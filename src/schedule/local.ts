import type { Clock } from '../clock.js';
import type { Store, Tenant } from '../store/index.js';
import type { Claim, DueHandler, Scheduler } from './scheduler.js';
import { Windows, windowKey } from './window.js';

/**
 * The scheduler of one process (file and memory stores): every piece of work it records or loads
 * is its own, so nothing is claimed and no database is asked. Handlers that scan (scenario steps)
 * look at everything due every `scanMs` and whenever the clock moves; the webhook dispatcher keeps
 * its own index and timer. Sweeps run once per window per application, as the process counts.
 */
export class LocalScheduler implements Scheduler {
  readonly shared = false;
  readonly stats = { claimed: {} as Record<string, number>, sweeps: 0 };
  readonly #handlers = new Map<string, DueHandler>();
  readonly #windows = new Windows();
  #timer: NodeJS.Timeout | null = null;
  #unsubscribe: () => void = () => undefined;

  constructor(private readonly opts: { clock: Clock; store: Store; scanMs?: number }) {}

  register(kind: string, handler: DueHandler): void {
    this.#handlers.set(kind, handler);
  }

  poke(kind?: string): void {
    for (const k of kind === undefined ? this.#handlers.keys() : [kind]) void this.round(k);
  }

  async round(kind: string): Promise<void> {
    await this.#handlers.get(kind)?.scan?.();
  }

  /** Nothing is leased: a plain write. */
  record<T>(_kind: string, _claim: Claim, application: string, fn: (tenant: Tenant) => T): Promise<T> {
    return this.opts.store.update(application, fn);
  }

  done(_kind: string, _claim: Claim): void {}
  release(_kind: string, _claim: Claim): void {}
  handOff(_kind: string, _claim: Claim): void {}
  drop(_kind: string, _claim: Claim): void {}

  sweepDue(application: string, kind: string, now: number): boolean {
    if (!this.#windows.take(windowKey(application, kind), now)) return false;
    this.stats.sweeps++;
    return true;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.poke(), this.opts.scanMs ?? 250);
    this.#timer.unref();
    this.#unsubscribe = this.opts.clock.onChange?.(() => this.poke()) ?? (() => undefined);
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#unsubscribe();
  }
}
