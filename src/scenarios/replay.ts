import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { basename } from 'node:path';
import { parse as parseYaml } from 'yaml';

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

const KINDS = ['request', 'control', 'header', 'wait_webhooks', 'expect_webhooks'] as const;
/** Fields a step of each kind may have besides its kind. */
const STEP_FIELDS: Record<(typeof KINDS)[number], string[]> = {
  request: ['name', 'capture', 'expect'],
  control: ['name', 'capture', 'expect'],
  header: ['name'],
  wait_webhooks: ['name'],
  expect_webhooks: ['name'],
};
/** RFC 9110 token: header names and methods. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What fetch sends as a header value: one line of Latin-1. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const VAR = /\$\{(\w+)\}/g;

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
/** A JSON pointer token (RFC 6901). */
const esc = (k: string | number) => String(k).replace(/~/g, '~0').replace(/\//g, '~1');
const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v)));

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
  if (!isMap(data)) return bad('', 'must be a mapping with steps');
  const known = (v: Obj, at: string, fields: readonly string[]) => {
    for (const k of Object.keys(v)) if (!fields.includes(k)) bad(`${at}/${esc(k)}`, `is not a known field (known: ${fields.join(', ')})`);
  };
  const headerMap = (v: unknown, at: string) => {
    if (!isMap(v)) return bad(at, 'must be a mapping of header names to values');
    for (const [k, h] of Object.entries(v)) {
      if (!TOKEN.test(k)) bad(`${at}/${esc(k)}`, 'is not a valid header name');
      if (!['string', 'number', 'boolean'].includes(typeof h) || !HEADER_VALUE.test(String(h))) bad(`${at}/${esc(k)}`, 'must be a one-line string');
    }
  };
  const steps = data.steps;
  if (!Array.isArray(steps) || steps.length === 0) return bad('/steps', 'must be a non-empty list');
  known(data, '', ['name', 'application', 'base_path', 'steps']);
  if (data.name !== undefined && typeof data.name !== 'string') bad('/name', 'must be a string');
  if (data.application !== undefined && (typeof data.application !== 'string' || !/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(data.application))) {
    bad('/application', 'must be a non-empty string of printable ASCII (it is sent as a header)');
  }
  if (data.base_path !== undefined && (typeof data.base_path !== 'string' || !/^(\/\S*)?$/.test(data.base_path))) {
    bad('/base_path', `must be empty or a path starting with / (got ${show(data.base_path)})`);
  }
  const captured = new Set<string>();
  steps.forEach((s: unknown, i) => {
    const at = `/steps/${i}`;
    if (!isMap(s)) return bad(at, `must be a mapping with one of ${KINDS.join(', ')}`);
    const kinds = KINDS.filter((k) => k in s);
    const kind = kinds[0];
    if (kinds.length !== 1 || kind === undefined) return bad(at, `needs exactly one of ${KINDS.join(', ')}`);
    known(s, at, [kind, ...STEP_FIELDS[kind]]);
    if (s.name !== undefined && typeof s.name !== 'string') bad(`${at}/name`, 'must be a string');
    // A ${name} is filled from an earlier step's capture; one that none made would be sent as it is.
    const uses = (v: unknown, where: string): void => {
      if (typeof v === 'string') {
        for (const [, name] of v.matchAll(VAR)) if (!captured.has(name as string)) bad(where, `uses \${${name}}, which no earlier step captures`);
      } else if (Array.isArray(v)) v.forEach((x, k) => uses(x, `${where}/${k}`));
      else if (isMap(v)) for (const [k, x] of Object.entries(v)) uses(x, `${where}/${esc(k)}`);
    };
    for (const [k, v] of Object.entries(s)) if (k !== 'name') uses(v, `${at}/${esc(k)}`);
    if (kind === 'request' || kind === 'control') {
      const http = s[kind];
      const hat = `${at}/${kind}`;
      if (!isMap(http)) return bad(hat, 'must be a mapping with path (and method, body, headers)');
      known(http, hat, ['method', 'path', 'body', 'headers']);
      if (typeof http.path !== 'string') bad(`${hat}/path`, 'must be a string');
      else if (!http.path.startsWith('/')) bad(`${hat}/path`, `must start with / (got ${show(http.path)})`);
      const method = http.method ?? 'GET';
      if (typeof method !== 'string' || !TOKEN.test(method) || ['CONNECT', 'TRACE', 'TRACK'].includes(method.toUpperCase())) {
        bad(`${hat}/method`, `must be an HTTP method such as GET, POST, PUT, PATCH or DELETE (got ${show(method)})`);
      } else if (http.body !== undefined && ['GET', 'HEAD'].includes(method.toUpperCase())) {
        bad(`${hat}/body`, `is not allowed with ${method.toUpperCase()}${http.method === undefined ? ' (the default method): give a method such as POST' : ''}`);
      }
      if (http.headers !== undefined) headerMap(http.headers, `${hat}/headers`);
      if (s.expect !== undefined) {
        if (!isMap(s.expect)) bad(`${at}/expect`, 'must be a mapping with status and/or body');
        else {
          known(s.expect, `${at}/expect`, ['status', 'body']);
          const st = s.expect.status;
          if (st !== undefined && !(Number.isInteger(st) && (st as number) >= 100 && (st as number) <= 599)) bad(`${at}/expect/status`, `must be an HTTP status, 100 to 599 (got ${show(st)})`);
        }
      }
      if (s.capture !== undefined) {
        if (!isMap(s.capture)) bad(`${at}/capture`, 'must be a mapping of names to body.… paths');
        for (const [name, path] of Object.entries(s.capture as Obj)) {
          if (!/^\w+$/.test(name)) bad(`${at}/capture/${esc(name)}`, 'is not a usable name (letters, digits and _ only)');
          if (typeof path !== 'string' || !/^(status|body(\.[^.]+)*)$/.test(path)) bad(`${at}/capture/${esc(name)}`, `must be status, body or a path such as body.items.0.uuid (got ${show(path)})`);
        }
        for (const name of Object.keys(s.capture as Obj)) captured.add(name);
      }
    } else if (kind === 'header') {
      headerMap(s.header, `${at}/header`);
    } else if (kind === 'wait_webhooks') {
      if (!Number.isInteger(s.wait_webhooks) || (s.wait_webhooks as number) < 0) bad(`${at}/wait_webhooks`, `must be a whole number >= 0 (got ${show(s.wait_webhooks)})`);
    } else {
      const list = s.expect_webhooks;
      if (!Array.isArray(list)) return bad(`${at}/expect_webhooks`, 'must be a list of webhook fields to compare');
      list.forEach((w, k) => {
        if (!isMap(w)) bad(`${at}/expect_webhooks/${k}`, 'must be a mapping of webhook fields');
      });
    }
  });
  return data as unknown as ReplayFile;
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

