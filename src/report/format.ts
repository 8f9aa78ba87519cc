import type { IntegrationReport as Report } from '../control-client.js';
import { junitDocument, xml } from '../junit.js';

export type ReportFormat = 'text' | 'json' | 'junit' | 'markdown';
export type FailOn = 'error' | 'warning' | 'never';

/**
 * Whether the report fails at a threshold: error findings (error), error or warning ones (warning),
 * never. An application that made no request fails too (but at never): a CI job whose client never
 * reached the server, or sent another application header, must not pass on an empty report.
 */
export function fails(report: Report, failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  if (report.requests === 0) return true;
  return report.findings.some((f) => f.severity === 'error' || (failOn === 'warning' && f.severity === 'warning'));
}

const MARK = { error: 'ERROR  ', warning: 'WARN   ', info: 'INFO   ' } as const;

/** The report for a person (text, markdown), a program (json) or a CI test view (junit: each step and finding a test case). */
export function formatReport(report: Report, format: ReportFormat, failOn: FailOn = 'error'): string {
  if (format === 'json') return JSON.stringify(report, null, 2);
  if (format === 'junit') return junit(report, failOn);
  const md = format === 'markdown';
  const steps = report.coverage.steps;
  const done = steps.filter((s) => s.done).length;
  const lines: string[] = [];
  lines.push(md ? `# Integration report: ${report.application}` : `Integration report for application ${report.application}`);
  lines.push(`${report.requests} requests since ${report.since}; verdict ${fails(report, failOn) ? 'FAIL' : 'PASS'} (fail on ${failOn}); booking steps covered ${done} of ${steps.length}`);
  if (report.requests === 0) lines.push(`Application ${report.application} made no request to this server: check the client's base URL and its application header.`);
  if (report.unattributed) lines.push(`${report.unattributed} requests carried neither an application header nor a valid token: see --application '(unattributed)'.`);
  lines.push('', md ? '## Findings' : 'Findings:');
  if (report.findings.length === 0) lines.push(md ? 'None.' : '  none');
  for (const f of report.findings) {
    const where = `first ${f.first.method} ${f.first.path} at ${f.first.at} (${f.first.reqId}), last ${f.last.at}`;
    if (md) lines.push(`- **${f.severity}** \`${f.id}\` (${f.count}x): ${f.message}. *Fix:* ${f.advice} _(${where})_`);
    else lines.push(`  ${MARK[f.severity]}${f.id} (${f.count}x): ${f.message}`, `         fix: ${f.advice}`, `         ${where}`);
  }
  const checklist = (items: Array<{ name: string; done: boolean; count: number }>) =>
    items.map((s) => `${md ? '- ' : '  '}[${s.done ? 'x' : ' '}] ${s.name}${s.count ? ` (${s.count})` : ''}`);
  lines.push('', md ? '## Coverage' : 'Coverage of the booking flow:', ...checklist(steps));
  lines.push('', md ? '## Error paths met' : 'Error paths met:', ...checklist(report.coverage.error_paths));
  return lines.join('\n');
}

function junit(report: Report, failOn: FailOn): string {
  const cases: string[] = [];
  let failures = 0;
  let skipped = 0;
  for (const s of report.coverage.steps) {
    if (!s.done) skipped++;
    cases.push(`    <testcase classname="coverage" name="${xml(s.name)}">${s.done ? `<system-out>${s.count} times</system-out>` : '<skipped message="not done by this application"/>'}</testcase>`);
  }
  const names = new Map<string, number>();
  for (const f of report.findings) {
    // One operation can have several findings of an id (one per reason): each test case needs its own name.
    const named = f.operation ? `${f.id}: ${f.operation}` : f.id;
    const n = (names.get(named) ?? 0) + 1;
    names.set(named, n);
    const name = n > 1 ? `${named} (${n})` : named;
    const failing = f.severity === 'error' || (failOn === 'warning' && f.severity === 'warning');
    if (failing && failOn !== 'never') failures++;
    const detail = xml(`${f.message} (${f.count}x; first ${f.first.method} ${f.first.path} at ${f.first.at})\nfix: ${f.advice}`);
    cases.push(`    <testcase classname="findings.${f.severity}" name="${xml(name)}">${failing && failOn !== 'never' ? `<failure message="${xml(f.message)}">${detail}</failure>` : `<system-out>${detail}</system-out>`}</testcase>`);
  }
  if (report.requests === 0 && failOn !== 'never') {
    failures++;
    cases.push(`    <testcase classname="requests" name="made requests"><failure message="${xml(`application ${report.application} made no request`)}"/></testcase>`);
  }
  return junitDocument({ name: 'mock-server report', suite: report.application, cases, failures, skipped, timestamp: report.since });
}
