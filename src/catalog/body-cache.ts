/**
 * Serialized bodies of immutable catalog resources, keyed by everything the body depends on
 * (resource, language, currency, authentication, day). Bounded by total size: when full it starts
 * over, which costs a re-render, never a wrong answer.
 */
export class BodyCache<T extends string | Buffer = string> {
  private readonly map = new Map<string, T>();
  private bytes = 0;
  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string, build: () => T): T {
    let body = this.map.get(key);
    if (body === undefined) {
      body = build();
      if (this.bytes + body.length > this.maxBytes) {
        this.map.clear();
        this.bytes = 0;
      }
      this.map.set(key, body);
      this.bytes += body.length;
    }
    return body;
  }

  get size(): number {
    return this.map.size;
  }
}
