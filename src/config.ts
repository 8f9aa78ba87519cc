import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isIPv4, isIPv6 } from 'node:net';
import { parseArgs } from 'node:util';
import { commandFlags, ConfigError, type CertifyFlags, type CheckFlags, type Command, type DriftFlags, type ReportFlags } from './cli-flags.js';
import { builtinScenariosDir } from './paths.js';
import { webhookUrlProblem } from './webhooks/url.js';

/**
 * One frozen, validated Config built from flags, env and a config file (INTERFACE.md section 1).
 * Precedence: flags win over env, env over the config file, the file over the defaults.
 */
export interface Config {
  port: number;
  host: string;
  basePath: string;
  seed: number;
  catalogSize: number;
  /** Extra fixture directory merged over the built-in fixtures/, or null. */
  fixtures: string | null;
  /** Extra scenario directory, or null. */
  scenarios: string | null;
  /** lowdb JSON file for mutable state, 'memory', or a postgres:// URL (several instances share it). */
  db: string;
  webhookUrl: string | null;
  webhookSecret: string | null;
  /** Vendor header prefix, e.g. 'X-Service-' makes X-Service-Application. */
  headerPrefix: string;
  logLevel: string;
  /** 'pretty' (one coloured line per event) or 'json' (pino JSON lines); null: pretty when stdout is a terminal, else json. */
  logFormat: LogFormat | null;
  /** on: the integration report observes every partner request (GET /__admin/report); off: nothing is observed. */
  report: 'on' | 'off';
  /** When set, every /__admin route but GET /__admin/health needs `Authorization: Bearer <adminToken>`. */
  adminToken: string | null;
  /**
   * A sandbox shared by several teams or partners: every request that touches an application's state
   * needs a token bound to it, the public test clients are off (partners log in with clients registered
   * through POST /__admin/clients), limits are charged to who asked. Needs adminToken.
   */
  shared: boolean;
  /** With `shared`: partner requests per second per application, and per source address without a token (0: no limit). */
  rateLimit: number;
  /** With `shared`: receivers partners set may be loopback or private addresses (a private deployment). */
  allowPrivateReceivers: boolean;
  /** With `shared`: records (carts, orders, deliveries, scenario runs, tokens) one application may keep (0: no limit). */
  stateLimit: number;
  /** proxy and drift: the real service's API base URL (scheme, host and its base path), or null. */
  upstream: string | null;
  /** proxy: a directory the upstream's catalog answers are recorded into as fixture files, or null. */
  record: string | null;
  /** An Ed25519 private key (PKCS#8 PEM) certificates are signed with; null: the key kept with the state. */
  certificateKey: string | null;
  /** On PostgreSQL: how long a claim on due work stays an instance's without being renewed (ms). */
  leaseMs: number;
}

export const defaults: Readonly<Config> = Object.freeze({
  port: 8080,
  host: '127.0.0.1',
  basePath: '/api/v3',
  seed: 1,
  catalogSize: 200,
  fixtures: null,
  scenarios: null,
  db: '.mock-server/state.json',
  webhookUrl: null,
  webhookSecret: null,
  headerPrefix: 'X-Service-',
  logLevel: 'info',
  logFormat: null,
  report: 'on',
  adminToken: null,
  shared: false,
  rateLimit: 100,
  allowPrivateReceivers: false,
  stateLimit: 50_000,
  upstream: null,
  record: null,
  certificateKey: null,
  leaseMs: 30_000,
});

export type LogFormat = 'pretty' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

export { ConfigError };

type Kind = 'int' | 'string' | 'url' | 'level' | 'token' | 'choice' | 'bool';
interface Option {
  key: keyof Config;
  flag: string;
  env: string[];
  kind: Kind;
  help: string;
  /** What --help shows after the flag, e.g. DIR in `--fixtures DIR`. */
  arg: string;
  min?: number;
  max?: number;
  nullable?: boolean;
  /** kind 'choice': the values allowed. */
  choices?: readonly string[];
  /** What --help shows as the default when it is not simply the value in `defaults`. */
  defaultText?: string;
}

