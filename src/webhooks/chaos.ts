import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { ChaosMark, Delivery } from './delivery.js';
import type { Store } from '../store/index.js';

export type { ChaosMark };

/**
 * Chaos on live deliveries (PUT /__admin/webhooks/chaos, scenario steps): what a receiver meets in
 * production, on demand. duplicate: the share of delivered webhooks sent once more (same id and
 * body); reorder: after an item's newer version is delivered, its previous one is sent again;
 * delay_ms: each attempt waits a time in that range first; fail_first: the first n attempts of each
 * delivery fail without a request (its retries then follow the schedule).
 */
export const ChaosSchema = Type.Object(
  {
    duplicate: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'share of delivered webhooks sent a second time' })),
    reorder: Type.Optional(Type.Boolean({ description: 'after a newer version is delivered, send the previous one again' })),
    delay_ms: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 60_000 }), { minItems: 2, maxItems: 2, description: '[min, max] wait before each attempt' })),
    fail_first: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'attempts of each delivery that fail on purpose' })),
  },
  { additionalProperties: false },
);
export type ChaosInput = Static<typeof ChaosSchema>;

/** What a chaos setting holds: the store keeps it as it is. */
export type { ChaosSetting as ChaosConfig } from '../store/schema.js';
import type { ChaosSetting as ChaosConfig } from '../store/schema.js';


export function chaosConfig(input: ChaosInput): ChaosConfig {
  const [min = 0, max = 0] = input.delay_ms ?? [];
  return { duplicate: input.duplicate ?? 0, reorder: input.reorder ?? false, delay_ms: [Math.min(min, max), Math.max(min, max)], fail_first: input.fail_first ?? 0 };
}

/**
 * How many applications may have chaos settings of their own, the setting for all aside: each one
 * is kept with its application's state (100,000 of them took 138 MB when they were kept in memory).
 */
export const MAX_CHAOS_APPLICATIONS = 1000;

/** Answers, per delivery, which chaos applies (a scenario run's, else its application's, else everyone's). */
export type ChaosSource = (delivery: Delivery) => ChaosConfig | null;

/**
 * The control API's chaos settings, kept in the store (an application's with its state, the one for
 * all with the server's), so that every instance sharing a database applies them and a restart keeps
 * them; and the seeded draws that decide each duplicate and delay: the n-th draw of a kind for an
 * application is a function of the seed, so the same seed and the same deliveries give the same chaos.
 */
export class ChaosSettings {
  readonly #draws = new Map<string, number>();
  /** Scenarios give an item's deliveries their own chaos (a scenario step), over the control API's. */
  source: ChaosSource | null = null;

  constructor(
    private readonly store: Store,
    private readonly seed: number,
  ) {}

  /** The applications with a setting of their own. */
  #own(): string[] {
    return this.store.applications().filter((a) => this.store.tenant(a).webhook_chaos !== null);
  }

  /** Whether `application` may get a setting: always when it has one (or for all), else while under the cap. */
  canSet(application: string | undefined): boolean {
    if (application === undefined || this.store.tenant(application).webhook_chaos !== null) return true;
    return this.#own().length < MAX_CHAOS_APPLICATIONS;
  }

  /** Resolves once the setting is stored. */
  async set(application: string | undefined, config: ChaosConfig): Promise<void> {
    if (application === undefined) await this.store.updateServer((s) => void (s.webhook_chaos = config));
    else await this.store.update(application, (t) => void (t.webhook_chaos = config));
  }

  /** Every setting, '' being the one for all. */
  list(): Record<string, ChaosConfig> {
    const all = this.store.server().webhook_chaos;
    return Object.fromEntries([...(all ? [['', all] as const] : []), ...this.#own().map((a) => [a, this.store.tenant(a).webhook_chaos as ChaosConfig] as const)]);
  }

  /** One application's own setting, or (none given) every setting; resolves once stored. */
  async clear(application?: string): Promise<void> {
    const apps = application === undefined ? this.#own() : this.store.tenant(application).webhook_chaos !== null ? [application] : [];
    if (application === undefined && this.store.server().webhook_chaos) await this.store.updateServer((s) => void delete s.webhook_chaos);
    await Promise.all(apps.map((a) => this.store.update(a, (t) => void (t.webhook_chaos = null))));
  }

  /** The chaos that applies to a delivery now. */
  for(d: Delivery): ChaosConfig | null {
    return this.source?.(d) ?? this.of(d.application);
  }

  of(application: string): ChaosConfig | null {
    return this.store.tenant(application).webhook_chaos ?? this.store.server().webhook_chaos ?? null;
  }

  /** A number in [0, 1) for the next draw of `kind` in `application`. */
  draw(application: string, kind: string): number {
    const key = `${application}\u0000${kind}`;
    const n = (this.#draws.get(key) ?? 0) + 1;
    this.#draws.set(key, n);
    const h = createHash('sha256').update(`${this.seed}\u0000${key}\u0000${n}`).digest();
    return h.readUIntBE(0, 6) / 2 ** 48;
  }
}
