import { ControlApiError, createControlClient, type IntegrationReport } from '../control-client.js';

/** A report that could not be had: bad input for the CLI (exit 2, one line). */
export class ReportUnavailable extends Error {
  readonly userFacing = true;
}

/** GET <origin>/__admin/report from a running server (mock-server report). */
export async function fetchReport(origin: string, application: string | null, adminToken: string | null): Promise<IntegrationReport> {
  const control = createControlClient(`${origin.replace(/\/+$/, '')}/__admin`, { adminToken });
  try {
    return await control.report(application ?? undefined);
  } catch (e) {
    if (!(e instanceof ControlApiError)) {
      const cause = ((e as { cause?: { cause?: { code?: string } } }).cause?.cause?.code);
      throw new ReportUnavailable(`nothing answers at ${origin}${cause ? ` (${cause})` : ''}: start the server, or give its origin with --url`);
    }
    if (e.status === 404) throw new ReportUnavailable(`${origin} has no /__admin/report: is it a mock-server's origin, such as http://127.0.0.1:8080?`);
    const b = e.body as { message?: unknown };
    throw new ReportUnavailable(`${origin} answered ${e.status}: ${String(typeof b === 'object' && b !== null ? b.message : e.body).slice(0, 200)}`);
  }
}