/** Plays one file against a server at `origin` (e.g. http://127.0.0.1:8080). */
export async function replay(file: string, origin: string, opts: { headerPrefix: string; basePath: string } = { headerPrefix: 'X-Service-', basePath: '/api/v3' }): Promise<ReplayResult> {
  const spec = loadReplay(file);
  const application = spec.application ?? `replay-${basename(file).replace(/\.\w+$/, '')}`;
  const base = (spec.base_path ?? opts.basePath).replace(/\/+$/, '');
  const headers: Record<string, string> = { [`${opts.headerPrefix.toLowerCase()}application`]: application };
  const vars = new Map<string, unknown>();
  const out = [`# ${spec.name ?? basename(file)}`];
  let ok = true;
  const hook = await receiver();
  try {
    // Nothing can be played against a server that cannot be reached or is no mock-server: a bad --url.
    let registered: Response;
    let answer: string;
    try {
      registered = await fetch(`${origin}/__admin/webhooks/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: hook.url, application }) });
      answer = await registered.text();
    } catch (e) {
      throw new ReplayError(`cannot reach ${origin}: ${reason(e)}`);
    }
    if (!registered.ok) {
      const hint = registered.status === 404 ? "is it a mock-server's origin, such as http://127.0.0.1:8080 (without /api/v3)?" : answer.replace(/\s+/g, ' ').slice(0, 200);
      throw new ReplayError(`${origin} answered ${registered.status} to PUT /__admin/webhooks/config: ${hint}`);
    }
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
      const http = (step.request ?? step.control) as HttpStep;
      const rawHttp = (raw.request ?? raw.control) as HttpStep;
      const method = (http.method ?? 'GET').toUpperCase();
      const url = `${origin}${step.request ? base : ''}${http.path}`;
      const sent: Record<string, string> = { ...(step.request ? headers : {}), ...(http.body !== undefined ? { 'content-type': 'application/json' } : {}) };
      for (const [k, v] of Object.entries(http.headers ?? {})) sent[k.toLowerCase()] = String(v);
      // A captured value (a token, say) can make a header fetch refuses: said here, without the value.
      const badHeader = Object.entries(sent).find(([, v]) => !HEADER_VALUE.test(v));
      let res: Response | null = null;
      let text = '';
      let why = badHeader ? `header ${badHeader[0]}: not a one-line value once \${…} is filled in` : '';
      if (!why) {
        try {
          res = await fetch(url, { method, headers: sent, body: http.body === undefined ? undefined : JSON.stringify(http.body) });
          text = await res.text();
        } catch (e) {
          why = reason(e, true);
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
    await hook.close();
  }
  out.push(ok ? 'PASS' : 'FAILED');
  return { ok, transcript: out };
}
