import type { FastifyInstance } from 'fastify';
import type { AttachSource } from '../booking/scenario-runner.js';
import type { Fault } from '../http/faults.js';
import { runningOf } from './record.js';
import { fill, type RequirementDef, type Suite } from './suite.js';

/**
 * What a run arranges for its application while it runs: the values of each requirement's setup
 * (some worked out from the catalog when it starts), its one fault, and its scenarios, which attach
 * to the application's items of the requirement's activity (and lead booker e-mail).
 */
export function resolveSetup(app: FastifyInstance, def: RequirementDef, now: Date): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const today = now.toISOString().slice(0, 10);
  for (const [key, v] of Object.entries(def.setup ?? {})) {
    if (typeof v !== 'object') values[key] = v;
    else values[key] = app.catalog.activityByUuid.get(v.unavailable_day)?.booking.unavailable_dates.filter((d) => d > today).sort()[0] ?? null;
  }
  return values;
}

/** Arms the suite's fault for the application (its first matching request answers it); null when the suite has none. */
export async function armFault(app: FastifyInstance, suite: Suite, application: string, setup: Record<string, Record<string, unknown>>): Promise<Fault | null> {
  const def = suite.requirements.find((d) => d.fault);
  if (!def?.fault) return null;
  const f = def.fault;
  return app.faults.add({ application, method: f.method, path: fill(f.path, setup[def.id] ?? {}), status: f.status, times: 1, delay_ms: 0, ...(f.retry_after_s ? { retry_after_s: f.retry_after_s } : {}) });
}

export function scenarioSource(app: FastifyInstance, suite: Suite): AttachSource {
  return (on, application, order, item) => {
    const run = runningOf(app.store.tenant(application));
    if (!run) return null;
    const def = suite.requirements.find((d) => {
      const s = run.setup[d.id] ?? {};
      const email = s.lead_booker_email;
      return d.scenario?.on === on && s.activity === item.activity_uuid && (email === undefined || String(email).toLowerCase() === order.customer.email.trim().toLowerCase());
    });
    return def?.scenario ?? null;
  };
}
