import type { Config } from '../config.js';
import type { DriftFlags } from '../cli-flags.js';
import { addDays } from '../catalog/activity.render.js';
import { Upstream } from '../proxy/upstream.js';
import { startServer } from '../server.js';
import { compare, type Difference, type Pair } from './compare.js';
import { LEARN, queryFor, Side } from './sample.js';

export type { Difference } from './compare.js';

export interface DriftResult {
  upstream: string;
  /** The mock compared: its API base URL. */
  mock: string;
  application: string;
  /** Every operation sampled, with the status each side answered. */
  sampled: Array<{ operation: string; mock: number; upstream: number }>;
  /** Operations not sampled, and why (no id to fill in on one side). */
  skipped: Array<{ operation: string; why: string }>;
  differences: Difference[];
}

/** Bad input for the CLI (exit 2, one line): an upstream or mock that does not answer. */
export class DriftUnavailable extends Error {
  readonly userFacing = true;
}

type Responses = Pair['responses'];
type Doc = { paths: Record<string, Record<string, { tags?: string[]; responses?: Responses }>>; components?: { schemas?: Pair['schemas'] } };

/** Path parameters the samples can fill from list answers (LEARN) or from the sampled activity. */
const FILLABLE = new Set(['activityUuid', 'day', 'locale', ...LEARN.map(([, p]) => p)]);
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

/**
 * `mock-server drift`: the same read-only requests to the upstream and to the mock (its own, started
 * here with the settings given, or the one at `url`), a sample of every catalog operation of the
 * mock's document, two refusals, and with `allowWrites` a cart with one item; their answers'
 * shapes compared (compare.ts).
 */
export async function runDrift(config: Config, url: string | null, flags: DriftFlags): Promise<DriftResult> {
  const own = url === null ? await startServer({ ...config, upstream: null, record: null, port: 0, host: '127.0.0.1', db: 'memory', logLevel: 'silent' }, () => undefined) : null;
  const origin = (own?.origin ?? (url as string)).replace(/\/+$/, '');
  const clients = {
    docs: new Upstream(origin, { timeoutMs: 10_000, ...(own ? { proxy: { noProxy: '*' } } : {}) }),
    mock: new Upstream(`${origin}${config.basePath === '/' ? '' : config.basePath}`, { timeoutMs: 10_000, ...(own ? { proxy: { noProxy: '*' } } : {}) }),
    upstream: new Upstream(config.upstream as string, { timeoutMs: 15_000 }),
  };
  try {
    return await sampleAll(config, flags, clients);
  } finally {
    await Promise.all(Object.values(clients).map((c) => c.close()));
    await own?.close();
  }
}

