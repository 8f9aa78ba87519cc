// One log line per webhook attempt: item, status sent, receiver (password hidden), answer, duration, what next.
import t, { type Test } from 'tap';
import { fixedClock } from '../../src/clock.js';
import { createStore } from '../../src/store/index.js';
import { WebhookDispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.js';
import { deadPort, snapshot, startReceiver, T0, type Answer } from './receiver.js';

interface Line {
  level: 'info' | 'warn';
  obj: Record<string, unknown>;
  msg: string;
}

const ITEM = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

async function dispatcher(t: Test, url: string, opts: Partial<DispatcherOptions> = {}) {
  const lines: Line[] = [];
  const logger = {
    info: (obj: object, msg: string) => void lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
    warn: (obj: object, msg: string) => void lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
  };
  const clock = fixedClock(T0);
  const d = new WebhookDispatcher({ store: await createStore('memory'), clock, headerPrefix: 'X-Service-', flags: { url, secret: 's' }, timeoutMs: 500, logger, ...opts });
  d.start();
  t.teardown(() => d.close());
  return { d, clock, lines };
}

t.test("a failed attempt is a warn line, a delivered one an info line, each naming item, status, receiver and answer", async (t) => {
  const answers: Answer[] = [500, 200];
  const rx = await startReceiver((_r, i) => answers[i] ?? 200);
  t.teardown(() => rx.close());
  const url = `http://partner:hunter2@127.0.0.1:${rx.port}/hooks`;
  const { d, clock, lines } = await dispatcher(t, url);
  const delivery = await d.enqueue('acme', snapshot({ item: { status: 'CONFIRMED' as never } }));
  await d.idle();
  t.equal(lines.length, 1, 'one line for the first attempt');
  const receiver = `http://partner:***@127.0.0.1:${rx.port}/hooks`;
  const first = lines[0]!;
  t.equal(first.level, 'warn', 'a failure is a warning');
  t.match(first.msg, new RegExp(`^webhook CONFIRMED for item ${ITEM} → ${receiver.replace(/[*.?]/g, '\\$&')}: 500 in [\\d.]+ ms, next attempt 2026-01-15T10:00:10\\.000Z$`));
  t.notMatch(first.msg, /hunter2/, 'the password is hidden');
  t.match(first.obj.webhook, { delivery: delivery!.id, application: 'acme', order_item_uuid: ITEM, order_item_status: 'CONFIRMED', receiver, status_code: 500, duration_ms: Number, attempt: 1, state: 'pending', next_attempt_at: '2026-01-15T10:00:10.000Z' });
  t.notMatch(JSON.stringify(first.obj), /hunter2/, 'not in the structured data either');

  clock.advance(10_000);
  await d.idle();
  t.equal(lines.length, 2);
  t.equal(lines[1]!.level, 'info', 'delivered is info');
  t.match(lines[1]!.msg, new RegExp(`^webhook CONFIRMED for item ${ITEM} → .*: 200 in [\\d.]+ ms, delivered$`));
  t.match(lines[1]!.obj.webhook, { status_code: 200, attempt: 2, state: 'delivered', next_attempt_at: null });
});

t.test('an attempt that got no answer names the error; after the last one it says failed', async (t) => {
  const url = `http://127.0.0.1:${await deadPort()}/hooks`;
  const { d, lines } = await dispatcher(t, url, { schedule: [] });
  await d.enqueue('acme', snapshot());
  await d.idle();
  t.equal(lines.length, 1);
  t.equal(lines[0]!.level, 'warn');
  t.match(lines[0]!.msg, new RegExp(`^webhook OK for item ${ITEM} → ${url.replace(/[.?]/g, '\\$&')}: .*ECONNREFUSED.* after [\\d.]+ ms, failed$`));
  t.match(lines[0]!.obj.webhook, { error: /ECONNREFUSED/, state: 'failed', next_attempt_at: null });
  t.notOk('status_code' in (lines[0]!.obj.webhook as object), 'no status code without an answer');
});
