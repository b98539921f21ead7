/**
 * What a run (and a shard merge) exits with, so that CI can tell whose problem it is:
 * 0 conformant; 1 the target failed (a judged FAIL); 2 the set-up (configuration, credentials, reachability, a
 * production business: nothing judged); 3 the suite's own error (an ERROR verdict, a crash). A FAIL wins over an
 * ERROR: the target did fail that test whatever else went wrong.
 */
import { failOnGate } from './compare.ts';
import type { Summary } from './records.ts';

export const EXIT = { conformant: 0, targetFailed: 1, setup: 2, suiteError: 3 } as const;

/** The lines `--help` and the docs show. */
export const EXIT_CODES_HELP = [
  'exit codes:',
  '  0  conformant: nothing failed (FAIL_ON=new: nothing new)',
  '  1  the target failed a test',
  '  2  the set-up: configuration, credentials, reachability (nothing was judged)',
  "  3  the suite's own error (an ERROR verdict, a crash): not the target's",
];

/**
 * The exit code of a run from its summary; `vitestCode` is what vitest exited with (undefined for a merge). A run
 * that failed without a summary of its own crashed: the suite's.
 */
export function exitCodeOf(summary: Summary | undefined, vitestCode?: number): number {
  if (!summary) return vitestCode === 0 || vitestCode === undefined ? EXIT.conformant : EXIT.suiteError;
  const failOnNew = summary.comparison?.failOn === 'new';
  const judged = failOnNew ? summary.comparison!.newFailures.filter((t) => t.status === 'fail').length : summary.totals.fail;
  if (judged > 0) return EXIT.targetFailed;
  // Stopped by the set-up (an unusable target, a production business, a configuration error in the global setup);
  // an interrupted run (a signal, RUN_TIMEOUT_S) is not the set-up's.
  if (summary.run.abort && summary.totals.notRun > 0 && summary.run.outcome !== 'interrupted') return EXIT.setup;
  if (summary.totals.error > 0) return EXIT.suiteError;
  if (failOnNew) return failOnGate(summary).failed ? EXIT.suiteError : EXIT.conformant;
  return vitestCode === undefined || vitestCode === 0 ? EXIT.conformant : EXIT.suiteError;
}
