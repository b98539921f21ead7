/**
 * Path of vitest's CLI entry, to run it as a child process with this Node (no npx, no shell), and the arguments of a
 * conformance run. The root and config are this package's own folder, never the working directory: the installed
 * command (bin/payment-conformance.js) runs from the user's folder, where .env is read and reports are written.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const vitestCli = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** The package's folder (where suites/, spec/, sandbox/ and vitest.config.ts are). */
export const PACKAGE_ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/**
 * `vitest run` of the conformance project, rooted in this package whatever the working directory. Only the run's own
 * reporters: the console gets the summary's few lines (each failure once, with its clause), not a line per test.
 */
export const conformanceArgs: readonly string[] = [
  'run',
  '--root',
  PACKAGE_ROOT,
  '--config',
  join(PACKAGE_ROOT, 'vitest.config.ts'),
  '--project',
  'conformance',
  ...['junit', 'summary'].map((r) => `--reporter=${join(PACKAGE_ROOT, 'reporters', `${r}.ts`)}`),
];
