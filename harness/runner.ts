/**
 * The conformance project's vitest runner: vitest's own, with every test and describe block of a suite file marked
 * concurrent before the run — what `sequence.concurrent` does, which vitest only offers for all projects at once
 * (the unit tests must stay sequential). Files still run one after another in the one worker; within a file up to
 * `maxConcurrency` tests are in flight, each holding the test lock (harness/conformance.ts) shared or exclusive, and
 * the reports keep the declaration order. A block declared `describe.sequential` / a test `it.sequential` stays so.
 */
import { VitestTestRunner } from 'vitest/runners';
import type { RunnerTask, RunnerTestFile } from 'vitest';

function markConcurrent(task: RunnerTask): void {
  if ((task as { sequential?: boolean }).sequential) return;
  task.concurrent = true;
  if (task.type === 'suite') for (const child of task.tasks) markConcurrent(child);
}

export default class ConformanceRunner extends VitestTestRunner {
  onBeforeRunFiles(files: RunnerTestFile[]): void {
    for (const file of files) for (const task of file.tasks) markConcurrent(task);
  }
}
