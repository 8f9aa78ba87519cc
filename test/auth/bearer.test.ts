import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, testCatalog, H } from '../helper.js';
import { fixedClock } from '../../src/clock.js';
import type { Catalog } from '../../src/seed/catalog.js';
import type { ActivityRecord } from '../../src/seed/types.js';
import { tempDir } from '../tmp.js';

const LOGIN = '/api/v3/login';
const TAGGED = '5a002d99-781b-479b-9a9d-9efadfd34ec2';
const UNTAGGED = '6b0f7a3c-1111-4222-8333-944455556666';
const DRAFT = '7c1e8b4d-2222-4333-8444-a55566667777';
const UNKNOWN = '00000000-0000-4000-8000-000000000001';

/** The seeded catalog plus three bare activities: the tag route needs only uuid and status. */
async function tinyCatalog(): Promise<Catalog> {
  const base = await testCatalog();
  const extra = [
    { uuid: TAGGED, status: 'ONLINE' },
    { uuid: UNTAGGED, status: 'ONLINE' },
    { uuid: DRAFT, status: 'DRAFT' },
  ] as unknown as ActivityRecord[];
  return { ...base, activityByUuid: new Map([...base.activityByUuid, ...extra.map((a) => [a.uuid, a] as const)]) };
}

async function login(app: FastifyInstance, application = 'test-app', client = 'sandbox') {
  const res = await app.inject({
    method: 'POST', url: LOGIN, headers: { 'x-service-application': application },
    payload: { client_id: `${client}-client`, client_secret: `${client}-secret`, grant_type: 'client_credentials' },
  });
  if (res.statusCode !== 200) throw new Error(res.body);
  return res.json().access_token as string;
}

const tags = (app: FastifyInstance, uuid: string, token?: string, application = 'test-app') =>
  app.inject({
    url: `/api/v3/activities/${uuid}/merchant-tags`,
    headers: { 'x-service-application': application, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
  });

t.test('merchant-tags needs a valid token and answers that partner tags', async (t) => {
  const app = await buildTestApp({ catalog: await tinyCatalog() });
  t.teardown(() => app.close());
  const anonymous = await tags(app, TAGGED);
  t.equal(anonymous.statusCode, 401);
  t.match(anonymous.json(), { code: '1401', message: /Bearer/ });
  t.match(anonymous.headers['www-authenticate'], /^Bearer/);

  const sandbox = await login(app);
  const res = await tags(app, TAGGED, sandbox);
  t.equal(res.statusCode, 200);
  t.same(res.json(), ['featured', 'city-pass']);
  t.same((await tags(app, TAGGED.toUpperCase(), sandbox)).json(), ['featured', 'city-pass'], 'uuid case does not matter');
  t.same((await tags(app, UNTAGGED, sandbox)).json(), [], 'no tags set up: empty list');
  const limited = await login(app, 'test-app', 'limited');
  t.same((await tags(app, TAGGED, limited)).json(), ['partner-pick'], 'each partner sees its own tags');

  const unknown = await tags(app, UNKNOWN, sandbox);
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json(), { code: '1400' });
  t.equal((await tags(app, 'not-a-uuid', sandbox)).statusCode, 400);
  t.equal((await tags(app, DRAFT, sandbox)).statusCode, 403);
  t.equal((await tags(app, UNKNOWN)).statusCode, 401, 'authentication is checked before the activity');
});

