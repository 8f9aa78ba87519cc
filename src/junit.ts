/** JUnit XML, as CI test views read it: the report, the webhook receiver check and the drift check print it. */

/** Text escaped for an XML attribute or element. */
export const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string);

export interface JunitSuite {
  /** The tool: `mock-server report`, … */
  name: string;
  /** What was tested: an application, a receiver, an upstream. */
  suite: string;
  /** `<testcase>` elements, each on its own line. */
  cases: string[];
  failures: number;
  skipped: number;
  timestamp?: string;
}

/** One test suite in a `<testsuites>` document. */
export function junitDocument({ name, suite, cases, failures, skipped, timestamp }: JunitSuite): string {
  const counts = `tests="${cases.length}" failures="${failures}" skipped="${skipped}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(name)}" ${counts}>`,
    `  <testsuite name="${xml(suite)}" ${counts}${timestamp === undefined ? '' : ` timestamp="${xml(timestamp)}"`}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
  ].join('\n');
}
