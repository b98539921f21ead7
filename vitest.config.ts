import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * How the conformance project runs its one test file (suites/all.conformance.ts): one worker, up to 256 tests at once
 * (vitest's limit; the requests in flight are capped apart, MAX_CONCURRENCY). Shared with the overlap tripwire
 * (test/harness/overlap.test.ts), which fails when the tests of a run stop overlapping.
 */
export const conformanceScheduling = { pool: 'forks', maxWorkers: 1, maxConcurrency: 256 } as const;

/**
 * The unit project's workers: one and a half a core (vitest caps a percentage at the cores). With one a core, a
 * quarter of the CPU sat idle (Chromium, sockets, child processes waited on): a fresh clone's `npm test` on 2 cores
 * went from 91 s to 83 s (3 workers; 4: 82 s).
 */
const UNIT_WORKERS = Math.round(availableParallelism() * 1.5);

/**
 * The slow tier (`npm run test:slow`, run by .ci/run): end-to-end tests that wait minutes of real time
 * (no-control), install the packed package (*.slow.test.ts), or make several whole conformance runs as child
 * processes each. `npm test` (unit and conformance) leaves them out to stay under 90 s on a 2-core machine.
 */
export const SLOW_TESTS = [
  'test/**/*.slow.test.ts',
  'test/e2e/no-control.test.ts',
  'test/e2e/destructive.test.ts',
  'test/e2e/errors.test.ts',
  'test/e2e/html-report.test.ts',
  'test/e2e/interlock.test.ts',
  'test/e2e/secrets.test.ts',
  'test/hostile/runs.test.ts',
];

export default defineConfig({
  test: {
    experimental: { fsModuleCache: true },
    reporters: ['default', './reporters/junit.ts', './reporters/summary.ts'],
    // A quiet `npm test`: the default reporter prints a line per test slower than this (300 ms by default: 350
    // lines on 2 cores). Only a test near its timeout is worth a line; speed lives in `npm run bench`.
    slowTestThreshold: 60_000,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SLOW_TESTS],
          // No unit test bounds a duration from above that load could stretch; speed lives in `npm run bench`.
          maxWorkers: UNIT_WORKERS,
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'slow',
          include: SLOW_TESTS,
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'conformance',
          // One file declares every suite's tests (suites/all.conformance.ts: they overlap, the contract testcases
          // after them), so the token cache, request cap (MAX_CONCURRENCY), webhook receiver and interlock are one
          // module instance each: run-wide. See docs/decisions.md "Independent tests".
          include: ['suites/all.conformance.ts'],
          globalSetup: ['harness/run/global-setup.ts'],
          ...conformanceScheduling,
          // Its one file takes one worker whatever this says; the unit project's number keeps the two projects in one
          // group that runs at once (vitest runs a project of one worker after the others: 6 s more on 2 cores).
          maxWorkers: UNIT_WORKERS,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
