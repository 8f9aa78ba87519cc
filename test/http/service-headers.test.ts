import t from 'tap';
import { buildTestApp, H } from '../helper.js';

t.test('common request headers', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const get = (headers: Record<string, string>) =>
    app.inject({ method: 'GET', url: '/api/v3/currencies', headers });

  t.test('application header is required, 400 code 2271 naming it', async (t) => {
    const res = await get({});
    t.equal(res.statusCode, 400);
    t.same(res.json(), { code: '2271', message: 'Missing header: x-service-application is required' });
    const blank = await get({ 'x-service-application': '  ' });
    t.equal(blank.json().code, '2271');
  });

  t.test('a known application passes', async (t) => {
    const res = await get(H);
    t.equal(res.statusCode, 200);
    t.ok(res.json().some((c: { code: string }) => c.code === 'USD'));
  });

  t.test('unknown market: 400 code -1', async (t) => {
    const res = await get({ ...H, 'x-service-market': 'zz' });
    t.equal(res.statusCode, 400);
    t.equal(res.json().code, '-1');
    t.match(res.json().message, /X-Service-Market/);
  });

  t.test('unknown currency: 400 naming the header', async (t) => {
    const res = await get({ ...H, 'x-service-currency': 'XYZ' });
    t.equal(res.statusCode, 400);
    t.match(res.json(), { code: '0', message: /X-Service-Currency/ });
  });

  t.test('version must match the pattern', async (t) => {
    t.equal((await get({ ...H, 'x-service-version': '3.4.0' })).statusCode, 200);
    const bad = await get({ ...H, 'x-service-version': 'latest' });
    t.equal(bad.statusCode, 400);
    t.match(bad.json().message, /X-Service-Version/);
  });
});

t.test('a custom header prefix renames every header', async (t) => {
  const app = await buildTestApp({ config: { headerPrefix: 'X-Acme-' } });
  t.teardown(() => app.close());
  const missing = await app.inject({ url: '/api/v3/currencies', headers: H });
  t.match(missing.json(), { code: '2271', message: /x-acme-application/ });
  const ok = await app.inject({ url: '/api/v3/currencies', headers: { 'x-acme-application': 'a' } });
  t.equal(ok.statusCode, 200);
});

t.test('unknown paths are 404 {code, message}', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ url: '/api/v3/nope', headers: H });
  t.equal(res.statusCode, 404);
  t.same(Object.keys(res.json()).sort(), ['code', 'message']);
  t.type(res.json().code, 'string');
});
