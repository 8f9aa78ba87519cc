// npm run build: bundles the CLI and everything it imports into dist/bin/: mock-server.js, which reads
// the flags, and a few chunks beside it (dist/bin/chunks/) that the commands load when they need them
// (the server, replay, report, webhooks check): --help, --version and a mistake in the flags answer in
// about 0.1 s instead of 0.3 s. Node loads a few bundled files far faster than the ~1,500 ESM modules
// of the sources and dependencies (the difference is about a third of a second of start-up). Types are checked by `npm run typecheck`.
// Kept outside the bundle: packages that read their own files at run time (pdfkit's fonts,
// swagger-ui's static assets) and qrcode, loaded with pdfkit on the first voucher.
//
// The programmatic API (src/index.ts, the package's "exports") is bundled in the same build into
// dist/index.js, which imports the CLI's chunks (the server is in them), and its type declarations
// go to dist/types with tsc (tsconfig.build.json). tsc takes seconds where esbuild takes a fraction
// of one, so it runs alongside the bundling and incrementally: it writes into node_modules/.cache/partner-booking-mock-server/types with its
// build info there too (emitting into dist/, which is wiped on every build, would make an
// incremental tsc skip the files it believes are already written), and the result is copied into
// dist/types. MOCK_SERVER_BUILD_CACHE=off emits straight into dist/types without the cache.
// Source maps: `npm run build` (and tap's build before the tests) writes them beside the bundles, for
// NODE_OPTIONS=--enable-source-maps. The package's build (`prepare`, which `npm pack`, `npm publish`
// and an install from git run) passes --no-sourcemap: the maps were 17 of the tarball's 27 MB
// unpacked and point at src/, which the package does not hold.
//
// The tests build their own copy elsewhere (scripts/build-tests.js, tap's `before`), through bundle().
// Tap runs that with coverage on: this is a tool, not part of what the tests cover, so it stays out of
// the coverage report.
/* c8 ignore start */
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, realpathSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const cache = 'node_modules/.cache/partner-booking-mock-server/types';
const useCache = process.env.MOCK_SERVER_BUILD_CACHE !== 'off';

/** esbuild options shared by the CLI and the API bundle. */
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['pdfkit', 'qrcode', '@fastify/swagger-ui'],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
};

/** The newest modification time among the declarations' inputs: the sources, the tsconfigs and the installed packages. */
function newestInput() {
  const files = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'].filter((f) => existsSync(f));
  for (const entry of readdirSync('src', { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return Math.max(...files.map((f) => statSync(f).mtimeMs));
}

/** tsc -p tsconfig.build.json --emitDeclarationOnly into `outDir`; rejects with tsc's output when it fails. */
function declarations(outDir) {
  const info = join(outDir, '.tsbuildinfo');
  // Build info without the files it describes would leave them unwritten: start over then.
  if (useCache && !existsSync(join(outDir, 'index.d.ts'))) rmSync(outDir, { recursive: true, force: true });
  // Even with nothing to do, tsc takes seconds to load the program: skipped when no input changed since.
  if (useCache && existsSync(info) && statSync(info).mtimeMs > newestInput()) return Promise.resolve();
  const args = [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--outDir', outDir, '--declarationDir', outDir];
  if (useCache) args.push('--incremental', '--tsBuildInfoFile', info);
  const started = new Date();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      // Exit 2: type errors, declarations written all the same. Like the bundles, the build goes on
      // (npm run typecheck is what fails on type errors), saying so.
      if (code === 2) console.warn(`build: type errors in the sources; the declarations were written anyway:\n${output.trimEnd()}`);
      else if (code !== 0) return reject(new Error(`tsc -p tsconfig.build.json failed (exit ${code}):\n${output}`));
      // tsc leaves its build info alone when nothing changed; stamped with the start of this run, an
      // input edited while tsc ran still counts as newer next time.
      if (useCache && existsSync(info)) utimesSync(info, started, started);
      resolve();
    });
  });
}

/**
 * Bundles into `outdir` (wiped first) and, with `types`, writes the declarations into `outdir`/types.
 * `sourcemap`: 'linked' or false.
 */
export async function bundle({ outdir = 'dist', sourcemap = 'linked', types = true } = {}) {
  rmSync(outdir, { recursive: true, force: true });
  await Promise.all([
    // Split: the CLI's entry file reads the flags; the server and the other commands are chunks
    // beside it, loaded when a command needs them. The API's entry shares those chunks (one build):
    // bundled apart, it repeated the server's 4.7 MB.
    build({
      ...common,
      sourcemap,
      entryPoints: { 'bin/mock-server': 'bin/mock-server.ts', index: 'src/index.ts' },
      outdir,
      splitting: true,
      chunkNames: 'bin/chunks/[name]-[hash]',
    }).then(() => chmodSync(join(outdir, 'bin/mock-server.js'), 0o755)),
    types && declarations(useCache ? cache : join(outdir, 'types')),
  ]);
  if (types && useCache) cpSync(cache, join(outdir, 'types'), { recursive: true, filter: (src) => !src.endsWith('.tsbuildinfo') });
}

// Run as a script (npm run build, prepare), not imported (scripts/build-tests.js). The module's URL is
// the real path; the script's argument may lead through a symbolic link.
if (realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  try {
    await bundle({ sourcemap: process.argv.includes('--no-sourcemap') ? false : 'linked' });
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
/* c8 ignore stop */
