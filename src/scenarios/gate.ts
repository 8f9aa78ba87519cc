import type { ReceiverGate } from '../webhooks/dispatcher.js';
import { receiverDownAt, type ScenarioRun } from './engine.js';

/**
 * The dispatcher gate for scenarios with `receiver: down` steps: while a run of an item has the
 * receiver down (on the server clock), that item's webhook attempts fail without a request, as if the
 * partner's receiver were unreachable, and are retried on the normal schedule. Only the run's own
 * item is affected, so other tests against the same server keep receiving webhooks.
 * `runs(application, orderItemUuid)` gives the runs of one item (whoever keeps runs provides it).
 */
export function scenarioReceiverGate(runs: (application: string, orderItemUuid: string) => Iterable<ScenarioRun>): ReceiverGate {
  return (delivery, now) => {
    for (const run of runs(delivery.application, delivery.order_item_uuid)) {
      if (receiverDownAt(run, now)) return `receiver down (scenario ${run.scenario.name})`;
    }
    return null;
  };
}
