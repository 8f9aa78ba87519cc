import type { FastifyInstance } from 'fastify';
import type { Order } from '../booking/records.js';
import type { Delivery } from '../webhooks/index.js';
import type { Facts, HeaderTally } from './predicates.js';
import type { RunRecord } from './record.js';

/** The journal keeps this many requests of an application; a run is judged on those it still holds (and what it saved before). */
const JOURNAL_WINDOW = 1000;

/**
 * What the sandbox knows of a run's application since the run started, as the predicates read it:
 * the journal's requests, the orders it created and their items, their deliveries, the report's
 * findings seen again since, the run's header tally and its probe. Times are the application's clock.
 */
export async function gatherFacts(app: FastifyInstance, run: RunRecord, tally: HeaderTally): Promise<Omit<Facts, 'others'>> {
  const application = run.application;
  const tenant = app.store.tenant(application);
  const since = Date.parse(run.started_at);
  const base = app.config.basePath === '/' ? '' : app.config.basePath;
  // The journal writes server time; the application's own clock is ahead of it by its offset.
  const offset = tenant.clock_offset_ms;
  const entries = await app.journal.list(application, JOURNAL_WINDOW);
  const requests = entries
    .filter((e) => Date.parse(e.at) >= run.started_server_ms)
    .reverse()
    .map((e) => {
      const [path = '', query] = e.path.split('?');
      return { seq: e.id, req_id: e.req_id, method: e.method, path: path.startsWith(base) ? path.slice(base.length) || '/' : path, query: query !== undefined && query !== '', status: e.status, at: Date.parse(e.at) + offset };
    });
  const orders = (Object.values(tenant.orders) as unknown as Order[]).filter((o) => Date.parse(o.created_at) >= since);
  const items = orders.flatMap((o) =>
    o.items.map((x) => ({
      uuid: x.uuid, order_uuid: o.uuid, cart_uuid: o.cart_uuid, code: x.code, status: x.status, activity: x.activity_uuid,
      email: o.customer.email, pickup: x.pickup !== null && x.pickup !== undefined, order_items: o.items.length, at: Date.parse(o.created_at),
    })),
  );
  const deliveries = (Object.values(tenant.deliveries) as unknown as Delivery[])
    .filter((d) => Date.parse(d.created_at) >= since)
    .map((d) => ({ id: d.id, item: d.order_item_uuid, status: d.payload.order_item_status, version: d.order_item_version, answered: d.attempts.filter((a) => a.status_code === 200).map((a) => Date.parse(a.at)) }));
  const report = app.integrationReport?.get(application);
  const findings = (report?.findings ?? []).filter((f) => Date.parse(f.last.at) >= Math.min(since, run.started_server_ms)).map((f) => ({ id: f.id, severity: f.severity, req_id: f.last.reqId }));
  return { requests, items, deliveries, findings, headers: tally, probe: run.probe ? { id: run.probe.id, status: run.probe.status } : null };
}
