/**
 * The conformance project's vitest runner: vitest's own, with two changes so that a remote target's latency is
 * waited out in parallel, by the whole run at once (issue 12):
 *   - every test and describe block of a suite file is marked concurrent — what `sequence.concurrent` does, which
 *     vitest only offers for all projects at once (the unit tests must stay sequential); a block declared
 *     `describe.sequential` / a test `it.sequential` stays so;
 *   - the files overlap: vitest hands the one worker all files and collects then runs them one after another; this
 *     runner lets vitest collect every file first (a file cannot be collected while a test runs), then starts all
 *     their suites at once, in order, so up to `maxConcurrency` tests of any files are in flight (vitest's own
 *     run-wide limit). The worker's last file (suites/contract.test.ts, put last by harness/contract-sequencer.ts)
 *     starts only when every other file has finished: it reports what they saw.
 * Each test holds the run-wide test lock (harness/conformance.ts) shared, quiet or exclusive, as before; the
 * reports keep the declaration order of files and tests. Where vitest's internals are not what this relies on (a
 * vitest other than the pinned one), files run one after another as vitest runs them: slower, never wrong.
 */
import { VitestTestRunner } from 'vitest/runners';
import type { RunnerTask, RunnerTestFile } from 'vitest';

function markConcurrent(task: RunnerTask): void {
  if ((task as { sequential?: boolean }).sequential) return;
  task.concurrent = true;
  if (task.type === 'suite') for (const child of task.tasks) markConcurrent(child);
}

type Trace = (name: string, attributes: unknown, cb?: () => unknown) => unknown;

export default class ConformanceRunner extends VitestTestRunner {
  /** The collected files' runs, not started yet: the last file starts them all, then waits for them. */
  readonly #deferred: (() => unknown)[] = [];
  /** The worker's last file, when the files overlap. */
  #last: string | undefined;

  constructor(...args: ConstructorParameters<typeof VitestTestRunner>) {
    super(...args);
    const self = this as unknown as { trace?: Trace; workerState?: { ctx?: { files?: { filepath: string }[] } } };
    const trace = self.trace;
    const files = self.workerState?.ctx?.files;
    if (typeof trace !== 'function' || !Array.isArray(files) || files.length < 2) return;
    const last = files.at(-1)!.filepath;
    // @vitest/runner's runFiles runs each file as trace('run.spec', { 'code.file.path' }, () => runSuite(file)).
    self.trace = (name, attributes, cb) => {
      const path = (attributes as Record<string, unknown> | undefined)?.['code.file.path'];
      if (name !== 'run.spec' || typeof cb !== 'function' || typeof path !== 'string') return trace(name, attributes, cb);
      if (path !== last) {
        this.#deferred.push(() => trace(name, attributes, cb));
        return Promise.resolve();
      }
      const running = this.#deferred.splice(0).map((run) => Promise.resolve(run()));
      return Promise.allSettled(running).then(() => trace(name, attributes, cb));
    };
    this.#last = last;
  }

  onBeforeRunFiles(files: RunnerTestFile[]): void {
    for (const file of files) for (const task of file.tasks) markConcurrent(task);
  }

  /** vitest clears the snapshot state after each file's run: only after the last, since the others still run. */
  override onAfterRunFiles(files?: RunnerTestFile[]): void {
    if (this.#last === undefined || files?.some((f) => f.filepath === this.#last)) super.onAfterRunFiles?.();
  }
}
