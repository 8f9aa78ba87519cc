import t from 'tap';
import { BodyCache } from '../../src/catalog/body-cache.js';

t.test('builds once per key and starts over when full', async (t) => {
  const cache = new BodyCache<string>(10);
  let builds = 0;
  const build = (s: string) => () => {
    builds++;
    return s;
  };
  t.equal(cache.get('a', build('12345')), '12345');
  t.equal(cache.get('a', build('other')), '12345', 'a hit does not rebuild');
  t.equal(builds, 1);
  cache.get('b', build('1234'));
  t.equal(cache.size, 2);
  cache.get('c', build('123'));
  t.equal(cache.size, 1, 'over 10 bytes: emptied, then the new body kept');
  t.equal(cache.get('a', build('again')), 'again');
});
