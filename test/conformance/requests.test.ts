/**
 * The other half of conformance: what the mock's own OpenAPI document (/docs/json) asks of a
 * request must not contradict the vendor's. A query parameter the vendor makes optional is optional
 * here too, and every enum value the vendor lists is one the mock documents (where the references
 * disagree, both forms are taken).
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { buildTestApp, H } from '../helper.js';
import { REFERENCE } from './reference.js';

interface Param {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: unknown[]; items?: { enum?: unknown[] }; anyOf?: Array<{ enum?: unknown[]; items?: { enum?: unknown[] } }> };
}
type Doc = { paths: Record<string, Record<string, { parameters?: Param[] }>>; components?: { parameters?: Record<string, Param> } };

const enumOf = (p: Param) => p.schema?.enum ?? p.schema?.items?.enum ?? p.schema?.anyOf?.flatMap((s) => s.enum ?? s.items?.enum ?? []);

t.test("the mock's document asks nothing of a request that the vendor's does not allow", async (t) => {
  const ref = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Doc;
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const mine = (await app.inject({ url: '/docs/json' })).json() as Doc;
  const deref = (p: Param) => (p.$ref ? (ref.components?.parameters?.[p.$ref.split('/').pop() as string] as Param) : p);
  const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
  const mineOps = new Map<string, Param[]>();
  for (const [path, item] of Object.entries(mine.paths)) {
    for (const [m, op] of Object.entries(item)) mineOps.set(`${m.toUpperCase()} ${shape(path.replace(/^\/api\/v3/, ''))}`, op.parameters ?? []);
  }
  const problems: string[] = [];
  for (const [path, item] of Object.entries(ref.paths)) {
    for (const [m, op] of Object.entries(item)) {
      const key = `${m.toUpperCase()} ${shape(path)}`;
      const params = mineOps.get(key);
      if (!params) continue; // served or not is the other test's business
      const refQuery = (op.parameters ?? []).map(deref).filter((p) => p.in === 'query');
      const query = params.filter((p) => p.in === 'query');
      for (const q of query) {
        const r = refQuery.find((x) => x.name === q.name);
        if (q.required && !r?.required) problems.push(`${key}: "${q.name}" is required here, ${r ? 'optional' : 'unknown'} in the reference`);
        const refEnum = r ? enumOf(r) : undefined;
        const ownEnum = enumOf(q);
        const missing = refEnum && ownEnum ? refEnum.filter((v) => !ownEnum.includes(v)) : [];
        if (missing.length) problems.push(`${key}: "${q.name}" does not take ${missing.join(', ')} (the reference lists them)`);
      }
      const header = params.find((p) => p.in === 'header' && p.name === 'x-service-application');
      if (header && !header.required) problems.push(`${key}: the application header is not marked required`);
    }
  }
  t.same(problems, [], 'no contradictions');
  // One that was: /events took temporary 0 or 1 (the spec), the reference YES.
  const yes = await app.inject({ url: '/api/v3/events?temporary=YES', headers: H });
  const one = await app.inject({ url: '/api/v3/events?temporary=1', headers: H });
  t.equal(yes.statusCode, 200);
  t.same(yes.json(), one.json(), 'YES and 1 mean the same');
});
