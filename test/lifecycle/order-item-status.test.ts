import t from 'tap';
import { ApiError } from '../../src/http/errors.js';
import { assertMove, canMove, isOrderItemStatus, ORDER_ITEM_STATUSES, TRANSITIONS } from '../../src/lifecycle/order-item-status.js';

// Written out from INTERFACE.md section 3 rather than derived from TRANSITIONS, so a change to the table fails here.
const ALLOWED = new Set([
  'PENDING>OK',
  'PENDING>KO',
  'OK>REFUND_STARTED',
  'OK>REFUNDED',
  'REFUND_STARTED>REFUNDED',
  'REFUND_STARTED>CANCELLATION_ERROR',
  'CANCELLATION_ERROR>OK',
  'CANCELLATION_ERROR>REFUNDED',
]);

t.test('the six statuses of the spec', async (t) => {
  t.same([...ORDER_ITEM_STATUSES].sort(), ['CANCELLATION_ERROR', 'KO', 'OK', 'PENDING', 'REFUNDED', 'REFUND_STARTED']);
  t.ok(isOrderItemStatus('OK'));
  t.notOk(isOrderItemStatus('ok'));
  t.notOk(isOrderItemStatus('CONFIRMED'));
  t.notOk(isOrderItemStatus(undefined));
  t.same(TRANSITIONS.KO, [], 'KO is final');
  t.same(TRANSITIONS.REFUNDED, [], 'REFUNDED is final');
});

t.test('every allowed and every forbidden move', async (t) => {
  let allowed = 0;
  for (const from of ORDER_ITEM_STATUSES) {
    for (const to of ORDER_ITEM_STATUSES) {
      const ok = ALLOWED.has(`${from}>${to}`);
      t.equal(canMove(from, to), ok, `${from} -> ${to} ${ok ? 'allowed' : 'forbidden'}`);
      if (ok) {
        allowed++;
        t.doesNotThrow(() => assertMove(from, to));
        continue;
      }
      try {
        assertMove(from, to);
        t.fail(`${from} -> ${to} should throw`);
      } catch (e) {
        t.ok(e instanceof ApiError);
        const err = e as ApiError;
        t.equal(err.statusCode, 409);
        t.equal(typeof err.code, 'string');
        t.match(err.message, `from ${from} to ${to}`);
        t.same(Object.keys(err.toJSON()), ['code', 'message']);
      }
    }
  }
  t.equal(allowed, 8);
});

t.test('the 409 message says what is allowed instead', async (t) => {
  t.throws(() => assertMove('PENDING', 'REFUNDED'), {
    message: 'Order item status cannot move from PENDING to REFUNDED: from PENDING it can move to OK, KO',
  });
  t.throws(() => assertMove('KO', 'OK'), { message: 'Order item status cannot move from KO to OK: KO is final' });
  t.throws(() => assertMove('OK', 'OK'), { message: /from OK to OK/ }, 'staying put is not a move');
});
