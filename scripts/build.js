// npm run build: bundles the CLI and everything it imports into dist/bin/mock-server.js, one file.
// Node loads one file far faster than the ~1,500 ESM modules of the sources and dependencies (the
// difference is about a third of a second of start-up). Types are checked by `npm run typecheck`.
// Kept outside the bundle: packages that read their own files at run time (pdfkit's fonts,
// swagger-ui's static assets) and qrcode, loaded with pdfkit on the first voucher.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';

const outfile = 'dist/bin/mock-server.js';
rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: ['bin/mock-server.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external: ['pdfkit', 'qrcode', '@fastify/swagger-ui'],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
