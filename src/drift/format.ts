import type { DriftFlags } from '../cli-flags.js';
import type { Difference, DriftResult } from './run.js';
import { junitDocument, xml } from '../junit.js';

/** One difference in a line: what the mock answers against what the upstream does. */
function line(d: Difference): string {
  const where = d.path || '(the answer)';
  switch (d.kind) {
    case 'status':
      return `status: the mock answers ${d.mock}, the upstream ${d.upstream}`;
    case 'missing':
      return `${where}: missing upstream (the mock answers it, ${d.mock}, and the document requires it)`;
    case 'extra':
      return `${where}: extra upstream (${d.upstream}; neither the mock nor its document has it)`;
    case 'type':
      return `${where}: type ${d.upstream} upstream, ${d.mock} in the mock`;
    case 'enum':
      return `${where}: upstream value ${d.upstream} is not one the document allows (${d.mock})`;
    case 'error-body':
      return d.path === '/code' ? `error code ${d.upstream} upstream, ${d.mock} in the mock` : `error body ${d.upstream} upstream, where the mock answers ${d.mock}`;
  }
}

const byOperation = (r: DriftResult) => {
  const groups = new Map<string, Difference[]>();
  for (const d of r.differences) groups.set(d.operation, [...(groups.get(d.operation) ?? []), d]);
  return groups;
};

/** The drift check for a person (text), a program (json) or a CI test view (junit: each operation a test case). */
export function formatDrift(r: DriftResult, format: DriftFlags['format']): string {
  if (format === 'json') return JSON.stringify(r, null, 2);
  const groups = byOperation(r);
  if (format === 'junit') {
    const cases = r.sampled.map(({ operation, mock, upstream }) => {
      const found = groups.get(operation) ?? [];
      const inner = found.length ? `<failure message="${xml(`${found.length} difference(s)`)}">${xml(found.map(line).join('\n'))}</failure>` : `<system-out>${xml(`mock ${mock}, upstream ${upstream}`)}</system-out>`;
      return `    <testcase classname="drift" name="${xml(operation)}">${inner}</testcase>`;
    });
    cases.push(...r.skipped.map((s) => `    <testcase classname="drift" name="${xml(s.operation)}"><skipped message="${xml(s.why)}"/></testcase>`));
    return junitDocument({ name: 'mock-server drift', suite: r.upstream, cases, failures: groups.size, skipped: r.skipped.length });
  }
  const lines = [
    `Drift check of ${r.upstream} against the mock at ${r.mock} (application ${r.application})`,
    `${r.sampled.length} operations sampled, ${r.skipped.length} skipped; ${r.differences.length ? `DRIFT: ${r.differences.length} difference(s) in ${groups.size} operation(s)` : 'no drift'}`,
  ];
  for (const [operation, found] of groups) lines.push('', `  ${operation}`, ...found.map((d) => `    ${d.kind.padEnd(10)} ${line(d)}`));
  if (r.skipped.length) lines.push('', 'Not sampled:', ...r.skipped.map((s) => `  ${s.operation}: ${s.why}`));
  return lines.join('\n');
}
