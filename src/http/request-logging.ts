import { LogController, type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';

type LogMethod = 'fatal' | 'error' | 'warn';

/**
 * Fastify makes a pino child logger for every request and logs "incoming request" and "request
 * completed" at info. Below info (`--log-level warn` and up) neither line is ever written, so request
 * logging is switched off and a request's logger is made on its first warning or error instead of
 * on every request: a tenth of the CPU of a cached GET went to loggers nobody wrote to.
 */
export function requestLogging(level: string | undefined): Pick<FastifyServerOptions, 'logController' | 'childLoggerFactory'> {
  if (level === undefined || level === 'trace' || level === 'debug' || level === 'info') return {};
  return {
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger, bindings, opts) => {
      let child: FastifyBaseLogger | undefined;
      const real = () => (child ??= logger.child(bindings, opts));
      const forward = (m: LogMethod) => (...args: unknown[]) => (real()[m] as (...a: unknown[]) => void)(...args);
      const ignore = () => undefined;
      return {
        get level() {
          return (child ?? logger).level;
        },
        set level(l: string) {
          real().level = l;
        },
        fatal: forward('fatal'),
        error: forward('error'),
        warn: forward('warn'),
        info: ignore,
        debug: ignore,
        trace: ignore,
        silent: ignore,
        child: (b, o) => real().child(b, o),
      } as FastifyBaseLogger;
    },
  };
}
