import { addDetail, MAX_FINDINGS, type AppBook } from './book.js';
import type { ErrorPath, Step } from './findings.js';

/**
 * Where a book stood when it was last loaded from or saved to the store: what it counted since is
 * this instance's own share, which a store shared by several instances adds to what the others saved.
 */
export interface Base {
  requests: number;
  steps: Map<Step, number>;
  errorPaths: Map<ErrorPath, number>;
  counts: Map<string, number>;
}

export const EMPTY_BASE: Base = { requests: 0, steps: new Map(), errorPaths: new Map(), counts: new Map() };

export function baseOf(book: AppBook): Base {
  return { requests: book.requests, steps: new Map(book.steps), errorPaths: new Map(book.errorPaths), counts: new Map([...book.findings].map(([k, f]) => [k, f.count])) };
}

function addCounts<K>(target: Map<K, number>, local: Map<K, number>, base: Map<K, number>): void {
  for (const [k, v] of local) {
    const d = v - (base.get(k) ?? 0);
    if (d > 0) target.set(k, (target.get(k) ?? 0) + d);
  }
}

/**
 * Adds to `target` (a book as the store holds it, written by every instance) what `local` counted
 * since `base`: counters add up, a finding keeps the store's first example and the newer last one,
 * remembered reads and orders join. An order the store knows as paid is no longer unpaid, and one
 * read here counts as read wherever it was paid. Returns the keys of the findings it changed.
 */
export function addShare(target: AppBook, local: AppBook, base: Base, isPaid: (order: string) => boolean): Set<string> {
  target.requests += local.requests - base.requests;
  addCounts(target.steps, local.steps, base.steps);
  addCounts(target.errorPaths, local.errorPaths, base.errorPaths);
  const changed = new Set<string>();
  for (const [key, f] of local.findings) {
    const d = f.count - (base.counts.get(key) ?? 0);
    if (d <= 0) continue;
    const t = target.findings.get(key);
    if (t) {
      t.count += d;
      if (f.last.at >= t.last.at) t.last = f.last;
      if (f.others) for (const other of [f.detail, ...f.others]) addDetail(t, other);
    } else if (target.findings.size < MAX_FINDINGS) target.findings.set(key, { ...f, count: d });
    else continue;
    changed.add(key);
  }
  for (const name of ['refundPoliciesRead', 'customerSchemaRead', 'participantsSchemaRead'] as const) for (const v of local[name].newest(Infinity)) target[name].add(v);
  let memory = local.memoryChanged;
  for (const [order, p] of local.paid) {
    const t = target.paid.get(order);
    if (!t) target.paid.set(order, { ...p });
    else if (p.read && !t.read) t.read = true;
    else continue;
    memory = true;
  }
  for (const [order, p] of target.paid) if (!p.read && local.seenOrders.has(order)) memory = p.read = true;
  for (const [order, e] of local.unpaid) if (!target.unpaid.has(order)) target.unpaid.set(order, e);
  for (const order of [...target.unpaid.keys()]) if (isPaid(order) || target.paid.has(order)) memory = target.unpaid.delete(order);
  target.logins = [...new Set([...target.logins, ...local.logins])].sort((a, b) => a - b).slice(-10);
  target.versionSeen = local.versionSeen ?? target.versionSeen;
  target.memoryChanged = memory;
  return changed;
}

/** Makes `local` hold what `from` holds (its own detectors, such as the retry streak, stay). */
export function adopt(local: AppBook, from: AppBook): void {
  local.requests = from.requests;
  for (const name of ['steps', 'errorPaths', 'findings', 'paid', 'unpaid'] as const) {
    const m = local[name] as Map<unknown, unknown>;
    m.clear();
    for (const [k, v] of from[name] as Map<unknown, unknown>) m.set(k, v);
  }
  local.refundPoliciesRead = from.refundPoliciesRead;
  local.customerSchemaRead = from.customerSchemaRead;
  local.participantsSchemaRead = from.participantsSchemaRead;
  local.logins = from.logins;
  local.versionSeen = from.versionSeen ?? local.versionSeen;
}
