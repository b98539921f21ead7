import { defineConfig } from 'vitest/config';
import { ContractLastSequencer } from './harness/contract-sequencer.ts';

export default defineConfig({
  test: {
    reporters: ['default', './reporters/junit.ts', './reporters/summary.ts'],
    // suites/contract.test.ts runs last (and in every shard): it reports what every other test's responses showed.
    sequence: { sequencer: ContractLastSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'conformance',
          include: ['suites/**/*.test.ts'],
          globalSetup: ['harness/global-setup.ts'],
          // One worker, no isolation: the token cache, webhook receiver and interlock are shared by every file, and
          // so are the request cap (MAX_CONCURRENCY, harness/http.ts) and the test lock (harness/conformance.ts),
          // which makes them run-wide.
          pool: 'forks',
          maxWorkers: 1,
          isolate: false,
          // The tests of a file overlap (a remote target's latency is waited out in parallel; harness/runner.ts marks
          // them concurrent); the reports keep the declaration order. Tests that move the clock or read global
          // counters run alone (harness/conformance.ts). More tests than requests in flight (MAX_CONCURRENCY): some
          // of them wait for a webhook, not for the target.
          runner: './harness/runner.ts',
          maxConcurrency: 256,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
