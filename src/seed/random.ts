// The English build alone: loading every locale would cost a quarter of a second at start-up.
import { faker } from '@faker-js/faker/locale/en';
import type { Faker } from '@faker-js/faker';

/**
 * The one seeded random source of the catalog. faker draws from it through its Randomizer
 * interface and json-schema-faker is seeded from it, so the whole catalog is a pure function of
 * the seed: no Math.random(), no clock.
 */
export class Random {
  #state = 0;
  constructor(seed: number) {
    this.seed(seed);
  }

  seed(seed: number | number[]): void {
    const s = Array.isArray(seed) ? seed.reduce((a, b) => Math.imul(a ^ b, 2654435761), 0x9e3779b9) : seed;
    this.#state = (s ^ 0x6d2b79f5) >>> 0;
  }

  /** mulberry32: small, fast, and good enough for test data. */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    const v = list[Math.floor(this.next() * list.length)];
    if (v === undefined) throw new Error('pick from an empty list');
    return v;
  }

  /** k distinct items, in list order. */
  sample<T>(list: readonly T[], k: number): T[] {
    const idx = list.map((_, i) => i);
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [idx[i], idx[j]] = [idx[j] as number, idx[i] as number];
    }
    return idx.slice(0, Math.min(k, list.length)).sort((a, b) => a - b).map((i) => list[i] as T);
  }

  /** A version 4 UUID from this source. */
  uuid(): string {
    // Four 32-bit draws instead of 33 single hex digits: a large catalog draws tens of thousands.
    const word = () => Math.floor(this.next() * 4294967296).toString(16).padStart(8, '0');
    const [a, b, c, d] = [word(), word(), word(), word()];
    const variant = '89ab'[parseInt(c[0]!, 16) & 3];
    return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
  }
}

/**
 * faker, seeded from the given source: its own generator then runs from a seed drawn here, so the
 * one seed still decides everything. Generation is synchronous, so sharing the instance is safe.
 */
export function seededFaker(random: Random): Faker {
  faker.seed(random.int(0, 2 ** 31 - 1));
  return faker;
}
