import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.js';
import { attachedScenario, chaosAt, dueMoves, isFinished, nextDueAt, scenarioReceiverGate, type Scenario, type ScenarioRun } from '../scenarios/index.js';
import type { Claim } from '../schedule/index.js';
import type { ScenarioRunRecord, Tenant } from '../store/index.js';
import type { Delivery } from '../webhooks/index.js';
import { chaosConfig } from '../webhooks/chaos.js';
import { moveItem, sendAll } from './lifecycle.js';
import type { Order, OrderItem } from './records.js';

/** A run as stored: the engine's run plus where its item lives and how it ended. */
export interface StoredRun extends ScenarioRun {
  order_uuid: string;
  /** Why the run stopped early (a manual move left the item where the next step cannot go). */
  stopped: string | null;
}

export interface ScenarioRunner {
  /**
   * Starts a scenario on an item inside a store.update, and applies in that same write the steps
   * due at once (an `after: PT0S` first step): hand the result to after() once the write resolved.
   * Later steps are the scheduler's.
   */
  start(tenant: Tenant, application: string, order: Order, item: OrderItem, scenario: Scenario): Started;
  /** Once the write that applied steps resolved: logs each step and sends its webhooks. */
  after(applied: readonly Applied[]): void;
  /** The scenario attached to an item for an event, if any: the attach source's first, else the scenario files'. */
  attached(on: 'payment' | 'cancellation', application: string, order: Order, item: OrderItem): Scenario | null;
  /** Lets something else attach scenarios first (a certification run, to its application's items). */
  setAttachSource(source: AttachSource | null): void;
}

/** What applying steps inside a write gave: the webhooks to send and the steps to log once it resolved. */
export interface Applied {
  sent: (Delivery | null)[];
  steps: Array<{ scenario: string; application: string; order_item_uuid: string; from: string; to: string }>;
}

/** A run just started, with the steps it applied at once. */
export interface Started extends Applied {
  run: StoredRun;
}

/** A scenario for an item of an application, or null to leave it to the scenario files. */
export type AttachSource = (on: 'payment' | 'cancellation', application: string, order: Order, item: OrderItem) => Scenario | null;

declare module 'fastify' {
  interface FastifyInstance {
    scenarioRunner: ScenarioRunner;
  }
}

const runsOf = (t: Readonly<Tenant>) => Object.values(t.scenario_runs) as unknown as StoredRun[];
const hasRuns = (t: Readonly<Tenant>): boolean => {
  for (const _ in t.scenario_runs) return true;
  return false;
};

/** When a run's next step is due (its due row on a store shared by instances); null once it is over. */
function runDue(value: unknown): { at: number } | null {
  const run = value as StoredRun;
  const at = run.stopped ? null : nextDueAt(run);
  return at === null ? null : { at: Date.parse(at) };
}

/**
 * Applies the pure scenario engine's due steps (on each application's clock), keeping runs in the
 * store (so a restart resumes them), and gates webhooks of items whose scenario has the receiver
 * down. When steps are looked for is the scheduler's (src/schedule/): on one process, every run on
 * a short timer and whenever a clock is moved; on a shared store, the runs this instance claimed.
 */
