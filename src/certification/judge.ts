import { evaluate, type Facts } from './predicates.js';
import type { ResultRecord, RunRecord } from './record.js';
import type { RequirementDef, Suite } from './suite.js';

const needsOthers = (def: RequirementDef) => def.evidence.some((c) => 'others' in c);

/**
 * Every requirement of a running run over the facts, from what the run holds: a failed requirement
 * stays failed (the run must start again); a passed one keeps its evidence (the journal forgets old
 * requests) unless a `never` check breaks it later; the others are evaluated afresh. Requirements
 * that wait for all others go last. `now`: when a change is stamped (the application's clock).
 */
export function judge(run: RunRecord, suite: Suite, facts: Omit<Facts, 'others'>, now: string): Record<string, ResultRecord> {
  const results: Record<string, ResultRecord> = {};
  const one = (def: RequirementDef, others: boolean) => {
    const stored = run.results[def.id];
    if (stored?.status === 'failed') return (results[def.id] = stored);
    const v = evaluate(def, run.setup[def.id] ?? {}, { ...facts, others }, run.answers[def.id]);
    if (stored?.status === 'passed' && v.status !== 'failed') return (results[def.id] = stored);
    const same = stored?.status === v.status;
    results[def.id] = { status: v.status, evidence: v.evidence, reason: v.reason, at: same ? stored.at : v.status === 'pending' ? null : now };
  };
  for (const def of suite.requirements) if (!needsOthers(def)) one(def, false);
  for (const def of suite.requirements.filter(needsOthers)) {
    const others = suite.requirements.every((d) => d.id === def.id || needsOthers(d) || results[d.id]?.status === 'passed');
    one(def, others);
  }
  return results;
}

/** Requirements not passed yet, each with why, for a 409 and the CLI. */
export function missing(run: RunRecord, suite: Suite): string[] {
  return suite.requirements.filter((d) => run.results[d.id]?.status !== 'passed').map((d) => `${d.id} (${run.results[d.id]?.reason ?? 'not evaluated yet'})`);
}
