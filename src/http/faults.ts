import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, clip, errors, MAX_ECHO_PATH } from './errors.js';
import { FaultIndex } from './fault-index.js';
import { attributedApplication } from './service-headers.js';
import type { FaultRecord, Store } from '../store/index.js';

/** A failure armed with POST /__admin/faults: the next `times` matching requests answer `status`. */
export type Fault = FaultRecord;

export interface Faults {
  /**
   * Arms a fault once it is stored; a status outside FORCED_STATUS, an unknown method, a path
   * without a leading / or over MAX_FAULT_PATH is an ApiError 400, one past the cap a 409.
   */
  add(f: Omit<Fault, 'id'>): Promise<Fault>;
  /** The first armed fault matching a request of `application`, its count taken down in the store; or null. */
  take(application: string, method: string, paths: string[]): Promise<Fault | null>;
  /** Whether any fault may answer a request of `application` (the hot path skips all matching when none may). */
  armed(application: string): boolean;
  /** Every armed fault; with an application, that application's own and the server-wide ones. */
  list(application?: string): Fault[];
  /** Every fault, or (an application given) that application's own; resolves once stored. */
  clear(application?: string): Promise<void>;
  /** One fault of an application, if it is still armed; resolves once stored. */
  drop(application: string, id: number): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    faults: Faults;
  }
}

const MAX_DELAY = 60_000;
/**
 * How many faults may be armed at once for one application. Faults on other paths cost a request
 * nothing (see fault-index.ts), but each one is memory, and those that share a request's path up to
 * their first star are each tested against it: 10,000 such cost about a millisecond (bench/README.md).
 */
export const MAX_FAULTS = 10_000;
/**
 * How many server-wide faults may be armed at once: they are kept with the server's state, which
 * is written whole (each arming and each use rewrites them all).
 */
export const MAX_SERVER_FAULTS = 1_000;
/** The longest fault path: longer than any route's path with its ids, short enough to test quickly. */
export const MAX_FAULT_PATH = 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The statuses a fault or `Prefer: code=` may force: errors only. A 1xx is no final answer (the
 * client waits for one that never comes), and a 2xx or 3xx body would go through the route's own
 * response schema, which a {code, message} body fails (a 500).
 */
const FORCED_STATUS = { min: 400, max: 599 } as const;
/** The methods a fault may name (upper case), `*` for any. */
const FAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', '*'] as const;

const forcible = (status: number) => Number.isInteger(status) && status >= FORCED_STATUS.min && status <= FORCED_STATUS.max;
const onlyErrors = `only ${FORCED_STATUS.min}..${FORCED_STATUS.max} can be forced`;

/** The fault the control API asked for, checked: ApiError 400 for anything that can never work. */
function checkedFault(f: Omit<Fault, 'id'>): Omit<Fault, 'id'> {
  const method = f.method.toUpperCase();
  if (!(FAULT_METHODS as readonly string[]).includes(method)) {
    throw errors.validation(`body "method" "${clip(f.method)}" is not allowed: one of ${FAULT_METHODS.join(', ')}`);
  }
  if (!f.path.startsWith('/')) {
    throw errors.validation(`body "path" "${clip(f.path, MAX_ECHO_PATH)}" must start with "/" (a path under the base path, or the full path)`);
  }
  if (f.path.length > MAX_FAULT_PATH) {
    throw errors.validation(`body "path" is ${f.path.length} characters long: at most ${MAX_FAULT_PATH}`);
  }
  if (!forcible(f.status)) throw errors.validation(`body "status" ${clip(f.status)}: ${onlyErrors}`);
  return { ...f, method };
}

/** `Prefer: code=503, delay=2000` (as Prism reads it); 400 for anything it cannot use, a code outside FORCED_STATUS too. */
export function parsePrefer(header: string): { code?: number; delay?: number } {
  const out: { code?: number; delay?: number } = {};
  for (const part of header.split(/[;,]/).map((p) => p.trim()).filter(Boolean)) {
    const [key = '', value = ''] = part.split('=').map((x) => x.trim());
    const n = Number(value);
    if (key === 'code') {
      if (!/^\d{3}$/.test(value)) throw errors.validation(`Prefer: code must be an HTTP status 400..599, got "${clip(value)}"`);
      if (!forcible(n)) throw errors.validation(`Prefer: code=${clip(value)}: ${onlyErrors}`);
      out.code = n;
    } else if (key === 'delay') {
      if (!/^\d+$/.test(value) || n > MAX_DELAY) throw errors.validation(`Prefer: delay must be milliseconds 0..${MAX_DELAY}, got "${clip(value)}"`);
      out.delay = n;
    }
    // Other preferences (return=minimal, …) are not ours to refuse.
  }
  return out;
}

