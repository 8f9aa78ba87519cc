import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { systemClock } from './clock.js';
import { ConfigError, isLoopbackHost, type Config } from './config.js';
import { buildCatalog } from './seed/catalog.js';
import { loggerOptions } from './logging.js';
import { createStore } from './store/index.js';
import { VERSION } from './version.js';

export interface Running {
  app: FastifyInstance;
  /** The API's base URL with the real port. */
  url: string;
  /** Scheme, host and port, without the base path. */
  origin: string;
  /** Stops accepting, finishes in-flight requests, flushes state. */
  close(): Promise<void>;
}

/** Builds every dependency from the config, listens, and prints the banner. */
export async function startServer(config: Config, print?: (line: string) => void): Promise<Running> {
  // A proxy's partner API is the upstream's: its own catalog only carries the routes' schemas.
  const catalog = await buildCatalog(config.upstream ? { ...config, catalogSize: 0, fixtures: null } : config);
  // The store speaks through the app's logger once there is one.
  let warn = (message: string) => console.warn(`mock-server: ${message}`);
  const store = await createStore(config.db, {
    // For benchmarks of compaction under load; not a flag, nobody else needs it.
    compactBytes: Number(process.env.MOCK_SERVER_COMPACT_BYTES) || undefined,
    warn: (message) => warn(message),
  });
  const app = await buildApp({ config, clock: systemClock(store.server().clock_offset_ms), catalog, store, logger: await loggerOptions(config) });
  warn = (message) => app.log.warn(message);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const hint = listenHint(err as NodeJS.ErrnoException, config);
    if (!hint) throw err;
    // The state file is released before the process exits 2 with the hint.
    await app.close().catch(() => undefined);
    throw new ConfigError(hint);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const origin = `http://${host}:${port}`;
  const url = `${origin}${config.basePath === '/' ? '' : config.basePath}`;
  const lines = [
    `mock-server ${VERSION} listening`,
    `  API           ${url}`,
    `  Swagger UI    ${origin}/docs`,
    `  dashboard     ${origin}/__admin/ui`,
    `  control API   ${origin}/__admin${config.adminToken ? ' (token required)' : isLoopbackHost(config.host) ? '' : ' (OPEN to anyone who can reach this address: set --admin-token)'}`,
    // Never the URL as given: it may hold the database password.
    store.kind === 'postgres' ? `  store         PostgreSQL ${store.location}` : `  state file    ${config.db}`,
    `  seed          ${config.seed} (${catalog.activities.length} activities)`,
    config.shared
      ? `  mode          shared: no public test clients; partners log in with clients registered by POST /__admin/clients`
      : `  sandbox login client_id sandbox-client, client_secret sandbox-secret`,
    `  webhook URL   ${webhookLine(app)}`,
    `  headers       ${config.headerPrefix}Application (required), ${config.headerPrefix}Currency, ${config.headerPrefix}Market, ${config.headerPrefix}Version`,
  ];
  if (config.upstream) {
    // The seed, login and webhook lines describe the mock's own API, which a proxy does not serve.
    lines.splice(6, 4, `  upstream      ${config.upstream} (every partner request is forwarded; answers checked against /docs)`);
    if (config.record) lines.push(`  recording     the upstream's catalog into ${config.record} (serve it with --fixtures ${config.record})`);
  }
  // On stdout in one write: a process that waits for the API line then reads the whole banner.
  if (print) for (const line of lines) print(line);
  else process.stdout.write(lines.map((l) => `${l}\n`).join(''));
  return { app, url, origin, close: () => closeGracefully(app) };
}

/** Where webhooks go, and why: the flag, or a receiver stored by the control API (flags win at start). */
function webhookLine(app: FastifyInstance): string {
  const { default: d, applications } = app.webhooks.receivers();
  const own = Object.keys(applications).length;
  const apps = own === 0 ? '' : `; ${own} application${own === 1 ? ' has its' : 's have their'} own (GET /__admin/webhooks/config)`;
  if (!d) return `none (set --webhook-url, or PUT /__admin/webhooks/config)${apps}`;
  const from = d.source === 'flag' ? 'from --webhook-url' : `stored by PUT /__admin/webhooks/config at ${d.set_at ?? 'an earlier run'}`;
  const signing = d.signing === 'none' ? 'unsigned' : d.signing === 'own' ? 'signed with its own secret' : 'signed with --webhook-secret';
  return `${d.url} (${from}, ${signing})${apps}`;
}

/** The one line for a listen error the user can fix (a port in use, a port or address not allowed); null for others. */
export function listenHint(err: NodeJS.ErrnoException, config: Pick<Config, 'port' | 'host'>): string | null {
  switch (err.code) {
    case 'EADDRINUSE':
      return `cannot listen: port ${config.port} is in use (try --port 0 for any free port, or another --port)`;
    case 'EACCES':
      return `cannot listen: port ${config.port} needs privileges on this machine (try a port above 1023, or --port 0)`;
    case 'EADDRNOTAVAIL':
      return `cannot listen: address ${config.host} is not one of this machine's (try --host 127.0.0.1, or 0.0.0.0 for every interface)`;
    default:
      return null;
  }
}

/** How long a stop waits for requests in flight before it closes their connections. */
export const STOP_GRACE_MS = 5_000;

/**
 * app.close() closes the idle keep-alive connections once, when it starts. A connection whose request
 * was still in flight goes idle later and would stay open for its keep-alive time (Fastify's 72 s),
 * holding the process up that long; so idle connections are closed as they appear until it is done.
 * Requests still unanswered after the grace time (a client that never reads, a body that never ends)
 * lose their connections: a stop stops. The dashboard's event streams end at once (a preClose hook).
 */
async function closeGracefully(app: FastifyInstance, graceMs = STOP_GRACE_MS): Promise<void> {
  const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}

/** SIGTERM/SIGINT: stop accepting, finish in-flight requests, flush state, exit 0. */
export function exitOnSignals(running: Running): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.app.log.info({ signal }, 'shutting down');
    running
      .close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        console.error(`mock-server: shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
