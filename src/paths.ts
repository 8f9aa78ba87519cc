import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root, found by walking up from this file: works from src/ (tests) and dist/src/. */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('mock-server: package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

export const packageRoot = findRoot();
export const builtinFixturesDir = join(packageRoot, 'fixtures');
export const builtinScenariosDir = join(packageRoot, 'scenarios');
