import { fill, type Check, type Header, type RequirementDef } from './suite.js';

/**
 * The predicates a requirement's checks are written in, evaluated over what the sandbox already
 * keeps (runs.ts gathers it): the request journal, the orders, the webhook deliveries, the
 * integration report's findings, the run's header tally and its probe. PURE: no clock, no I/O.
 */

/** A journal entry of the run (path below the base path, without its query); `at`: the application's clock, ms. */
export interface RequestFact {
  seq: number;
  req_id: string;
  method: string;
  path: string;
  query: boolean;
  status: number;
  at: number;
}
/** An order item of an order the run's application created during the run. */
export interface ItemFact {
  uuid: string;
  order_uuid: string;
  cart_uuid: string;
  code: string;
  status: string;
  activity: string;
  email: string;
  pickup: boolean;
  /** How many items its order holds. */
  order_items: number;
  at: number;
}
/** A webhook delivery: the times (ms) of its attempts answered 200 (chaos sends of the same delivery included). */
export interface DeliveryFact {
  id: string;
  item: string;
  status: string;
  version: number;
  answered: number[];
}
export interface FindingFact {
  id: string;
  severity: string;
  req_id: string;
}
export interface HeaderTally {
  requests: number;
  missing: Partial<Record<Header, number>>;
  /** The first request of the run without each header. */
  first_missing: Partial<Record<Header, string>>;
}
export interface Facts {
  requests: RequestFact[];
  items: ItemFact[];
  deliveries: DeliveryFact[];
  /** Findings of the report seen again since the run started. */
  findings: FindingFact[];
  headers: HeaderTally;
  /** The badly signed webhook's answer: a status, or null while none came. */
  probe: { id: string; status: number | null } | null;
  /** Every other requirement of the run has passed. */
  others: boolean;
}

/** What shows a requirement was met (or broken): `id` is what the certificate names. */
export interface Evidence {
  kind: 'request' | 'order_item' | 'delivery' | 'finding' | 'requests' | 'probe' | 'answer';
  id: string;
  what: string;
}

interface Binding {
  kind: 'request' | 'item' | 'delivery' | 'other';
  at: number;
  /** Orders bindings of one kind: the journal's sequence, a delivery's item version. */
  seq: number;
  /** Deliveries: the item, so that versions compare within one item only. */
  scope?: string;
  fields: Record<string, string | number>;
  evidence: Evidence[];
}

type Vars = Record<string, unknown>;
const STATUS_CLASS = /^([1-5])xx$/;

function statusMatches(want: number | string | undefined, got: number): boolean {
  if (want === undefined) return true;
  if (typeof want === 'number') return want === got;
  return String(Math.floor(got / 100)) === STATUS_CLASS.exec(want)?.[1];
}

/** `METHOD /a/*\/c` against a request: `*` stands for one path segment. */
function pathMatches(pattern: string, r: RequestFact): boolean {
  const [method, path = ''] = pattern.split(' ');
  if (method !== r.method || path.includes('{')) return false;
  const want = path.split('/');
  const got = r.path.split('/');
  return want.length === got.length && want.every((s, i) => s === '*' || s === got[i]);
}

/** Whether `b` comes after `ref`: requests by the journal's order, one item's deliveries by version, the rest by time. */
function isAfter(b: Binding, ref: Binding): boolean {
  if (b.kind === ref.kind && b.kind !== 'other' && b.scope === ref.scope) return b.seq > ref.seq;
  return b.at >= ref.at;
}

const show = (r: RequestFact) => `${r.method} ${r.path}${r.query ? '?…' : ''} answered ${r.status}`;

