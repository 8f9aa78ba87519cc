import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { basename } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { describe, pointerToken } from './loader.js';
import { HEADER_VALUE, ReplayFileSchema, ReplayStepSchemas } from './replay-schema.js';

/**
 * `mock-server replay FILE…`: plays scripted partner requests, control calls, waits and expectations
 * (on responses and on the webhooks a receiver on 127.0.0.1 gets) and prints a transcript. The
 * transcript names steps and outcomes, never generated ids or tokens, so the same file and seed give
 * the same transcript.
 */

interface HttpStep {
  method?: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}
interface Step {
  name?: string;
  request?: HttpStep;
  control?: HttpStep;
  capture?: Record<string, string>;
  expect?: { status?: number; body?: unknown };
  header?: Record<string, string>;
  /** Waits until the receiver holds this many webhooks (timeout 10 s). */
  wait_webhooks?: number;
  /** Each listed payload must match the webhook at the same position (fields given are compared). */
  expect_webhooks?: Record<string, unknown>[];
}
interface ReplayFile {
  name?: string;
  application?: string;
  base_path?: string;
  steps: Step[];
}

export class ReplayError extends Error {
  readonly userFacing = true;
}

const KINDS = Object.keys(ReplayStepSchemas) as Array<keyof typeof ReplayStepSchemas>;
const VAR = /\$\{(\w+)\}/g;
// verbose: errors carry the schema that failed, whose description says what the value must be.
const ajv = new Ajv({ allErrors: false, strict: false, verbose: true });
const validateFile = ajv.compile(ReplayFileSchema);
const validateStep = Object.fromEntries(KINDS.map((k) => [k, ajv.compile(ReplayStepSchemas[k])])) as Record<(typeof KINDS)[number], ReturnType<typeof ajv.compile>>;

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** describe(), but a value whose schema says what it must be ("a path starting with /") gets that, with the value. */
function explain(e: ErrorObject): [string, string] {
  const [pointer, problem] = describe(e);
  const must = (e.parentSchema as { description?: string } | undefined)?.description;
  if (!must || e.propertyName !== undefined || e.keyword === 'required' || e.keyword === 'additionalProperties') return [pointer, problem];
  const got = JSON.stringify(e.data) ?? String(e.data);
  return [pointer, `must be ${must} (got ${got.length > 60 ? `${got.slice(0, 57)}...` : got})`];
}

/**
 * Reads and checks a replay file. Everything that could make a step throw at run time (a path that
 * is not a path, a method fetch refuses, a header that is not one, a capture path that is not a
 * string, a `${name}` no earlier step captures...) is refused here with one line naming the file and
 * the field as a JSON pointer, so a bad file exits 2 before anything is played.
 */
