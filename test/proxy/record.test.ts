/**
 * mock-server proxy --record DIR: the upstream's catalog (another mock, seed 2) recorded as it passes
 * through the proxy replays with --fixtures DIR as the same catalog, and books with the mock's own
 * flow; customers, tokens and secrets never reach the files.
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bookOrder, bookOverHttp, overHttp } from '../book-order.js';
import { tempDir } from '../tmp.js';
import { testCatalog } from '../helper.js';
import { startMock, startProxy } from './servers.js';

const FROM = '2026-01-15';
const TO = '2026-02-14';

type Json = Record<string, unknown>;
/** The catalog's answers for one activity: itself, its dates over a month, its first open day's schedule, its pickups. */
async function answers(api: string, uuid: string) {
  const call = overHttp(api, 'recorder');
  const tolerant = (path: string) => call('GET', path).catch((e: Error) => `error ${e.message.split(':')[1]?.trim().split(' ')[0]}`);
  const pickups = await tolerant(`/activities/${uuid}/pickups`);
  const pickup = Array.isArray(pickups) && pickups[0] ? `&pickup=${pickups[0].uuid}` : '';
  const dates = await tolerant(`/activities/${uuid}/dates?date_from=${FROM}&date_to=${TO}${pickup}`);
  const open = Array.isArray(dates) ? (dates.find((d: Json) => d.sold_out === false) ?? dates[0]) : undefined;
  const schedule = open ? await tolerant(`/activities/${uuid}/dates/${open.day}${pickup ? `?${pickup.slice(1)}` : ''}`) : null;
  const extra = await tolerant(`/activities/${uuid}/extra-customer-data/schema`);
  const participants = await tolerant(`/activities/${uuid}/participants-info/schema`);
  return { activity: await tolerant(`/activities/${uuid}`), dates, schedule, pickups, extra, participants };
}

const TAXONOMY = ['/categories', '/categories-tree', '/cities', '/countries', '/languages', '/features', '/services', '/flavours'];

t.test('a recording replays as the same catalog, and books with the mock of its own', async (t) => {
  const dir = tempDir(t, 'recording-');
  const up = await startMock({ seed: 2, catalogSize: 5 });
  const px = await startProxy(up.api, { record: dir });
  const call = overHttp(px.api, 'recorder');
  const listing = await call('GET', '/activities?limit=100');
  const uuids: string[] = listing.data.map((a: Json) => a.uuid);
  t.ok(uuids.length >= 15, `${uuids.length} activities listed`);
  const seen = new Map<string, Awaited<ReturnType<typeof answers>>>();
  for (const uuid of uuids) seen.set(uuid, await answers(px.api, uuid));
  for (const path of TAXONOMY) await call('GET', path);
  // A booking through the proxy: its customer and token must not be recorded.
  await bookOverHttp(px.api, 'recorder');
  await px.close();
  t.same(readdirSync(dir).sort(), ['activities.json', 'taxonomy.json'], 'two fixture files');
  const files = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  for (const secret of ['ada@example.com', 'Lovelace', 'sandbox-secret', 'access_token', 'Bearer']) t.notMatch(files, secret, `no ${secret} in the recording`);

  const replay = await startMock({ seed: 99, catalogSize: 0, fixtures: dir });
  t.teardown(async () => {
    await replay.close();
    await up.close();
  });
  const differences: string[] = [];
  for (const uuid of uuids) {
    const want = seen.get(uuid)!;
    const got = await answers(replay.api, uuid);
    for (const part of ['activity', 'dates', 'schedule', 'pickups', 'extra', 'participants'] as const) {
      const [a, b] = [want[part], got[part]];
      if (part === 'activity' && a && b && typeof a === 'object') {
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) differences.push(`${uuid} activity.${k}: ${JSON.stringify(a[k])?.slice(0, 80)} -> ${JSON.stringify(b[k])?.slice(0, 80)}`);
      } else if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${uuid} ${part}: ${JSON.stringify(a)?.slice(0, 200)} -> ${JSON.stringify(b)?.slice(0, 200)}`);
    }
  }
  t.same(differences, [], 'every recorded activity, its dates, day schedule, pickups and forms answer as the upstream did');
  for (const path of TAXONOMY.filter((p) => p !== '/categories-tree')) {
    const [a, b] = [await overHttp(up.api, 'x')('GET', path), await overHttp(replay.api, 'x')('GET', path)];
    t.same(b, a, `${path} answers as the upstream did`);
  }
  // The activities only the upstream's seed generated: without the recording the replay would not have them.
  const builtin = await testCatalog(99, 0);
  const generated = uuids.filter((u) => !builtin.activityByUuid.has(u));
  t.equal(generated.length, 5, 'the 5 generated activities of the upstream were compared too');
  const bookable = generated.find((u) => {
    const { schedule, pickups, dates } = seen.get(u)!;
    const languages = JSON.stringify(schedule).match(/"languages":\[[^\]]*\]/)?.[0] ?? '';
    return !JSON.stringify(pickups).includes('uuid') && (dates as Json[]).some((d) => d.day === '2026-01-20' && !d.sold_out) && (languages.includes('"en"') || languages.endsWith('[]'));
  });
  t.ok(bookable, 'a generated activity to book');
  const order = await bookOrder(overHttp(replay.api, 'replayed'), bookable);
  t.ok(order.uuid, `activity ${bookable}, recorded from the upstream's generated catalog, books on the replay`);
  t.match(JSON.stringify(await overHttp(replay.api, 'replayed')('GET', `/orders/${order.uuid}`)), bookable, 'the order holds it');
});

t.test('a day schedule read before its activity is kept when the activity comes, and after', async (t) => {
  const dir = tempDir(t, 'recording-order-');
  const up = await startMock({ seed: 2, catalogSize: 0 });
  const px = await startProxy(up.api, { record: dir });
  t.teardown(() => up.close());
  const uuid = '5a002d99-781b-479b-9a9d-9efadfd34ec2';
  const call = overHttp(px.api, 'recorder');
  const schedule = await call('GET', `/activities/${uuid}/dates/2026-01-20`);
  await call('GET', `/activities/${uuid}`);
  await call('GET', `/activities/${uuid}`);
  await px.close();
  const recorded = JSON.parse(readFileSync(join(dir, 'activities.json'), 'utf8')).activities[0];
  const holders = (g: { slots: Array<{ products: Array<{ holder_code: string }> }> }) => [...new Set(g.slots.flatMap((s) => s.products.map((p) => p.holder_code)))];
  t.same(recorded.booking.options.map((o: { feature_code: string; holders: Array<{ code: string }> }) => [o.feature_code, o.holders.map((h) => h.code)]), schedule[0].groups.map((g: { feature_code: string; slots: never[] }) => [g.feature_code, holders(g)]), "the schedule's options and holders, not the placeholder's");
});
