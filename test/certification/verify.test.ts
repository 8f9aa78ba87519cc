// `mock-server certify verify` as a real process: it accepts a certificate a correct integration
// earned, and refuses an edited one, an expired one (its application's clock was moved back before
// the run) and one signed by another sandbox's key, each with one line why; bad input is exit 2.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { systemClock } from '../../src/clock.js';
import { run as cli } from '../cli-process.js';
import { buildTestApp } from '../helper.js';
import { playRun, receiver, until } from './client.js';

const SANDBOX = { client_id: 'sandbox-client', client_secret: 'sandbox-secret' };

async function sandbox(): Promise<{ app: FastifyInstance; origin: string }> {
  const app = await buildTestApp({ clock: systemClock() });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, origin: `http://127.0.0.1:${port}` };
}

/** A correct integration's run on `app`, played to its end: the certificate's text. */
async function certificate(app: FastifyInstance, application: string): Promise<string> {
  const hook = await receiver();
  t.teardown(hook.close);
  const id = await playRun(app, { application, credentials: SANDBOX, receiver: hook });
  await until(`${application}'s run to pass`, async () => (await app.inject({ url: `/__admin/certifications/${id}` })).json().state === 'passed');
  return (await app.inject({ url: `/__admin/certifications/${id}/certificate` })).body;
}

t.test('certify verify: valid, edited, expired, foreign, and bad input', async (t) => {
  const a = await sandbox();
  const b = await sandbox();
  // Two years back for one application only: its run passes, and its certificate expired long ago.
  const moved = await a.app.inject({ method: 'POST', url: '/__admin/clock', payload: { application: 'long-ago', set: new Date(Date.now() - 2 * 365 * 86_400_000).toISOString() } });
  t.equal(moved.statusCode, 200);
  const [valid, expired, foreign] = await Promise.all([certificate(a.app, 'careful'), certificate(a.app, 'long-ago'), certificate(b.app, 'careful')]);
  const dir = t.testdir();
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const [head, body, signature] = valid.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
  const edited = [head, Buffer.from(JSON.stringify({ ...claims, application: 'someone-else' })).toString('base64url'), signature].join('.');
  const jwks = file('jwks.json', (await a.app.inject({ url: '/.well-known/jwks.json' })).body);

  const ok = await cli(['certify', 'verify', file('valid.jwt', `${valid}\n`), '--url', a.origin]);
  t.equal(ok.code, 0, ok.stdout + ok.stderr);
  t.match(ok.stdout, /^valid: partner-booking-1 \(version 1\) certificate of application careful, API version 3\.5\.0, 15 requirements, issued .*, valid until .*, key \S+\n$/);
  const offline = await cli(['certify', 'verify', join(dir, 'valid.jwt'), '--jwks', jwks]);
  t.equal(offline.code, 0, 'the keys from a file');

  for (const [name, text, why] of [
    ['edited', edited, /^invalid: edited: the signature does not match the content\n$/],
    ['expired', expired, /^invalid: expired: it was valid until \d{4}-/],
    ['foreign', foreign, /^invalid: foreign: signed with key \S+, which is not one of these keys/],
  ] as const) {
    const r = await cli(['certify', 'verify', file(`${name}.jwt`, text), '--url', a.origin]);
    t.equal(r.code, 1, `${name}: exit 1`);
    t.match(r.stdout, why, `${name}: one line why`);
  }
  const other = await cli(['certify', 'verify', join(dir, 'foreign.jwt'), '--url', b.origin]);
  t.equal(other.code, 0, "the other sandbox's certificate is valid against its own keys");

  const notJws = await cli(['certify', 'verify', file('notes.txt', 'not a certificate'), '--url', a.origin]);
  t.equal(notJws.code, 2);
  t.match(notJws.stderr, /not a certificate: expected a compact JWS/);
  const missing = await cli(['certify', 'verify', join(dir, 'nothing-here.jwt'), '--url', a.origin]);
  t.equal(missing.code, 2);
  const nobody = await cli(['certify', 'verify', join(dir, 'valid.jwt'), '--url', 'http://127.0.0.1:9']);
  t.equal(nobody.code, 2);
  t.match(nobody.stderr, /nothing answers at http:\/\/127\.0\.0\.1:9/);
  const both = await cli(['certify', 'verify', join(dir, 'valid.jwt'), '--url', a.origin, '--jwks', jwks]);
  t.equal(both.code, 2);
  t.match(both.stderr, /--url or --jwks, not both/);
});
