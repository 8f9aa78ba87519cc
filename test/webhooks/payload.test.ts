import t from 'tap';
import { buildPayload, formatWebhookDateTime, serializePayload } from '../../src/webhooks/payload.js';
import { snapshot } from './receiver.js';

t.test('the Update order item body: all strings, spec field order, numeric offset', async (t) => {
  const p = buildPayload(
    snapshot({
      order: { id: 98765, created: '2026-01-15T09:59:58.123Z', updated: new Date('2026-01-15T10:05:00Z'), version: 7 },
      item: { version: 3, status: 'REFUND_STARTED', created: '2026-01-15T09:59:58Z', updated: '2026-01-15T12:05:00+02:00' },
    }),
  );
  t.equal(
    serializePayload(p),
    '{"order_id":"98765","order_uuid":"0b5a4d3e-1c2f-4a6b-9d8e-7f6a5b4c3d2e","order_created":"2026-01-15T09:59:58+0000",' +
      '"order_updated":"2026-01-15T10:05:00+0000","order_version":"7","order_item_uuid":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",' +
      '"order_item_created":"2026-01-15T09:59:58+0000","order_item_updated":"2026-01-15T10:05:00+0000","order_item_version":"3",' +
      '"order_item_status":"REFUND_STARTED"}',
  );
  for (const [k, v] of Object.entries(p)) t.equal(typeof v, 'string', `${k} is a string`);
  t.match(p.order_id, /^[0-9]+$/);
  t.match(p.order_version, /^[0-9]+$/);
  t.match(p.order_item_version, /^[0-9]+$/);
});

t.test('date-times are UTC with +0000 and no fraction', async (t) => {
  t.equal(formatWebhookDateTime('2026-06-30T23:59:59.999+02:00'), '2026-06-30T21:59:59+0000');
  t.equal(formatWebhookDateTime(new Date(0)), '1970-01-01T00:00:00+0000');
  t.throws(() => formatWebhookDateTime('yesterday'), RangeError);
});

t.test('ids and versions must be non-negative integers', async (t) => {
  t.throws(() => buildPayload(snapshot({ order: { id: -1 } })), /order.id/);
  t.throws(() => buildPayload(snapshot({ item: { version: 1.5 } })), /item.version/);
  t.throws(() => buildPayload(snapshot({ order: { version: Number.NaN } })), /order.version/);
});
