// tap's `before` (.taprc): the CLI that the process tests start (test/cli-process.ts), built once for
// the whole run into .test-build/, not dist/. A build per test file would wipe it under another file's
// running CLI; a build into dist/ would wipe the CLI of a server started from the same clone (its
// chunks load on demand, by hashed names that a rebuild changes). Without declarations: no test reads
// them (test/api/packed.test.ts packs and checks its own). The folder is inside the repository so that
// the bundle finds the package root (fixtures, scenarios, dashboard) and node_modules above it, and not
// under node_modules, whose files tap leaves out of the coverage report. With source maps, by which
// that report maps the CLI processes' coverage to the sources.
/* c8 ignore start */
import { bundle } from './build.js';

try {
  await bundle({ outdir: '.test-build', types: false });
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
/* c8 ignore stop */
