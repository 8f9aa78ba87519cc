import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { jsonNestingDepth, MAX_JSON_DEPTH } from '../../src/http/json-body.js';
import { clip, MAX_ECHO, MAX_ECHO_PATH } from '../../src/http/errors.js';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStore } from '../../src/store/index.js';
import { buildTestApp, H } from '../helper.js';
import { tempDir } from '../tmp.js';

const API = '/api/v3';
const JSON_H = { ...H, 'content-type': 'application/json' };

/** The API's error shape: exactly {code, message}, code a string. */
function apiError(t: Test, res: LightMyRequestResponse, status: number, code: string, message: RegExp) {
  t.equal(res.statusCode, status, res.body.slice(0, 300));
  const body = res.json();
  t.same(Object.keys(body).sort(), ['code', 'message'], 'only code and message');
  t.match(body, { code, message });
}

/** `[[[ … ]]]` with `depth` levels. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

t.test('clip caps echoed values', async (t) => {
  t.equal(clip('short'), 'short');
  t.equal(clip('x'.repeat(MAX_ECHO)), 'x'.repeat(MAX_ECHO));
  t.equal(clip('x'.repeat(5000)), `${'x'.repeat(MAX_ECHO)}… (5000 characters)`);
  t.equal(clip(12345, 3), '123… (5 characters)');
  const emoji = `${'a'.repeat(MAX_ECHO - 1)}😀tail`;
  t.equal(clip(emoji), `${'a'.repeat(MAX_ECHO - 1)}… (${emoji.length} characters)`, 'no half surrogate pair');
});

t.test('jsonNestingDepth scans without recursing and ignores brackets in strings', async (t) => {
  t.equal(jsonNestingDepth('1'), 0);
  t.equal(jsonNestingDepth('{"a":[1,{"b":[]}]}'), 4);
  t.equal(jsonNestingDepth('{"a":"[[[[{{{{"}'), 1);
  t.equal(jsonNestingDepth('{"a":"\\"[[[[","b":"\\\\"}'), 1, 'escaped quotes and backslashes');
  t.equal(jsonNestingDepth(nested(200_000)), 200_000);
  t.equal(jsonNestingDepth('{"a":"unterminated [[['), 1);
});

t.test('request bodies nested deeper than 64 levels are refused before any handler', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const cart = (await app.inject({ method: 'POST', url: `${API}/carts`, headers: H })).json();
  const url = `${API}/carts/${cart.uuid}/customer`;

  t.test('a field holding 5,000 nested arrays: 400, the cart is untouched', async (t) => {
    const payload = `{"firstname":"Ada","lastname":"Lovelace","email":"ada@example.com","deep":${nested(5000)}}`;
    const res = await app.inject({ method: 'PUT', url, headers: JSON_H, payload });
    apiError(t, res, 400, '0', /^Request body is nested 5001 levels deep; at most 64 are allowed$/);
    const after = await app.inject({ method: 'GET', url: `${API}/carts/${cart.uuid}`, headers: H });
    t.equal(after.statusCode, 200, 'the cart still serializes');
    t.notMatch(after.body, /\[\[\[/);
  });

  t.test('500,000 levels (1 MB, just within the body limit)', async (t) => {
    const res = await app.inject({ method: 'POST', url: `${API}/carts`, headers: JSON_H, payload: nested(500_000) });
    apiError(t, res, 400, '0', /nested 500000 levels deep/);
  });

  t.test('every JSON route is covered, also ones without a body schema', async (t) => {
    const res = await app.inject({ method: 'POST', url: `${API}/login`, headers: JSON_H, payload: `{"client_id":${nested(65)}}` });
    apiError(t, res, 400, '0', /nested 66 levels deep/);
    const charset = await app.inject({
      method: 'POST', url: `${API}/carts`, headers: { ...H, 'content-type': 'application/json; charset=utf-8' }, payload: nested(100),
    });
    apiError(t, charset, 400, '0', /nested 100 levels deep/);
  });

  t.test('64 levels still parse (the body then fails or passes as before)', async (t) => {
    t.equal(MAX_JSON_DEPTH, 64);
    const ok = await app.inject({ method: 'POST', url: `${API}/carts`, headers: JSON_H, payload: `{"a":${nested(63)}}` });
    t.notMatch(ok.body, /nested/);
    t.equal(ok.statusCode, 200, ok.body);
    const strings = await app.inject({ method: 'POST', url: `${API}/carts`, headers: JSON_H, payload: JSON.stringify({ a: nested(1000) }) });
    t.equal(strings.statusCode, 200, 'brackets inside strings do not count');
  });
});

t.test('prototype-poisoning keys are named, not called invalid JSON', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const post = (payload: string) => app.inject({ method: 'POST', url: `${API}/login`, headers: JSON_H, payload });

  const proto = await post('{"client_id":"a","client_secret":"b","grant_type":"client_credentials","__proto__":{"admin":true}}');
  apiError(t, proto, 400, '0', /"__proto__" key/);
  t.notMatch(proto.json().message, /not valid JSON/);
  const ctor = await post('{"client_id":"a","constructor":{"prototype":{"admin":true}}}');
  apiError(t, ctor, 400, '0', /"constructor" object with a "prototype" key/);
  const invalid = await post('{"client_id":');
  apiError(t, invalid, 400, '0', /^Request body is not valid JSON/);
  const fine = await post('{"client_id":"x","client_secret":"y","grant_type":"client_credentials","constructor":"a string"}');
  apiError(t, fine, 401, '1401', /Unknown client_id "x"/);
});

t.test("Fastify's routing errors answer {code, message}", async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());

  t.test('bad percent-encoding in the path: 400, URL clipped', async (t) => {
    const res = await app.inject({ method: 'GET', url: `${API}/activities/%E0%A4%A`, headers: H });
    apiError(t, res, 400, '0', /^Request path is not a valid URL \(bad percent-encoding\): \/api\/v3\/activities\/%E0%A4%A$/);
    const long = await app.inject({ method: 'GET', url: `${API}/activities/%zz${'a'.repeat(5000)}`, headers: H });
    apiError(t, long, 400, '0', new RegExp(`bad percent-encoding\\): /api/v3/activities/%zza{${MAX_ECHO_PATH - 22}}… \\(5022 characters\\)$`));
    t.ok(long.json().message.length <= 300, 'the URL is clipped');
  });

  t.test('a path parameter over 100 characters gets the route 404, id clipped', async (t) => {
    const id = 'c'.repeat(5000);
    const res = await app.inject({ method: 'GET', url: `${API}/carts/${id}`, headers: H });
    apiError(t, res, 404, '1400', /^Cart c+… \(5000 characters\) does not exist$/);
    t.ok(res.json().message.length < 200);
    const activity = await app.inject({ method: 'GET', url: `${API}/activities/${'a'.repeat(300)}`, headers: H });
    apiError(t, activity, 400, '0', /must be a UUID, got "a+… \(300 characters\)"/);
  });

  t.test('a path parameter over 16 KB (only inject can send one past the header limit): 414, clipped', async (t) => {
    const res = await app.inject({ method: 'GET', url: `${API}/carts/${'c'.repeat(20_000)}`, headers: H });
    apiError(t, res, 414, '0', /^A path parameter is too long: \/api\/v3\/carts\/c+… \(20014 characters\)$/);
  });

  t.test(`an unknown route echoes at most ${MAX_ECHO_PATH} characters of its URL`, async (t) => {
    const res = await app.inject({ method: 'GET', url: `/nowhere/${'n'.repeat(20_000)}` });
    apiError(t, res, 404, '1400', new RegExp(`^No route for GET /nowhere/n{${MAX_ECHO_PATH - 9}}… \\(20009 characters\\)$`));
  });
});

t.test('messages never echo unbounded input', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const small = (t: Test, res: LightMyRequestResponse) => t.ok(res.body.length < 1000, `answer of ${res.body.length} bytes`);

  t.test('a 1 MB client_id on POST /login', async (t) => {
    const client_id = 'x'.repeat(1_000_000);
    const res = await app.inject({ method: 'POST', url: `${API}/login`, headers: H, payload: { client_id, client_secret: 's', grant_type: 'client_credentials' } });
    apiError(t, res, 401, '1401', new RegExp(`^Unknown client_id "x{${MAX_ECHO}}… \\(1000000 characters\\)"$`));
    small(t, res);
  });

  t.test('a 10,000-character grant_type on GET /login', async (t) => {
    const qs = new URLSearchParams({ client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'g'.repeat(10_000) });
    const res = await app.inject({ method: 'GET', url: `${API}/login?${qs}`, headers: H });
    apiError(t, res, 400, '0', new RegExp(`got "g{${MAX_ECHO}}… \\(10000 characters\\)"`));
    small(t, res);
  });

  t.test('header values', async (t) => {
    for (const header of ['x-service-currency', 'x-service-market', 'x-service-version']) {
      const res = await app.inject({ method: 'GET', url: `${API}/currencies`, headers: { ...H, [header]: 'Z'.repeat(10_000) } });
      t.equal(res.statusCode, 400, header);
      t.match(res.json().message, new RegExp(`"Z{${MAX_ECHO}}… \\(10000 characters\\)"`), header);
      small(t, res);
    }
  });

  t.test('query values', async (t) => {
    const res = await app.inject({ method: 'GET', url: `${API}/activities?sort_by=${'s'.repeat(10_000)}`, headers: H });
    apiError(t, res, 400, '0', new RegExp(`"s{${MAX_ECHO}}… \\(10000 characters\\)"`));
    small(t, res);
  });

  t.test('an unsupported Content-Type is named, clipped', async (t) => {
    const res = await app.inject({ method: 'POST', url: `${API}/carts`, headers: { ...H, 'content-type': `application/${'t'.repeat(10_000)}` }, payload: 'x' });
    apiError(t, res, 415, '0', new RegExp(`^Unsupported Content-Type "application/t{${MAX_ECHO - 12}}… \\(10012 characters\\)": send application/json$`));
    small(t, res);
    const xml = await app.inject({ method: 'POST', url: `${API}/carts`, headers: { ...H, 'content-type': 'application/xml' }, payload: '<a/>' });
    apiError(t, xml, 415, '0', /^Unsupported Content-Type "application\/xml": send application\/json$/);
  });
});

t.test('only JSON bodies are parsed: text/plain answers 415 naming the type, bodiless requests still work', async (t) => {
  const app = await buildTestApp();
  t.teardown(() => app.close());
  const text = (url: string, type: string, payload: string) => app.inject({ method: 'POST', url: `${API}${url}`, headers: { ...H, 'content-type': type }, payload });
  const login = JSON.stringify({ client_id: 'sandbox-client', client_secret: 'sandbox-secret', grant_type: 'client_credentials' });
  // Fastify's default text/plain parser used to hand the body to the schema as a string: a 400.
  apiError(t, await text('/login', 'text/plain', login), 415, '0', /^Unsupported Content-Type "text\/plain": send application\/json$/);
  apiError(t, await text('/login', 'text/plain; charset=utf-8', login), 415, '0', /^Unsupported Content-Type "text\/plain; charset=utf-8": send application\/json$/);
  const cart = (await app.inject({ method: 'POST', url: `${API}/carts`, headers: H })).json();
  apiError(t, await text(`/carts/${cart.uuid}/items`, 'text/plain', '[]'), 415, '0', /"text\/plain"/);
  apiError(t, await text('/carts', 'Text/Plain', 'hello'), 415, '0', /"Text\/Plain"/);
  t.equal((await text('/login', 'application/json', login)).statusCode, 200, 'the same body as JSON logs in');
  // Without a body and without a Content-Type, or with an empty JSON body: no parser, no 415.
  const bare = await app.inject({ method: 'POST', url: `${API}/carts`, headers: H });
  t.equal(bare.statusCode, 200, 'POST /carts without body or Content-Type');
  const untyped = await app.inject({ method: 'POST', url: `${API}/carts`, headers: H, payload: Buffer.from('{"a":1}') });
  apiError(t, untyped, 415, '0', /^Unsupported Content-Type "\(none\)": send application\/json$/);
  t.equal((await text('/carts', 'application/json', '')).statusCode, 200, 'POST /carts with an empty JSON body');
});

t.test('a write the state file does not take answers 503 {code, message} and is not acknowledged', async (t) => {
  const dir = join(tempDir(t), 'state');
  const app = await buildTestApp({ store: await createStore(join(dir, 'state.json'), { warn: () => undefined }) });
  t.teardown(() => app.close().catch(() => undefined));
  t.equal((await app.inject({ method: 'POST', url: `${API}/carts`, headers: H })).statusCode, 200);
  // The directory cannot be created again: a file has its name.
  rmSync(dir, { recursive: true });
  writeFileSync(dir, '');
  const res = await app.inject({ method: 'POST', url: `${API}/carts`, headers: H });
  t.equal(res.statusCode, 503);
  t.match(res.json(), { code: '0', message: /could not be saved to the state file .*not acknowledged/ });
  t.same(Object.keys(res.json()).sort(), ['code', 'message']);
  rmSync(dir);
  t.equal((await app.inject({ method: 'POST', url: `${API}/carts`, headers: H })).statusCode, 200, 'answers again once the disk takes writes');
});