/** Every setting with its flag and env vars, in INTERFACE.md's order: the one table --help prints. */
export const OPTIONS: readonly Option[] = [
  { key: 'port', flag: 'port', arg: 'N', env: ['MOCK_SERVER_PORT', 'PORT'], kind: 'int', min: 0, max: 65535, help: 'listen port (0 = any free port)' },
  { key: 'host', flag: 'host', arg: 'ADDR', env: ['MOCK_SERVER_HOST'], kind: 'string', help: 'listen address (the container uses 0.0.0.0)' },
  { key: 'basePath', flag: 'base-path', arg: 'PATH', env: ['MOCK_SERVER_BASE_PATH'], kind: 'string', help: 'prefix of every API path' },
  { key: 'seed', flag: 'seed', arg: 'N', env: ['MOCK_SERVER_SEED'], kind: 'int', min: 0, max: 2 ** 31 - 1, help: 'same seed, same catalog' },
  { key: 'catalogSize', flag: 'catalog-size', arg: 'N', env: ['MOCK_SERVER_CATALOG_SIZE'], kind: 'int', min: 0, max: 100000, help: 'generated activities, added to the fixture ones' },
  { key: 'fixtures', flag: 'fixtures', arg: 'DIR', env: ['MOCK_SERVER_FIXTURES'], kind: 'string', nullable: true, help: 'directory of fixture files merged over the built-in fixtures/' },
  { key: 'scenarios', flag: 'scenarios', arg: 'DIR', env: ['MOCK_SERVER_SCENARIOS'], kind: 'string', nullable: true, help: 'directory of scenario files added to the built-in scenarios/' },
  { key: 'db', flag: 'db', arg: 'FILE', env: ['MOCK_SERVER_DB'], kind: 'string', help: "state file (lowdb JSON), 'memory', or postgres://user:pass@host:port/db (PostgreSQL, shared by instances)" },
  { key: 'webhookUrl', flag: 'webhook-url', arg: 'URL', env: ['MOCK_SERVER_WEBHOOK_URL'], kind: 'url', nullable: true, help: 'where Update order item webhooks go' },
  { key: 'webhookSecret', flag: 'webhook-secret', arg: 'S', env: ['MOCK_SERVER_WEBHOOK_SECRET'], kind: 'string', nullable: true, help: 'signs webhooks' },
  { key: 'headerPrefix', flag: 'header-prefix', arg: 'P', env: ['MOCK_SERVER_HEADER_PREFIX'], kind: 'string', help: 'vendor header prefix (X-Acme- reads X-Acme-Application, ...)' },
  { key: 'logLevel', flag: 'log-level', arg: 'LEVEL', env: ['MOCK_SERVER_LOG_LEVEL'], kind: 'level', help: 'pino level: fatal, error, warn, info, debug, trace, silent' },
  { key: 'report', flag: 'report', arg: 'on|off', env: ['MOCK_SERVER_REPORT'], kind: 'choice', choices: ['on', 'off'], help: 'the integration report observes partner requests (GET /__admin/report)' },
  { key: 'logFormat', flag: 'log-format', arg: 'FORMAT', env: ['MOCK_SERVER_LOG_FORMAT'], kind: 'choice', choices: LOG_FORMATS, nullable: true, defaultText: 'pretty on a terminal, else json', help: 'pretty (one readable line per event) or json (JSON lines)' },
  { key: 'adminToken', flag: 'admin-token', arg: 'T', env: ['MOCK_SERVER_ADMIN_TOKEN'], kind: 'token', nullable: true, help: 'control API (/__admin) needs Authorization: Bearer T (health stays open)' },
  { key: 'shared', flag: 'shared', arg: '', env: ['MOCK_SERVER_SHARED'], kind: 'bool', help: 'a sandbox shared by partners: state only with a token bound to its application, no public test clients, partners registered with POST /__admin/clients (needs --admin-token)' },
  { key: 'stateLimit', flag: 'state-limit', arg: 'N', env: ['MOCK_SERVER_STATE_LIMIT'], kind: 'int', min: 0, max: 100_000_000, help: 'with --shared: records (carts, orders, deliveries, scenario runs, tokens) one application may keep, past it writes get 429 (0 = no limit)' },
  { key: 'allowPrivateReceivers', flag: 'allow-private-receivers', arg: '', env: ['MOCK_SERVER_ALLOW_PRIVATE_RECEIVERS'], kind: 'bool', help: 'with --shared: receivers partners set may be loopback or private addresses (a private deployment)' },
  { key: 'upstream', flag: 'upstream', arg: 'URL', env: ['MOCK_SERVER_UPSTREAM'], kind: 'string', nullable: true, help: 'proxy and drift: the real service\'s API base URL, e.g. https://sandbox.example.com/api/v3' },
  { key: 'record', flag: 'record', arg: 'DIR', env: ['MOCK_SERVER_RECORD'], kind: 'string', nullable: true, help: 'proxy: record the catalog the upstream answers as fixture files in DIR (serve them with --fixtures DIR)' },
  { key: 'certificateKey', flag: 'certificate-key', arg: 'FILE', env: ['MOCK_SERVER_CERTIFICATE_KEY'], kind: 'string', nullable: true, defaultText: 'a key made when first needed, kept with the state', help: 'Ed25519 private key (PKCS#8 PEM) that signs certification certificates' },
  { key: 'rateLimit', flag: 'rate-limit', arg: 'N', env: ['MOCK_SERVER_RATE_LIMIT'], kind: 'int', min: 0, max: 1_000_000, help: 'with --shared: partner requests per second per application (and per address without a token), past it 429 (0 = no limit)' },
  { key: 'leaseMs', flag: 'lease-ms', arg: 'MS', env: ['MOCK_SERVER_LEASE_MS'], kind: 'int', min: 100, max: 3_600_000, help: 'on PostgreSQL: how long an instance\'s claim on due work (a webhook attempt, a scenario step) lasts without renewal; the work of an instance that died or froze moves to another after it' },
];

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function coerce(o: Option, raw: unknown, where: string): Config[keyof Config] {
  if (raw === null && o.nullable) return null;
  if (o.kind === 'bool') {
    if (typeof raw === 'boolean') return raw;
    const v = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (TRUE.includes(v)) return true;
    if (FALSE.includes(v)) return false;
    throw new ConfigError(`${where}: expected true or false, got ${JSON.stringify(raw)}`);
  }
  const s = typeof raw === 'number' && o.kind === 'int' ? String(raw) : raw;
  if (typeof s !== 'string') throw new ConfigError(`${where}: expected ${o.kind === 'int' ? 'an integer' : 'a string'}, got ${JSON.stringify(raw)}`);
  switch (o.kind) {
    case 'int': {
      if (!/^-?\d+$/.test(s.trim())) throw new ConfigError(`${where}: "${s}" is not an integer`);
      const n = Number(s);
      if ((o.min !== undefined && n < o.min) || (o.max !== undefined && n > o.max)) {
        throw new ConfigError(`${where}: ${n} is out of range ${o.min}..${o.max}`);
      }
      return n;
    }
    case 'url': {
      const problem = webhookUrlProblem(s);
      if (problem) throw new ConfigError(`${where}: ${problem}`);
      return s;
    }
    case 'level':
      if (!LEVELS.includes(s)) throw new ConfigError(`${where}: "${s}" is not one of ${LEVELS.join(', ')}`);
      return s;
    case 'choice':
      if (!o.choices?.includes(s)) throw new ConfigError(`${where}: "${s}" is not one of ${o.choices?.join(', ')}`);
      return s;
    case 'token':
      // A secret: the message never shows the value.
      if (!/^[\x21-\x7e]+$/.test(s)) throw new ConfigError(`${where}: must be printable ASCII without spaces (it is sent as Authorization: Bearer <token>)`);
      return s;
    default:
      if (s.trim() === '') throw new ConfigError(`${where}: must not be empty`);
      return s;
  }
}

