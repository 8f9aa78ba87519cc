import { writeFileSync } from 'node:fs';
import type { CertifyFlags } from '../cli-flags.js';
import { ControlApiError, createControlClient, type CertificationRun } from '../control-client.js';
import { junitDocument, xml } from '../junit.js';
import { loadKeys, readCertificate, verifyCertificate } from './verify.js';

/** A run that could not be had at all: bad input for the CLI (exit 2, one line). */
class CertifyUnavailable extends Error {
  readonly userFacing = true;
}

const POLL_MS = 1000;
const MARK = { pending: '[ ]', passed: '[x]', failed: '[!]' } as const;
type Requirement = CertificationRun['requirements'][number];

const evidenceIds = (r: Requirement) => r.evidence.map((e) => e.id).join(', ');

/** The checklist as it starts: each requirement with what to do and its setup. */
function checklist(run: CertificationRun): string[] {
  const lines = [`Certifying application ${run.application} against ${run.suite} (run ${run.id}): ${run.total} requirements`];
  for (const r of run.requirements) {
    lines.push(`${MARK[r.status]} ${r.id}: ${r.title}`, `    ${r.instructions}`);
    for (const [k, v] of Object.entries(r.setup)) lines.push(`    ${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  }
  return lines;
}

/** A change of one requirement's status, as a line of the live checklist. */
const change = (r: Requirement) => (r.status === 'passed' ? `PASS ${r.id} (${evidenceIds(r)})` : r.status === 'failed' ? `FAIL ${r.id}: ${r.reason}` : `... ${r.id}: ${r.reason}`);

function junit(run: CertificationRun): string {
  const cases = run.requirements.map((r) => {
    const inner = r.status === 'passed' ? `<system-out>${xml(r.evidence.map((e) => `${e.id}: ${e.what}`).join('\n'))}</system-out>` : `<failure message="${xml(`${r.status}: ${r.reason ?? ''}`)}">${xml(`${r.instructions}\n${r.failure}`)}</failure>`;
    return `    <testcase classname="certify.${xml(run.suite)}" name="${xml(`${r.id}: ${r.title}`)}">${inner}</testcase>`;
  });
  return junitDocument({ name: 'mock-server certify', suite: `${run.suite} ${run.application}`, cases, failures: run.requirements.filter((r) => r.status !== 'passed').length, skipped: 0, timestamp: run.started_at });
}

/**
 * `mock-server certify --application APP`: starts a run, prints its checklist and each change as it
 * comes, and ends with the certificate written to a file (exit 0), or, when the partner stops it
 * (SIGINT, SIGTERM), --timeout runs out or a requirement fails, with what is missing (exit 1; the
 * run is ended, so its fault and scenarios stop).
 */
export async function certify(origin: string, flags: CertifyFlags, adminToken: string | null): Promise<number> {
  const application = flags.application as string;
  const control = createControlClient(`${origin.replace(/\/+$/, '')}/__admin`, { adminToken: flags.token ?? adminToken });
  const out = (line: string) => flags.format === 'text' && console.log(line);
  let run: CertificationRun;
  try {
    run = await control.certifications.start(application);
  } catch (e) {
    if (e instanceof ControlApiError) throw new CertifyUnavailable(`${origin} answered ${e.status}: ${e.message}`);
    throw new CertifyUnavailable(`nothing answers at ${origin}: start the sandbox, or give its origin with --url`);
  }
  let stop: string | null = null;
  let wake: () => void = () => undefined;
  const halt = (why: string) => () => {
    stop ??= why;
    wake();
  };
  const onSignal = halt('stopped');
  // Taken before the checklist goes out: a signal that comes while its lines are written (one
  // console.log each) would otherwise meet the default action, and the process end without the report.
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  checklist(run).forEach(out);
  const timer = flags.timeoutMs === null ? null : setTimeout(halt(`--timeout ${flags.timeoutMs / 1000} s ran out`), flags.timeoutMs);
  const seen = new Map(run.requirements.map((r) => [r.id, `${r.status} ${r.reason}`]));
  try {
    while (run.state === 'running' && stop === null) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, POLL_MS);
      });
      run = await control.certifications.get(run.id, application);
      for (const r of run.requirements) {
        const now = `${r.status} ${r.reason}`;
        if (seen.get(r.id) !== now) out(change(r));
        seen.set(r.id, now);
      }
      if (run.requirements.some((r) => r.status === 'failed')) stop ??= 'a requirement failed: start a new run once it is fixed';
    }
  } finally {
    if (timer) clearTimeout(timer);
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  let file: string | null = null;
  if (run.state === 'passed') {
    file = flags.out ?? `certificate-${application.replace(/[^\w.-]+/g, '_')}.jwt`;
    writeFileSync(file, `${await control.certifications.certificate(run.id, application)}\n`);
    out(`CERTIFIED: ${run.passed} of ${run.total} requirements passed; the certificate is in ${file} (mock-server certify verify ${file})`);
  } else {
    await control.certifications.end(run.id, application).catch(() => undefined);
    out(`NOT CERTIFIED (${stop ?? run.state}): ${run.passed} of ${run.total} requirements passed; missing:`);
    for (const r of run.requirements.filter((x) => x.status !== 'passed')) out(`  ${r.id} (${r.status}): ${r.reason ?? r.instructions}`);
  }
  if (flags.format === 'json') console.log(JSON.stringify({ ...run, certificate_file: file }, null, 2));
  if (flags.format === 'junit') console.log(junit(run));
  return file ? 0 : 1;
}

/** `mock-server certify verify FILE`: exit 0 valid, 1 invalid (one line why); bad input throws (exit 2). */
export async function verifyCommand(file: string, url: string | null, jwks: string | null): Promise<number> {
  const token = readCertificate(file);
  const keys = await loadKeys(jwks !== null ? { file: jwks } : { url: url ?? 'http://127.0.0.1:8080' });
  const v = await verifyCertificate(token, keys);
  if (!v.valid) {
    console.log(`invalid: ${v.why}`);
    return 1;
  }
  const c = v.claims;
  const when = (s: number | undefined) => (s === undefined ? '?' : new Date(s * 1000).toISOString());
  console.log(`valid: ${c.suite} (version ${c.suite_version}) certificate of application ${c.application}, API version ${c.api_version ?? 'none sent'}, ${c.requirements.length} requirements, issued ${when(c.iat)}, valid until ${when(c.exp)}, key ${v.kid}`);
  return 0;
}
