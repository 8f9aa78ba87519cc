import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { ChaosMark, Delivery } from './delivery.js';

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

export interface ChaosConfig {
  duplicate: number;
  reorder: boolean;
  delay_ms: [number, number];
  fail_first: number;
}


export function chaosConfig(input: ChaosInput): ChaosConfig {
  const [min = 0, max = 0] = input.delay_ms ?? [];
  return { duplicate: input.duplicate ?? 0, reorder: input.reorder ?? false, delay_ms: [Math.min(min, max), Math.max(min, max)], fail_first: input.fail_first ?? 0 };
}

/**
 * How many applications may have chaos settings of their own, the setting for all aside: each is
 * memory for as long as the server runs (100,000 of them took 138 MB).
 */
export const MAX_CHAOS_APPLICATIONS = 1000;

/** Answers, per delivery, which chaos applies (a scenario run's, else its application's, else everyone's). */
export type ChaosSource = (delivery: Delivery) => ChaosConfig | null;

/**
 * The control API's chaos settings, per application ('' for all), and the seeded draws that decide
 * each duplicate and delay: the n-th draw of a kind for an application is a function of the seed,
 * so the same seed and the same deliveries give the same chaos.
 */
export class ChaosSettings {
  readonly #byApp = new Map<string, ChaosConfig>();
  readonly #draws = new Map<string, number>();

  constructor(private readonly seed: number) {}

  /** Whether `application` may get a setting: always when it has one (or for all), else while under the cap. */
  canSet(application: string | undefined): boolean {
    const key = application ?? '';
    const own = this.#byApp.size - (this.#byApp.has('') ? 1 : 0);
    return key === '' || this.#byApp.has(key) || own < MAX_CHAOS_APPLICATIONS;
  }

  set(application: string | undefined, config: ChaosConfig): void {
    this.#byApp.set(application ?? '', config);
  }

  /** One application's setting, or (none given) every setting, '' being the one for all. */
  list(): Record<string, ChaosConfig> {
    return Object.fromEntries(this.#byApp);
  }

  clear(application?: string | null): void {
    if (application === undefined || application === null) this.#byApp.clear();
    else this.#byApp.delete(application);
  }

  of(application: string): ChaosConfig | null {
    return this.#byApp.get(application) ?? this.#byApp.get('') ?? null;
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
