import { ControlApiError, createControlClient, type ControlClient } from './control-client.js';

/**
 * What `mock-server listen` and `mock-server trigger` need of a sandbox, local or shared: the
 * partner API with a partner's token and the control API with the same token (which opens it for
 * the token's application only), or with the admin token. Credentials as a partner has them: a
 * token, or a client id and secret (logged in here, and again when the token runs out); with
 * none, the built-in sandbox client, which a local sandbox (not --shared) accepts.
 */
export interface SessionOptions {
  /** The sandbox's origin, e.g. http://127.0.0.1:8080. */
  origin: string;
  basePath: string;
  headerPrefix: string;
  /** null: the token's application, else `fallback`. */
  application: string | null;
  /** The application when neither --application nor a token names one; null: every application (listen, with the admin token or an open control API). */
  fallback: string | null;
  token: string | null;
  clientId: string | null;
  clientSecret: string | null;
  adminToken: string | null;
}

/** A mistake of the user's or a sandbox that cannot be used: the CLI prints the one line and exits 2. */
export class SessionError extends Error {
  readonly userFacing = true;
}

/** A partner API answer outside 2xx: its status and the `{code, message}` body. */
export class PartnerApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
  ) {
    super(message);
  }
}

const SANDBOX_CLIENT = { id: 'sandbox-client', secret: 'sandbox-secret' };
const TIMEOUT_MS = 30_000;

/** Why a fetch got no answer, in one line. */
export function unreachable(origin: string, e: unknown): SessionError {
  const cause = (e as { cause?: { code?: string; message?: string; cause?: { code?: string } } }).cause;
  const code = cause?.code ?? cause?.cause?.code ?? cause?.message;
  return new SessionError(`nothing answers at ${origin}${code ? ` (${code})` : ''}: start the sandbox (npx mock-server), or give its origin with --url`);
}

export class SandboxSession {
  readonly origin: string;
  /** Known once open() resolved; null: every application (a listener with the admin token, or on an open control API). */
  application: string | null = null;
  #token: string | null;
  /** When the token from a login runs out (ms, the sandbox's time for the application), to log in again before. */
  #expiresAt = Infinity;
  #control: ControlClient | null = null;

  constructor(private readonly opts: SessionOptions) {
    this.origin = opts.origin.replace(/\/+$/, '');
    this.#token = opts.token;
  }

  /** The token the control API takes: the admin token when given, else the partner's (logged in again when it runs out). */
  async controlToken(): Promise<string | null> {
    return this.opts.adminToken ?? (await this.token());
  }

  /** The application --application named, if any. */
  get named(): string | null {
    return this.opts.application;
  }

  /** Whether the session acts with the admin token (every application). */
  get admin(): boolean {
    return this.opts.adminToken !== null;
  }

  get control(): ControlClient {
    return (this.#control ??= createControlClient(`${this.origin}/__admin`, { adminToken: this.opts.adminToken ?? this.#token }));
  }

  /**
   * Settles the application (a partner token's own, --application, or the fallback) and, when the
   * partner API is needed, logs in. A token's application is read from the control API, which pins
   * a partner token to it.
   */
  async open(needsPartner: boolean, fallback = this.opts.fallback): Promise<void> {
    const { application, token, clientId } = this.opts;
    this.application = application;
    if (application === null && token !== null && this.opts.adminToken === null) {
      const clock = await this.ask(() => this.control.clock.now());
      this.application = clock.application;
    }
    if (this.application === null && clientId !== null) throw new SessionError('--client-id needs --application: the application the client is registered for');
    this.application ??= fallback;
    // A registered client's token opens the control API too (for its application only).
    if ((needsPartner || clientId !== null) && this.#token === null) await this.login();
  }

  /** POST /login with the client given (else the built-in sandbox client) for the session's application. */
  async login(): Promise<void> {
    const id = this.opts.clientId ?? SANDBOX_CLIENT.id;
    const secret = this.opts.clientId === null ? SANDBOX_CLIENT.secret : (this.opts.clientSecret ?? '');
    if (this.application === null) throw new SessionError('logging in needs an application: give --application');
    let answer: { access_token: string; expires_in: number };
    try {
      answer = await this.partner('POST', '/login', { client_id: id, client_secret: secret, grant_type: 'client_credentials' }, false);
    } catch (e) {
      if (e instanceof PartnerApiError && e.status === 401) {
        const hint = this.opts.clientId === null ? ': this sandbox does not take the built-in sandbox-client (a shared one?): give --client-id and --client-secret of a registered client, or --token' : '';
        throw new SessionError(`login as ${id} for application ${this.application} refused: ${e.message}${hint}`);
      }
      throw e;
    }
    this.#token = answer.access_token;
    this.#expiresAt = Date.now() + answer.expires_in * 1000;
    this.#control = null;
  }

  /** The token came from a login here, so a new login can replace it (a sandbox restarted with its state in memory forgot it). */
  get canLogin(): boolean {
    return this.opts.token === null && this.#token !== null;
  }

  /** A token that is still good for a minute: a new login when it came from one and runs out. */
  async token(): Promise<string | null> {
    if (this.opts.token === null && this.#token !== null && Date.now() > this.#expiresAt - 60_000) await this.login();
    return this.#token;
  }

  /** One partner API call under the base path, with the application header (and the token once there is one); the JSON answer. */
  async partner<T = unknown>(method: string, path: string, body?: unknown, auth = true): Promise<T> {
    const headers: Record<string, string> = { [`${this.opts.headerPrefix}Application`]: this.application ?? '', [`${this.opts.headerPrefix}Version`]: '3.5.0', accept: 'application/json' };
    const token = auth ? await this.token() : null;
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const base = this.opts.basePath === '/' ? '' : this.opts.basePath;
    let res: Response;
    try {
      res = await fetch(`${this.origin}${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (e) {
      throw unreachable(this.origin, e);
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: reported as text below.
    }
    if (!res.ok) {
      const b = (json ?? {}) as { code?: unknown; message?: unknown };
      throw new PartnerApiError(res.status, b.code == null ? null : String(b.code), `${method} ${path}: ${res.status} ${typeof b.message === 'string' ? b.message : text.slice(0, 200)}`);
    }
    return json as T;
  }

  /** A control API call whose refusal is the user's to fix (a bad token, another application's item): one line. */
  async ask<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw controlProblem(this.origin, e);
    }
  }
}

/** A control API failure as one line for the CLI (nothing answering, a refused token, a 404 of another application's item). */
export function controlProblem(origin: string, e: unknown): Error {
  if (e instanceof SessionError) return e;
  if (e instanceof ControlApiError) {
    const b = e.body as { message?: unknown } | null;
    const why = typeof b === 'object' && b !== null && typeof b.message === 'string' ? b.message : String(e.body).slice(0, 200);
    return new SessionError(`${e.method} ${e.url.replace(origin, '')}: ${e.status} ${why}`);
  }
  return unreachable(origin, (e as { cause?: unknown }).cause ?? e);
}
