// A test file for child.test.ts, not collected by the suite: starts the CLI twice (start() and a run()
// that does not end), says so, and waits for a line on stdin to end its test with both still running,
// or to be killed.
import t from 'tap';
import { run, start } from './cli-process.js';

t.test('two servers left running', async (t) => {
  await start([]);
  void run(['--port', '0', '--db', 'memory', '--catalog-size', '1']);
  process.stdout.write('started\n');
  await new Promise((r) => process.stdin.once('data', r));
  t.pass('ends with both still running');
});
