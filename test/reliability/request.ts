import type { FastifyInstance } from 'fastify';
import type { RequestSpec } from './arbitraries.js';
import type { Operation } from './operations.js';
import { ATTACKER, isolationProblem, resolveRef, victimSnapshot, type World } from './world.js';

export interface Built {
  method: Operation['method'];
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string;
}

const JSON_TYPE = 'application/json';

/**
 * What a server behind a real socket would see for a header value: the UTF-8 bytes read as latin1
 * (Node's parser does that), or nothing when no client can send it (CR, LF, NUL).
 */
function wire(value: string): string | undefined {
  if (/[\r\n\0]/.test(value)) return undefined;
  return Buffer.from(value, 'utf8').toString('latin1');
}

/** encodeURIComponent, with lone surrogates (which no client can encode) as U+FFFD like toWellFormed(). */
export function encode(s: string): string {
  return encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}

function nested(depth: number, shape: 'arrays' | 'objects'): string {
  return shape === 'arrays' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/**
 * A JSON body with `raw` (already JSON text) as the value of `field`, keeping the other fields; for
 * an array body (cart items, participants), in its first element.
 */
function withField(body: unknown, field: string, raw: string): string {
  if (Array.isArray(body) && body.length) {
    const tail = JSON.stringify(body.slice(1)).slice(1);
    return `[${withField(body[0], field, raw)}${tail === ']' ? ']' : `,${tail}`}`;
  }
  const rest = body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...(body as object) } : {};
  delete (rest as Record<string, unknown>)[field];
  const tail = JSON.stringify(rest).slice(1);
  return `{${JSON.stringify(field)}:${raw}${tail === '}' ? '}' : `,${tail}`}`;
}

/** The first field the body schema names (where handlers look), or "data". */
function fieldOf(op: Operation): string {
  const props = (op.body?.properties ?? (op.body?.anyOf as { properties?: object }[] | undefined)?.find((s) => s.properties)?.properties ?? {}) as object;
  return Object.keys(props)[0] ?? 'data';
}

/** Replaces `@a.…`/`@v.…` references in a value (deeply) by the ids they name today. */
function resolveAll(world: World, value: unknown): unknown {
  if (typeof value === 'string') return resolveRef(world, value);
  if (Array.isArray(value)) return value.map((v) => resolveAll(world, v));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveAll(world, v)]));
  return value;
}

/** Turns a spec into an inject request sent as the attacker. */
export function buildRequest(op: Operation, given: RequestSpec, world: World): Built {
  const spec = resolveAll(world, given) as RequestSpec;
  const m = spec.mutation;
  const headers: Record<string, string | string[]> = { 'x-service-application': ATTACKER };
  if (spec.auth === 'own') headers.authorization = `Bearer ${world.attacker.token}`;
  if (spec.auth === 'victim') headers.authorization = `Bearer ${world.victim.token}`;
  if (spec.auth === 'junk') headers.authorization = 'Bearer not-a-token';

  // Path: each parameter encoded, unless the mutation puts raw text there.
  const pathNames = [...op.path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]!);
  const raw: Record<string, string> = Object.fromEntries(pathNames.map((n) => [n, encode(spec.path[n] ?? 'x')]));
  const first = pathNames[0];
  let extraSegment = '';
  const setParam = (value: string) => {
    if (first) raw[first] = value;
    else extraSegment = `/${value}`;
  };
  if (m.kind === 'huge' && m.at === 'param') setParam(encode(m.char.repeat(m.size)));
  if (m.kind === 'longParam') setParam('a'.repeat(m.length));
  if (m.kind === 'proto' && m.at === 'param') setParam(m.key);
  if (m.kind === 'badPercent' && m.at === 'param') setParam(`${first ? raw[first] : 'x'}${m.seq}`);
  let path = op.path.replace(/\{([^}]+)\}/g, (_, n: string) => raw[n]!) + extraSegment;
  if (m.kind === 'badPercent' && m.at === 'path') {
    // Into the first static segment after the base path (or the control prefix).
    const cut = path.indexOf('/', path.startsWith('/api/v3/') ? 8 : 1);
    path = cut === -1 ? `${path}${m.seq}` : `${path.slice(0, cut)}${m.seq}${path.slice(cut)}`;
  }

  // Query.
  const pairs = spec.query.map(([k, v]) => `${encode(k)}=${encode(v)}`);
  if (m.kind === 'deep' && m.at === 'query') pairs.push(`filter=${encode(nested(m.depth, m.shape))}`, `x${'[a]'.repeat(Math.min(m.depth, 5000))}=1`);
  // In place of the first parameter's value (the one the handler reads), or as ?text=.
  if (m.kind === 'huge' && m.at === 'query') pairs.splice(0, 1, `${encode(spec.query[0]?.[0] ?? 'text')}=${encode(m.char.repeat(m.size))}`);
  if (m.kind === 'proto' && m.at === 'query') pairs.push(`${m.key}=x`, `${m.key}=y`);
  if (m.kind === 'proto' && m.at === 'query-bracket') pairs.push(`${m.key}[polluted]=yes`, `${m.key}[prototype][polluted]=yes`, `a[${m.key}][polluted]=yes`);
  if (m.kind === 'badPercent' && m.at === 'query') pairs.push(`q=${m.seq}`, `${m.seq}=1`);
  const url = pairs.length ? `${path}?${pairs.join('&')}` : path;

  // Body.
  let payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  if (m.kind === 'deep' && m.at !== 'query') payload = m.at === 'root' ? nested(m.depth, m.shape) : withField(spec.body, m.at === 'extra' ? 'x_extra' : fieldOf(op), nested(m.depth, m.shape));
  if (m.kind === 'huge' && m.at === 'body') payload = withField(spec.body, fieldOf(op), JSON.stringify(m.char.repeat(m.size)));
  if (m.kind === 'proto' && m.at === 'body') payload = withField(spec.body, m.key, m.key === 'constructor' ? '{"prototype":{"polluted":"yes"}}' : '{"polluted":"yes"}');
  if (m.kind === 'proto' && m.at === 'nested') payload = withField(spec.body, fieldOf(op), `{${JSON.stringify(m.key)}:{"prototype":{"polluted":"yes"},"polluted":"yes"}}`);
  if (payload !== undefined) headers['content-type'] = JSON_TYPE;
  if (m.kind === 'contentType') {
    headers['content-type'] = m.type;
    payload = { json: JSON.stringify(spec.body ?? {}), broken: '{"a":', empty: '', text: 'hello=world&x=1' }[m.body];
  }

  // Headers.
  if (m.kind === 'huge' && m.at === 'app-header') headers['x-service-application'] = wire(m.char.repeat(m.size))!;
  if (m.kind === 'huge' && m.at === 'header') headers.authorization = `Bearer ${wire(m.char.repeat(m.size))}`;
  if (m.kind === 'header') {
    const value = wire(m.value);
    const name = { currency: 'x-service-currency', market: 'x-service-market', version: 'x-service-version', application: 'x-service-application', 'accept-language': 'accept-language', authorization: 'authorization', 'duplicate-application': 'x-service-application' }[m.name];
    if (value !== undefined) headers[name] = m.name === 'duplicate-application' ? [ATTACKER, value] : value;
  }
  // Never the victim's name: the application header is the tenant, that would be the victim itself.
  if (headers['x-service-application'] === 'victim') headers['x-service-application'] = ATTACKER;
  return { method: op.method, url, headers, ...(payload === undefined ? {} : { payload }) };
}

