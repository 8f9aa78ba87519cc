/**
 * Results of a pure function by key, for values that cost something to compute and are asked for
 * over and over (formatted amounts, token digests, parsed settings, compiled validators). Holds at
 * most `max` keys: when full it starts over, which costs recomputing, never a wrong answer.
 */
export class Memo<V> {
  readonly #map = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string, compute: () => V): V {
    let v = this.#map.get(key);
    if (v === undefined) {
      v = compute();
      if (this.#map.size >= this.max) this.#map.clear();
      this.#map.set(key, v);
    }
    return v;
  }
}
