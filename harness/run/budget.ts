/**
 * A test's own time: its budget (TEST_TIMEOUT_MS, its waits for other tests not counted) and the run bound
 * (RUN_TIMEOUT_S) vitest's timeout is set to. The run's bounds are read once, by the global setup, and provided to the
 * worker with its configuration (`inject('config')`): the tests' declarations read them there.
 */
import { inject } from 'vitest';
import type { Run } from './run.ts';
import type { TestRecord } from '../record/test-record.ts';
import { TEST_TIMEOUT_MS_DEFAULT, type Budget } from '../setup/config.ts';

/**
 * A test's own budget: the time its own work may take — from the start of its work (its tenant, if any,
 * created), not counting time spent waiting for what other tests hold (the request cap, a browser page, work another
 * test started: see `waitingFor` in harness/record/test-record.ts). `clauseTest(…, timeoutMs)` sets another. Past it the test
 * ends ERROR naming what it was doing. vitest's own timeout is the run bound (RUN_TIMEOUT_S): such waits count there only.
 */
export const TEST_BUDGET_MS = TEST_TIMEOUT_MS_DEFAULT;

/** The budget of a test: TEST_TIMEOUT_MS, or a test's own (`clauseTest(…, 120_000)`) scaled as TEST_TIMEOUT_MS scales the default. */
export function budgetOf(run: Run, own: number | undefined): number {
  const configured = run.config.budget.testTimeoutMs;
  return own === undefined ? configured : Math.max(1, Math.round((own * configured) / TEST_BUDGET_MS));
}

/** The run's bounds as the global setup read them (harness/run/global-setup.ts). */
export function runBudget(): Budget {
  return inject('config').budget;
}

/** RUN_TIMEOUT_S in milliseconds: vitest's timeout of every test. */
export function runBoundMs(): number {
  return runBudget().runTimeoutS * 1000;
}

/** The suite's own time ran out (the test's budget): nothing was judged (ERROR, never a FAIL of the target). */
export class TestBudgetError extends Error {
  override name = 'TestBudgetError';
}

/** Rejects with TestBudgetError once `scope` has worked `budgetMs` (its waits not counted), else settles as `work` does. */
export function withinBudget<T>(scope: TestRecord, budgetMs: number, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout;
    const check = () => {
      const now = Date.now();
      const waited = scope.waitedMs(now);
      const used = now - scope.startedAt - waited;
      if (used >= budgetMs && scope.waitingFor === undefined) {
        const doing = scope.doing;
        const last = scope.steps.at(-1);
        const what =
          doing.length > 0
            ? `waiting for the answer to ${doing.join(', ')}`
            : `running its own code${last ? ` (its last step: ${last.title})` : ' (no request made yet)'}`;
        reject(
          new TestBudgetError(
            `the suite's own time limit: the test worked ${(used / 1000).toFixed(1)} s, past its budget of ${budgetMs / 1000} s (TEST_TIMEOUT_MS; ` +
              `${(waited / 1000).toFixed(1)} s waiting for other tests not counted), while ${what}; not judged`,
          ),
        );
        return;
      }
      timer = setTimeout(check, Math.max(budgetMs - used, 250));
    };
    timer = setTimeout(check, budgetMs);
    work.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (err: unknown) => (clearTimeout(timer), reject(err)),
    );
  });
}
