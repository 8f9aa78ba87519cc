import type { Tenant } from '../store/index.js';
import type { Evidence, HeaderTally, RequirementStatus } from './predicates.js';
import { fill, type RequirementDef, type Suite } from './suite.js';

/** How a requirement stands in a run, as stored. */
export interface ResultRecord {
  status: RequirementStatus;
  evidence: Evidence[];
  reason: string | null;
  /** When it passed or failed (the application's clock). */
  at: string | null;
}

/** The badly signed webhook the run sends to the application's receiver. */
export interface ProbeRecord {
  id: string;
  /** The receiver's answer; null while none came. */
  status: number | null;
  error: string | null;
  tries: number;
  sent_at: string;
}

/** One certification run, kept in its application's `certifications` collection. */
export interface RunRecord {
  id: string;
  suite: string;
  suite_version: number;
  application: string;
  /** running: judged as the application works; passed: every requirement passed (a certificate is issued); ended: deleted or replaced. */
  state: 'running' | 'passed' | 'ended';
  /** The application's clock. */
  started_at: string;
  /** The server clock (the journal's), ms. */
  started_server_ms: number;
  passed_at: string | null;
  ended_at: string | null;
  /** Per requirement, the values its instructions and checks use. */
  setup: Record<string, Record<string, unknown>>;
  results: Record<string, ResultRecord>;
  answers: Record<string, string>;
  headers: HeaderTally;
  /** The last version header the application sent during the run. */
  api_version: string | null;
  fault_id: number | null;
  probe: ProbeRecord | null;
}

export const emptyTally = (): HeaderTally => ({ requests: 0, missing: {}, first_missing: {} });

/** Two tallies added up (a relative change: each instance adds what it counted). */
export function addTally(a: HeaderTally, b: HeaderTally): HeaderTally {
  const out: HeaderTally = { requests: a.requests + b.requests, missing: { ...a.missing }, first_missing: { ...b.first_missing, ...a.first_missing } };
  for (const [h, n] of Object.entries(b.missing) as Array<[keyof HeaderTally['missing'], number]>) out.missing[h] = (out.missing[h] ?? 0) + n;
  return out;
}

export const runsOf = (t: Readonly<Tenant>) => Object.values(t.certifications) as unknown as RunRecord[];
/** The application's run that is running, if any (one at a time). */
export const runningOf = (t: Readonly<Tenant>) => runsOf(t).find((r) => r.state === 'running');

/** What setup shows a partner's CI besides the values: the question, the fault, the scenario, the probe. */
function shownSetup(def: RequirementDef, values: Record<string, unknown>): Record<string, unknown> {
  return {
    ...values,
    ...(def.question ? { question: def.question.ask } : {}),
    ...(def.fault ? { fault: { method: def.fault.method, path: fill(def.fault.path, values), status: def.fault.status, times: 1, ...(def.fault.retry_after_s ? { retry_after_s: def.fault.retry_after_s } : {}) } } : {}),
    ...(def.scenario ? { scenario: `${def.scenario.name}: ${def.scenario.description}` } : {}),
    ...(def.probe ? { probe: "one webhook signed with another secret, sent after your receiver's first 200" } : {}),
  };
}

/** A run as the control API answers it (POST, GET /__admin/certifications/{id}). */
export function runView(run: RunRecord, suite: Suite, headerPrefix: string) {
  const requirements = suite.requirements.map((def) => {
    const values = run.setup[def.id] ?? {};
    const result = run.results[def.id] ?? { status: 'pending', evidence: [], reason: null, at: null };
    return {
      id: def.id,
      title: def.title,
      status: result.status,
      instructions: fill(def.instructions, { ...values, prefix: headerPrefix }),
      setup: shownSetup(def, values),
      evidence: result.evidence,
      reason: result.reason,
      failure: def.failure,
      ...(def.question ? { question: { ask: def.question.ask, answer: run.answers[def.id] ?? null } } : {}),
    };
  });
  return {
    id: run.id,
    suite: run.suite,
    suite_version: run.suite_version,
    application: run.application,
    state: run.state,
    started_at: run.started_at,
    passed_at: run.passed_at,
    ended_at: run.ended_at,
    api_version: run.api_version,
    passed: requirements.filter((r) => r.status === 'passed').length,
    total: requirements.length,
    requirements,
  };
}
export type RunView = ReturnType<typeof runView>;