export function loadReplay(file: string): ReplayFile {
  let data: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ReplayError(`replay file ${file}: ${(e as Error).message.split('\n')[0]}`);
  }
  const bad = (pointer: string, problem: string): never => {
    throw new ReplayError(`replay file ${file}: ${pointer || '/'} ${problem}`);
  };
  try {
    JSON.stringify(data);
  } catch {
    bad('', 'refers to itself (a recursive YAML alias)');
  }
  if (!validateFile(data)) bad(...explain(validateFile.errors![0]!));
  const spec = data as ReplayFile;
  const captured = new Set<string>();
  spec.steps.forEach((s, i) => {
    const at = `/steps/${i}`;
    const kinds = KINDS.filter((k) => k in s);
    const kind = kinds[0];
    if (kinds.length !== 1 || kind === undefined) return bad(at, `needs exactly one of ${KINDS.join(', ')}`);
    const validate = validateStep[kind];
    if (!validate(s)) {
      const [pointer, problem] = explain(validate.errors![0]!);
      bad(at + pointer, problem);
    }
    // A ${name} is filled from an earlier step's capture; one that none made would be sent as it is.
    const uses = (v: unknown, where: string): void => {
      if (typeof v === 'string') {
        for (const [, name] of v.matchAll(VAR)) if (!captured.has(name as string)) bad(where, `uses \${${name}}, which no earlier step captures`);
      } else if (Array.isArray(v)) v.forEach((x, k) => uses(x, `${where}/${k}`));
      else if (isMap(v)) for (const [k, x] of Object.entries(v)) uses(x, `${where}/${pointerToken(k)}`);
    };
    for (const [k, v] of Object.entries(s)) if (k !== 'name') uses(v, `${at}/${pointerToken(k)}`);
    const http = s.request ?? s.control;
    if (http) {
      const method = (http.method ?? 'GET').toUpperCase();
      if (['CONNECT', 'TRACE', 'TRACK'].includes(method)) bad(`${at}/${kind}/method`, `must be an HTTP method such as GET, POST, PUT, PATCH or DELETE (got ${JSON.stringify(http.method)})`);
      if (http.body !== undefined && ['GET', 'HEAD'].includes(method)) {
        bad(`${at}/${kind}/body`, `is not allowed with ${method}${http.method === undefined ? ' (the default method): give a method such as POST' : ''}`);
      }
    }
    for (const name of Object.keys(s.capture ?? {})) captured.add(name);
  });
  return spec;
}

/**
 * `--url` of `mock-server replay`: an http(s) URL, no credentials, query or fragment. Returns it
 * without trailing slashes, the origin (and path prefix, behind a proxy) paths are appended to.
 */
export function replayOrigin(value: string): string {
  let u: URL | null = null;
  try {
    u = new URL(value);
  } catch {
    // below
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new ReplayError(`--url ${value}: not an http(s) URL`);
  if (u.username || u.password) throw new ReplayError(`--url ${value}: a user name or password in the URL is not supported`);
  if (u.search || u.hash) throw new ReplayError(`--url ${value}: must not have a query or fragment`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/**
 * Why fetch failed, in one line: undici's "fetch failed" hides the reason in `cause`. `bare` drops
 * addresses and quoted values, so a transcript shows no port or token that changes from run to run.
 */
function reason(e: unknown, bare = false): string {
  const err = e as Error & { cause?: Error };
  const why = (err.cause?.message ?? err.message ?? String(e)).replace(/\s+/g, ' ').trim();
  return bare ? why.replace(/\s*\[?[0-9a-f.:]+\]?:\d+\b/gi, '').replace(/"[^"]*"/g, '…') : why;
}

/** Replaces ${name} with captured values, everywhere in strings of a value (a failed capture leaves ${name} as it is). */
function fill<T>(value: T, vars: Map<string, unknown>): T {
  if (typeof value === 'string') {
    const whole = /^\$\{(\w+)\}$/.exec(value);
    if (whole) return (vars.get(whole[1] as string) ?? value) as T;
    return value.replace(VAR, (m, k: string) => (vars.get(k) === undefined ? m : String(vars.get(k)))) as T;
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)])) as T;
  return value;
}

/** `body.items.0.uuid` from a response. */
function pick(from: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), from);
}

/** Where `actual` differs from the fields `expected` gives (arrays: element by element), or null. */
export function mismatch(expected: unknown, actual: unknown, at = ''): string | null {
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return `${at || '(body)'}: expected an ${Array.isArray(expected) ? 'array' : 'object'}`;
    for (const [k, v] of Object.entries(expected)) {
      const m = mismatch(v, (actual as Record<string, unknown>)[k], at ? `${at}.${k}` : k);
      if (m) return m;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : `${at || '(body)'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps what it got. */
async function receiver(): Promise<{ url: string; got: Record<string, unknown>[]; close(): Promise<void> }> {
  const got: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let payload: unknown;
      try {
        payload = JSON.parse(body);
      } catch {
        // kept as it came
      }
      got.push(isMap(payload) ? payload : { invalid: body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/webhooks`, got, close: () => new Promise((r) => server.close(() => r())) };
}

