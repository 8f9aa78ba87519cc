import type { CheckReport } from './check.js';
import { junitDocument, xml } from '../junit.js';

export const CHECK_FORMATS = ['text', 'json', 'junit'] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];

const MARK = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;

/** The report for a person (text), a program (json) or a CI job's test view (junit). */
export function formatCheckReport(report: CheckReport, format: CheckFormat): string {
  if (format === 'json') return JSON.stringify(report, null, 2);
  if (format === 'junit') return junit(report);
  const lines = [`Webhook receiver check: ${report.receiver}`];
  for (const c of report.checks) {
    lines.push(`${MARK[c.result]} ${c.title}`);
    if (c.result === 'skipped') {
      lines.push(`     ${c.advice}`);
      continue;
    }
    for (const s of c.sent) lines.push(`     sent: ${s}`);
    for (const g of c.got) lines.push(`     got:  ${g}`);
    if (c.result === 'failed') lines.push(`     fix:  ${c.advice}`);
  }
  const count = (r: 'passed' | 'failed' | 'skipped') => report.checks.filter((c) => c.result === r).length;
  lines.push(`${report.passed ? 'PASSED' : 'FAILED'}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  return lines.join('\n');
}

function junit(report: CheckReport): string {
  const failures = report.checks.filter((c) => c.result === 'failed').length;
  const skipped = report.checks.filter((c) => c.result === 'skipped').length;
  const cases = report.checks.map((c) => {
    const out = xml([...c.sent.map((s) => `sent: ${s}`), ...c.got.map((g) => `got: ${g}`)].join('\n'));
    const inner =
      c.result === 'failed' ? `<failure message="${xml(c.advice)}">${out}</failure>` : c.result === 'skipped' ? `<skipped message="${xml(c.advice)}"/>` : `<system-out>${out}</system-out>`;
    return `    <testcase classname="webhooks.check" name="${xml(`${c.id}: ${c.title}`)}">${inner}</testcase>`;
  });
  return junitDocument({ name: 'mock-server webhooks check', suite: report.receiver, cases, failures, skipped });
}