/** Rules that involve the value itself beyond its type. */
function check(c: Config): Config {
  if (!c.basePath.startsWith('/')) throw new ConfigError(`base-path: "${c.basePath}" must start with /`);
  if (c.basePath.length > 1 && c.basePath.endsWith('/')) c.basePath = c.basePath.replace(/\/+$/, '');
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(c.headerPrefix)) throw new ConfigError(`header-prefix: "${c.headerPrefix}" must be letters, digits and dashes, e.g. X-Service-`);
  if (c.shared && c.adminToken === null) throw new ConfigError('shared: a shared sandbox needs --admin-token (else anyone who reaches it could register partners and read every application)');
  if (c.upstream !== null) {
    const problem = upstreamProblem(c.upstream);
    if (problem) throw new ConfigError(`upstream: ${problem}`);
    c.upstream = c.upstream.replace(/\/+$/, '');
  }
  return c;
}

/** Why an upstream URL cannot be used, or null: an http(s) URL without credentials, query or fragment. */
export function upstreamProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw.slice(0, 100)}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${raw.slice(0, 100)}" must be an http or https URL`;
  // Not echoed: the value holds a password. The partner's own Authorization is what reaches the upstream.
  if (url.username !== '' || url.password !== '') return 'must not carry user:password credentials (the partner\'s own Authorization header is forwarded)';
  if (url.search !== '' || url.hash !== '') return `"${raw.slice(0, 100)}" must be a base URL, without ?query or #fragment`;
  return null;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`config file ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${file}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ConfigError(`config file ${file}: must hold a JSON object`);
  return data as Record<string, unknown>;
}

/**
 * Whether a listen address only accepts connections from this machine: 127.0.0.0/8, ::1 and
 * localhost (an IPv4-mapped ::ffff:127.x too). 0.0.0.0, :: and any other address are reachable from outside.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (!isIPv6(h)) return false;
  // The URL parser writes an IPv6 address in its one short form: 0:0:0:0:0:0:0:1 is ::1, ::ffff:127.0.0.1 is ::ffff:7f00:1.
  let short: string;
  try {
    short = new URL(`http://[${h}]/`).hostname.slice(1, -1);
  } catch {
    return false;
  }
  return short === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(short);
}

