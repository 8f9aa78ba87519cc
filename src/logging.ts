import type { FastifyServerOptions } from 'fastify';
import type { Config, LogFormat } from './config.js';
import { requestForLog, requestLine, requestSummary } from './http/request-logging.js';

/**
 * Keys of structured data whose line's message already says it all: JSON lines keep them for
 * machines, pretty lines leave them out. `webhook` and `scenario_step` are the dispatcher's and the
 * scenario runner's; the rest are pino's and Fastify's request bookkeeping.
 */
const PRETTY_IGNORE = ['pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'webhook', 'scenario_step'];

/** --log-format, or without it: pretty for a person at a terminal, JSON lines for anything else. */
export function logFormat(config: Pick<Config, 'logFormat'>, isTTY = process.stdout.isTTY === true): LogFormat {
  return config.logFormat ?? (isTTY ? 'pretty' : 'json');
}

/** Colour when writing to a terminal; NO_COLOR turns it off, FORCE_COLOR (not 0) on. */
export function useColor(isTTY: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

export interface LoggerSetup {
  /** Where lines go; stdout by default. */
  destination?: { write(chunk: string): unknown; isTTY?: boolean };
  env?: NodeJS.ProcessEnv;
}

/**
 * The app's logger options. json: pino's JSON lines on stdout, as Fastify writes them. pretty: one
 * readable line per event through pino-pretty, used as a synchronous formatter in this thread (not
 * as a pino transport, which would load it by name in a worker: that does not work from the bundle
 * in dist/), a request's two lines folded into one. pino-pretty is loaded only for pretty logs: JSON
 * logs do not pay for it at start-up.
 */
export async function loggerOptions(config: Config, setup: LoggerSetup = {}): Promise<NonNullable<FastifyServerOptions['logger']>> {
  const out = setup.destination ?? process.stdout;
  const isTTY = out.isTTY === true;
  // Secrets never reach a log line: query values such as ?access_token= are hidden (headers are not logged).
  const serializers = { req: requestForLog };
  if (logFormat(config, isTTY) === 'json' || config.logLevel === 'silent') return { level: config.logLevel, serializers, ...(setup.destination ? { stream: setup.destination } : {}) };
  const { prettyFactory } = (await import('pino-pretty')).default;
  const prettify = prettyFactory({
    colorize: useColor(isTTY, setup.env),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: PRETTY_IGNORE.join(','),
    singleLine: true,
    messageFormat: (log, messageKey, _levelLabel, { colors }) => requestLine(log, colors) ?? String(log[messageKey] ?? ''),
  });
  return {
    level: config.logLevel,
    serializers: { ...serializers, res: requestSummary(config.headerPrefix) },
    hooks: {
      // The request's end says everything its start did: only that line is written.
      logMethod(args, method) {
        if (args[1] === 'incoming request') return;
        method.apply(this, args);
      },
    },
    stream: {
      write(line: string) {
        out.write(prettify(line));
      },
    },
  };
}