const MAX_MESSAGE = 300;

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
const ANSWER_MS = 10_000;

/** A request, shortened for a report: URLs and bodies of a megabyte print as their first characters. */
export function describe(b: Built): string {
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const headers = Object.entries(b.headers)
    .filter(([k]) => k !== 'x-service-application' || b.headers[k] !== ATTACKER)
    .map(([k, v]) => `${k}: ${cut(JSON.stringify(v), 80)}`)
    .join('; ');
  return `${b.method} ${cut(b.url, 160)}${headers ? ` [${headers}]` : ''}${b.payload !== undefined ? ` body ${cut(b.payload, 120)}` : ''}`;
}

/**
 * Sends one fuzzed request and checks the properties: never 5xx; a 4xx is JSON {code, message} with a
 * short message; and (unless the operation is global by design) the victim is unaffected.
 * Throws an Error that names the request and what came back.
 */
export async function checkRequest(app: FastifyInstance, op: Operation, spec: RequestSpec, world: World): Promise<number> {
  const req = buildRequest(op, spec, world);
  // A request that never answers is a failure too (and the timer keeps the event loop alive, so it
  // is reported as one instead of the process running out of work).
  let timer: NodeJS.Timeout | undefined;
  const res = await Promise.race([
    app.inject(req),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms\n  request: ${describe(req)}`)), ANSWER_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  const fail = (what: string) => {
    throw new Error(`${what}\n  request: ${describe(req)}\n  answer: ${res.statusCode} ${res.body.slice(0, 300)}`);
  };
  if (res.statusCode >= 500) fail(`${res.statusCode} (5xx)`);
  if (res.statusCode >= 400) {
    let body: unknown;
    try {
      body = res.json();
    } catch {
      fail(`${res.statusCode} with a body that is not JSON (content-type ${res.headers['content-type']})`);
    }
    const { code, message } = (body ?? {}) as { code?: unknown; message?: unknown };
    if (typeof code !== 'string' || typeof message !== 'string') fail(`${res.statusCode} body is not {code: string, message: string}`);
    const keys = Object.keys(body as object).sort().join(',');
    if (keys !== 'code,message') fail(`${res.statusCode} body has keys ${keys}, not just code and message`);
    if ((message as string).length > MAX_MESSAGE) fail(`${res.statusCode} message is ${(message as string).length} characters (at most ${MAX_MESSAGE})`);
    if (!String(res.headers['content-type']).startsWith('application/json')) fail(`${res.statusCode} content-type is ${res.headers['content-type']}`);
    // A refusal must not misname its cause: a body that parses as JSON is not "invalid JSON" (it may
    // be refused for a prototype key or its depth, but saying so).
    if (req.headers['content-type'] === JSON_TYPE && req.payload !== undefined && /not valid JSON/i.test(message as string) && parses(req.payload)) {
      fail(`${res.statusCode} calls a well-formed JSON body invalid`);
    }
  }
  if (!op.global) {
    const problem = await isolationProblem(app, world);
    if (problem) {
      // Judge later requests (and fast-check's shrinking) against the state as it is now.
      world.snapshot = await victimSnapshot(app, world.victim);
      fail(`isolation: ${problem}`);
    }
  }
  return res.statusCode;
}
