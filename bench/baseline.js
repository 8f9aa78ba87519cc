// The yardstick: a bare Fastify server that answers the same paths with the same bodies,
// prebuilt strings from memory, no validation or header rules. Usage: node baseline.js PORT BODIES.json
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const [port, file] = process.argv.slice(2);
const bodies = new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8'))));
const app = Fastify({ logger: false });
app.get('/*', (request, reply) => {
  const body = bodies.get(request.url);
  if (body === undefined) return reply.code(404).send({ code: '1400', message: 'not found' });
  return reply.type('application/json; charset=utf-8').send(body);
});
app.get('/__admin/health', async () => ({ status: 'ok' }));
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
