// How the tests' TypeScript runs (`node-arg` in .taprc): transpiled by SWC in the test process's own
// thread, through module.registerHooks (Node 22.15 or later). tap's TypeScript plugin (ts-node, whose
// hooks run in a worker thread that every module of the sources and dependencies goes through) took
// about 5 s of CPU per test file before the first test, and the suite has over 100 files; this takes
// about 2. `type-strip-only` in .taprc keeps tap from loading ts-node. This does what ts-node did:
// types removed, parameter properties compiled, `./x.js` imports resolved to `./x.ts` where that is
// the file, and inline source maps, for stack traces and coverage. SWC's output is kept in
// node_modules/.cache/partner-booking-mock-server/ts, by a hash of the file's name and text (and SWC's
// version and options): transpiling the ~150 files a test file loads was most of what is left.
import { createHash } from 'node:crypto';
import { createRequire, enableCompileCache, registerHooks } from 'node:module';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';

const OPTIONS = { swcrc: false, sourceMaps: 'inline', module: { type: 'es6' }, jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true } };
const VERSION = JSON.stringify([createRequire(import.meta.url)('@swc/core/package.json').version, OPTIONS]);
const CACHE = fileURLToPath(new URL('../node_modules/.cache/partner-booking-mock-server/ts', import.meta.url));
mkdirSync(CACHE, { recursive: true });
// V8's compiled code of every module (dependencies included), kept beside: a test file loads some
// 1,400 modules, and each CLI process a test starts inherits the setting through the environment.
// Not with coverage (`npm run test:coverage`): Node's docs say that code from the cache may count less
// precisely.
if (process.env._TAPJS_PROCESSINFO_COVERAGE_ === '0') {
  const compiled = fileURLToPath(new URL('../node_modules/.cache/partner-booking-mock-server/v8', import.meta.url));
  enableCompileCache(compiled);
  process.env.NODE_COMPILE_CACHE = compiled;
}

/** The file transpiled, from the cache when this text of it was transpiled before. */
function transpile(filename) {
  const text = readFileSync(filename, 'utf8');
  const cached = join(CACHE, `${createHash('sha256').update(VERSION).update(filename).update('\0').update(text).digest('hex')}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  const { code } = transformSync(text, { ...OPTIONS, filename });
  // Written aside and renamed: the test files running in parallel never read half a file.
  writeFileSync(`${cached}.${process.pid}`, code);
  renameSync(`${cached}.${process.pid}`, cached);
  return code;
}

registerHooks({
  resolve(specifier, context, next) {
    if (context.parentURL?.startsWith('file:') && context.parentURL.endsWith('.ts') && /^\.{1,2}\/.*\.js$/.test(specifier)) {
      const ts = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
      if (existsSync(ts)) return next(ts.href, context);
    }
    return next(specifier, context);
  },
  load(url, context, next) {
    if (!url.startsWith('file:') || !url.endsWith('.ts')) {
      try {
        return next(url, context);
      } catch (err) {
        // Node 24 before 24.13 refuses its own answer for a CommonJS file (no source) when an
        // off-thread hook (tap's mocks, there) is registered too: the file is read here then.
        if (err?.code !== 'ERR_INVALID_RETURN_PROPERTY_VALUE') throw err;
        return { format: 'commonjs', source: readFileSync(fileURLToPath(url)), shortCircuit: true };
      }
    }
    return { format: 'module', source: transpile(fileURLToPath(url)), shortCircuit: true };
  },
});
