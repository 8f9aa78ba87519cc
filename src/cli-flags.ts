import { CHECK_FORMATS, type CheckFormat } from './webhooks/check-format.js';
import { webhookUrlProblem } from './webhooks/url.js';
import { ORDER_ITEM_STATUSES, parseStatuses } from './lifecycle/order-item-status.js';
import { OVERRIDES, type Override } from './trigger/events.js';

/** A mistake in flags, env or config file: the CLI prints its one-line message and exits 2. */
export class ConfigError extends Error {
  readonly userFacing = true;
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Command = 'serve' | 'help' | 'version' | 'replay' | 'webhooks-check' | 'report' | 'proxy' | 'drift' | 'certify' | 'certify-verify' | 'listen' | 'trigger';

export interface CheckFlags {
  secret: string | null;
  basic: string | null;
  format: CheckFormat;
}

export const REPORT_FORMATS = ['text', 'json', 'junit', 'markdown'] as const;
export const FAIL_ON = ['error', 'warning', 'never'] as const;

export interface ReportFlags {
  application: string | null;
  format: (typeof REPORT_FORMATS)[number];
  failOn: (typeof FAIL_ON)[number];
}

export const DRIFT_FORMATS = ['text', 'json', 'junit'] as const;

export interface DriftFlags {
  /** The application header sent to both sides. */
  application: string;
  format: (typeof DRIFT_FORMATS)[number];
  /** Also create a cart and add an item on both sides (a booking up to the cart). */
  allowWrites: boolean;
}

export const CERTIFY_FORMATS = ['text', 'json', 'junit'] as const;

export interface CertifyFlags {
  application: string | null;
  format: (typeof CERTIFY_FORMATS)[number];
  /** Stop (exit 1) when the run has not passed after this long; null: wait until stopped. */
  timeoutMs: number | null;
  /** Where the certificate is written; null: certificate-<application>.jwt. */
  out: string | null;
  /** The control API's bearer: the admin token, or the partner's own access token. */
  token: string | null;
  /** certify verify: the keys as a JWK set file, instead of asking --url. */
  jwks: string | null;
}


/** A partner's credentials, as listen and trigger take them (none: the built-in sandbox client). */
export interface PartnerFlags {
  application: string | null;
  clientId: string | null;
  clientSecret: string | null;
  token: string | null;
}

export const LISTEN_FORMATS = ['text', 'json'] as const;

export interface ListenFlags extends PartnerFlags {
  /** The local receiver; null with --print-secret. */
  forwardTo: string | null;
  /** Only these statuses (upper case); null: all. */
  events: string[] | null;
  format: (typeof LISTEN_FORMATS)[number];
  printSecret: boolean;
}

export interface TriggerFlags extends PartnerFlags {
  /** null with --list. */
  event: string | null;
  list: boolean;
  item: string | null;
  overrides: Partial<Record<Override, string>>;
}

type Values = Record<string, string | boolean | string[] | undefined>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const oneOf = <T extends string>(flag: string, value: string | null, allowed: readonly T[], fallback: T): T => {
  if (value === null) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(`--${flag}: "${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
};

/** The flags of `webhooks check`, `report`, `drift`, `certify`, `listen` and `trigger`, each refused with any other command. */
export function commandFlags(command: Command, url: string | null, values: Values, args: string[] = []): { check: CheckFlags; report: ReportFlags; drift: DriftFlags; certify: CertifyFlags; listen: ListenFlags; trigger: TriggerFlags } {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : null);
  const partner: Command[] = ['listen', 'trigger'];
  const owners: Record<string, Command[]> = {
    secret: ['webhooks-check'], basic: ['webhooks-check'], format: ['webhooks-check', 'report', 'drift', 'certify', 'listen'], application: ['report', 'drift', 'certify', ...partner], 'fail-on': ['report'], 'allow-writes': ['drift'],
    timeout: ['certify'], out: ['certify'], token: ['certify', ...partner], jwks: ['certify-verify'],
    'forward-to': ['listen'], events: ['listen'], 'print-secret': ['listen'], 'client-id': partner, 'client-secret': partner, item: ['trigger'], override: ['trigger'], list: ['trigger'],
  };
  for (const [flag, commands] of Object.entries(owners)) {
    if (values[flag] !== undefined && !commands.includes(command)) {
      const names = commands.map((c) => c.replace('-', ' '));
      const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
      throw new ConfigError(`--${flag} goes with the ${list} command${commands.length > 1 ? 's' : ''}`);
    }
  }
  const check: CheckFlags = { secret: null, basic: null, format: 'text' };
  const report: ReportFlags = { application: null, format: 'text', failOn: 'error' };
  const drift: DriftFlags = { application: 'mock-server-drift', format: 'text', allowWrites: false };
  const certify: CertifyFlags = { application: null, format: 'text', timeoutMs: null, out: null, token: null, jwks: null };
  if (command === 'webhooks-check') {
    if (url === null) throw new ConfigError('webhooks check needs --url: the receiver to check');
    const problem = webhookUrlProblem(url);
    if (problem) throw new ConfigError(`--url: ${problem}`);
    const [secret, basic] = [str('secret'), str('basic')];
    if (secret === '') throw new ConfigError('--secret: must not be empty');
    if (basic !== null && !/^[^:]+:.+$/.test(basic)) throw new ConfigError('--basic: expected user:password');
    Object.assign(check, { secret, basic, format: oneOf('format', str('format'), CHECK_FORMATS, 'text') });
  }
  if (command === 'report') {
    if (url !== null && !/^https?:\/\/[^/]/.test(url)) throw new ConfigError(`--url: "${url.slice(0, 100)}" must be the server's http(s) origin, e.g. http://127.0.0.1:8080`);
    const application = str('application');
    if (application === '') throw new ConfigError('--application: must not be empty');
    Object.assign(report, { application, format: oneOf('format', str('format'), REPORT_FORMATS, 'text'), failOn: oneOf('fail-on', str('fail-on'), FAIL_ON, 'error') });
  }
  if (command === 'drift') {
    if (url !== null && !/^https?:\/\/[^/]/.test(url)) throw new ConfigError(`--url: "${url.slice(0, 100)}" must be the mock's http(s) origin, e.g. http://127.0.0.1:8080`);
    const application = str('application');
    if (application === '') throw new ConfigError('--application: must not be empty');
    Object.assign(drift, { application: application ?? drift.application, format: oneOf('format', str('format'), DRIFT_FORMATS, 'text'), allowWrites: values['allow-writes'] === true });
  }
  if (command === 'certify' || command === 'certify-verify') {
    if (url !== null && !/^https?:\/\/[^/]/.test(url)) throw new ConfigError(`--url: "${url.slice(0, 100)}" must be the sandbox's http(s) origin, e.g. http://127.0.0.1:8080`);
    if (command === 'certify-verify' && url !== null && values.jwks !== undefined) throw new ConfigError('certify verify takes --url or --jwks, not both');
    const application = str('application');
    if (command === 'certify' && !application) throw new ConfigError('certify needs --application: the application to certify');
    const timeout = str('timeout');
    if (timeout !== null && !/^\d+$/.test(timeout)) throw new ConfigError(`--timeout: "${timeout.slice(0, 20)}" must be whole seconds`);
    Object.assign(certify, { application, format: oneOf('format', str('format'), CERTIFY_FORMATS, 'text'), timeoutMs: timeout === null ? null : Number(timeout) * 1000, out: str('out'), token: str('token'), jwks: str('jwks') });
  }
  const credentials = partnerFlags(command, str);
  const listen: ListenFlags = { ...credentials, forwardTo: null, events: null, format: 'text', printSecret: false };
  const trigger: TriggerFlags = { ...credentials, event: null, list: false, item: null, overrides: {} };
  if (command === 'listen' || command === 'trigger') {
    if (url !== null && !/^https?:\/\/[^/]/.test(url)) throw new ConfigError(`--url: "${url.slice(0, 100)}" must be the sandbox's http(s) origin, e.g. http://127.0.0.1:8080`);
  }
  if (command === 'listen') Object.assign(listen, listenFlags(values, str));
  if (command === 'trigger') Object.assign(trigger, triggerFlags(values, str, args));
  return { check, report, drift, certify, listen, trigger };
}

function partnerFlags(command: Command, str: (k: string) => string | null): PartnerFlags {
  const flags: PartnerFlags = { application: str('application'), clientId: str('client-id'), clientSecret: str('client-secret'), token: str('token') };
  if (command !== 'listen' && command !== 'trigger') return flags;
  for (const [k, v] of Object.entries({ application: flags.application, 'client-id': flags.clientId, 'client-secret': flags.clientSecret, token: flags.token })) {
    if (v === '') throw new ConfigError(`--${k}: must not be empty`);
  }
  if ((flags.clientId === null) !== (flags.clientSecret === null)) throw new ConfigError('--client-id and --client-secret go together: the client a partner was registered with');
  if (flags.token !== null && flags.clientId !== null) throw new ConfigError('--token or --client-id/--client-secret: one of them, not both');
  return flags;
}

/** `--forward-to localhost:3000/hooks` is read as http://localhost:3000/hooks, as a partner types it. */
function listenFlags(values: Values, str: (k: string) => string | null): Partial<ListenFlags> {
  const printSecret = values['print-secret'] === true;
  let forwardTo = str('forward-to');
  if (forwardTo === null && !printSecret) throw new ConfigError('listen needs --forward-to URL: your local receiver, e.g. http://localhost:3000/hooks');
  if (forwardTo !== null) {
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(forwardTo)) forwardTo = `http://${forwardTo}`;
    const problem = webhookUrlProblem(forwardTo);
    if (problem) throw new ConfigError(`--forward-to: ${problem}`);
  }
  const raw = str('events');
  let events: string[] | null = null;
  if (raw !== null) {
    const { statuses, bad } = parseStatuses(raw);
    events = statuses;
    if (bad !== undefined || events.length === 0) throw new ConfigError(`--events: "${(bad ?? raw).slice(0, 64)}" is not an order-item status (${ORDER_ITEM_STATUSES.join(', ')}, comma-separated)`);
  }
  return { forwardTo, events, printSecret, format: oneOf('format', str('format'), LISTEN_FORMATS, 'text') };
}

