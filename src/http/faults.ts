import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, clip, errors, MAX_ECHO_PATH } from './errors.js';
import { FaultIndex } from './fault-index.js';

/** A failure armed with POST /__admin/faults: the next `times` matching requests answer `status`. */
export interface Fault {
  id: number;
  /** Only this application's requests; null: every application's (a server-wide fault). */
  application: string | null;
  method: string;
  /** A path under the base path (or the full path), `*` matching any run of characters. */
  path: string;
  status: number;
  times: number;
  delay_ms: number;
}

export interface Faults {
  /**
   * Arms a fault; a status outside FORCED_STATUS, an unknown method, a path without a leading / or
   * over MAX_FAULT_PATH is an ApiError 400, one more than MAX_FAULTS armed a 409.
   */
  add(f: Omit<Fault, 'id'>): Fault;
  /** The first armed fault matching a request of `application` (its count goes down), or null. */
  take(application: string, method: string, paths: string[]): Fault | null;
  /** How many faults are armed (the hot path skips all matching when none is). */
  readonly size: number;
  /** Every armed fault; with an application, that application's own and the server-wide ones. */
  list(application?: string): Fault[];
  /** Every fault, or (an application given) that application's own. */
  clear(application?: string): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    faults: Faults;
  }
}

const MAX_DELAY = 60_000;
/**
 * How many faults may be armed at once. Faults on other paths cost a request nothing (see
 * fault-index.ts), but each one is memory, and those that share a request's path up to their first
 * star are each tested against it: 10,000 such cost about a millisecond (bench/README.md).
 */
export const MAX_FAULTS = 10_000;
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

/**
 * The armed faults, decorated at the root so that the control API and the partner scope share them:
 * one index per application with faults of its own, and one ('' key) for the server-wide faults.
 * A request reads its application's index and the server-wide one, so one team's faults never
 * answer another team's requests, and cost them nothing.
 */
async function faultsPlugin(app: FastifyInstance) {
  const indexes = new Map<string, FaultIndex<Fault>>();
  let size = 0;
  let next = 1;
  const drop = (key: string) => {
    size -= indexes.get(key)?.size ?? 0;
    indexes.delete(key);
  };
  // A reset of an application disarms its faults; a reset of everything disarms every fault.
  app.store.onReset((application) => {
    if (application !== null) drop(application);
    else for (const key of [...indexes.keys()]) drop(key);
  });
  const earlier = (a: Fault | undefined, b: Fault | undefined) => (a && (!b || a.id < b.id) ? a : b);
  app.decorate('faults', {
    add(f) {
      const checked = checkedFault(f); // before the id is taken: a refused fault uses up no id
      if (size >= MAX_FAULTS) throw errors.atCapacity(`${MAX_FAULTS} faults are armed, the most there can be: DELETE /__admin/faults disarms them`);
      const fault = { ...checked, id: next++ };
      const key = fault.application ?? '';
      let index = indexes.get(key);
      if (!index) indexes.set(key, (index = new FaultIndex<Fault>()));
      index.add(fault);
      size++;
      return fault;
    },
    take(application, method, paths) {
      const own = indexes.get(application);
      const all = indexes.get('');
      const fault = earlier(own?.find(method, paths), all?.find(method, paths));
      if (fault && --fault.times <= 0) {
        const key = fault.application ?? '';
        (indexes.get(key) as FaultIndex<Fault>).remove(fault);
        size--;
        if (indexes.get(key)?.size === 0) indexes.delete(key);
      }
      return fault ?? null;
    },
    get size() {
      return size;
    },
    list: (application) => {
      const keys = application === undefined ? [...indexes.keys()] : ['', application];
      return keys.flatMap((k) => indexes.get(k)?.list() ?? []).sort((a, b) => a.id - b.id).map((f) => ({ ...f }));
    },
    clear: (application) => {
      if (application !== undefined) drop(application);
      else for (const key of [...indexes.keys()]) drop(key);
    },
  } satisfies Faults);
}

export default fp(faultsPlugin, { name: 'faults', dependencies: ['store'], fastify: '5.x' });

/**
 * Applies armed faults and the Prefer header to the partner routes. Registered after the header
 * rules, so a missing application header is still 2271: a fault never hides the real API's own errors.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** Answered by an armed fault or a Prefer header (the integration report counts both). */
    forced?: 'fault' | 'prefer';
  }
}

async function faultHookPlugin(app: FastifyInstance, opts: { basePath: string }) {
  const fail = (reply: FastifyReply, status: number, message: string) => {
    reply.request.apiError = { code: String(status), message };
    reply.request.forced = message.startsWith('Prefer') ? 'prefer' : 'fault';
    return reply.code(status).send(new ApiError(status, String(status), message).toJSON());
  };
  /** Answers the request when an armed fault or its Prefer header says so; true when it did. */
  const apply = async (request: FastifyRequest, reply: FastifyReply, prefer: string | string[] | undefined): Promise<boolean> => {
    const path = (request.url.split('?')[0] ?? '').replace(/\/+$/, '') || '/';
    const relative = opts.basePath !== '/' && path.startsWith(opts.basePath) ? path.slice(opts.basePath.length) || '/' : path;
    const fault = app.faults.take(request.service.application, request.method, [relative, path]);
    if (fault) {
      if (fault.delay_ms) await sleep(fault.delay_ms);
      const whose = fault.application === null ? '' : ` of application "${clip(fault.application)}"`;
      fail(reply, fault.status, `Fault ${fault.id}${whose} (POST /__admin/faults): ${fault.method} ${clip(fault.path, MAX_ECHO_PATH)} answers ${fault.status}`);
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
    if (app.faults.size === 0 && prefer === undefined) return done();
    apply(request, reply, prefer).then((answered) => {
      if (!answered) done();
    }, done);
  });
}

export const faultHook = fp(faultHookPlugin, { name: 'fault-hook', dependencies: ['faults'], fastify: '5.x' });
