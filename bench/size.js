// Latency and memory at size, held over time: the mixed load (bench/mixed.js) for 200 s on a state
// file of about 115 MB. Targets: max latency < 250 ms, p999 < 50 ms, peak RSS below 4x the state's
// size. Not in CI (it takes about 8 minutes with the yardstick): `npm run build && node bench/run.js size`;
// BENCH_SIZE_SECONDS changes the 200 s.
import { run as mixed } from './mixed.js';

export function run() {
  return mixed({ seconds: Number(process.env.BENCH_SIZE_SECONDS ?? 200) });
}
