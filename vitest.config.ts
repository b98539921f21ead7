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
          // The tests of every file overlap (harness/runner.ts: a remote target's latency is waited out in parallel);
          // the reports keep the declaration order. Every test starts at once and waits for its mode of the test lock
          // (harness/conformance.ts, harness/lock.ts), which orders them; the requests in flight are capped apart
          // (MAX_CONCURRENCY, harness/http.ts).
          runner: './harness/runner.ts',
          maxConcurrency: 256,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
