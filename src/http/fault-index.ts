/**
 * Matching armed faults against partner requests in time that does not depend on the pattern's
 * shape or on how many faults are armed elsewhere. A fault path used to become a RegExp
 * (`a*a*…*b` as `a.*a.*…b`), which backtracks exponentially on a long path of `a`s: one request
 * held the event loop for 94 s. Nothing here builds a RegExp from user input.
 */

/**
 * Whether `text` matches `pattern`, where `*` stands for any run of characters (`/` included) and
 * everything else is literal. The pieces between stars are found left to right, each at its
 * earliest place after the previous one: a later place could only leave less room for the rest, so
 * there is nothing to go back and retry. One indexOf per piece over what is left of the text.
 */
export function globMatch(pattern: string, text: string): boolean {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return pattern === text;
  const first = pieces[0] as string;
  const last = pieces[pieces.length - 1] as string;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  const end = text.length - last.length;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] as string;
    if (piece === '') continue;
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

export interface Indexed {
  id: number;
  method: string;
  path: string;
}

/**
 * The bucket a pattern lives in: its method and its whole path when it has no `*`, its method and
 * first segment when that segment is literal, its method alone otherwise. A path can only match
 * patterns in the buckets of its own first segment and whole path (and the method-only ones).
 */
function bucketOf(method: string, pattern: string): string {
  if (!pattern.includes('*')) return `${method} =${pattern}`;
  const slash = pattern.indexOf('/', 1);
  const first = slash < 0 ? pattern.slice(1) : pattern.slice(1, slash);
  // `/activities*` or `/*/dates`: the first segment is not literal, or the star is still in it.
  return slash < 0 || first.includes('*') ? `${method} *` : `${method} /${first}`;
}

function firstSegment(path: string): string {
  const slash = path.indexOf('/', 1);
  return slash < 0 ? path.slice(1) : path.slice(1, slash);
}

/**
 * Faults by bucket, each bucket in arming order. A lookup reads at most ten buckets and tests the
 * patterns in them only: faults on other paths cost a few Map lookups, whatever their number.
 */
export class FaultIndex<F extends Indexed> {
  readonly #buckets = new Map<string, F[]>();
  /** Every armed fault in arming order (ids only grow), for the list. */
  readonly #all = new Map<number, F>();

  get size(): number {
    return this.#all.size;
  }

  add(fault: F): void {
    const key = bucketOf(fault.method, fault.path);
    const bucket = this.#buckets.get(key);
    if (bucket) bucket.push(fault);
    else this.#buckets.set(key, [fault]);
    this.#all.set(fault.id, fault);
  }

  remove(fault: F): void {
    const key = bucketOf(fault.method, fault.path);
    const bucket = this.#buckets.get(key) ?? [];
    const at = bucket.indexOf(fault);
    if (at >= 0) bucket.splice(at, 1);
    if (bucket.length === 0) this.#buckets.delete(key);
    this.#all.delete(fault.id);
  }

  /** The earliest armed fault for `method` (or `*`) matching any of `paths`, or undefined. */
  find(method: string, paths: string[]): F | undefined {
    const keys = new Set<string>();
    for (const m of [method, '*']) {
      keys.add(`${m} *`);
      for (const p of paths) keys.add(`${m} =${p}`).add(`${m} /${firstSegment(p)}`);
    }
    let best: F | undefined;
    for (const key of keys) {
      const hit = this.#buckets.get(key)?.find((f) => paths.some((p) => globMatch(f.path, p)));
      if (hit && (!best || hit.id < best.id)) best = hit;
    }
    return best;
  }

  list(): F[] {
    return [...this.#all.values()];
  }

  clear(): void {
    this.#buckets.clear();
    this.#all.clear();
  }
}
