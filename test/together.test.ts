import t from 'tap';
import { globSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { GROUPS, ROOT, members } from './together.js';

const taprc = parse(readFileSync(join(ROOT, '.taprc'), 'utf8')) as { exclude: string[] };
const patterns = Object.values(GROUPS).flat();

t.test('the groups of test/together.ts are what .taprc leaves out and test/together/ runs', async (t) => {
  t.same(taprc.exclude.filter((p) => !p.startsWith('**/')).sort(), [...patterns].sort(), "each group's patterns are in .taprc's exclude, and nothing else is");
  t.same(readdirSync(join(ROOT, 'test/together')).sort(), Object.keys(GROUPS).map((g) => `${g}.test.ts`).sort(), 'each group has its file in test/together/');
});

t.test('every test file runs exactly once: alone or in one group', async (t) => {
  const all = globSync('test/**/*.test.ts', { cwd: ROOT }).filter((f) => !f.startsWith('test/fixtures/'));
  const seen = new Map<string, string>();
  for (const group of Object.keys(GROUPS)) {
    const files = members(group);
    t.ok(files.length > 0, `group ${group} has files`);
    for (const file of files) {
      t.notOk(seen.has(file), `${file} is in one group only (${group}${seen.has(file) ? `, ${seen.get(file)}` : ''})`);
      t.notOk(file.startsWith('test/together/'), `${file} is a test file, not a group's`);
      seen.set(file, group);
    }
  }
  const entries = all.filter((f) => f.startsWith('test/together/'));
  const alone = all.filter((f) => !seen.has(f) && !entries.includes(f));
  t.ok(alone.length > 0 && seen.size > 0, `${seen.size} files run in ${entries.length} groups, ${alone.length} alone: ${alone.join(', ')}`);
});
