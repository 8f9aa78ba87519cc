// The sandbox's signing key: made when first needed and kept with the state (memory, the state file
// across a restart, PostgreSQL across instances), or supplied with --certificate-key, whose key set
// keeps the stored key beside it; a file that is no Ed25519 key stops the start with one line.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { CERTIFICATE_TYP, certificateKeys } from '../../src/certification/signing.js';
import { createStore } from '../../src/store/index.js';
import { run as cli } from '../cli-process.js';
import { startPostgres } from '../pg/server.js';

const pem = (type: 'ed25519' | 'rsa') => generateKeyPairSync(type as 'ed25519', type === 'rsa' ? ({ modulusLength: 2048 } as never) : undefined).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

t.test('made once, kept with the state: memory, the state file across a restart', async (t) => {
  const memory = await createStore('memory');
  t.teardown(() => memory.close());
  const [a, b] = [await certificateKeys(memory, null), await certificateKeys(memory, null)];
  t.equal(a.kid, b.kid, 'the second start finds the key');
  t.same(a.jwks().keys.map((k) => [k.kty, k.crv, k.alg, k.kid]), [['OKP', 'Ed25519', 'EdDSA', a.kid]]);
  t.notOk('d' in (a.jwks().keys[0] ?? {}), 'no private part in the key set');

  const file = join(t.testdir(), 'state.json');
  const first = await createStore(file);
  const kid = (await certificateKeys(first, null)).kid;
  await first.close();
  const again = await createStore(file);
  t.teardown(() => again.close());
  t.equal((await certificateKeys(again, null)).kid, kid, 'a restart signs with the same key');
});

t.test('--certificate-key signs with the given key; the stored key stays in the set', async (t) => {
  const store = await createStore('memory');
  t.teardown(() => store.close());
  const stored = await certificateKeys(store, null);
  const dir = t.testdir();
  const own = join(dir, 'key.pem');
  writeFileSync(own, pem('ed25519'));
  const keys = await certificateKeys(store, own);
  t.not(keys.kid, stored.kid);
  t.same(keys.jwks().keys.map((k) => k.kid), [keys.kid, stored.kid]);
  const token = await keys.sign({ suite: 's', application: 'a', requirements: [] }, new Date(), new Date(Date.now() + 60_000));
  const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(keys.jwks()), { typ: CERTIFICATE_TYP });
  t.equal(protectedHeader.kid, keys.kid);
  const older = await stored.sign({ suite: 's', application: 'a', requirements: [] }, new Date(), new Date(Date.now() + 60_000));
  await t.resolves(jwtVerify(older, createLocalJWKSet(keys.jwks())), 'a certificate signed with the stored key still verifies');

  writeFileSync(join(dir, 'rsa.pem'), pem('rsa'));
  writeFileSync(join(dir, 'junk.pem'), 'not a key');
  await t.rejects(certificateKeys(store, join(dir, 'rsa.pem')), /rsa\.pem: not an Ed25519 private key in PKCS#8 PEM/);
  await t.rejects(certificateKeys(store, join(dir, 'junk.pem')), /junk\.pem: not an Ed25519 private key/);
  const start = await cli(['--port', '0', '--db', 'memory', '--catalog-size', '5', '--certificate-key', join(dir, 'junk.pem')]);
  t.equal(start.code, 2, 'the server does not start');
  t.match(start.stderr, /^mock-server: --certificate-key \S+junk\.pem: not an Ed25519 private key in PKCS#8 PEM/);
});

t.test('PostgreSQL: every instance on one database signs with the one key, made once', async (t) => {
  const server = await startPostgres(t);
  const url = await server.createDatabase('certificate_keys');
  const stores = await Promise.all([createStore(url), createStore(url)]);
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  // Both start at once: the first key kept wins, and the other instance takes it.
  const [a, b] = await Promise.all(stores.map((s) => certificateKeys(s, null)));
  t.equal(a?.kid, b?.kid);
});
