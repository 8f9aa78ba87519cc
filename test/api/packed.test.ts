// The programmatic API the way a user gets it: `npm pack` (which builds, through prepare), the
// tarball installed into a fresh ES module project, a script importing the package by name, and
// tsc resolving the package's types in that project.
//
// The package is packed from a copy of the sources in a temp dir (node_modules linked entry by
// entry), not from the repository: packing runs prepare, which rebuilds dist/, and a server started
// from this clone may be running from the repository's dist/. The copy's build leaves the
// repository's dist/ and build cache alone.
import t from 'tap';
import { execFile, type ExecFileOptions } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/paths.js';
import { owned } from '../child.js';
import { tempDir } from '../tmp.js';

const execAsync = promisify(execFile);
/** execFile, for a command that dies with the test process (its own children end with their work); no coverage of the packed code or the tools is measured. */
const exec = (file: string, args: string[], options: ExecFileOptions = {}) => {
  const [command, argv, env] = owned(file, args, options.env, { covered: false });
  return execAsync(command, argv, { ...options, env, encoding: 'utf8' });
};
const NAME = 'partner-booking-mock-server';
/** The consumer's files import the package by its name, written in where they say PACKAGE. */
const byName = (source: string) => source.replaceAll('from PACKAGE;', `from ${JSON.stringify(NAME)};`);
/** What the package is built and packed from. */
const SOURCES = ['package.json', 'README.md', 'docs', 'src', 'bin', 'scripts', 'fixtures', 'scenarios', 'dashboard', 'tsconfig.json', 'tsconfig.build.json'];