const copy = (f: Fault): Fault => ({ ...f });
const byId = (a: Fault, b: Fault) => a.id - b.id;
const earlier = (a: Fault | undefined, b: Fault | undefined) => (a && (!b || a.id < b.id) ? a : b);

/**
 * The armed faults. They are kept in the store (an application's with its state, the server-wide ones
 * with the server's), so that a restart keeps them and every instance sharing a database applies
 * them; each instance matches requests against an index of its own per application ('' for the
 * server-wide faults), rebuilt when the stored faults' `faults_rev` moves. A request reads its
 * application's index and the server-wide one, so one team's faults never answer another team's
 * requests, and cost them nothing. Using a fault is a write (its count goes down under the
 * application's lock): a fault armed for one request answers one request, whichever instance gets it.
 */
class StoredFaults implements Faults {
  readonly #indexes = new Map<string, { rev: number; index: FaultIndex<Fault> }>();
  /** How many faults are stored under a key at a revision, as this instance's last arming left them: counting 10,000 keys at each arming made arming them all quadratic. */
  readonly #counts = new Map<string, { rev: number; n: number }>();

  constructor(private readonly store: Store) {
    // A reset drops the state, and with it the faults: their revision starts again from 0.
    store.onReset((application) => {
      for (const m of [this.#indexes, this.#counts]) void (application === null ? m.clear() : m.delete(application));
    });
  }

  /** The faults stored under `key` ('' the server-wide ones), and their revision. */
  #stored(key: string): { rev: number; faults: Readonly<Record<string, Fault>> } {
    if (key === '') {
      const s = this.store.server();
      return { rev: s.faults_rev ?? 0, faults: s.faults ?? {} };
    }
    const t = this.store.tenant(key);
    return { rev: t.faults_rev, faults: t.faults };
  }

  /** The index of `key`'s faults, as the store has them now; undefined when none is armed. */
  #index(key: string): FaultIndex<Fault> | undefined {
    const cached = this.#indexes.get(key);
    const rev = key === '' ? (this.store.server().faults_rev ?? 0) : this.store.tenant(key).faults_rev;
    if (cached?.rev === rev) return cached.index.size > 0 ? cached.index : undefined;
    if (rev === 0) {
      this.#indexes.delete(key);
      return undefined;
    }
    const index = new FaultIndex<Fault>();
    for (const f of Object.values(this.#stored(key).faults).sort(byId)) index.add(copy(f));
    this.#indexes.set(key, { rev, index });
    return index.size > 0 ? index : undefined;
  }

  armed(application: string): boolean {
    return this.#index(application) !== undefined || this.#index('') !== undefined;
  }

  /**
   * One write of the faults stored under `key`: `fn` changes them by replacing entries (never in
   * place: the server's state is copied shallowly), and says whether the armed set changed, which
   * moves the revision (a count going down does not).
   */
  async #change(key: string, fn: (faults: Record<string, Fault>, rev: number) => boolean): Promise<void> {
    if (key !== '') return this.store.update(key, (t) => void (fn(t.faults, t.faults_rev) && t.faults_rev++));
    return this.store.updateServer((s) => {
      const faults = { ...s.faults };
      if (fn(faults, s.faults_rev ?? 0)) s.faults_rev = (s.faults_rev ?? 0) + 1;
      s.faults = faults;
    });
  }

  async add(f: Omit<Fault, 'id'>): Promise<Fault> {
    const checked = checkedFault(f);
    const key = checked.application ?? '';
    const cap = key === '' ? MAX_SERVER_FAULTS : MAX_FAULTS;
    const full = (faults: Readonly<Record<string, Fault>>, rev: number) => {
      const counted = this.#counts.get(key);
      const n = counted?.rev === rev ? counted.n : Object.keys(faults).length;
      if (n < cap) return n;
      const whose = key === '' ? 'server-wide faults' : `faults of application "${clip(key)}"`;
      throw errors.atCapacity(`${cap} ${whose} are armed, the most there can be: DELETE /__admin/faults disarms them`);
    };
    // Checked before an id is taken (a refused fault uses up none), and again in the write (arming at once).
    const stored = this.#stored(key);
    full(stored.faults, stored.rev);
    let id = 0;
    await this.store.updateServer((s) => void (id = s.fault_seq = (s.fault_seq ?? 0) + 1));
    const fault = { ...checked, id };
    let counted = { rev: 0, n: 0 };
    await this.#change(key, (faults, rev) => {
      // Revisions count the writes of the armed set, each under the lock: rev + 1 is this write's.
      // Kept only once the write commits: a write retried on a fresher tenant runs this again.
      counted = { rev: rev + 1, n: full(faults, rev) + 1 };
      faults[id] = copy(fault);
      return true;
    }).catch((e: unknown) => {
      this.#counts.delete(key);
      throw e;
    });
    this.#counts.set(key, counted);
    return fault;
  }

  async take(application: string, method: string, paths: string[]): Promise<Fault | null> {
    // Another instance may have used the fault up meanwhile: its write moved the revision, so a
    // second look reads a rebuilt index.
    for (let look = 0; look < 3; look++) {
      const candidate = earlier(this.#index(application)?.find(method, paths), this.#index('')?.find(method, paths));
      if (!candidate) return null;
      let used: Fault | null = null;
      await this.#change(candidate.application ?? '', (faults) => {
        // Reset per run: a retried write may find the fault used up by another instance.
        used = null;
        const f = faults[candidate.id];
        if (!f) return false;
        used = copy(f);
        if (f.times > 1) faults[candidate.id] = { ...f, times: f.times - 1 };
        else delete faults[candidate.id];
        return f.times <= 1;
      });
      if (used) return used;
    }
    return null;
  }

  list(application?: string): Fault[] {
    const keys = application === undefined ? ['', ...this.store.applications()] : ['', application];
    return keys.flatMap((k) => Object.values(this.#stored(k).faults).map(copy)).sort(byId);
  }

  async drop(application: string, id: number): Promise<void> {
    if (!this.#stored(application).faults[id]) return;
    await this.#change(application, (faults) => faults[id] !== undefined && delete faults[id]);
  }

  async clear(application?: string): Promise<void> {
    // With an application, only its own: the server-wide ones stay.
    const keys = application === undefined ? ['', ...this.store.applications()] : [application];
    const dropAll = (faults: Record<string, Fault>) => {
      for (const id of Object.keys(faults)) delete faults[id];
      return true;
    };
    await Promise.all(keys.filter((k) => Object.keys(this.#stored(k).faults).length > 0).map((k) => this.#change(k, dropAll)));
  }
}

async function faultsPlugin(app: FastifyInstance) {
  app.decorate('faults', new StoredFaults(app.store));
}

export default fp(faultsPlugin, { name: 'faults', dependencies: ['store'], fastify: '5.x' });

/**
 * Applies armed faults and the Prefer header to the partner routes. Registered after the header
 * rules and auth (src/app.ts), so a missing application header is still 2271 and a bad token 401: a
 * fault never hides the real API's own errors.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** Answered by an armed fault or a Prefer header (the integration report counts both). */
    forced?: 'fault' | 'prefer';
  }
}

async function faultHookPlugin(app: FastifyInstance, opts: { basePath: string }) {
  const fail = (reply: FastifyReply, status: number, message: string, retryAfterS?: number) => {
    reply.request.apiError = { code: String(status), message };
    reply.request.forced = message.startsWith('Prefer') ? 'prefer' : 'fault';
    if (retryAfterS) reply.header('retry-after', String(retryAfterS));
    return reply.code(status).send(new ApiError(status, String(status), message).toJSON());
  };
  /** Answers the request when an armed fault or its Prefer header says so; true when it did. */
  const apply = async (request: FastifyRequest, reply: FastifyReply, prefer: string | string[] | undefined): Promise<boolean> => {
    const path = (request.url.split('?')[0] ?? '').replace(/\/+$/, '') || '/';
    const relative = opts.basePath !== '/' && path.startsWith(opts.basePath) ? path.slice(opts.basePath.length) || '/' : path;
    // An application's faults answer only the requests that count for it (in a shared sandbox a
    // stranger naming it would use them up); the server-wide ones answer anyone.
    const fault = await app.faults.take(attributedApplication(request, reply) ?? '', request.method, [relative, path]);
    if (fault) {
      if (fault.delay_ms) await sleep(fault.delay_ms);
      const whose = fault.application === null ? '' : ` of application "${clip(fault.application)}"`;
      fail(reply, fault.status, `Fault ${fault.id}${whose} (POST /__admin/faults): ${fault.method} ${clip(fault.path, MAX_ECHO_PATH)} answers ${fault.status}`, fault.retry_after_s);
      return true;
    }
    if (typeof prefer === 'string' && prefer !== '') {
      const p = parsePrefer(prefer);
      if (p.delay) await sleep(p.delay);
      if (p.code !== undefined) {
        fail(reply, p.code, `Prefer: code=${p.code} asked for this status`);
        return true;
      }
    }
    return false;
  };
  // A callback hook that returns at once when nothing is armed and no Prefer header came: the
  // common case costs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    const prefer = request.headers.prefer;
    if (prefer === undefined && !app.faults.armed(request.service.application)) return done();
    apply(request, reply, prefer).then((answered) => {
      if (!answered) done();
    }, done);
  });
}

export const faultHook = fp(faultHookPlugin, { name: 'fault-hook', dependencies: ['faults'], fastify: '5.x' });