async function sampleAll(config: Config, flags: DriftFlags, clients: Record<'docs' | 'mock' | 'upstream', Upstream>): Promise<DriftResult> {
  const headers = { [`${config.headerPrefix}Application`.toLowerCase()]: flags.application, 'accept-language': 'en-US' };
  const sides = [new Side('mock', clients.mock, headers), new Side('upstream', clients.upstream, headers)] as const;
  const result: DriftResult = { upstream: config.upstream as string, mock: clients.mock.url(''), application: flags.application, sampled: [], skipped: [], differences: [] };
  const doc = await clients.docs.send('GET', '/docs/json', {}, null).then(
    (r) => JSON.parse(r.body.toString('utf8')) as Doc,
    (e: Error) => {
      throw new DriftUnavailable(`the mock at ${clients.docs.base.origin} did not give its document (/docs/json): ${e.message}`);
    },
  );
  await sides[1].send('GET', '/categories').catch((e: Error) => {
    throw new DriftUnavailable(e.message);
  });
  const today = new Date().toISOString().slice(0, 10);
  const until = addDays(today, 30);
  for (const side of sides) {
    for (const [path, param, field] of LEARN) side.learn(param, await side.send('GET', path), field);
    await side.pickActivity(await side.send('GET', '/activities?limit=10'), today, until);
    side.params.set('locale', 'en-US');
  }

  const pair = async (operation: string, method: string, template: string, responses: Responses, body?: (side: Side) => unknown, custom?: (side: Side) => Promise<{ status: number; body: unknown }>) => {
    const filled = sides.map((s) => s.fill(template));
    const missing = filled.flatMap((f, i) => ('missing' in f ? [`no ${f.missing.join(', ')} on the ${sides[i]!.name}'s side`] : []));
    if (missing.length) return void result.skipped.push({ operation, why: missing.join('; ') });
    const [mock, upstream] = await Promise.all(sides.map((s, i) => (custom ? custom(s) : s.send(method, (filled[i] as { path: string }).path + (method === 'GET' ? queryFor(template, today, until) : ''), body?.(s)))));
    result.sampled.push({ operation, mock: mock!.status, upstream: upstream!.status });
    result.differences.push(...compare({ operation, mock: mock!, upstream: upstream!, responses, schemas: doc.components?.schemas }));
    return [mock!, upstream!] as const;
  };

  for (const [template, item] of Object.entries(doc.paths)) {
    const op = item.get;
    const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    if (!op || op.tags?.includes('authentication') || !params.every((p) => FILLABLE.has(p))) continue;
    // The catalog's changes of yesterday: the day of a sampled activity may lie ahead, which is refused.
    const custom = template === '/catalog/updates/{day}' ? (s: Side) => s.send('GET', `/catalog/updates/${addDays(today, -1)}`) : undefined;
    await pair(`GET ${template}`, 'GET', template, op.responses, undefined, custom);
  }
  // Refusals: their status and error body.
  const one = doc.paths['/activities/{activityUuid}']?.get?.responses;
  await pair('GET /activities/{activityUuid} (unknown uuid)', 'GET', '/activities/{activityUuid}', one, undefined, (s) => s.send('GET', `/activities/${UNKNOWN_UUID}`));
  await pair('GET /categories (no application header)', 'GET', '/categories', undefined, undefined, (s) => s.send('GET', '/categories', undefined, { 'accept-language': 'en-US' }));
  if (flags.allowWrites) await cart(sides, doc, pair);
  return result;
}

type PairFn = (operation: string, method: string, template: string, responses: Responses, body?: (side: Side) => unknown) => Promise<readonly [{ body: unknown }, { body: unknown }] | undefined>;

/** --allow-writes: a cart with one item of the sampled day on each side, and the reads a partner makes of it. */
async function cart(sides: readonly Side[], doc: Doc, pair: PairFn): Promise<void> {
  const responses = (path: string, method = 'get') => doc.paths[path]?.[method]?.responses;
  const learnUuid = (answers: readonly [{ body: unknown }, { body: unknown }] | undefined, param: string, pick: (b: Record<string, unknown>) => unknown) =>
    answers?.forEach((a, i) => {
      const v = pick((a.body ?? {}) as Record<string, unknown>);
      if (typeof v === 'string') sides[i]!.params.set(param, v);
    });
  learnUuid(await pair('POST /carts', 'POST', '/carts', responses('/carts', 'post')), 'cartUuid', (b) => b.uuid);
  const item = await pair('POST /carts/{cartUuid}/items', 'POST', '/carts/{cartUuid}/items', responses('/carts/{cartUuid}/items', 'post'), (s) => [JSON.parse(s.params.get('product') ?? '{}')]);
  learnUuid(item, 'cartItemUuid', (b) => (Array.isArray(b) ? (b[0] as { uuid?: unknown } | undefined)?.uuid : b.uuid));
  for (const path of ['/carts/{cartUuid}', '/carts/{cartUuid}/customer/schema', '/carts/{cartUuid}/items/{cartItemUuid}/participants/schema']) await pair(`GET ${path}`, 'GET', path, responses(path));
}
