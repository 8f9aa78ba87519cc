/**
 * The package's programmatic API: `import { startMockServer } from 'partner-booking-mock-server'`
 * starts the mock in the test's own process, on a free port with state in memory, and gives its
 * URLs, a typed client of the control API and close().
 */
import { ConfigError as ConfigErrorClass, OPTIONS, loadConfig, nearest, type Config as ServerConfig } from './config.js';
import { createControlClient, type ControlClient } from './control-client.js';
import { startServer } from './server.js';

export * from './control-client.js';

// The published declarations stand alone: index.d.ts and control-client.d.ts only, no Node or
// Fastify types, so a project without @types/node (or with skipLibCheck off) compiles against them.

/**
 * Every setting of the CLI (docs/flags-and-config.md), by its camelCase name. Kept the
 * same as the server's Config by asPublished() below: a setting added there and not here fails the typecheck.
 */
export interface MockServerConfig {
  /** --port; 0 takes any free port. */
  port: number;
  /** --host, default 127.0.0.1. */
  host: string;
  /** --base-path, default /api/v3. */
  basePath: string;
  /** --seed: same seed, same catalog. */
  seed: number;
  /** --catalog-size: generated activities, added to the fixture ones (default 200). */
  catalogSize: number;
  /** --fixtures: a directory of fixture files merged over the built-in ones, or null. */
  fixtures: string | null;
  /** --scenarios: a directory of scenario files added to the built-in ones, or null. */
  scenarios: string | null;
  /** --db: the state file (lowdb JSON), 'memory', or a postgres:// URL (PostgreSQL, shared by instances). */
  db: string;
  /** --webhook-url: where Update order item webhooks go, or null. */
  webhookUrl: string | null;
  /** --webhook-secret: signs webhooks, or null. */
  webhookSecret: string | null;
  /** --header-prefix, default X-Service- (X-Service-Application, ...). */
  headerPrefix: string;
  /** --log-level: fatal, error, warn, info, debug, trace or silent. */
  logLevel: string;
  /** --log-format: 'pretty' or 'json'; null: pretty on a terminal, else json. */
  logFormat: 'pretty' | 'json' | null;
  /** --report: 'on' (default) observes partner requests for the integration report; 'off' does not. */
  report: 'on' | 'off';
  /** --admin-token: the control API then needs Authorization: Bearer <token> (health stays open). */
  adminToken: string | null;
  /** --shared: state only with a token bound to its application; no public test clients, partners log in with clients registered through POST /__admin/clients (needs adminToken). */
  shared: boolean;
  /** --rate-limit: with shared, partner requests per second per application (0: no limit; default 100). */
  rateLimit: number;
  /** --allow-private-receivers: with shared, receivers partners set may be loopback or private addresses. */
  allowPrivateReceivers: boolean;
  /** --state-limit: with shared, records one application may keep (0: no limit; default 50,000). */
  stateLimit: number;
  /** --upstream: a proxy to the real service's API base URL (the journal, report and dashboard watch the traffic), or null for the mock. */
  upstream: string | null;
  /** --record: with upstream, a directory the upstream's catalog answers are recorded into as fixture files, or null. */
  record: string | null;
  /** --certificate-key: an Ed25519 private key (PKCS#8 PEM file) that signs certification certificates; null: a key made when first needed, kept with the state. */
  certificateKey: string | null;
  /** --lease-ms: on PostgreSQL, how long an instance's claim on due work lasts without renewal (default 30,000). */
  leaseMs: number;
}

/** The server's settings (an alias of MockServerConfig). */
export type Config = MockServerConfig;

/** A bad option, fixture or scenario file, or a port that cannot be used; the message says which, in one line. */
export interface ConfigError extends Error {
  readonly userFacing: true;
}
/** The class of the errors startMockServer rejects with for a bad option: `err instanceof ConfigError`. */
export const ConfigError: { new (message: string): ConfigError; readonly prototype: ConfigError } = ConfigErrorClass;