t.test('bad, foreign and expired tokens are refused; no header stays anonymous', async (t) => {
  const clock = fixedClock('2026-01-15T10:00:00Z');
  const app = await buildTestApp({ clock, catalog: await tinyCatalog() });
  t.teardown(() => app.close());
  const token = await login(app);

  for (const authorization of ['Bearer nope', 'Basic c2FuZGJveA==', 'Bearer', `Bearer ${token} extra`]) {
    const res = await app.inject({ url: '/api/v3/currencies', headers: { ...H, authorization } });
    t.equal(res.statusCode, 401, authorization);
    t.match(res.json(), { code: '1401', message: String });
    t.match(res.headers['www-authenticate'], /error="invalid_token"/);
  }
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: H })).statusCode, 200, 'anonymous catalog reads are allowed');
  t.equal((await app.inject({ url: '/api/v3/currencies', headers: { ...H, authorization: `bearer ${token}` } })).statusCode, 200, 'scheme is case-insensitive');

  const foreign = await tags(app, TAGGED, token, 'other-app');
  t.equal(foreign.statusCode, 401, 'a token works only with its application');
  t.match(foreign.json().message, /issued for application "test-app", not "other-app"/);

  const tick = await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT59M59S' } });
  t.same(tick.json(), { now: '2026-01-15T10:59:59.000Z', application: null });
  t.equal((await tags(app, TAGGED, token)).statusCode, 200, 'valid until its expiry');
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'PT1S' } });
  const expired = await tags(app, TAGGED, token);
  t.equal(expired.statusCode, 401, 'expired after expires_in seconds on the server clock');
  t.match(expired.json(), { code: '1401', message: /expired at 2026-01-15T11:00:00.000Z/ });

  const relogin = await app.inject({
    method: 'POST', url: LOGIN, headers: { ...H, authorization: `Bearer ${token}` },
    payload: { client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' },
  });
  t.equal(relogin.statusCode, 200, '/login ignores the expired token it is replacing');
  t.equal((await tags(app, TAGGED, relogin.json().access_token)).statusCode, 200);

  t.equal(Object.keys(app.store.tenant('test-app').tokens).length, 2);
  await app.inject({ method: 'POST', url: '/__admin/clock', payload: { advance: 'P2D' } });
  const fresh = await login(app);
  t.same(Object.keys(app.store.tenant('test-app').tokens).length, 1, 'a login drops tokens expired for more than a day');
  t.equal((await tags(app, TAGGED, fresh)).statusCode, 200);
  t.match((await tags(app, TAGGED, token)).json().message, /Invalid access token/, 'a dropped token is unknown');
});

t.test('requireScope', async (t) => {
  const { requireScope, requirePartner } = await import('../../src/auth/index.js');
  const { errors } = await import('../../src/http/errors.js');
  const req = (partner: unknown) => ({ service: { partner } }) as unknown as Parameters<typeof requireScope>[0];
  const limited = { clientId: 'limited-client', scopes: ['comment'] };
  const caught = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    return null;
  };
  t.match(caught(() => requirePartner(req(null))), { statusCode: 401, code: '1401' });
  t.match(caught(() => requireScope(req(null), 'comment')), { statusCode: 401 });
  t.equal(requireScope(req(limited), 'comment'), limited);
  t.match(caught(() => requireScope(req(limited), 'no-payment')), { statusCode: 403, message: /"no-payment"/ });
  t.match(caught(() => requireScope(req(limited), 'no-payment', () => errors.validation('x'))), { statusCode: 400 });
});

t.test('merchant-tags.json from a fixture directory is validated at start', async (t) => {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = tempDir(t, 'tags-');
  const file = join(dir, 'merchant-tags.json');
  const bad: Array<[unknown, RegExp]> = [
    [{}, /"merchant_tags" must be an object/],
    [{ merchant_tags: { c: [] } }, /merchant_tags\.c must be an object/],
    [{ merchant_tags: { c: { 'not-a-uuid': ['x'] } } }, /merchant_tags\.c\.not-a-uuid: the key must be an activity UUID/],
    [{ merchant_tags: { c: { [TAGGED]: ['ok', ''] } } }, /must be an array of non-empty strings/],
  ];
  for (const [doc, message] of bad) {
    writeFileSync(file, JSON.stringify(doc));
    const err = await buildTestApp({ config: { fixtures: dir } }).catch((e: unknown) => e);
    t.match(err, { userFacing: true, message }, JSON.stringify(doc));
    t.match((err as Error).message, file);
  }
  writeFileSync(file, JSON.stringify({ merchant_tags: { 'sandbox-client': { [TAGGED]: ['mine'] } } }));
  const app = await buildTestApp({ config: { fixtures: dir }, catalog: await tinyCatalog() });
  t.teardown(() => app.close());
  t.same((await tags(app, TAGGED, await login(app))).json(), ['mine'], 'the user file replaces the built-in tags of that client');
});
