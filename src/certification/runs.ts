import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { isPartnerUrl } from '../admin/journal.js';
import { clip, errors } from '../http/errors.js';
import { attributedApplication, headerNames } from '../http/service-headers.js';
import type { Tenant } from '../store/index.js';
import { gatherFacts } from './facts.js';
import { judge, missing } from './judge.js';
import { evaluate, type HeaderTally } from './predicates.js';
import { Prober } from './probe.js';
import { armFault, resolveSetup, scenarioSource } from './arrange.js';
import { addTally, emptyTally, runningOf, runsOf, type RunRecord } from './record.js';
import { certificateKeys, type CertificateKeys } from './signing.js';
import { loadSuite, SUITE_FILE, type Suite } from './suite.js';

/** How long a certificate is valid from the moment its run passed. */
export const VALIDITY_DAYS = 365;
/** Runs kept per application, running or not (the oldest ended ones go first). */
const KEEP_RUNS = 20;
/** How soon after a request or webhook of a running run its requirements are looked at again. */
const SETTLE_MS = 250;

export interface Certification {
  suite: Suite;
  /** The signing keys; the key kept with the state is made at the first use, not at the start (a start writes nothing). */
  keys(): Promise<CertificateKeys>;
  start(application: string): Promise<RunRecord>;
  /** One run, its requirements evaluated first when it is running; 404 when it is not `application`'s (when given). */
  get(id: string, application?: string): Promise<RunRecord>;
  list(application?: string): RunRecord[];
  end(id: string, application?: string): Promise<void>;
  answer(id: string, requirement: string, answer: string, application?: string): Promise<RunRecord>;
  /** The signed certificate of a run that passed; 409 with what is missing before that. */
  certificate(id: string, application?: string): Promise<string>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Certification runs and certificates (src/certification); null with --report off, which they are judged on. */
    certification: Certification | null;
  }
}

/**
 * Certification runs (docs/certification.md). A run's requirements are evaluated over what the
 * sandbox keeps anyway (facts.ts, predicates.ts) whenever the run is asked for, and a quarter of a
 * second after each request or webhook attempt of its application, so that evidence is taken while
 * the journal still holds it; what changed is stored with the run. The one thing counted here is
 * which headers each request carried, which nothing else keeps: counted in memory and added to the
 * run with its next write.
 */