/**
 * Any setting the CLI takes, by its Config name (`port`, `basePath`, `catalogSize`, `webhookUrl`,
 * `adminToken`, ...), checked as the CLI checks it. The defaults differ from the CLI's where a test
 * wants them to: `port: 0` (a free port), `db: 'memory'`, `logLevel: 'silent'`. Environment
 * variables (MOCK_SERVER_*) are not read: what is not given here has its default.
 */
export interface MockServerOptions extends Partial<MockServerConfig> {
  /** Print the start-up banner: true prints it with console.log, a function gets each line. Default: nothing printed. */
  banner?: boolean | ((line: string) => void);
}

export interface MockServer {
  /** Scheme, host and port: `http://127.0.0.1:54321`. */
  url: string;
  /** The partner API's base URL: url + base path, `http://127.0.0.1:54321/api/v3`. */
  apiUrl: string;
  /** The control API: url + `/__admin`. */
  controlUrl: string;
  /** The port listened on (the one picked when `port` was 0). */
  port: number;
  /** The settings the server runs with. */
  config: Readonly<MockServerConfig>;
  /** A client of the control API (sends the admin token when the server has one). */
  control: ControlClient;
  /** Stops accepting, finishes in-flight requests, flushes state; calling it again waits for the same close. */
  close(): Promise<void>;
}

/** What differs from the CLI's defaults: a test wants a free port, no state file and quiet logs. */
const PROGRAMMATIC_DEFAULTS: Partial<MockServerConfig> = { port: 0, db: 'memory', logLevel: 'silent' };

/** The options as CLI flags, so they go through the CLI's own checks and messages. */
function toConfig(options: MockServerOptions): Readonly<ServerConfig> {
  const given: MockServerOptions = { ...options };
  delete given.banner;
  const settings: Record<string, unknown> = { ...PROGRAMMATIC_DEFAULTS };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) settings[key] = value;
  // An upstream makes the server a proxy: the CLI's `mock-server proxy`.
  const argv: string[] = typeof settings.upstream === 'string' ? ['proxy'] : [];
  for (const [key, value] of Object.entries(settings)) {
    const o = OPTIONS.find((x) => x.key === key);
    if (!o) {
      const near = nearest(key, OPTIONS.map((x) => x.key));
      throw new ConfigErrorClass(`startMockServer: unknown option "${key}"${near.length ? ` (did you mean "${near[0]}"?)` : ''}`);
    }
    // Every setting that may be null is null by default: null asks for the default.
    if (value === null) continue;
    argv.push(`--${o.flag}=${typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value)}`);
  }
  try {
    return loadConfig(argv, {}).config;
  } catch (e) {
    if (!(e instanceof ConfigErrorClass)) throw e;
    // The CLI's message names the flag (--catalog-size: ...); here the option's name is what the caller wrote.
    const message = e.message.replace(/^(?:--)?([a-z][a-z-]*)(?=:)/, (flag, name: string) => OPTIONS.find((x) => x.flag === name)?.key ?? flag);
    throw new ConfigErrorClass(`startMockServer: ${message}`);
  }
}

/** The server's Config as the published MockServerConfig; both assignments fail to compile when the two drift apart. */
function asPublished(config: Readonly<ServerConfig>): Readonly<MockServerConfig> {
  const published: Readonly<MockServerConfig> = config;
  const back: Readonly<ServerConfig> = published;
  return back;
}

/** A loopback address for an address that means "every interface", which a client cannot connect to. */
function connectableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Starts the mock server in this process. Rejects with a ConfigError for a bad option or a port
 * that cannot be used.
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const config = toConfig(options);
  const print = options.banner === true ? (line: string) => console.log(line) : typeof options.banner === 'function' ? options.banner : () => undefined;
  const running = await startServer(config, print);
  const published = asPublished(config);
  const address = running.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${connectableHost(config.host)}:${port}`;
  const controlUrl = `${url}/__admin`;
  let closing: Promise<void> | null = null;
  return {
    url,
    apiUrl: `${url}${config.basePath === '/' ? '' : config.basePath}`,
    controlUrl,
    port,
    config: published,
    control: createControlClient(controlUrl, { adminToken: config.adminToken }),
    close: () => (closing ??= running.close()),
  };
}