function triggerFlags(values: Values, str: (k: string) => string | null, args: string[]): Partial<TriggerFlags> {
  const list = values.list === true;
  if (list && args.length > 0) throw new ConfigError('trigger --list takes no event');
  if (!list && args.length !== 1) throw new ConfigError(args.length === 0 ? 'trigger needs an EVENT (mock-server trigger --list names them)' : 'trigger takes one EVENT');
  const item = str('item');
  if (item !== null && !UUID.test(item)) throw new ConfigError(`--item: "${item.slice(0, 64)}" is not an order item's uuid`);
  const overrides: Partial<Record<Override, string>> = {};
  for (const pair of (values.override as string[] | undefined) ?? []) {
    const [, key, value] = /^([^=]*)=(.*)$/.exec(pair) ?? [];
    if (key === undefined || !(OVERRIDES as readonly string[]).includes(key)) throw new ConfigError(`--override: "${pair.slice(0, 64)}" must be k=v with k one of ${OVERRIDES.join(', ')}`);
    const problem = key === 'activity' ? (UUID.test(value!) ? null : "an activity's uuid") : key === 'quantity' ? (/^\d+$/.test(value!) && Number(value) >= 1 && Number(value) <= 20 ? null : 'a whole number from 1 to 20') : /^[^@\s]+@[^@\s]+$/.test(value!) ? null : 'an e-mail address';
    if (problem) throw new ConfigError(`--override ${key}: "${value!.slice(0, 64)}" is not ${problem}`);
    overrides[key as Override] = value!;
  }
  if (item !== null && Object.keys(overrides).length > 0) throw new ConfigError('--override sets the booking trigger makes; with --item there is none');
  return { list, event: list ? null : (args[0] as string), item, overrides };
}
