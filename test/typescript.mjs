// How the tests' TypeScript runs (`node-arg` in .taprc): transpiled by SWC in the test process's own
// thread, through module.registerHooks (Node 22.15 or later). tap's TypeScript plugin (ts-node, whose
// hooks run in a worker thread that every module of the sources and dependencies goes through) took
// about 5 s of CPU per test file before the first test, and the suite has over 100 files; this takes
// about 2. `type-strip-only` in .taprc keeps tap from loading ts-node. This does what ts-node did:
// types removed, parameter properties compiled, `./x.js` imports resolved to `./x.ts` where that is
// the file, and inline source maps, for stack traces and coverage.
import { registerHooks } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';

// On Node 22, type-strip-only makes tap add --no-warnings to NODE_OPTIONS: the processes that the
// tests start (the CLI) must show their warnings as they would to a user.
if (process.env.NODE_OPTIONS) process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.replace(/(^|\s)--no-warnings(?=\s|$)/g, '').trim();

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
    const filename = fileURLToPath(url);
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      filename,
      swcrc: false,
      sourceMaps: 'inline',
      module: { type: 'es6' },
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
    });
    return { format: 'module', source: code, shortCircuit: true };
  },
});
