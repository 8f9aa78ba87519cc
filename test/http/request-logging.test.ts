import t from 'tap';
import { buildApp } from '../../src/app.js';
import { defaults } from '../../src/config.js';
import { fixedClock } from '../../src/clock.js';
import { testCatalog, H } from '../helper.js';

/** An app whose pino logger writes parsed lines into `lines`, with a route that fails unexpectedly. */
async function appLoggingAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
  const app = await buildApp({ config: { ...defaults, seed: 1, catalogSize: 20 }, clock: fixedClock(), catalog: await testCatalog(), logger: { level, stream } });
  app.get('/boom', async () => {
    throw new Error('kaput');
  });
  await app.ready();
  return { app, lines };
}

t.test('at warn: no line per request, and an unexpected error is logged with its request id', async (t) => {
  const { app, lines } = await appLoggingAt('warn');
  t.teardown(() => app.close());
  t.equal((await app.inject({ url: '/api/v3/activities?limit=1', headers: H })).statusCode, 200);
  t.same(lines, [], 'nothing logged for a request that went well');
  const res = await app.inject({ url: '/boom' });
  t.equal(res.statusCode, 500);
  t.notMatch(res.body, /kaput/, 'the message is not echoed to the client');
  t.equal(lines.length, 1);
  t.match(lines[0], { level: 50, msg: 'unexpected error', reqId: String, err: { message: 'kaput' } });
});

t.test('at info: each request is logged as it comes and when it completes', async (t) => {
  const { app, lines } = await appLoggingAt('info');
  t.teardown(() => app.close());
  await app.inject({ url: '/api/v3/activities?limit=1', headers: H });
  t.same(lines.map((l) => l.msg), ['incoming request', 'request completed']);
  t.equal(lines[0]!.reqId, lines[1]!.reqId);
});
