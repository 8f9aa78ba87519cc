// The files of group 'child-processes' in one process: test/together.ts says which and why.
import { together } from '../together.js';

await together(import.meta.url);
