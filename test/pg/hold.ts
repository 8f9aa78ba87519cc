// A test process that starts a PostgreSQL, says where, and waits to be killed (harness.test.ts).
import { startPostgres } from './server.js';

const server = await startPostgres();
process.stdout.write(`${JSON.stringify({ dataDir: server.dataDir })}\n`);
setInterval(() => {}, 60_000);
