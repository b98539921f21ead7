/** Path of vitest's CLI entry, to run it as a child process with this Node (no npx, no shell). */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const vitestCli = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