/** The candidates for one check, each a way it holds. */
function candidates(c: Check, vars: Vars, bound: Record<string, Binding>, facts: Facts): Binding[] {
  const ref = 'after' in c && c.after !== undefined ? bound[c.after] : undefined;
  const later = (b: Binding) => !ref || isAfter(b, ref);
  if ('request' in c) {
    const patterns = [c.request].flat().map((p) => fill(p, vars));
    const all = facts.requests
      .filter((r) => patterns.some((p) => pathMatches(p, r)) && statusMatches(c.status, r.status) && (!c.query || r.query))
      .map((r): Binding => ({ kind: 'request', at: r.at, seq: r.seq, fields: { req_id: r.req_id, path: r.path, status: r.status }, evidence: [{ kind: 'request', id: r.req_id, what: show(r) }] }))
      .filter((b) => later(b) && (c.wait_s === undefined || !ref || b.at - ref.at >= c.wait_s * 1000));
    if (c.min === undefined) return all;
    return all.length >= c.min ? [{ ...all[all.length - 1]!, evidence: all.flatMap((b) => b.evidence) }] : [];
  }
  if ('item' in c) {
    const { activity, email, status, pickup } = c.item;
    return facts.items
      .filter((x) => (activity === undefined || x.activity === fill(activity, vars)) && (email === undefined || x.email.toLowerCase() === fill(email, vars).toLowerCase()) && (!status || status.includes(x.status as never)) && (pickup === undefined || x.pickup === pickup))
      .map((x): Binding => ({ kind: 'item', at: x.at, seq: 0, fields: { ...x, pickup: String(x.pickup) }, evidence: [{ kind: 'order_item', id: x.uuid, what: `order item ${x.code} (${x.status}) of order ${x.order_uuid}` }] }))
      .filter(later);
  }
  if ('delivery' in c) {
    const item = fill(c.delivery.item, vars);
    const n = c.answered ?? 1;
    return facts.deliveries
      .filter((d) => d.item === item && d.status === c.delivery.status && d.answered.length >= n)
      .map((d): Binding => ({ kind: 'delivery', at: d.answered[n - 1]!, seq: d.version, scope: d.item, fields: { id: d.id }, evidence: [{ kind: 'delivery', id: d.id, what: `${d.status} webhook answered 200${n > 1 ? ` ${d.answered.length} times` : ''}` }] }))
      .filter(later);
  }
  const other = (evidence: Evidence[]): Binding[] => [{ kind: 'other', at: 0, seq: 0, fields: {}, evidence }];
  if ('finding' in c) {
    const hits = facts.findings.filter((f) => (Array.isArray(c.finding) ? c.finding.includes(f.id) : f.severity === c.finding));
    return hits.length ? other(hits.map((f) => ({ kind: 'finding', id: f.id, what: `report finding ${f.id} (${f.severity}), last seen on request ${f.req_id}` }))) : [];
  }
  if ('headers' in c) {
    const t = facts.headers;
    const lacking = c.headers.filter((h) => (t.missing[h] ?? 0) > 0);
    if (c.missing) return lacking.length ? other(lacking.map((h) => ({ kind: 'request', id: t.first_missing[h] ?? '', what: `a request without the ${h} header (${t.missing[h]} in all)` }))) : [];
    return t.requests > 0 && lacking.length === 0 ? other([{ kind: 'requests', id: `${t.requests} requests`, what: `every request (${t.requests}) with the ${c.headers.join(', ')} headers` }]) : [];
  }
  if ('probe' in c) {
    const p = facts.probe;
    return p && p.status !== null && (p.status < 200 || p.status > 299) ? other([{ kind: 'probe', id: p.id, what: `the badly signed webhook was answered ${p.status}` }]) : [];
  }
  return facts.others ? other([{ kind: 'requests', id: 'all-others-passed', what: `every other requirement passed, over ${facts.requests.length} requests of the journal` }]) : [];
}

