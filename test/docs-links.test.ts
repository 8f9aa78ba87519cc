// Every relative link of the documentation leads somewhere: README.md, docs/ and the other README
// files of the repository. A link to a file needs that file (or directory); a link with an #anchor
// needs a heading of the target file whose GitHub anchor (github-slugger, duplicates numbered) is
// that anchor. Links are read with a Markdown lexer (marked), so code blocks are not mistaken for
// links or headings.
import t from 'tap';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { tempDir } from './tmp.js';

/** README.md, every Markdown file under docs/, and the README.md of any other folder (not dependencies or build output). */
function documentation(root: string): string[] {
  const skip = /(^|\/)(node_modules|dist|\.test-build|coverage|\.git|\.tap)(\/|$)/;
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => !skip.test(f) && f.endsWith('.md') && (f.startsWith('docs/') || f === 'README.md' || f.endsWith('/README.md')))
    .sort();
  return files.map((f) => join(root, f));
}

/** The text a heading shows, as GitHub renders it (code without backticks, links by their text). */
function plain(tokens: Token[] | undefined): string {
  return (tokens ?? []).map((tok) => ('tokens' in tok && tok.tokens ? plain(tok.tokens) : 'text' in tok ? tok.text : '')).join('');
}

const anchorCache = new Map<string, Set<string>>();
/** The anchors GitHub gives the headings of a Markdown file. */
function anchors(file: string): Set<string> {
  let set = anchorCache.get(file);
  if (!set) {
    const slugger = new GithubSlugger();
    set = new Set();
    marked.walkTokens(marked.lexer(readFileSync(file, 'utf8')), (tok) => {
      if (tok.type === 'heading') set!.add(slugger.slug(plain((tok as Tokens.Heading).tokens)));
    });
    anchorCache.set(file, set);
  }
  return set;
}

/** Every broken relative link of `files`, as "file: target (why)". */
function brokenLinks(root: string, files: string[]): string[] {
  anchorCache.clear();
  const broken: string[] = [];
  for (const file of files) {
    const links: string[] = [];
    marked.walkTokens(marked.lexer(readFileSync(file, 'utf8')), (tok) => {
      if (tok.type === 'link' || tok.type === 'image') links.push((tok as Tokens.Link).href);
    });
    for (const href of links) {
      if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(href)) continue; // http:, mailto:, …: not ours to check
      const [path = '', anchor] = href.split('#', 2) as [string, string | undefined];
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)}: ${href}`;
      if (!existsSync(target)) broken.push(`${where} (no such file)`);
      else if (anchor !== undefined && !statSync(target).isFile()) broken.push(`${where} (an anchor on a directory)`);
      else if (anchor !== undefined && !anchors(target).has(decodeURIComponent(anchor))) broken.push(`${where} (no heading with that anchor)`);
    }
  }
  return broken;
}

t.test('every relative link of README.md and docs/ resolves, anchors included', async (t) => {
  const files = documentation(packageRoot);
  const names = files.map((f) => relative(packageRoot, f));
  t.ok(names.includes('README.md') && names.includes('docs/webhooks.md'), `the files checked: ${names.join(', ')}`);
  t.same(brokenLinks(packageRoot, files), []);
});

t.test('README.md is the front page: at most about 15 KB', async (t) => {
  const size = statSync(join(packageRoot, 'README.md')).size;
  t.ok(size <= 15_500, `README.md is ${size} bytes`);
});

t.test('the check finds a missing file, a missing anchor and an anchor that only a code block shows', async (t) => {
  const root = tempDir(t, 'docs-links-');
  mkdirSync(join(root, 'docs'));
  writeFileSync(
    join(root, 'README.md'),
    [
      '# Title',
      '',
      'Good: [page](docs/page.md), [section](docs/page.md#the-api-__admin-v2), [again](docs/page.md#usage-1), [here](#title), [site](https://example.com/x#y).',
      'Bad: [gone](docs/gone.md), [typo](docs/page.md#usage-2), [in code](docs/page.md#not-a-heading).',
      '',
    ].join('\n'),
  );
  writeFileSync(join(root, 'docs', 'page.md'), ['# Page', '', '## The API (`/__admin`) v2!', '', '## Usage', '', '## Usage', '', '```', '# not a heading', '```', ''].join('\n'));
  t.same(brokenLinks(root, documentation(root)), [
    'README.md: docs/gone.md (no such file)',
    'README.md: docs/page.md#usage-2 (no heading with that anchor)',
    'README.md: docs/page.md#not-a-heading (no heading with that anchor)',
  ]);
});
