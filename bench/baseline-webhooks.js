// The yardstick for webhook delivery: a bare undici sender with nothing else to do (no state, no
// lifecycle, no signatures), triggered like the mock's scenario runs. POST /burst {n} sends n
// payloads of the spec's shape at once over an undici Agent (256 connections, as the mock's) and
// answers at once with each payload's key and creation time (ms since the epoch, sub-millisecond).
// Usage: node baseline-webhooks.js PORT RECEIVER_URL
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';

const [port, target] = process.argv.slice(2);
const agent = new Agent({ connections: 256 });
const stamp = '2026-01-15T10:00:00+0000';

function post(body) {
  request(target, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body }).then(
    (res) => res.body.dump(),
    () => undefined,
  );
}

const server = http.createServer((req, res) => {
  let text = '';
  req.on('data', (c) => (text += c));
  req.on('end', () => {
    if (req.url !== '/burst') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    const { n } = JSON.parse(text);
    const orderUuid = randomUUID();
    const created = [];
    for (let i = 0; i < n; i++) {
      const item = randomUUID();
      created.push([`${item}@2`, performance.timeOrigin + performance.now()]);
      post(JSON.stringify({ order_id: '4000001', order_uuid: orderUuid, order_created: stamp, order_updated: stamp, order_version: String(2 + i), order_item_uuid: item, order_item_created: stamp, order_item_updated: stamp, order_item_version: '2', order_item_status: 'OK' }));
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ created }));
  });
});
server.listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => {
  agent.destroy();
  server.close(() => process.exit(0));
});
