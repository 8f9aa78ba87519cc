import type { FastifyInstance } from 'fastify';
import type { Order } from '../booking/records.js';
import type { StoredRun } from '../booking/scenario-runner.js';
import { clip, ERROR_SCHEMA, errorResponses, errors } from '../http/errors.js';
import { isFinished, nextDueAt } from '../scenarios/index.js';

/** GET /__admin/scenarios: every loaded scenario (built-in and --scenarios), by name. */
export default async function scenarioAdminRoutes(app: FastifyInstance) {
  // The definitions, not any application's runs: a partner's token may read them too.
  app.get('/scenarios', { config: { control: 'any' }, schema: { summary: 'List the loaded scenarios', description: 'Built-in and --scenarios ones, by name, with their steps.' } }, async () => ({
    scenarios: [...app.scenarios.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((s) => ({ name: s.name, description: s.description, from: s.from, attach: s.attach, steps: s.steps, file: s.file, builtin: s.builtin })),
  }));
}

function orderAnywhere(app: FastifyInstance, uuid: string, only?: string): { application: string; order: Order } | null {
  for (const application of only === undefined ? app.store.applications() : [only]) {
    const order = app.store.tenant(application).orders[uuid] as unknown as Order | undefined;
    if (order) return { application, order };
  }
  return null;
}

/** A run as the control API shows it: where it is and when its next step is due (null once it has ended). */
export const runView = (run: StoredRun) => ({
  name: run.scenario.name, started_at: run.started_at, steps_done: run.applied, steps: run.scenario.steps.length, next_step_at: run.stopped ? null : nextDueAt(run), stopped: run.stopped,
});

/** The run the 409 of a second start describes: runView's fields and its item. */
const RunSchema = {
  type: 'object',
  description: 'the run going on the item',
  properties: {
    order_item_uuid: { type: 'string' }, name: { type: 'string', description: 'the scenario' }, started_at: { type: 'string' }, steps_done: { type: 'integer' }, steps: { type: 'integer' },
    next_step_at: { type: ['string', 'null'], description: "on the application's clock" }, stopped: { type: ['string', 'null'] },
  },
} as const;

/** POST /__admin/scenarios/{name}/run body {order_item_uuid} or {order_uuid}: runs a scenario now. */
export async function scenarioRunRoutes(app: FastifyInstance) {
  app.post<{ Params: { name: string }; Body: { order_item_uuid?: string; order_uuid?: string; application?: string } | undefined }>('/scenarios/:name/run', {
    schema: {
      summary: 'Run a scenario on an order item or order',
      description: 'Body `{order_item_uuid}` (one item; wins when both are given) or `{order_uuid}` (all of its items). Every item must be in the status the scenario starts from, with no scenario run going on it: a run starts once, and starts again only after it has ended.',
      response: {
        ...errorResponses({ 400: 'Neither order_item_uuid nor order_uuid', 404: 'No such scenario, order item or order', 503: 'The state file did not take the write' }),
        409: { description: 'A scenario run is going on an item (`run` describes it), or an item is not in the status the scenario starts from', ...ERROR_SCHEMA, properties: { ...ERROR_SCHEMA.properties, run: RunSchema } },
      },
    },
    // Shown in the control API's document only: the handler checks the body itself.
    config: { docsOnly: { body: { type: 'object', properties: { order_item_uuid: { type: 'string', format: 'uuid' }, order_uuid: { type: 'string', format: 'uuid' }, application: { type: 'string', description: 'only an item or order of this application' } } } } },
  }, async (request) => {
    const scenario = app.scenarios.get(request.params.name);
    if (!scenario) throw errors.notFound(`Scenario ${clip(request.params.name)} does not exist (GET /__admin/scenarios)`);
    const { order_item_uuid, order_uuid, application: only } = request.body ?? {};
    if (!order_item_uuid && !order_uuid) throw errors.validation('body needs "order_item_uuid" or "order_uuid"');
    // An item names one item (it wins when both are given); an order names all of its items.
    const gone = () => errors.notFound(order_item_uuid ? `Order item ${clip(order_item_uuid)} does not exist` : `Order ${clip(order_uuid)} does not exist`);
    const found = order_item_uuid ? app.orderItems.find(order_item_uuid, only) : orderAnywhere(app, order_uuid!, only);
    if (!found) throw gone();
    const { application, order } = found;
    const uuids = order_item_uuid ? [order_item_uuid] : order.items.map((x) => x.uuid);
    // Checked under the application's lock, on the items and runs as they are then: of two starts
    // at once, on any instances, one starts the run and the other finds it going.
    const started = await app.store.update(application, (t) => {
      const o = t.orders[order.uuid] as unknown as Order | undefined;
      const items = uuids.map((uuid) => o?.items.find((x) => x.uuid === uuid));
      if (!o || !items.every((x) => x !== undefined)) throw gone();
      for (const x of items) {
        const run = t.scenario_runs[x.uuid] as unknown as StoredRun | undefined;
        if (run && !run.stopped && !isFinished(run)) throw errors.scenarioRunning(x.uuid, runView(run));
      }
      const wrong = items.find((x) => x.status !== scenario.from);
      if (wrong) throw errors.notScenarioStart(scenario.name, scenario.from, wrong.uuid, wrong.status);
      return items.map((x) => app.scenarioRunner.start(t, application, o, x, scenario));
    });
    // The steps due at once were applied in that write: their webhooks go now.
    app.scenarioRunner.after(started);
    return { runs: started.map(({ run: r }) => ({ scenario: r.scenario.name, application, order_uuid: r.order_uuid, order_item_uuid: r.order_item_uuid, started_at: r.started_at })) };
  });
}
