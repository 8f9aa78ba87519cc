/**
 * Serialized bodies of immutable catalog resources, keyed by everything the body depends on
 * (resource, language, currency, authentication, day). Bounded: when full it starts over, which
 * costs a re-render, never a wrong answer.
 */
export class BodyCache<T = string> {
  private readonly map = new Map<string, T>();
  constructor(private readonly max = 20000) {}

  get(key: string, build: () => T): T {
    let body = this.map.get(key);
    if (body === undefined) {
      body = build();
      if (this.map.size >= this.max) this.map.clear();
      this.map.set(key, body);
    }
    return body;
  }

  get size(): number {
    return this.map.size;
  }
}
