// A typecheck guard, not a tap test: `npm run typecheck` (run by .ci/run) fails when the control
// client's written-out types (the published declarations stand alone, without Node or Fastify types)
// drift from the server's: a field gained, lost or changed on either side.
import type { JournalEntry as ServerJournalEntry, JournalDetail as ServerJournalDetail } from '../../src/admin/journal.js';
import type { Fault as ServerFault } from '../../src/http/faults.js';
import type { UpdateOrderItemPayload } from '../../src/webhooks/payload.js';
import type { DeliveryAttempt as ServerAttempt } from '../../src/webhooks/delivery.js';
import type { DeliveryView } from '../../src/webhooks/waiting.js';
import type { Report } from '../../src/report/index.js';
import type { ReceiverSource } from '../../src/webhooks/targets.js';
import type { ListedClient, Registration } from '../../src/auth/registry.js';
import type { DeliveryAttempt, Fault, IntegrationReport, JournalDetail, JournalEntry, WebhookDelivery, WebhookPayload, WebhookTargetInfo, RegisteredClientInfo, ClientRegistration } from '../../src/index.js';

/** true only when A and B are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const inSync: [
  Same<JournalEntry, ServerJournalEntry>,
  Same<JournalDetail, ServerJournalDetail>,
  Same<Fault, ServerFault>,
  Same<WebhookPayload, UpdateOrderItemPayload>,
  Same<DeliveryAttempt, ServerAttempt>,
  Same<WebhookDelivery, DeliveryView>,
  Same<WebhookTargetInfo, ReceiverSource>,
  Same<RegisteredClientInfo, ListedClient>,
  Same<ClientRegistration, Registration>,
  // The server's report is narrower (its ids and step names are unions): it must fit the published one.
  Report extends IntegrationReport ? true : false,
] = [true, true, true, true, true, true, true, true, true, true];