async function certificationPlugin(app: FastifyInstance, opts: { keyFile: string | null }) {
  // Runs are judged on the report; behind mock-server proxy the bookings are the upstream's.
  if (!app.integrationReport || app.config.upstream) return void app.decorate('certification', null);
  const suite = loadSuite(SUITE_FILE);
  // A --certificate-key that cannot be used stops the start; the kept key is made when first needed.
  let loading: Promise<CertificateKeys> | null = opts.keyFile === null ? null : Promise.resolve(await certificateKeys(app.store, opts.keyFile));
  const keys = () => (loading ??= certificateKeys(app.store, null).catch((e) => {
    loading = null;
    throw e;
  }));
  const names = headerNames(app.config.headerPrefix);
  const prober = new Prober(app);
  /** Header counts of requests not yet added to their run's record, by run id. */
  const pending = new Map<string, HeaderTally & { version?: string }>();
  const dirty = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let settling: Promise<void> = Promise.resolve();

  const find = (id: string, application?: string): RunRecord => {
    const owner = application ?? app.store.applications().find((a) => app.store.tenant(a).certifications[id]);
    const run = owner === undefined ? undefined : (app.store.tenant(owner).certifications[id] as unknown as RunRecord | undefined);
    if (!run) throw errors.notFound(`Certification run ${clip(id)} does not exist`);
    return run;
  };

  /** Arms or drops what a run arranged: its fault (its scenarios and probe follow its state). */
  const disarm = (runs: RunRecord[]) => Promise.all(runs.filter((r) => r.fault_id !== null).map((r) => app.faults.drop(r.application, r.fault_id as number)));

  /** Evaluates a running run's requirements, stores what changed, and sends its probe when due. */
  const refresh = async (run: RunRecord): Promise<RunRecord> => {
    if (run.state !== 'running') return run;
    const delta = pending.get(run.id);
    pending.delete(run.id);
    const tally = delta ? addTally(run.headers, delta) : run.headers;
    const now = app.now(run.application).toISOString();
    const results = judge(run, suite, await gatherFacts(app, run, tally), now);
    const passed = suite.requirements.every((d) => results[d.id]?.status === 'passed');
    if (delta || JSON.stringify(results) !== JSON.stringify(run.results)) {
      try {
        await app.store.update(run.application, (t) => {
          const r = t.certifications[run.id] as unknown as RunRecord | undefined;
          if (r?.state !== 'running') return;
          if (delta) {
            r.headers = addTally(r.headers, delta);
            r.api_version = delta.version ?? r.api_version;
          }
          r.results = results;
          if (passed) Object.assign(r, { state: 'passed', passed_at: now });
        });
      } catch (err) {
        if (delta) pending.set(run.id, addTally(delta, pending.get(run.id) ?? emptyTally()));
        throw err;
      }
      if (passed) await disarm([run]);
    }
    const after = find(run.id, run.application);
    if (await prober.maybeSend(after)) dirty.add(run.application);
    return find(run.id, run.application);
  };

  const settle = () => {
    timer = null;
    const apps = [...dirty];
    dirty.clear();
    settling = Promise.all(
      apps.map(async (a) => {
        const run = runningOf(app.store.tenant(a));
        if (run) await refresh(run);
      }),
    ).then(
      () => (dirty.size ? arm() : undefined),
      (err: unknown) => app.log.warn({ err }, 'certification runs could not be evaluated'),
    );
  };
  const arm = () => void (timer ??= setTimeout(settle, SETTLE_MS).unref());
  const touch = (application: string) => {
    if (!runningOf(app.store.tenant(application))) return;
    dirty.add(application);
    arm();
  };

  // The headers of each partner request of an application while it has a run: the report does not count them.
  app.addHook('onResponse', (request, reply, done) => {
    const application = attributedApplication(request, reply);
    if (application && isPartnerUrl(request.url, app.config.basePath)) {
      const run = runningOf(app.store.tenant(application));
      if (run) {
        const t = pending.get(run.id) ?? { ...emptyTally(), missing: {}, first_missing: {} };
        const has = { version: request.headers[names.version], language: request.headers['accept-language'], currency: request.headers[names.currency] };
        t.requests++;
        for (const [h, v] of Object.entries(has) as Array<[keyof typeof has, unknown]>) {
          if (v !== undefined && v !== '') continue;
          t.missing[h] = (t.missing[h] ?? 0) + 1;
          t.first_missing[h] ??= String(request.id);
        }
        if (typeof has.version === 'string') t.version = has.version.slice(0, 20);
        pending.set(run.id, t);
        touch(application);
      }
    }
    done();
  });
  app.webhooks.observe((d) => touch(d.application));

  app.scenarioRunner.setAttachSource(scenarioSource(app, suite));

  app.addHook('onClose', async () => {
    if (timer) clearTimeout(timer);
    await settling;
    await prober.close();
  });

  const certification: Certification = {
    suite,
    keys,
    async start(application) {
      const now = app.now(application);
      const setup = Object.fromEntries(suite.requirements.map((d) => [d.id, resolveSetup(app, d, now)]));
      const fault = await armFault(app, suite, application, setup);
      // ended is built inside: a write retried on a fresher tenant runs this again.
      const { run, ended } = await app.store.update(application, (t) => {
        const ended: RunRecord[] = [];
        // One run at a time per application: starting again ends the one running.
        for (const r of runsOf(t)) if (r.state === 'running') ended.push(Object.assign(t.certifications[r.id] as unknown as RunRecord, { state: 'ended', ended_at: now.toISOString() }));
        const seq = (t.counters.certifications = (t.counters.certifications ?? 0) + 1);
        const id = `cert_${createHash('sha256').update(`${application}\n${seq}\n${now.toISOString()}`).digest('hex').slice(0, 20)}`;
        const record: RunRecord = {
          id, suite: suite.suite, suite_version: suite.version, application, state: 'running', started_at: now.toISOString(), started_server_ms: app.clock.now().getTime(),
          passed_at: null, ended_at: null, setup, results: {}, answers: {}, headers: emptyTally(), api_version: null, fault_id: fault?.id ?? null, probe: null,
        };
        t.certifications[id] = record as unknown as Tenant['certifications'][string];
        const old = runsOf(t).filter((r) => r.state !== 'running').sort((a, b) => a.started_at.localeCompare(b.started_at));
        for (const r of old.slice(0, Math.max(0, old.length - KEEP_RUNS + 1))) delete t.certifications[r.id];
        return { run: record, ended };
      });
      await disarm(ended);
      return run;
    },
    get: (id, application) => refresh(find(id, application)),
    list: (application) => (application === undefined ? app.store.applications() : [application]).flatMap((a) => runsOf(app.store.tenant(a))).sort((a, b) => b.started_at.localeCompare(a.started_at)),
    async end(id, application) {
      const run = find(id, application);
      if (run.state !== 'running') return;
      await app.store.update(run.application, (t) => void Object.assign(t.certifications[id] as unknown as RunRecord, { state: 'ended', ended_at: app.now(run.application).toISOString() }));
      await disarm([run]);
    },
    async answer(id, requirement, answer, application) {
      const def = suite.requirements.find((d) => d.id === requirement);
      if (!def) throw errors.notFound(`Suite ${suite.suite} has no requirement ${clip(requirement)}`);
      if (!def.question) throw errors.validation(`Requirement ${def.id} asks no question`);
      const run = await refresh(find(id, application));
      if (run.state !== 'running') throw errors.certification(`Run ${run.id} is ${run.state}: start a new run to answer again`);
      const result = run.results[def.id];
      if (result?.status === 'passed' || result?.status === 'failed') throw errors.certification(`Requirement ${def.id} has ${result.status} already`);
      const facts = await gatherFacts(app, run, run.headers);
      const v = evaluate(def, run.setup[def.id] ?? {}, { ...facts, others: false });
      if (v.expected.length === 0) throw errors.certification(`Nothing to check the answer against yet: ${v.reason ?? 'do the steps first'}`);
      await app.store.update(run.application, (t) => void ((t.certifications[id] as unknown as RunRecord).answers[def.id] = answer.slice(0, 200)));
      return refresh(find(id, run.application));
    },
    async certificate(id, application) {
      const run = await refresh(find(id, application));
      if (run.state !== 'passed' || run.passed_at === null) throw errors.certification(`Run ${run.id} is ${run.state}; not passed yet: ${missing(run, suite).join('; ')}`);
      const issued = new Date(run.passed_at);
      const claims = {
        iss: 'mock-server', sub: run.application, jti: run.id, suite: run.suite, suite_version: run.suite_version, application: run.application, api_version: run.api_version,
        requirements: suite.requirements.map((d) => ({ id: d.id, evidence: (run.results[d.id]?.evidence ?? []).map((e) => e.id) })),
      };
      return (await keys()).sign(claims, issued, new Date(issued.getTime() + VALIDITY_DAYS * 86_400_000));
    },
  };
  app.decorate('certification', certification);
}

export default fp(certificationPlugin, { name: 'certification', dependencies: ['store', 'report', 'journal', 'faults', 'webhooks', 'scenario-runner'], fastify: '5.x' });