/** What the command line asked for besides settings. */
export interface Invocation {
  command: Command;
  /** Positional arguments after the command (replay files). */
  args: string[];
  /** replay --url: a running server to play against (else one is started in-process); webhooks check --url: the receiver. */
  url: string | null;
  /** The flags of `webhooks check`, `report` and `drift`. */
  check: CheckFlags;
  report: ReportFlags;
  drift: DriftFlags;
  certify: CertifyFlags;
  config: Config;
}

/**
 * Edit distance with adjacent transpositions counted as one edit (optimal string alignment), so
 * --prot is one edit from --port.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known names a mistyped one probably meant, best first: the closest within a few edits (one
 * for short names, up to three for long ones), else the names it is the start of (--catalog).
 * Empty when nothing is close.
 */
export function nearest(name: string, known: readonly string[]): string[] {
  const n = name.toLowerCase();
  const names = [...new Set(known)];
  const limit = n.length <= 3 ? 1 : n.length <= 6 ? 2 : 3;
  let best = Infinity;
  let found: string[] = [];
  for (const k of names) {
    // Never fewer edits than the lengths differ by: a client's 100 KB field name costs nothing.
    if (Math.abs(n.length - k.length) > limit) continue;
    const dist = editDistance(n, k.toLowerCase());
    if (dist > limit || dist > best) continue;
    if (dist < best) found = [];
    best = dist;
    found.push(k);
  }
  if (found.length) return found;
  return n.length >= 3 ? names.filter((k) => k.toLowerCase().startsWith(n)) : [];
}

