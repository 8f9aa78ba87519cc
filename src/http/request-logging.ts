import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyServerOptions } from 'fastify';

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

/**
 * Query values that are secrets: the admin token as an EventSource sends it (`?access_token=`), and
 * what a client might put in a query by mistake. A fixed pattern, linear on any input.
 */
const SECRET_QUERY = /([?&](?:access_token|token|client_secret|secret|password|api_key|apikey)=)[^&#]*/gi;

/** A request URL fit for a log: secret query values as `***`. */
export function redactQuery(url: string): string {
  return url.includes('?') ? url.replace(SECRET_QUERY, '$1***') : url;
}

type RawRequest = { method?: string; url?: string; headers?: Record<string, unknown>; host?: string; ip?: string; socket?: { remotePort?: number } };

/** Fastify's own `req` serializer (the "incoming request" line), with the URL's secrets hidden. */
export function requestForLog(req: RawRequest) {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : redactQuery(req.url),
    version: req.headers?.['accept-version'] as string | undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** What a "request completed" line carries in pretty mode: enough for the one-line summary. */
export type RequestSummary = {
  statusCode: number;
  method?: string;
  url?: string;
  /** The <prefix>Application header, when the request had one. */
  application?: string;
};

/**
 * The `res` serializer of pretty mode. Fastify logs the reply itself as `res`, so the line that ends a
 * request can say which request it was: one line per request instead of "incoming request" and
 * "request completed".
 */
export function requestSummary(headerPrefix: string): (reply: Partial<FastifyReply> & Pick<FastifyReply, 'statusCode'>) => RequestSummary {
  const header = `${headerPrefix}Application`.toLowerCase();
  return (reply) => {
    const request = reply.request;
    if (!request) return { statusCode: reply.statusCode };
    const application = request.headers[header];
    return {
      statusCode: reply.statusCode,
      method: request.method,
      url: redactQuery(request.url),
      ...(typeof application === 'string' && application !== '' ? { application } : {}),
    };
  };
}

type Paint = (s: string) => string;
interface Colors {
  green: Paint;
  cyan: Paint;
  yellow: Paint;
  red: Paint;
  gray: Paint;
}

/**
 * The pretty text of a request's last line, e.g. `GET /api/v3/currencies 200 1.4 ms app=acme`;
 * null when the log line is not about a request's end.
 */
export function requestLine(log: Record<string, unknown>, colors?: Colors): string | null {
  const res = log.res as RequestSummary | undefined;
  if ((log.msg !== 'request completed' && log.msg !== 'request errored') || !res || res.method === undefined) return null;
  const status = res.statusCode;
  const paint: Paint = !colors ? (s) => s : status >= 500 ? colors.red : status >= 400 ? colors.yellow : status >= 300 ? colors.cyan : colors.green;
  const ms = typeof log.responseTime === 'number' ? ` ${log.responseTime < 10 ? log.responseTime.toFixed(1) : Math.round(log.responseTime)} ms` : '';
  const app = res.application === undefined ? '' : ` app=${res.application}`;
  const errored = log.msg === 'request errored' ? ' (errored)' : '';
  return `${res.method} ${res.url ?? ''} ${paint(String(status))}${ms}${app}${errored}`;
}
