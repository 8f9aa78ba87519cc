import { CHECK_FORMATS, type CheckFormat } from './webhooks/check-format.js';
import { webhookUrlProblem } from './webhooks/url.js';

/** A mistake in flags, env or config file: the CLI prints its one-line message and exits 2. */
export class ConfigError extends Error {
  readonly userFacing = true;
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Command = 'serve' | 'help' | 'version' | 'replay' | 'webhooks-check' | 'report' | 'proxy' | 'drift' | 'certify' | 'certify-verify';

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

type Values = Record<string, string | boolean | undefined>;

const oneOf = <T extends string>(flag: string, value: string | null, allowed: readonly T[], fallback: T): T => {
  if (value === null) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(`--${flag}: "${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
};

/** The flags of `webhooks check`, `report`, `drift` and `certify`, each refused with any other command. */
export function commandFlags(command: Command, url: string | null, values: Values): { check: CheckFlags; report: ReportFlags; drift: DriftFlags; certify: CertifyFlags } {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : null);
  const owners: Record<string, Command[]> = {
    secret: ['webhooks-check'], basic: ['webhooks-check'], format: ['webhooks-check', 'report', 'drift', 'certify'], application: ['report', 'drift', 'certify'], 'fail-on': ['report'], 'allow-writes': ['drift'],
    timeout: ['certify'], out: ['certify'], token: ['certify'], jwks: ['certify-verify'],
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
  return { check, report, drift, certify };
}
