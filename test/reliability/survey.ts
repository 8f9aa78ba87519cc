/**
 * A survey, not a test: runs the fuzz suite's generators without stopping at the first failure and
 * prints every distinct failure (operation family, status, message shape) with one reproduction.
 *
 *   RELIABILITY_SURVEY=1 node --import=./test/typescript.mjs test/reliability/survey.ts [runs]
 *
 * Without RELIABILITY_SURVEY it does nothing: `tap test/reliability` loads every file of the folder.
 */
import fc from 'fast-check';
import { buildTestApp } from '../helper.js';
import { mutationFamilies, requestArb, type Mutation } from './arbitraries.js';
import { hiddenOperations, partnerOperations, type Operation } from './operations.js';
import { checkRequest } from './request.js';
import { renewAttacker, setupWorld } from './world.js';

if (process.env.RELIABILITY_SURVEY) await survey(Number(process.argv[2] ?? 10));

/** A failure's signature: what broke and the answer's code, with the variable parts blanked. */
function signature(message: string): string {
  const [what = '', , answer = ''] = message.split('\n');
  const code = /"code":"([^"]*)"/.exec(answer)?.[1] ?? '';
  return `${what.replace(/\d{3,}/g, 'N')} code=${code}`;
}

async function survey(runs: number) {
  const app = await buildTestApp();
  const world = await setupWorld(app);
  const start = (await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT0S' } })).json().now as string;
  // The global control routes last: a reset there would make every later isolation check fail.
  const ops: Operation[] = [...(await partnerOperations(app)), ...hiddenOperations].sort((a, b) => Number(a.global ?? false) - Number(b.global ?? false));

  const found = new Map<string, { count: number; ops: Set<string>; families: Set<string>; example: string; spec: string }>();
  for (const op of ops) {
    for (const mutation of Object.values(mutationFamilies) as fc.Arbitrary<Mutation>[]) {
      const arb = (focused: boolean) => requestArb(op, mutation, world.pools, world.examples[`${op.method} ${op.path}`], focused);
    const requests = mutation === mutationFamilies.deep ? arb(true) : mutation === mutationFamilies.hugeBody ? fc.oneof(arb(true), arb(false)) : arb(false);
    const specs = fc.sample(requests, { seed: 42, numRuns: runs });
      await renewAttacker(app, world);
      for (const spec of specs) {
        let status = 0;
        try {
          status = await checkRequest(app, op, spec, world);
        } catch (e) {
          const message = (e as Error).message;
          const sig = signature(message);
          const entry = found.get(sig) ?? { count: 0, ops: new Set(), families: new Set(), example: message, spec: JSON.stringify(spec).slice(0, 400) };
          entry.count++;
          entry.ops.add(`${op.method} ${op.path}`);
          entry.families.add(spec.mutation.kind === 'none' ? 'none' : `${spec.mutation.kind}${'at' in spec.mutation ? `@${spec.mutation.at}` : ''}`);
          found.set(sig, entry);
        } finally {
          if (op.global) {
            await app.inject({ method: 'DELETE', url: '/__admin/faults' });
            await app.inject({ method: 'POST', url: '/__admin/clock', payload: { set: start } });
          }
          if (op.kind === 'partner' && op.method !== 'GET' && status >= 200 && status < 300) await renewAttacker(app, world);
        }
      }
    }
  }
  console.log(`${ops.length} operations, ${Object.keys(mutationFamilies).length} families, ${runs} requests each`);
  for (const [sig, e] of [...found].sort((a, b) => b[1].count - a[1].count)) {
    console.log(`\n## ${sig}\n   ${e.count} failing requests; families: ${[...e.families].join(', ')}\n   operations (${e.ops.size}): ${[...e.ops].slice(0, 6).join(' | ')}${e.ops.size > 6 ? ' …' : ''}\n   ${e.example.split('\n').slice(1).join('\n   ')}`);
  }
  await app.close();
}
