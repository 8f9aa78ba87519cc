// Test files that run together, in one test process per group, instead of a process each. A test
// process's start (tap, its hooks, and the ~1,400 modules of the app and its dependencies) costs
// about 2.5 s of CPU before its first test, more than most of these files then need: the twelve
// catalog files took 46 s of CPU one process each, 13 s together (Node 24). The files keep their
// names and still run alone when named (`npx tap test/catalog/search.test.ts`).
//
// A group is one entry below and one file test/together/<name>.test.ts that calls together(); its
// patterns are also in .taprc's `exclude`, so that the run does not start them again one by one.
// test/together.test.ts checks that the three agree and that every test file runs exactly once.
//
// What goes in a group: files that test the app in their own process (inject, a receiver, a CLI
// process or two), whose top level only declares and registers tests. Not in a group: files that
// run for long (a group's files run one after another, and the run's jobs run the groups and the
// long files side by side). tap starts the files in the order of their names: a long group that
// starts last lengthens the run (file-store, 35 s, was state-file and ran last).
import { globSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const GROUPS: Record<string, string[]> = {
  admin: ['test/admin/!(dashboard-browser|dashboard-stop-browser|concurrent-control).test.ts'],
  auth: ['test/auth/*.test.ts'],
  basics: [
    'test/@(config|db-flag|docs-links|listen-hint|memo|readme|server|together).test.ts',
    'test/@(conformance|deploy|lifecycle|seed|time)/*.test.ts',
    'test/store/@(checks|compaction|recovery|state-file|store).test.ts',
  ],
  booking: ['test/booking/*.test.ts'],
  browsers: ['test/@(admin|certification)/*-browser.test.ts'],
  catalog: ['test/catalog/*.test.ts'],
  certification: ['test/certification/!(dashboard-browser|postgres).test.ts'],
  'child-processes': ['test/@(child|restart|stop).test.ts', 'test/api/start.test.ts'],
  'file-store': ['test/store/@(lock|loss).test.ts'],
  http: ['test/http/!(docs-answers).test.ts'],
  'postgres-app': ['test/store/@(postgres-app|postgres-url).test.ts'],
  'postgres-crash': ['test/store/@(postgres-outage|postgres-process).test.ts'],
  'postgres-more': ['test/@(certification|listen|report)/postgres.test.ts', 'test/pg/*.test.ts', 'test/admin/concurrent-control.test.ts'],
  'postgres-schedule': ['test/schedule/*.test.ts'],
  'postgres-store': ['test/store/@(postgres|postgres-tenancy|postgres-watch).test.ts'],
  recording: ['test/@(drift|proxy)/*.test.ts'],
  report: ['test/report/!(postgres).test.ts'],
  sandbox: ['test/listen/!(postgres).test.ts', 'test/trigger/*.test.ts'],
  scenarios: ['test/scenarios/*.test.ts'],
  webhooks: ['test/webhooks/*.test.ts'],
};

/** The files a group's patterns name, relative to the repository, in order. */
export function members(name: string): string[] {
  const patterns = GROUPS[name];
  if (!patterns) throw new Error(`no group named ${name} in test/together.ts`);
  return [...new Set(patterns.flatMap((p) => globSync(p, { cwd: ROOT })))].sort();
}

/** Runs the group named after the calling file (test/together/<name>.test.ts): its files, one after another. */
export async function together(entry: string): Promise<void> {
  for (const file of members(basename(fileURLToPath(entry), '.test.ts'))) await import(pathToFileURL(`${ROOT}${file}`).href);
}