/** A few words on what a check waits for, for the checklist. */
export function describeCheck(c: Check, vars: Vars): string {
  if ('request' in c) return `${[c.request].flat().map((p) => fill(p, vars)).join(' or ')}${c.status === undefined ? '' : ` answered ${c.status}`}${c.after ? ` after ${c.after}` : ''}${c.wait_s ? ` (at least ${c.wait_s} s later)` : ''}${c.query ? ' with query parameters' : ''}`;
  if ('item' in c) return `an order item of activity ${fill(c.item.activity ?? 'any', vars)}${c.item.email ? ` with lead booker ${fill(c.item.email, vars)}` : ''}${c.item.status ? ` in status ${c.item.status.join(' or ')}` : ''}${c.item.pickup ? ' with a pickup' : ''}`;
  if ('delivery' in c) return `its ${c.delivery.status} webhook answered 200${c.answered && c.answered > 1 ? ` ${c.answered} times` : ''}${c.after ? ` after ${c.after}` : ''}`;
  if ('finding' in c) return `report findings ${[c.finding].flat().join(', ')}`;
  if ('headers' in c) return `requests with the ${c.headers.join(', ')} headers`;
  if ('probe' in c) return 'the badly signed webhook refused by your receiver';
  return 'every other requirement passed';
}

/** Every way the checks hold together, first found first (bounded: the facts of one run are small). */
function* solutions(checks: Check[], vars: Vars, facts: Facts, depth: { max: number; steps: number }, i = 0, bound: Record<string, Binding> = {}): Generator<{ vars: Vars; evidence: Evidence[] }> {
  if (i === checks.length) return yield { vars, evidence: [] };
  depth.max = Math.max(depth.max, i);
  const c = checks[i]!;
  for (const b of candidates(c, vars, bound, facts)) {
    if (++depth.steps > 20_000) return;
    const as = 'as' in c ? c.as : undefined;
    const next = as ? { vars: { ...vars, [as]: b.fields }, bound: { ...bound, [as]: b } } : { vars, bound };
    for (const rest of solutions(checks, next.vars, facts, depth, i + 1, next.bound)) yield { vars: rest.vars, evidence: [...b.evidence, ...rest.evidence] };
  }
}

export type RequirementStatus = 'pending' | 'passed' | 'failed';

export interface Verdict {
  status: RequirementStatus;
  evidence: Evidence[];
  /** pending: what is still missing; failed: what broke it. */
  reason: string | null;
  /** With a question: the answers the evidence found would accept (for checking one as it comes). */
  expected: string[];
}

const normal = (s: string) => s.trim().toLowerCase();

/** One requirement over the facts, with its setup and, for a question, the answer given (if any). */
export function evaluate(def: RequirementDef, setup: Vars, facts: Facts, answer?: string): Verdict {
  for (const c of def.never ?? []) {
    const hit = candidates(c, setup, {}, facts)[0];
    if (hit) return { status: 'failed', evidence: hit.evidence, reason: `not allowed: ${describeCheck(c, setup)}: ${hit.evidence.map((e) => e.what).join('; ')}`, expected: [] };
  }
  const depth = { max: 0, steps: 0 };
  const expected: string[] = [];
  for (const s of solutions(def.evidence, setup, facts, depth)) {
    if (!def.question) return { status: 'passed', evidence: s.evidence, reason: null, expected };
    const want = fill(def.question.expect, s.vars);
    expected.push(want);
    if (answer !== undefined && normal(answer) === normal(want)) return { status: 'passed', evidence: [...s.evidence, { kind: 'answer', id: want, what: `answered "${answer}"` }], reason: null, expected };
    if (expected.length >= 50) break;
  }
  if (expected.length && answer !== undefined) return { status: 'failed', evidence: [], reason: `the answer "${answer}" does not match what the sandbox holds`, expected };
  if (expected.length) return { status: 'pending', evidence: [], reason: `answer the question: ${def.question?.ask}`, expected };
  const stuck = def.evidence[Math.min(depth.max, def.evidence.length - 1)]!;
  return { status: 'pending', evidence: [], reason: `waiting for ${describeCheck(stuck, setup)}`, expected };
}
