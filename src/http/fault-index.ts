/**
 * Matching armed faults against partner requests in time that does not depend on the pattern's
 * shape or on how many faults are armed elsewhere. A fault path used to become a RegExp
 * (`a*a*…*b` as `a.*a.*…b`), which backtracks exponentially on a long path of `a`s: one request
 * held the event loop for 94 s. Nothing here builds a RegExp from user input.
 */

/**
 * Whether `text` matches a pattern split at its stars, where `*` stands for any run of characters
 * (`/` included) and everything else is literal. The pieces between stars are found left to right,
 * each at its earliest place after the previous one: a later place could only leave less room for
 * the rest, so there is nothing to go back and retry. One indexOf per piece over what is left.
 */
function matchPieces(pieces: readonly string[], text: string): boolean {
  if (pieces.length === 1) return pieces[0] === text;
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

export const globMatch = (pattern: string, text: string): boolean => matchPieces(pattern.split('*'), text);

export interface Indexed {
  id: number;
  method: string;
  path: string;
}

interface Entry<F> {
  fault: F;
  pieces: string[];
}

/** A node per literal path segment; `here` holds the patterns whose literal segments end at it. */
interface Node<F> {
  children: Map<string, Node<F>>;
  here: Entry<F>[];
}

const node = <F>(): Node<F> => ({ children: new Map(), here: [] });

/** The whole segments before the one holding the first star: `/activities/*\/dates` gives [activities]. */
function literalSegments(pattern: string): string[] {
  const segments = pattern.slice(1, pattern.indexOf('*')).split('/');
  segments.pop(); // the segment the star is in (possibly empty: the star starts it)
  return segments;
}

/** The earliest (lowest id) of `entries` matching `path`, if earlier than `best`; else `best`. */
function earliest<F extends Indexed>(entries: Entry<F>[] | undefined, path: string, best: F | undefined): F | undefined {
  for (const e of entries ?? []) {
    if (best && e.fault.id > best.id) return best; // entries are in arming order
    if (matchPieces(e.pieces, path)) return e.fault;
  }
  return best;
}

/**
 * Faults per method: those without a star by their whole path, the others in a tree of their
 * literal leading segments. A request reads its own path's entries and walks its own segments, so
 * faults on other paths cost nothing; only patterns that share the request's leading segments up
 * to their first star are tested, each in one pass over the path.
 */
export class FaultIndex<F extends Indexed> {
  readonly #methods = new Map<string, { exact: Map<string, Entry<F>[]>; root: Node<F> }>();
  /** Every armed fault in arming order (ids only grow), for the list. */
  readonly #all = new Map<number, F>();

  get size(): number {
    return this.#all.size;
  }

  add(fault: F): void {
    let m = this.#methods.get(fault.method);
    if (!m) this.#methods.set(fault.method, (m = { exact: new Map(), root: node() }));
    const entry = { fault, pieces: fault.path.split('*') };
    if (entry.pieces.length === 1) {
      const list = m.exact.get(fault.path);
      if (list) list.push(entry);
      else m.exact.set(fault.path, [entry]);
    } else {
      let at = m.root;
      for (const s of literalSegments(fault.path)) {
        let next = at.children.get(s);
        if (!next) at.children.set(s, (next = node()));
        at = next;
      }
      at.here.push(entry);
    }
    this.#all.set(fault.id, fault);
  }

  remove(fault: F): void {
    this.#all.delete(fault.id);
    const m = this.#methods.get(fault.method);
    if (!m) return;
    const without = (list: Entry<F>[]) => list.filter((e) => e.fault !== fault);
    if (!fault.path.includes('*')) {
      const list = without(m.exact.get(fault.path) ?? []);
      if (list.length) m.exact.set(fault.path, list);
      else m.exact.delete(fault.path);
      return;
    }
    // Down to the fault's node, then empty nodes are pruned on the way back up.
    const trail: [Node<F>, string][] = [];
    let at: Node<F> | undefined = m.root;
    for (const s of literalSegments(fault.path)) {
      trail.push([at, s]);
      at = at.children.get(s);
      if (!at) return;
    }
    at.here = without(at.here);
    for (const [parent, s] of trail.reverse()) {
      const child = parent.children.get(s) as Node<F>;
      if (child.here.length > 0 || child.children.size > 0) break;
      parent.children.delete(s);
    }
  }

  /** The earliest armed fault for `method` (or `*`) matching any of `paths`, or undefined. */
  find(method: string, paths: string[]): F | undefined {
    let best: F | undefined;
    for (const m of [this.#methods.get(method), this.#methods.get('*')]) {
      if (!m) continue;
      for (const p of paths) {
        best = earliest(m.exact.get(p), p, best);
        // The nodes of the path's own leading segments, the root first.
        let at: Node<F> | undefined = m.root;
        for (let from = 1; at; ) {
          best = earliest(at.here, p, best);
          if (from > p.length) break;
          const slash = p.indexOf('/', from);
          const end = slash < 0 ? p.length : slash;
          at = at.children.get(p.slice(from, end));
          from = end + 1;
        }
      }
    }
    return best;
  }

  list(): F[] {
    return [...this.#all.values()];
  }

  clear(): void {
    this.#methods.clear();
    this.#all.clear();
  }
}
