import t from 'tap';
import { startServer } from '../src/server.js';
import { defaults } from '../src/config.js';

t.test('the banner hides the password of the webhook URL', async (t) => {
  const lines: string[] = [];
  const running = await startServer({ ...defaults, port: 0, db: 'memory', catalogSize: 2, logLevel: 'warn', webhookUrl: 'http://hooks:s3cret@127.0.0.1:9/in' }, (l) => lines.push(l));
  t.teardown(() => running.close());
  const banner = lines.join('\n');
  t.match(banner, /webhook URL +http:\/\/hooks:\*\*\*@127\.0\.0\.1:9\/in/);
  t.notMatch(banner, /s3cret/);
});
