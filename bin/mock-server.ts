#!/usr/bin/env node
import { loadConfig, usage } from '../src/config.js';
import { exitOnSignals, startServer } from '../src/server.js';
import { VERSION } from '../src/version.js';

/** Mistakes of the user's (flags, files, a port in use) end with one line and exit code 2. */
function fail(err: unknown): never {
  const e = err as Error & { userFacing?: boolean; code?: string; port?: number };
  if (e.userFacing) {
    console.error(`mock-server: ${e.message}`);
    process.exit(2);
  }
  if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
    console.error(`mock-server: cannot listen: ${e.message}`);
    process.exit(2);
  }
  console.error(`mock-server: unexpected error: ${e.stack ?? e.message}`);
  process.exit(1);
}

async function main(): Promise<void> {
  const invocation = loadConfig(process.argv.slice(2), process.env);
  switch (invocation.command) {
    case 'help':
      console.log(usage());
      return;
    case 'version':
      console.log(VERSION);
      return;
    case 'replay':
      console.error('mock-server: replay is not available in this version yet');
      process.exit(2);
    // falls through: process.exit never returns
    default:
      exitOnSignals(await startServer(invocation.config));
  }
}

main().catch(fail);