export interface ReplayResult {
  ok: boolean;
  transcript: string[];
}

/** Longer than the longest answer a mock-server may be told to hold back (Prefer: delay, a fault's delay_ms: 60 s). */
const ANSWER_WITHIN_MS = 70_000;

export interface ReplayOptions {
  headerPrefix: string;
  basePath: string;
  /** How long a request may wait for its whole answer; a server that never answers fails the step. */
  timeoutMs?: number;
  /** The server's --admin-token: sent as `Authorization: Bearer` with every control call (a step's own authorization header wins). */
  adminToken?: string | null;
}

/** Plays one file against a server at `origin` (e.g. http://127.0.0.1:8080). */
export async function replay(file: string, origin: string, opts: ReplayOptions = { headerPrefix: 'X-Service-', basePath: '/api/v3' }): Promise<ReplayResult> {
  const timeoutMs = opts.timeoutMs ?? ANSWER_WITHIN_MS;
  const within = (e: unknown) => ((e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : null);
  const spec = loadReplay(file);
  const application = spec.application ?? `replay-${basename(file).replace(/\.\w+$/, '')}`;
  const base = (spec.base_path ?? opts.basePath).replace(/\/+$/, '');
  const headers: Record<string, string> = { [`${opts.headerPrefix.toLowerCase()}application`]: application };
  const control: Record<string, string> = opts.adminToken ? { authorization: `Bearer ${opts.adminToken}` } : {};
  const vars = new Map<string, unknown>();
  const out = [`# ${spec.name ?? basename(file)}`];
  let ok = true;
  const hook = await receiver();
  let registeredOk = false;
  try {
    // Nothing can be played against a server that cannot be reached or is no mock-server: a bad --url.
    let registered: Response;
    let answer: string;
    try {
      const body = JSON.stringify({ url: hook.url, application });
      registered = await fetch(`${origin}/__admin/webhooks/config`, { method: 'PUT', headers: { ...control, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(timeoutMs) });
      answer = await registered.text();
    } catch (e) {
      throw new ReplayError(`cannot reach ${origin}: ${within(e) ?? reason(e)}`);
    }
    if (!registered.ok) {
      const hint =
        registered.status === 404
          ? "is it a mock-server's origin, such as http://127.0.0.1:8080 (without /api/v3)?"
          : registered.status === 401
            ? opts.adminToken
              ? 'the admin token given (--admin-token or MOCK_SERVER_ADMIN_TOKEN) is not the one the server was started with'
              : 'the server wants its admin token: give it with --admin-token or MOCK_SERVER_ADMIN_TOKEN'
            : answer.replace(/\s+/g, ' ').slice(0, 200);
      throw new ReplayError(`${origin} answered ${registered.status} to PUT /__admin/webhooks/config: ${hint}`);
    }
    registeredOk = true;
    for (const [i, raw] of spec.steps.entries()) {
      const step = fill(raw, vars);
      const label = raw.name ?? `step ${i + 1}`;
      const fail = (why: string) => {
        ok = false;
        out.push(`  FAIL ${why}`);
      };
      if (step.header) {
        Object.assign(headers, Object.fromEntries(Object.entries(step.header).map(([k, v]) => [k.toLowerCase(), String(v)])));
        out.push(`${label}: headers ${Object.keys(step.header).join(', ')}`);
        continue;
      }
      if (step.wait_webhooks !== undefined) {
        const deadline = Date.now() + 10_000;
        while (hook.got.length < step.wait_webhooks && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        out.push(`${label}: ${hook.got.length} webhooks received`);
        if (hook.got.length < step.wait_webhooks) fail(`expected ${step.wait_webhooks} webhooks within 10 s`);
        continue;
      }
      if (step.expect_webhooks) {
        out.push(`${label}: webhooks ${hook.got.map((w) => w.order_item_status).join(' → ')}`);
        const m = step.expect_webhooks.map((w, k) => mismatch(w, hook.got[k], `webhooks.${k}`)).find(Boolean);
        if (m || hook.got.length !== step.expect_webhooks.length) fail(m ?? `expected ${step.expect_webhooks.length} webhooks, got ${hook.got.length}`);
        continue;
      }
      const http = ownClock((step.request ?? step.control) as HttpStep, Boolean(step.control), application);
      const rawHttp = (raw.request ?? raw.control) as HttpStep;
      const method = (http.method ?? 'GET').toUpperCase();
      const url = `${origin}${step.request ? base : ''}${http.path}`;
      const sent: Record<string, string> = { ...(step.request ? headers : control), ...(http.body !== undefined ? { 'content-type': 'application/json' } : {}) };
      for (const [k, v] of Object.entries(http.headers ?? {})) sent[k.toLowerCase()] = String(v);
      // A captured value (a token, say) can make a header fetch refuses: said here, without the value.
      const badHeader = Object.entries(sent).find(([, v]) => !HEADER_VALUE.test(v));
      let res: Response | null = null;
      let text = '';
      let why = badHeader ? `header ${badHeader[0]}: not a one-line value once \${…} is filled in` : '';
      if (!why) {
        try {
          res = await fetch(url, { method, headers: sent, body: http.body === undefined ? undefined : JSON.stringify(http.body), signal: AbortSignal.timeout(timeoutMs) });
          text = await res.text();
        } catch (e) {
          why = within(e) ?? reason(e, true);
        }
      }
      if (!res || why) {
        // The server went away, or the request cannot be sent: the steps after it would only fail the same way.
        out.push(`${label}: ${method} ${rawHttp.path} → no response`);
        fail(`${why}; the remaining steps are skipped`);
        break;
      }
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // not JSON (a PDF, say): compare status only
      }
      out.push(`${label}: ${method} ${rawHttp.path} → ${res.status}`);
      const expected = step.expect ?? { status: 200 };
      if (expected.status !== undefined && expected.status !== res.status) fail(`expected status ${expected.status}: ${text.slice(0, 200)}`);
      if (expected.body !== undefined) {
        const m = mismatch(expected.body, body);
        if (m) fail(m);
      }
      for (const [name, path] of Object.entries(step.capture ?? {})) {
        const value = pick({ body, status: res.status }, path);
        if (value === undefined) fail(`capture ${name}: nothing at ${path}`);
        vars.set(name, value);
      }
    }
  } finally {
    // The registration points at this replay's receiver, which closes now: take it back, so that a
    // server that goes on running is left as it was (the replay's application's clock stays moved).
    if (registeredOk) {
      const body = JSON.stringify({ url: null, application });
      await fetch(`${origin}/__admin/webhooks/config`, { method: 'PUT', headers: { ...control, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(timeoutMs) })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    }
    await hook.close();
  }
  out.push(ok ? 'PASS' : 'FAILED');
  return { ok, transcript: out };
}

/**
 * A replay moves its own application's clock, never the server's: a clock step (POST or GET
 * /__admin/clock) without an application gets the replay's, so a replay played against a shared
 * server leaves every other application's time alone.
 */
function ownClock(http: HttpStep, control: boolean, application: string): HttpStep {
  if (!control || http.path.split('?')[0] !== '/__admin/clock') return http;
  const method = (http.method ?? 'GET').toUpperCase();
  if (method === 'POST' && typeof http.body === 'object' && http.body !== null && !Array.isArray(http.body) && !('application' in http.body)) {
    return { ...http, body: { ...(http.body as Record<string, unknown>), application } };
  }
  if (method === 'GET' && !/[?&]application=/.test(http.path)) return { ...http, path: `${http.path}${http.path.includes('?') ? '&' : '?'}application=${encodeURIComponent(application)}` };
  return http;
}
