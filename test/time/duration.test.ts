import t from 'tap';
import { addDuration, durationToMs, formatDuration, parseDuration, tryParseDuration, DurationError } from '../../src/time/duration.js';

t.test('parses the forms the API and the control plane use', async (t) => {
  const ms: Array<[string, number]> = [
    ['PT2H', 7_200_000],
    ['PT30M', 1_800_000],
    ['P0D', 0],
    ['P2D', 172_800_000],
    ['PT48H', 172_800_000],
    ['P0DT72H0M', 259_200_000],
    ['P10DT22H26M37S', 10 * 86_400_000 + 22 * 3_600_000 + 26 * 60_000 + 37_000],
    ['P2W', 14 * 86_400_000],
    ['PT0.5S', 500],
    ['PT1,5H', 5_400_000],
    ['-PT1H', -3_600_000],
  ];
  for (const [s, want] of ms) t.equal(durationToMs(parseDuration(s)), want, s);
  t.same(parseDuration('P1Y2M3DT4H5M6S'), { sign: 1, years: 1, months: 2, weeks: 0, days: 3, hours: 4, minutes: 5, seconds: 6 });
});

t.test('rejects garbage', async (t) => {
  for (const bad of ['', 'P', 'PT', '2H', 'PT2', 'P1H', 'PT1D', 'P1W2D', 'P1.5DT2H', 'P1Y2', 'PxD', 'P-1D', 'P1DT', 'PT1H2H', 'P1DT1HT1M', 'p1d', 'P'.padEnd(80, '1')]) {
    t.throws(() => parseDuration(bad), DurationError, JSON.stringify(bad));
    t.equal(tryParseDuration(bad), null);
  }
  t.throws(() => parseDuration(42 as unknown as string), DurationError);
  t.match(() => parseDuration('PT1D'), /PT1D/, 'the message quotes the input');
});

t.test('years and months follow the calendar', async (t) => {
  const at = new Date('2026-01-31T10:00:00Z');
  t.equal(addDuration(at, parseDuration('P1M')).toISOString(), '2026-02-28T10:00:00.000Z', 'clamped to the month end');
  t.equal(addDuration(at, parseDuration('P1Y1MT1H')).toISOString(), '2027-02-28T11:00:00.000Z');
  t.equal(addDuration(at, parseDuration('-P1M')).toISOString(), '2025-12-31T10:00:00.000Z');
  t.equal(durationToMs(parseDuration('P1M'), new Date('2026-02-01T00:00:00Z')), 28 * 86_400_000);
  t.throws(() => durationToMs(parseDuration('P1M')), RangeError, 'no fixed length without a start');
  t.throws(() => addDuration(at, parseDuration('P0.5M')), RangeError);
});

t.test('formats remaining times', async (t) => {
  t.equal(formatDuration(0), 'P0D');
  t.equal(formatDuration(1_800_000), 'PT30M');
  t.equal(formatDuration(10 * 86_400_000 + 22 * 3_600_000 + 26 * 60_000 + 37_999), 'P10DT22H26M37S');
  t.equal(formatDuration(2 * 86_400_000), 'P2D');
  t.equal(formatDuration(-3_600_000), '-PT1H');
  for (const ms of [0, 1000, 90_061_000, 7_200_000]) t.equal(durationToMs(parseDuration(formatDuration(ms))), ms, 'round trip');
});
