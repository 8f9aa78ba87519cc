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

export function loadReplay(file: string): ReplayFile {
  let data: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ReplayError(`replay file ${file}: ${(e as Error).message.split('\n')[0]}`);
  }
  const steps = (data as ReplayFile | null)?.steps;
  if (!Array.isArray(steps) || steps.length === 0) throw new ReplayError(`replay file ${file}: /steps must be a non-empty list`);
  steps.forEach((s, i) => {
    const kinds = ['request', 'control', 'header', 'wait_webhooks', 'expect_webhooks'].filter((k) => k in (s ?? {}));
    if (kinds.length !== 1) throw new ReplayError(`replay file ${file}: /steps/${i} needs exactly one of request, control, header, wait_webhooks, expect_webhooks`);
    const http = s.request ?? s.control;
    if (http && typeof http.path !== 'string') throw new ReplayError(`replay file ${file}: /steps/${i}/${s.request ? 'request' : 'control'}/path must be a string`);
  });
  return data as ReplayFile;
}

/** Replaces ${name} with captured values, everywhere in strings of a value. */
function fill<T>(value: T, vars: Record<string, unknown>): T {
  if (typeof value === 'string') {
    const whole = /^\$\{(\w+)\}$/.exec(value);
    if (whole) return (vars[whole[1] as string] ?? value) as T;
    return value.replace(/\$\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m)) as T;
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
      try {
        got.push(JSON.parse(body) as Record<string, unknown>);
      } catch {
        got.push({ invalid: body });
      }
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
  const base = spec.base_path ?? (opts.basePath === '/' ? '' : opts.basePath);
  const headers: Record<string, string> = { [`${opts.headerPrefix.toLowerCase()}application`]: application };
  const vars: Record<string, unknown> = {};
  const out = [`# ${spec.name ?? basename(file)}`];
  let ok = true;
  const hook = await receiver();
  try {
    await fetch(`${origin}/__admin/webhooks/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: hook.url, application }) });
    for (const [i, raw] of spec.steps.entries()) {
      const step = fill(raw, vars);
      const label = raw.name ?? `step ${i + 1}`;
      const fail = (why: string) => {
        ok = false;
        out.push(`  FAIL ${why}`);
      };
      if (step.header) {
        Object.assign(headers, Object.fromEntries(Object.entries(step.header).map(([k, v]) => [k.toLowerCase(), v])));
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
      const res = await fetch(url, {
        method,
        headers: { ...(step.request ? headers : {}), ...(http.body !== undefined ? { 'content-type': 'application/json' } : {}), ...http.headers },
        body: http.body === undefined ? undefined : JSON.stringify(http.body),
      });
      const text = await res.text();
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
        vars[name] = pick({ body, status: res.status }, path);
        if (vars[name] === undefined) fail(`capture ${name}: nothing at ${path}`);
      }
    }
  } finally {
    await hook.close();
  }
  out.push(ok ? 'PASS' : 'FAILED');
  return { ok, transcript: out };
}
