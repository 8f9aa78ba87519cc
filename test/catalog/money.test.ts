import t from 'tap';
import { convert, roundMoney, toPrice } from '../../src/catalog/money.js';
import { currencies } from './records.js';

const [USD, EUR, GBP, JPY] = currencies as [typeof currencies[0], typeof currencies[0], typeof currencies[0], typeof currencies[0]];

t.test('rounding is half away from zero at the currency minor unit', async (t) => {
  t.equal(roundMoney(1.005, 2), 1.01);
  t.equal(roundMoney(2.675, 2), 2.68);
  t.equal(roundMoney(-1.005, 2), -1.01);
  t.equal(roundMoney(1234.5, 0), 1235);
  t.equal(roundMoney(1.004, 2), 1);
});

t.test('conversion goes through the fixed USD rates', async (t) => {
  t.equal(convert(92, EUR, USD), 100);
  t.equal(convert(100, USD, EUR), 92);
  t.equal(convert(10, EUR, GBP), 8.59); // 10 / 0.92 * 0.79 = 8.5869...
  t.equal(convert(10, USD, JPY), 1500);
  t.equal(convert(10.333, EUR, EUR), 10.33, 'same currency still rounds');
});

t.test('Price objects format per locale', async (t) => {
  const p = toPrice(1234.5, USD, USD, 'en-US');
  t.same(p, { currency: 'USD', value: 1234.5, formatted_value: '$1,234.50', formatted_iso_value: '$1234.50' });
  const it = toPrice(50, EUR, EUR, 'it-IT');
  t.match(it.formatted_value, /^50,00\s€$/);
  t.equal(it.formatted_iso_value, '€50.00');
  const de = toPrice(1234.5, EUR, EUR, 'de-DE');
  t.match(de.formatted_value, /^1\.234,50\s€$/);
  const yen = toPrice(10, USD, JPY, 'en-US');
  t.same([yen.value, yen.formatted_value, yen.formatted_iso_value], [1500, '¥1,500', '¥1500']);
});