/** parseArgs' message, first line only; an unknown flag names the nearest known one. */
function argumentProblem(e: Error & { code?: string }, flags: string[]): string {
  const unknown = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '(-{1,2})([^'=]*)/.exec(e.message) : null;
  if (!unknown) return e.message.split('\n')[0] ?? 'bad arguments';
  const [, dashes, name] = unknown as unknown as [string, string, string];
  const near = nearest(name, flags).map((f) => `--${f}`);
  const hint = near.length === 0 ? 'try --help' : `did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`}?`;
  return `unknown option ${dashes}${name} (${hint})`;
}

/** Flags win over env, env over the config file, the file over the defaults. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Invocation {
  const options: Record<string, { type: 'string' | 'boolean' }> = {
    config: { type: 'string' }, help: { type: 'boolean' }, version: { type: 'boolean' }, url: { type: 'string' },
    secret: { type: 'string' }, basic: { type: 'string' }, format: { type: 'string' }, application: { type: 'string' }, 'fail-on': { type: 'string' },
    builtin: { type: 'boolean' }, 'allow-writes': { type: 'boolean' }, timeout: { type: 'string' }, out: { type: 'string' }, token: { type: 'string' }, jwks: { type: 'string' },
  };
  for (const o of OPTIONS) options[o.flag] = { type: o.kind === 'bool' ? 'boolean' : 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new ConfigError(argumentProblem(e as Error & { code?: string }, Object.keys(options)));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const [first, ...rest] = parsed.positionals;
  let command: Invocation['command'] = 'serve';
  if (first === 'replay') command = 'replay';
  else if (first === 'webhooks' && rest[0] === 'check' && rest.length === 1) command = 'webhooks-check';
  else if (first === 'report' && rest.length === 0) command = 'report';
  else if ((first === 'proxy' || first === 'drift') && rest.length === 0) command = first;
  else if (first === 'certify' && rest.length === 0) command = 'certify';
  else if (first === 'certify' && rest[0] === 'verify' && rest.length === 2) command = 'certify-verify';
  else if (first === 'certify') throw new ConfigError('certify takes --application APP, or one subcommand: mock-server certify verify FILE');
  else if (first === 'webhooks') throw new ConfigError('webhooks takes one subcommand: mock-server webhooks check --url URL');
  else if (first !== undefined) throw new ConfigError(`unknown command "${first}" (try --help)`);
  if (values.help) command = 'help';
  else if (values.version) command = 'version';

  const config: Config = { ...defaults };
  const set = (o: Option, raw: unknown, where: string) => {
    (config as unknown as Record<string, unknown>)[o.key] = coerce(o, raw, where);
  };
  const file = (values.config as string | undefined) ?? env.MOCK_SERVER_CONFIG;
  if (file) {
    const data = readConfigFile(file);
    for (const [k, v] of Object.entries(data)) {
      const o = OPTIONS.find((x) => x.key === k || x.flag === k);
      if (!o) {
        const near = nearest(k, OPTIONS.flatMap((x) => [x.key, x.flag]));
        throw new ConfigError(`config file ${file}: unknown key "${k}"${near.length ? ` (did you mean "${near[0]}"?)` : ''}`);
      }
      set(o, v, `config file ${file}: ${k}`);
    }
  }
  for (const o of OPTIONS) {
    const name = o.env.find((e) => env[e] !== undefined && env[e] !== '');
    if (name) set(o, env[name], name);
  }
  for (const o of OPTIONS) {
    const v = values[o.flag];
    if (v !== undefined) set(o, v, `--${o.flag}`);
  }
  const url = typeof values.url === 'string' ? values.url : null;
  if (url !== null && !['replay', 'webhooks-check', 'report', 'drift', 'certify', 'certify-verify'].includes(command)) throw new ConfigError('--url goes with the replay, webhooks check, report, drift and certify commands');
  if (values.builtin && command !== 'replay') throw new ConfigError('--builtin goes with the replay command');
  const files = command === 'certify-verify' ? rest.slice(1) : command !== 'replay' ? [] : values.builtin ? builtinReplays(rest) : rest;
  if (command === 'replay' && files.length === 0) throw new ConfigError('replay needs at least one file (or --builtin for the shipped ones)');
  const checked = Object.freeze(upstreamRules(command, check(config)));
  return { command, args: files, url, ...commandFlags(command, url, values), config: checked };
}

/** --upstream is what proxy and drift need, and only they take it (from any source); --record is the proxy's. */
function upstreamRules(command: Command, c: Config): Config {
  if (command === 'help' || command === 'version') return c;
  if ((command === 'proxy' || command === 'drift') && c.upstream === null) throw new ConfigError(`${command} needs --upstream URL: the real service's API base URL, e.g. https://sandbox.example.com/api/v3`);
  if (command !== 'proxy' && command !== 'drift' && c.upstream !== null) throw new ConfigError('upstream goes with the proxy and drift commands (mock-server proxy --upstream URL)');
  if (command !== 'proxy' && c.record !== null) throw new ConfigError('record goes with the proxy command (mock-server proxy --upstream URL --record DIR)');
  return c;
}