async function scenarioRunnerPlugin(app: FastifyInstance) {
  let ticking: Promise<void> | null = null;
  let attachSource: AttachSource | null = null;

  /** Applies a run's due steps inside a store.update, into `out`: in order, until one cannot go (the run stops). */
  const advance = (t: Tenant, application: string, run: StoredRun, now: Date, out: Applied) => {
    const order = t.orders[run.order_uuid] as unknown as Order | undefined;
    const item = order?.items.find((x) => x.uuid === run.order_item_uuid);
    for (const action of dueMoves(run, now)) {
      if (action.kind === 'status') {
        if (!order || !item) {
          run.stopped = 'the order item no longer exists';
          return;
        }
        try {
          const from = item.status;
          out.sent.push(moveItem(app, t, application, order, item, action.to));
          out.steps.push({ scenario: run.scenario.name, application, order_item_uuid: item.uuid, from, to: action.to });
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          run.stopped = e.message;
          return;
        }
      }
      run.applied = action.index + 1;
    }
  };

  const after = (applied: readonly Applied[]) => {
    for (const { sent, steps } of applied) {
      for (const step of steps) app.log.info({ scenario_step: step }, `scenario ${step.scenario}: item ${step.order_item_uuid} ${step.from} → ${step.to}`);
      sendAll(app, sent);
    }
  };

  /** Applies the due steps of an application's runs (`only`: those uuids); returns the uuids written. */
  const applyDue = async (application: string, only?: Set<string>): Promise<Set<string>> => {
    const now = app.now(application);
    const due = runsOf(app.store.tenant(application)).filter((r) => (!only || only.has(r.order_item_uuid)) && !r.stopped && !isFinished(r) && dueMoves(r, now).length);
    if (!due.length) return new Set();
    // Built inside: a write retried on a fresher tenant runs this again.
    const applied = await app.store.update(application, (t) => {
      const out: Applied = { sent: [], steps: [] };
      for (const { order_item_uuid } of due) advance(t, application, t.scenario_runs[order_item_uuid] as unknown as StoredRun, now, out);
      return out;
    });
    after([applied]);
    return new Set(due.map((r) => r.order_item_uuid));
  };

  /** Runs claimed on a shared store: each applied under its application's lock (so once, whoever else claims it), the rest given back. */
  const applyClaims = async (claims: Claim[]) => {
    const byApp = new Map<string, Claim[]>();
    for (const c of claims) byApp.set(c.application, [...(byApp.get(c.application) ?? []), c]);
    await Promise.all(
      [...byApp].map(async ([application, list]) => {
        let written = new Set<string>();
        try {
          await app.store.sync?.(application);
          written = await applyDue(application, new Set(list.map((c) => c.key)));
        } catch (err) {
          app.log.error({ err }, 'scenario steps failed');
        }
        for (const c of list) {
          const run = app.store.tenant(application).scenario_runs[c.key] as unknown as StoredRun | undefined;
          const next = run ? runDue(run) : null;
          // Written: the write gave the lease back. Not due yet on this clock: back with its time. Over: its row goes.
          if (written.has(c.key)) app.scheduler.done('scenario', c);
          else if (next) app.scheduler.release('scenario', c, next.at);
          else app.scheduler.drop('scenario', c);
        }
      }),
    );
  };

  const scan = async () => {
    // Most applications never ran a scenario: skipped without a promise each (at 20,000 applications
    // awaiting each one paused the event loop for about 100 ms every scan, four times a second).
    for (const application of app.store.applications()) if (hasRuns(app.store.tenant(application))) await applyDue(application);
  };

  app.scheduler.register('scenario', {
    rule: { field: 'scenario_runs', due: runDue },
    // A burst's steps (1,000 items moved at once) claimed and written together, as a scan of one
    // process writes them: waves of 256 waited each for the one before, a claim and a write apiece.
    limit: 1024,
    run: applyClaims,
    scan() {
      // One scan at a time; one asked for while one runs starts right after it.
      const next: Promise<void> = (ticking ?? Promise.resolve())
        .then(scan)
        .catch((err: unknown) => app.log.error({ err }, 'scenario tick failed'))
        .finally(() => {
          if (ticking === next) ticking = null;
        });
      ticking = next;
      return next;
    },
  });

  const runner: ScenarioRunner = {
    start(tenant, application, order, item, scenario) {
      const now = app.now(application);
      const run: StoredRun = {
        scenario: { name: scenario.name, from: scenario.from, steps: scenario.steps },
        application, order_uuid: order.uuid, order_item_uuid: item.uuid,
        started_at: now.toISOString(), applied: 0, stopped: null,
      };
      tenant.scenario_runs[item.uuid] = run as unknown as ScenarioRunRecord;
      // What is due at once goes in the start's own write: its webhooks leave when that write is on
      // disk, without a second write (nor, on PostgreSQL, a due row and a claim) in between.
      const started: Started = { run, sent: [], steps: [] };
      advance(tenant, application, run, now, started);
      return started;
    },
    after,
    attached(on, application, order, item) {
      return attachSource?.(on, application, order, item) ?? attachedScenario(app.scenarios.values(), on, { activity_uuid: item.activity_uuid, product_id: item.product_identifier, lead_booker_email: order.customer.email });
    },
    setAttachSource: (source) => void (attachSource = source),
  };
  app.decorate('scenarioRunner', runner);
  app.webhooks.setGate(
    scenarioReceiverGate((application, uuid) => {
      const run = app.store.tenant(application).scenario_runs[uuid] as unknown as StoredRun | undefined;
      return run ? [run] : [];
    }),
  );
  // A run's chaos steps give its item's webhooks their own chaos, over the control API's.
  app.webhooks.setChaosSource((d) => {
    const run = app.store.tenant(d.application).scenario_runs[d.order_item_uuid] as unknown as StoredRun | undefined;
    const chaos = run ? chaosAt(run, app.now(d.application)) : null;
    return chaos ? chaosConfig(chaos) : null;
  });
  app.addHook('onClose', async () => {
    await ticking;
  });
}

export default fp(scenarioRunnerPlugin, { name: 'scenario-runner', dependencies: ['store', 'schedule', 'webhooks', 'scenarios'], fastify: '5.x' });
