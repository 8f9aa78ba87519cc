// A shared sandbox (--shared): a partner's listener and trigger act on its own application only, whatever the flags say.
import t from 'tap';
import { createControlClient } from '../../src/control-client.js';
import { itemOf, listener, receiver, run, sandbox, until } from './processes.js';

const ADMIN = 'admin-token-for-listen';
const SECRET = 'shared-secret';

t.test("a partner's listener gets its own application's events and none of another's", async (t) => {
  const { origin } = await sandbox(t, ['--shared', '--admin-token', ADMIN, '--webhook-secret', SECRET]);
  const admin = createControlClient(`${origin}/__admin`, { adminToken: ADMIN });
  const scopes = ['no-payment', 'order-item-cancellation'] as const;
  const acme = await admin.clients.register({ applications: ['acme-shop'], scopes: [...scopes] });
  const bravo = await admin.clients.register({ applications: ['bravo-shop'], scopes: [...scopes] });
  const as = (c: { client_id: string; client_secret: string }, application: string) => ['--url', origin, '--application', application, '--client-id', c.client_id, '--client-secret', c.client_secret];

  // A loopback receiver is refused to a partner on a shared sandbox; a listener is not a receiver the sandbox reaches: it is the partner's own connection.
  const local = await receiver(t, SECRET);
  const listen = await listener(t, ['--forward-to', local.url, ...as(acme, 'acme-shop')]);
  t.match(listen.stderr(), "Ready: relaying application acme-shop's webhooks");
  // The operator's listener, with the admin token: every application's that has none of its own.
  const everything = await receiver(t, SECRET);
  const operator = await listener(t, ['--url', origin, '--admin-token', ADMIN, '--forward-to', everything.url]);
  t.match(operator.stderr(), "Ready: relaying every application's webhooks");
  const mine = await run(['trigger', 'confirmed', ...as(acme, 'acme-shop')]);
  t.equal(mine.code, 0, mine.stderr);
  const theirs = await run(['trigger', 'confirmed', ...as(bravo, 'bravo-shop')]);
  t.equal(theirs.code, 0, theirs.stderr);
  const item = itemOf(mine.stdout);
  const got = await until('acme-shop\'s webhook', () => local.got.find((h) => h.item === item));
  t.match(got, { status: 'OK', verified: true });
  // Bravo's moves are over (its trigger ran to its end) before this look: nothing of it came, nor will.
  await until('the listener line', () => listen.stdout().includes(item));
  t.same(new Set(local.got.map((h) => h.item)), new Set([item]), "only acme-shop's item reached acme-shop's receiver");
  t.notOk(listen.stdout().includes('bravo-shop'), "the listener printed nothing of bravo-shop's");
  await until("bravo-shop's webhook at the operator's", () => everything.got.find((h) => h.item === itemOf(theirs.stdout)));
  t.same(everything.got.map((h) => [h.item, h.verified]), [[itemOf(theirs.stdout), true]], "the admin token's listener got bravo-shop's, signed, and not acme-shop's, which has a listener of its own");

  // The token decides, never a flag: acme-shop's client cannot listen to bravo-shop, nor its token act on bravo-shop's item.
  const other = await run(['listen', '--forward-to', local.url, ...as(acme, 'bravo-shop')]);
  t.equal(other.code, 2);
  t.match(other.stderr, /^mock-server: login as cl_\S+ for application bravo-shop refused: .+\n$/);
  const token = (await (await fetch(`${origin}/api/v3/login`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-service-application': 'acme-shop' },
    body: JSON.stringify({ client_id: acme.client_id, client_secret: acme.client_secret, grant_type: 'client_credentials' }),
  })).json()) as { access_token: string };
  const named = await run(['listen', '--url', origin, '--forward-to', local.url, '--token', token.access_token, '--application', 'bravo-shop']);
  t.equal(named.code, 2);
  t.match(named.stderr, /^mock-server: the sandbox refused the listener: 404 Application "bravo-shop" is not this token's/);
  const onTheirs = await run(['trigger', 'cancelled', '--url', origin, '--token', token.access_token, '--item', itemOf(theirs.stdout)]);
  t.equal(onTheirs.code, 2);
  t.equal(onTheirs.stderr, `mock-server: no order item ${itemOf(theirs.stdout)} in application acme-shop\n`, "a token's application is found from the token");
  // Without credentials a shared sandbox takes no listener.
  const anonymous = await run(['listen', '--url', origin, '--forward-to', local.url]);
  t.equal(anonymous.code, 2);
  t.match(anonymous.stderr, /^mock-server: the sandbox refused the listener: 401 /);
});
