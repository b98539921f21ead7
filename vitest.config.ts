import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './reporters/junit.ts', './reporters/summary.ts'],
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