/** The environment without the npm_* variables of an enclosing `npm test`, which would steer the inner npm commands. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; stderr: string }> {
  return exec('npm', args, { cwd, env: cleanEnv(env), maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
}

const SCRIPT = `
import { startMockServer, ControlApiError } from PACKAGE;
const server = await startMockServer({ catalogSize: 5 });
const res = await fetch(server.apiUrl + '/currencies', { headers: { 'X-Service-Application': 'packed-test' } });
const currencies = await res.json();
// The dashboard, with Preact and htm resolved from the user's node_modules.
const ui = [await fetch(server.url + '/__admin/ui/'), await fetch(server.url + '/__admin/ui/vendor/preact-htm.js')].map((r) => r.status);
const before = Date.parse((await server.control.clock.advance('PT0S')).now);
const { now } = await server.control.clock.advance('PT1H');
const health = await server.control.health();
let error = null;
try {
  await server.control.moveItem('no-such-item', 'OK');
} catch (e) {
  error = { isControlApiError: e instanceof ControlApiError, status: e.status, code: e.code };
}
await server.close();
console.log(JSON.stringify({
  url: server.url, apiUrl: server.apiUrl, controlUrl: server.controlUrl,
  status: res.status, currencies: currencies.length, ui,
  hours: Math.round((Date.parse(now) - before) / 36e5), health, error,
}));
`;

const TYPES = `
import { startMockServer, createControlClient, ControlApiError, ConfigError, type MockServer, type MockServerOptions, type ControlClient, type HealthAnswer, type AdminOrder, type OrderItemStatus, type Config } from PACKAGE;

const options: MockServerOptions = { catalogSize: 5, seed: 3, basePath: '/api/v3', adminToken: 't', banner: (line: string) => void line };
const config: Partial<Config> = options;
export async function use(): Promise<string> {
  const server: MockServer = await startMockServer(options);
  const control: ControlClient = server.control;
  const health: HealthAnswer = await control.health();
  const orders: AdminOrder[] = (await control.orders('app')).orders;
  const status: OrderItemStatus | undefined = orders[0]?.items[0]?.status;
  const now: string = (await control.clock.advance('PT1H')).now;
  // @ts-expect-error a duration is a string
  await control.clock.advance(3600);
  // @ts-expect-error not a status
  await control.moveItem('uuid', 'DONE');
  // @ts-expect-error not an option
  await startMockServer({ prot: 1 });
  const other = createControlClient('http://localhost:8080/__admin', { adminToken: 'x' });
  try {
    await other.faults.add({ method: 'GET', path: '/currencies', status: 503 });
  } catch (e) {
    if (e instanceof ControlApiError) return e.status + ' ' + (e.code ?? '') + ' ' + e.message;
    if (e instanceof ConfigError) return e.message;
  }
  await server.close();
  return health.version + now + (status ?? '') + String(config.port);
}
`;

t.test('packed, installed and imported by name: starts, answers, is controlled, closes; its types resolve', async (t) => {
  const dir = tempDir(t, 'mock-server-packed-');
  const started = Date.now();
  const lap = (what: string) => t.comment(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // A copy of the sources with the repository's dependencies.
  const pkg = join(dir, 'pkg');
  mkdirSync(join(pkg, 'node_modules'), { recursive: true });
  for (const f of SOURCES) cpSync(join(packageRoot, f), join(pkg, f), { recursive: true });
  for (const entry of readdirSync(join(packageRoot, 'node_modules'))) {
    if (entry !== '.cache') symlinkSync(join(packageRoot, 'node_modules', entry), join(pkg, 'node_modules', entry));
  }

  // npm pack runs prepare (npm run build): bundles and declarations, no build cache in the copy.
  const out = join(dir, 'out');
  mkdirSync(out);
  await npm(['pack', '--pack-destination', out], pkg, { MOCK_SERVER_BUILD_CACHE: 'off' });
  const [tgz] = readdirSync(out).filter((f) => f.endsWith('.tgz'));
  t.ok(tgz, 'a tarball');
  lap('packed');
  const listing = (await exec('tar', ['-tzf', join(out, tgz!)])).stdout.split('\n');
  for (const file of ['package/dist/index.js', 'package/dist/types/index.d.ts', 'package/dist/types/control-client.d.ts', 'package/dist/bin/mock-server.js', 'package/fixtures/catalog/activities.json', 'package/scenarios/instant-confirmation.yaml', 'package/dashboard/app.js', 'package/package.json', 'package/README.md', 'package/docs/use-from-code.md']) {
    t.ok(listing.includes(file), `the tarball holds ${file}`);
  }
  t.notOk(listing.some((f) => f.startsWith('package/src/') || f.endsWith('.tsbuildinfo')), 'no sources, no build info');
  t.same(listing.filter((f) => f.endsWith('.map')), [], 'no source maps (the package build leaves them out)');

  // A user's project: an ES module package with the tarball installed from the npm cache.
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const install = ['install', '--no-audit', '--no-fund', join(out, tgz!)];
  try {
    await npm([...install, '--offline'], app);
  } catch {
    // The cache holds the packages but not always their metadata: then npm may ask the registry for that.
    t.comment('--offline failed: installing with --prefer-offline');
    await npm([...install, '--prefer-offline'], app);
  }
  lap('installed');

  writeFileSync(join(app, 'check.mjs'), byName(SCRIPT));
  const run = await exec(process.execPath, ['check.mjs'], { cwd: app, timeout: 30_000 });
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  t.match(result, {
    url: /^http:\/\/127\.0\.0\.1:\d+$/,
    status: 200,
    ui: [200, 200],
    hours: 1,
    health: { status: 'ok', version: /^\d+\.\d+\.\d+/, seed: 1 },
    error: { isControlApiError: true, status: 404, code: '1400' },
  });
  t.equal(result.apiUrl, `${result.url}/api/v3`);
  t.equal(result.controlUrl, `${result.url}/__admin`);
  t.ok(result.currencies > 0, 'currencies listed');
  t.equal(run.stderr, '', 'nothing on stderr');
  lap('ran');

  // The bin still comes with the package.
  const version = await exec(join(app, 'node_modules/.bin/mock-server'), ['--version'], { cwd: app });
  t.match(version.stdout, /^\d+\.\d+\.\d+\n$/);

  // From an empty directory, as a new user would: npx -p <tarball> mock-server, with the shipped
  // replay files reachable through --builtin.
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  const npx = await exec('npx', ['--yes', '--prefer-offline', '-p', join(out, tgz!), 'mock-server', 'replay', '--builtin', 'instant-confirmation'], { cwd: empty, env: cleanEnv(), timeout: 120_000 });
  t.match(npx.stdout, /\nPASS\n?$/, 'npx -p <tarball> mock-server replay --builtin plays a shipped file');
  lap('npx from an empty directory');

  // The types resolve with the repository's tsc, in a project with no @types/node and lib checks on.
  writeFileSync(join(app, 'check.ts'), byName(TYPES));
  const tsc = join(packageRoot, 'node_modules/typescript/bin/tsc');
  const typecheck = await exec(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'check.ts'], { cwd: app, timeout: 60_000 }).then(
    () => '',
    (e: { stdout?: string; message: string }) => e.stdout || e.message,
  );
  t.equal(typecheck, '', 'tsc finds no error');
  lap('typechecked');
});
