import { LogController, type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';

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
    childLoggerFactory: (logger, bindings, opts) => new LazyChild(logger, bindings, opts) as unknown as FastifyBaseLogger,
  };
}

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;

/** A request's logger that becomes a real pino child on its first warning or error. */
class LazyChild {
  #child: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly opts: ChildLoggerOptions,
  ) {}

  #real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.opts));
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(l: string) {
    this.#real().level = l;
  }

  fatal(...args: unknown[]): void {
    (this.#real().fatal as (...a: unknown[]) => void)(...args);
  }

  error(...args: unknown[]): void {
    (this.#real().error as (...a: unknown[]) => void)(...args);
  }

  warn(...args: unknown[]): void {
    (this.#real().warn as (...a: unknown[]) => void)(...args);
  }

  info(): void {}
  debug(): void {}
  trace(): void {}
  silent(): void {}

  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, opts);
  }
}
