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
          // One worker, no isolation: the token cache, webhook receiver and interlock are shared by every file.
          pool: 'forks',
          maxWorkers: 1,
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
