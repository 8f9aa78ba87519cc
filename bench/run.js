// npm run bench: every benchmark, one after another, bounded in time; prints a table per section.
// BENCH_DURATION (seconds per load run, default 10) shortens or lengthens every run. Section names
// as arguments run only those: `node bench/run.js booking webhooks`; `size` (200 s at a 115 MB state)
// runs only when named.
import * as catalog from './catalog.js';
import * as store from './store.js';
import * as booking from './booking.js';
import * as webhooks from './webhooks.js';
import * as listen from './listen.js';
import * as mixed from './mixed.js';
import * as tenants from './tenants.js';
import * as size from './size.js';
import * as faults from './faults.js';
import * as proxy from './proxy.js';
import * as postgres from './postgres.js';
import * as auth from './auth.js';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const all = { catalog, store, booking, webhooks, listen, mixed, faults, tenants, size, proxy, postgres, auth };
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !(w in all));
if (unknown.length) throw new Error(`unknown bench section ${unknown.join(', ')}; sections: ${Object.keys(all).join(', ')}`);
// The 200 s run at size is asked for by name only: it alone takes longer than all the others.
const sections = wanted.length ? Object.fromEntries(wanted.map((w) => [w, all[w]])) : Object.fromEntries(Object.entries(all).filter(([k]) => k !== 'size'));

const fmt = (n, d = 0) => (typeof n === 'number' ? n.toFixed(d) : String(n));
for (const [name, mod] of Object.entries(sections)) {
  console.log(`\n## ${name}`);
  const results = await mod.run({ duration });
  for (const [k, v] of Object.entries(results)) {
    if (v.mock) {
      console.log(
        `${k}: mock ${fmt(v.mock.rps)} req/s p99 ${v.mock.p99} ms | baseline ${fmt(v.baseline.rps)} req/s p99 ${v.baseline.p99} ms | ratio ${fmt(v.ratio, 2)}` +
          (v.mock.non2xx || v.mock.errors ? ` | mock non-2xx ${v.mock.non2xx}, errors ${v.mock.errors}` : ''),
      );
    } else {
      console.log(`${k}: ${Object.entries(v).map(([a, b]) => `${a} ${fmt(b, /ratio/.test(a) ? 2 : 1)}`).join(', ')}`);
    }
  }
}
