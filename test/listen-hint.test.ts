import t from 'tap';
import { listenHint } from '../src/server.js';

t.test('listen errors the user can fix get a one-line hint; others none', async (t) => {
  const err = (code: string) => Object.assign(new Error(code), { code });
  const config = { port: 8080, host: '10.9.9.9' };
  t.equal(listenHint(err('EADDRINUSE'), config), 'cannot listen: port 8080 is in use (try --port 0 for any free port, or another --port)');
  t.match(listenHint(err('EACCES'), config), /^cannot listen: port 8080 needs privileges .*--port 0\)$/);
  t.match(listenHint(err('EADDRNOTAVAIL'), config), /^cannot listen: address 10\.9\.9\.9 is not one of this machine's .*--host 127\.0\.0\.1/);
  t.equal(listenHint(err('EMFILE'), config), null);
});
