// `mock-server trigger` as a real process against a real sandbox process, with a receiver on 127.0.0.1.
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtinScenariosDir } from '../../src/paths.js';
import { loadScenarios } from '../../src/scenarios/index.js';
import { EVENTS } from '../../src/trigger/events.js';
import { itemOf, receiver, run, sandbox } from '../listen/processes.js';

const SECRET = 'trigger-secret';

// One sandbox for the file (a start is slow on a loaded machine), its webhooks to a receiver here.
const hooks = await receiver(t, SECRET);
const { origin } = await sandbox(t, ['--webhook-url', hooks.url, '--webhook-secret', SECRET]);

t.test('every event of --list runs to its end, and the receiver gets its signed webhooks in order', async (t) => {
  const list = await run(['trigger', '--list']);
  t.equal(list.code, 0);
  const listed = list.stdout.trim().split('\n').map((l) => l.split(/\s+/)[0]);
  t.same(listed, EVENTS.map((e) => e.name), '--list names every event of the table');
  for (const name of ['confirmed', 'refused', 'confirmed-later', 'cancelled', 'cancellation-error', 'cancellation-error-kept', 'duplicate-delivery', 'receiver-down']) t.ok(listed.includes(name), `--list has ${name}`);

  const scenarios = loadScenarios(builtinScenariosDir, null);
  for (const event of EVENTS) {
    const r = await run(['trigger', event.name, '--url', origin]);
    t.equal(r.code, 0, `${event.name}: exit 0 (${r.stderr})`);
    const item = itemOf(r.stdout);
    const scenario = scenarios.get(event.scenario)!;
    const moves = scenario.steps.flatMap((s) => ('status' in s ? [s.status] : []));
    // An item that starts OK was confirmed at payment: that webhook comes first.
    const expected = [...(scenario.from === 'OK' ? ['OK'] : []), ...moves];
    const sent = hooks.got.filter((h) => h.item === item);
    const statuses = sent.map((h) => h.status);
    if (event.name === 'duplicate-delivery') {
      t.same(statuses, ['OK', 'OK'], 'duplicate-delivery: the confirmation twice');
      t.equal(sent[0]?.id, sent[1]?.id, 'with the same webhook-id');
    } else t.same(statuses, expected, `${event.name}: the receiver got ${expected.join(', ')}`);
    t.ok(sent.every((h) => h.verified), `${event.name}: every webhook verifies with standardwebhooks`);
    let from = scenario.from as string;
    for (const to of moves) {
      t.match(r.stdout, `move         ${from} → ${to}`, `${event.name}: prints the move ${from} → ${to}`);
      from = to;
    }
    t.match(r.stdout, /^booked +order \S+ \([0-9a-f-]{36}\): 1 × /m, `${event.name}: prints the order`);
    t.match(r.stdout, /delivered$/m, `${event.name}: prints the deliveries`);
    if (event.name === 'receiver-down') {
      // Four attempts fail on purpose, the retry after the receiver is up gets through.
      const delivery = /^delivery .*$/m.exec(r.stdout)?.[0] ?? '';
      t.equal(delivery.match(/receiver down \(scenario receiver-down\)/g)?.length, 4, delivery);
      t.match(delivery, /200 in [\d.]+ ms; delivered$/);
      t.match(r.stdout, /clock +moved mock-server-trigger's clock by PT10S: a retry is due/);
    }
  }
  const clock = await (await fetch(`${origin}/__admin/clock?application=mock-server-trigger`)).json();
  t.ok(clock.application_offset_ms >= 12 * 60_000 + 40_000, "the trigger's application's clock was moved");
  const server = await (await fetch(`${origin}/__admin/clock`)).json();
  t.ok(Math.abs(server.offset_ms) < 1000, "the server's clock was not");
});

t.test('--item acts on an existing item, and refuses one whose status cannot take the event', async (t) => {
  const first = await run(['trigger', 'confirmed', '--url', origin, '--application', 'acme-shop']);
  t.equal(first.code, 0, first.stderr);
  const item = itemOf(first.stdout);
  t.match(first.stdout, /^application +acme-shop at /m);
  const refused = await run(['trigger', 'refused', '--url', origin, '--item', item]);
  t.equal(refused.code, 2);
  t.equal(refused.stderr, `mock-server: order item ${item} is OK: event refused starts from PENDING; from OK: cancelled, cancellation-error, cancellation-error-kept\n`);
  const cancelled = await run(['trigger', 'cancelled', '--url', origin, '--item', item]);
  t.equal(cancelled.code, 0, cancelled.stderr);
  t.match(cancelled.stdout, /^application +acme-shop at /m, 'the item is found in its application');
  t.match(cancelled.stdout, 'move         REFUND_STARTED → REFUNDED');
  t.same(hooks.got.filter((h) => h.item === item).map((h) => h.status), ['OK', 'REFUND_STARTED', 'REFUNDED']);
  const unknown = await run(['trigger', 'cancelled', '--url', origin, '--item', '00000000-0000-4000-8000-000000000000']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /^mock-server: no order item 00000000-0000-4000-8000-000000000000\n$/);
});

t.test('--override sets the activity, the quantity and the lead booker', async (t) => {
  const r = await run(['trigger', 'cancelled', '--url', origin, '--application', 'override-shop', '--override', 'activity=5a002d99-781b-479b-9a9d-9efadfd34ec2', '--override', 'quantity=3', '--override', 'email=lead@example.com']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /3 × ".+" on \S+, lead booker lead@example.com/);
  const { orders } = await (await fetch(`${origin}/__admin/orders?application=override-shop`)).json();
  t.match(orders[0].items[0], { activity_uuid: '5a002d99-781b-479b-9a9d-9efadfd34ec2', quantity: 3, status: 'REFUNDED' });
  // The booking went through the partner API: the journal has it.
  const { requests } = await (await fetch(`${origin}/__admin/requests?application=override-shop`)).json();
  t.ok(requests.some((q: { method: string; path: string }) => q.method === 'POST' && q.path.endsWith('/payments/no/payment')));
  // An event that needs a PENDING item on an activity confirmed at payment: said plainly.
  const instant = await run(['trigger', 'confirmed', '--url', origin, '--override', 'activity=4e451a8a-2ee5-493f-aa12-a39f13d7253e']);
  t.equal(instant.code, 2);
  t.match(instant.stderr, /^mock-server: the booked item is OK after payment, and event confirmed starts from PENDING: choose an activity that needs confirmation\n$/);
});

t.test('mistakes are one line and exit 2', async (t) => {
  // A port nothing listens on.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  for (const [args, message] of [
    [['trigger'], 'trigger needs an EVENT (mock-server trigger --list names them)'],
    [['trigger', 'nope'], /^unknown event "nope": mock-server trigger --list names them/],
    [['trigger', 'confirmed', '--override', 'colour=red'], /^--override: "colour=red" must be k=v/],
    [['trigger', 'confirmed', '--override', 'quantity=0'], '--override quantity: "0" is not a whole number from 1 to 20'],
    [['trigger', 'confirmed', '--item', 'x'], '--item: "x" is not an order item\'s uuid'],
    [['trigger', 'confirmed', '--client-id', 'c'], '--client-id and --client-secret go together: the client a partner was registered with'],
    [['trigger', 'confirmed', '--url', `http://127.0.0.1:${port}`], `nothing answers at http://127.0.0.1:${port} (ECONNREFUSED)`],
    [['trigger', '--list', 'confirmed'], 'trigger --list takes no event'],
    [['report', '--item', '00000000-0000-4000-8000-000000000000'], '--item goes with the trigger command'],
  ] as Array<[string[], string | RegExp]>) {
    const r = await run(args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, /^mock-server: [^\n]+\n$/, `one line: ${r.stderr}`);
    t.match(r.stderr.slice('mock-server: '.length), message);
  }
});

t.test('--help lists listen and trigger with their flags', async (t) => {
  const h = await run(['--help']);
  t.equal(h.code, 0);
  for (const text of ['mock-server listen --forward-to URL', '--url SANDBOX', '--application APP', '--client-id ID --client-secret S | --token T', '--events STATUS', '--format text|json', '--print-secret', 'mock-server trigger EVENT', '--item UUID', '--override activity=UUID|quantity=N|email=E', 'trigger --list']) {
    t.match(h.stdout, text);
  }
});
