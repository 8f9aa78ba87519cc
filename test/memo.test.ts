import t from 'tap';
import { Memo } from '../src/memo.js';

t.test('Memo computes once per key, keeps false and null, and starts over when full', async (t) => {
  let calls = 0;
  const m = new Memo<boolean | null>(2);
  const get = (k: string, v: boolean | null) => m.get(k, () => (calls++, v));
  t.equal(get('a', false), false);
  t.equal(get('a', true), false, 'a second call returns the remembered value');
  t.equal(get('b', null), null);
  t.equal(get('b', true), null);
  t.equal(calls, 2, 'false and null are remembered too');
  t.equal(get('c', true), true, 'a third key fits after starting over');
  t.equal(get('a', true), true, 'the old entries were dropped and are computed again');
  t.equal(calls, 4);
});