/** The shipped replay files (scenarios/replays in the package): all of them, or those named (without .yaml). */
export function builtinReplays(names: string[]): string[] {
  const dir = join(builtinScenariosDir, 'replays');
  const shipped = readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length)).sort();
  if (names.length === 0) return shipped.map((n) => join(dir, `${n}.yaml`));
  return names.map((name) => {
    const n = name.replace(/\.yaml$/, '');
    if (!shipped.includes(n)) throw new ConfigError(`replay --builtin: no shipped replay "${name.slice(0, 100)}" (one of ${shipped.join(', ')})`);
    return join(dir, `${n}.yaml`);
  });
}

/** The --help text, generated from OPTIONS so it cannot drift from the parser. */
export function usage(): string {
  const col = (s: string) => s.padEnd(22);
  const rows = OPTIONS.map((o) => {
    const def = o.defaultText ?? (defaults[o.key] === null ? 'none' : String(defaults[o.key]));
    return `  ${col(`--${o.flag}${o.arg ? ` ${o.arg}` : ''}`)} ${o.help}\n  ${col('')} env ${o.env.join(', then ')}; default ${def}`;
  });
  return [
    'Usage: mock-server [options]                     start the mock Partner API',
    '       mock-server replay FILE... [--url URL]    play replay files (against URL, else an own server)',
    '       mock-server replay --builtin [NAME...]    play the shipped replay files (all, or those named), from any directory',
    '       mock-server webhooks check --url URL [--secret S] [--basic user:pass] [--format text|json|junit]',
    '                                                 check a webhook receiver (signatures, redelivery, order)',
    '       mock-server report [--url URL] [--application A] [--format text|json|junit|markdown] [--fail-on error|warning|never]',
    '                                                 the integration report of a running server (default URL http://127.0.0.1:8080)',
    '       mock-server proxy --upstream URL [--record DIR] [options]',
    '                                                 forward the partner API to the real service, with the journal, report and dashboard',
    '       mock-server drift --upstream URL [--url URL] [--application A] [--format text|json|junit] [--allow-writes]',
    '                                                 compare the shapes of the real service\'s answers with the mock\'s (default: an own mock)',
    '       mock-server certify --application A [--url URL] [--token T] [--format text|json|junit] [--timeout S] [--out FILE]',
    '                                                 run the certification suite, print its checklist live, write the certificate when all passed',
    '       mock-server certify verify FILE [--url URL | --jwks FILE]',
    '                                                 check a certificate against a sandbox\'s keys (exit 0 valid, 1 edited, expired or foreign)',
    '',
    'Options (flags win over env, env over the --config file, the file over the defaults):',
    ...rows,
    `  ${col('--config FILE')} JSON file with any of the settings above (keys as flags or camelCase)`,
    `  ${col('')} env MOCK_SERVER_CONFIG; default none`,
    `  ${col('--help')} this text`,
    `  ${col('--version')} the version`,
    '',
    'Exit codes: 0 stopped by SIGTERM/SIGINT (or replay passed, no drift, certified, a valid certificate), 1 replay failed, drift found,',
    'not certified, an invalid certificate or unexpected error,',
    '2 bad flag, env value, config, fixture or scenario file, or the port cannot be used.',
  ].join('\n');
}
