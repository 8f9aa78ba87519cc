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

export type Command = 'serve' | 'help' | 'version' | 'replay' | 'webhooks-check' | 'report';

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

type Values = Record<string, string | boolean | undefined>;

const oneOf = <T extends string>(flag: string, value: string | null, allowed: readonly T[], fallback: T): T => {
  if (value === null) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(`--${flag}: "${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
};

/** The flags of `webhooks check` and `report`, each refused with any other command. */
export function commandFlags(command: Command, url: string | null, values: Values): { check: CheckFlags; report: ReportFlags } {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : null);
  const owners: Record<string, Command[]> = { secret: ['webhooks-check'], basic: ['webhooks-check'], format: ['webhooks-check', 'report'], application: ['report'], 'fail-on': ['report'] };
  for (const [flag, commands] of Object.entries(owners)) {
    if (values[flag] !== undefined && !commands.includes(command)) {
      throw new ConfigError(`--${flag} goes with the ${commands.map((c) => c.replace('-', ' ')).join(' and ')} command${commands.length > 1 ? 's' : ''}`);
    }
  }
  const check: CheckFlags = { secret: null, basic: null, format: 'text' };
  const report: ReportFlags = { application: null, format: 'text', failOn: 'error' };
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
  return { check, report };
}
