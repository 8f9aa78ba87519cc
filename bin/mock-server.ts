#!/usr/bin/env node
import { loadConfig, usage } from '../src/config.js';
import { isPostgresUrl } from '../src/store/postgres/errors.js';
import { VERSION } from '../src/version.js';

// The flags are read (and --help, --version and a mistake in them answered) before the rest is
// loaded: each command imports what it needs, so that a quick answer does not wait for the server.

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

/** Where the sandbox is and who asks, for listen and trigger. */
function sessionOptions(invocation: ReturnType<typeof loadConfig>) {
  const { config } = invocation;
  const flags = invocation.command === 'listen' ? invocation.listen : invocation.trigger;
  return {
    origin: invocation.url ?? 'http://127.0.0.1:8080', basePath: config.basePath, headerPrefix: config.headerPrefix, adminToken: config.adminToken,
    application: flags.application, token: flags.token, clientId: flags.clientId, clientSecret: flags.clientSecret,
  };
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
    case 'replay': {
      // Without --url, a server of our own on a free loopback port, state in memory.
      // --url and every file are checked before anything runs: a bad one exits 2 with one line.
      const [{ loadReplay, replay, replayOrigin }, { startServer }] = await Promise.all([import('../src/scenarios/replay.js'), import('../src/server.js')]);
      const url = invocation.url === null ? null : replayOrigin(invocation.url);
      for (const file of invocation.args) loadReplay(file);
      const own = url !== null ? null : await startServer({ ...invocation.config, port: 0, host: '127.0.0.1', db: 'memory', logLevel: 'silent' }, () => undefined);
      const origin = url ?? own!.origin.replace(/\/+$/, '');
      let ok = true;
      for (const file of invocation.args) {
        const result = await replay(file, origin, invocation.config);
        console.log(result.transcript.join('\n'));
        ok &&= result.ok;
      }
      await own?.close();
      process.exit(ok ? 0 : 1);
    }
    // falls through: process.exit never returns
    case 'report': {
      const [{ fetchReport }, { fails, formatReport }] = await Promise.all([import('../src/report/fetch.js'), import('../src/report/format.js')]);
      const { application, format, failOn } = invocation.report;
      const report = await fetchReport(invocation.url ?? 'http://127.0.0.1:8080', application, invocation.config.adminToken);
      console.log(formatReport(report, format, failOn));
      process.exit(fails(report, failOn) ? 1 : 0);
    }
    // falls through: process.exit never returns
    case 'webhooks-check': {
      const [{ checkReceiver }, { formatCheckReport }] = await Promise.all([import('../src/webhooks/check.js'), import('../src/webhooks/check-format.js')]);
      const { secret, basic, format } = invocation.check;
      const report = await checkReceiver({ url: invocation.url as string, secret, basic, headerPrefix: invocation.config.headerPrefix });
      console.log(formatCheckReport(report, format));
      process.exit(report.passed ? 0 : 1);
    }
    // falls through: process.exit never returns
    case 'drift': {
      const [{ runDrift }, { formatDrift }] = await Promise.all([import('../src/drift/run.js'), import('../src/drift/format.js')]);
      const result = await runDrift(invocation.config, invocation.url, invocation.drift);
      console.log(formatDrift(result, invocation.drift.format));
      process.exit(result.differences.length ? 1 : 0);
    }
    // falls through: process.exit never returns
    case 'listen': {
      const [{ SandboxSession }, { listen, printSecret }] = await Promise.all([import('../src/sandbox-session.js'), import('../src/listen/cli.js')]);
      const session = new SandboxSession({ ...sessionOptions(invocation), fallback: null });
      if (invocation.listen.printSecret) {
        console.log(await printSecret(session));
        return;
      }
      // Ctrl-C (or SIGTERM) ends the listener: the sandbox is told, and stops keeping deliveries for it.
      const stop = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
      process.exit(await listen(session, invocation.listen, { event: (l) => console.log(l), status: (l) => console.error(l) }, stop.signal));
    }
    // falls through: process.exit never returns
    case 'trigger': {
      const [{ SandboxSession }, { trigger, listEvents }] = await Promise.all([import('../src/sandbox-session.js'), import('../src/trigger/run.js')]);
      const flags = invocation.trigger;
      if (flags.list) {
        // The built-in scenarios (and --scenarios) name the moves: no sandbox needed.
        const { loadScenarios } = await import('../src/scenarios/index.js');
        const { builtinScenariosDir } = await import('../src/paths.js');
        console.log(listEvents([...loadScenarios(builtinScenariosDir, invocation.config.scenarios).values()]).join('\n'));
        return;
      }
      const session = new SandboxSession({ ...sessionOptions(invocation), fallback: 'mock-server-trigger' });
      const ok = await trigger(session, { event: flags.event as string, item: flags.item, overrides: flags.overrides }, (line) => console.log(line));
      process.exit(ok ? 0 : 1);
    }
    // falls through: process.exit never returns
    case 'certify': {
      const { certify } = await import('../src/certification/cli.js');
      process.exit(await certify(invocation.url ?? 'http://127.0.0.1:8080', invocation.certify, invocation.config.adminToken));
    }
    // falls through: process.exit never returns
    case 'certify-verify': {
      const { verifyCommand } = await import('../src/certification/cli.js');
      process.exit(await verifyCommand(invocation.args[0] as string, invocation.url, invocation.certify.jwks));
    }
    // falls through: process.exit never returns
    default: {
      // A state file that cannot be used is refused before the server's modules load (most of a second).
      // A database URL is no path (it would make folders named after it, password included): the
      // database answers for itself when the store connects.
      const { db } = invocation.config;
      if (db !== 'memory' && !isPostgresUrl(db)) await (await import('../src/store/file/checks.js')).checkStatePath(db);
      const { exitOnSignals, startServer } = await import('../src/server.js');
      exitOnSignals(await startServer(invocation.config));
    }
  }
}

main().catch(fail);
