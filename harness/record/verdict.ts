/**
 * The verdict vocabulary and the one place a test's end becomes a verdict (Playwright's worker owns a test's status;
 * its reporters only read it). `classify` runs in the worker, where the test ran (harness/run/conformance.ts), and
 * its result travels in the test's meta; reporters copy it and add only what the main process alone knows — a test
 * not run, cancelled, or a hook's error. Labels, the status groups, the tests' order and the clause grid's order are
 * read by every report and the exit code from here (index.html from the summary it embeds).
 */
import { SKIP_KINDS, type SkipKind } from './skips.ts';

export { SKIP_KINDS, type SkipKind };

/** The evidence of a failed check: what the rule wanted, what the target did, and how to reproduce it. */
export interface CheckEvidence<Name extends string = string> {
  /** Named check that failed, e.g. `rejected`, `contract`, `hash-verifies`: one of harness/judge/checks.ts `CHECKS`
   * where the evidence is made (`JudgedEvidence`), read back as a string here (this room comes before the judge). */
  check: Name;
  clauses: string[];
  expected: string;
  actual: string;
  /** The redacted exchange that showed it (request and response as text), when there was one. */
  exchange?: string;
  /** One shell line that replays the request; secrets appear as $VARIABLES, never as values. */
  curl?: string;
  /** The id of that exchange, so the test's transcript marks it as the failing step. */
  exchangeId?: string;
}

/** Every status a test can have in a report. */
export const STATUSES = ['pass', 'fail', 'warn', 'skip', 'expectedFailure', 'expectedFailurePassed', 'notRun', 'error'] as const;
export type Status = (typeof STATUSES)[number];
export type Counts = Record<Status, number>;

/**
 * The status groups every report, the comparison with a baseline and the exit code read — said once, here:
 * - `failed`: the run fails on it (the run line's "failed", `--failed` runs it again): the target's FAIL, the suite's ERROR;
 * - `failing`: the test did not pass: `failed`, and a failure listed as expected (its transcript is kept too);
 * - `passing`: it passed: a PASS, a WARN (observed where the spec is silent), an expected failure that passed;
 * - `notJudged`: nothing was judged: a skip (with its reason) or a test not run.
 */
export const STATUS_GROUPS = {
  failed: ['fail', 'error'],
  failing: ['fail', 'error', 'expectedFailure'],
  passing: ['pass', 'warn', 'expectedFailurePassed'],
  notJudged: ['skip', 'notRun'],
} as const satisfies Record<string, readonly Status[]>;
export type StatusGroup = keyof typeof STATUS_GROUPS;

/** Whether a status is in a group (a status read from a report may be any string). */
export function isIn(group: StatusGroup, status: string): boolean {
  return (STATUS_GROUPS[group] as readonly string[]).includes(status);
}

/**
 * The tests' order, worst first: a FAIL before an ERROR (the target did fail the test whatever else went wrong, as the
 * exit code says), then what did not pass, then what passed, then what was not judged. Where one test's records are
 * combined (a sharded run's contract testcase) the worst wins; where tests are listed, they come in this order.
 */
export const WORST_FIRST = [
  'fail',
  'error',
  'expectedFailure',
  'warn',
  'expectedFailurePassed',
  'pass',
  'skip',
  'notRun',
] as const satisfies readonly Status[];

/** How each status is shown. */
export const LABELS: Record<Status, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  warn: 'WARN',
  skip: 'SKIP',
  expectedFailure: 'expected failure',
  expectedFailurePassed: 'expected failure passed',
  notRun: 'not run',
  error: 'ERROR',
};

/** A clause's status in the report's grid, worst first: the order a clause takes the worst of its tests' statuses. */
export const CLAUSE_ORDER = ['FAIL', 'expected failure', 'ERROR', 'WARN', 'PASS', 'SKIP', 'not run', 'not covered'] as const;

/** The clause status a test's outcome for a clause gives (the grid takes the worst, in CLAUSE_ORDER). */
export const CLAUSE_STATUS_OF: Record<Status, (typeof CLAUSE_ORDER)[number]> = {
  fail: 'FAIL',
  expectedFailure: 'expected failure',
  error: 'ERROR',
  warn: 'WARN',
  pass: 'PASS',
  expectedFailurePassed: 'PASS',
  skip: 'SKIP',
  notRun: 'not run',
};

/** The colour class of each clause status in index.html (a status's class is its own name). */
export const CLAUSE_CLASS: Record<(typeof CLAUSE_ORDER)[number], string> = {
  FAIL: 'fail',
  'expected failure': 'expectedFailure',
  ERROR: 'error',
  WARN: 'warn',
  PASS: 'pass',
  SKIP: 'skip',
  'not run': 'notRun',
  'not covered': 'uncovered',
};

/** What a clause's status in the grid means, for the legend. */
export const CLAUSE_MEANINGS: Record<(typeof CLAUSE_ORDER)[number], string> = {
  FAIL: 'a failing check cites it: the target broke the clause',
  'expected failure': 'failed, listed in EXPECTED_FAILURES_FILE',
  ERROR: "a test of it judged nothing: the suite's own failure, not the target's",
  WARN: 'passed; observed something where the spec is silent',
  PASS: 'the target did what the clause says',
  SKIP: 'could not be checked here (reason given)',
  'not run': 'not judged: the run stopped, or its test failed on another clause first',
  'not covered': 'no test cites it',
};

/** The vocabulary the reports show, embedded in summary.json (index.html reads its labels from there). */
export const VOCABULARY = {
  labels: LABELS,
  clauseOrder: CLAUSE_ORDER,
  clauseClass: CLAUSE_CLASS,
  clauseMeanings: CLAUSE_MEANINGS,
  clauseStatusOf: CLAUSE_STATUS_OF,
  groups: STATUS_GROUPS,
  worstFirst: WORST_FIRST,
};

/**
 * A test's verdict as decided where it ran: its status, why it was not judged, and the evidence of each failed check.
 * `notRun` here is a run that stopped under the test (the interlock, the target refusing every request "not now");
 * the main process adds the tests that never started or were cancelled.
 */
export interface Verdict {
  status: Status;
  skipKind?: SkipKind;
  reason?: string;
  evidence: CheckEvidence[];
}

/** What a test's body ended with, as the worker saw it. */
export interface TestEnd {
  /** vitest's state of the test when it finished. */
  state: 'pass' | 'fail' | 'skip';
  /** The failure that ended it was the target's (a named check, the target not answering): harness/run/outcome.ts. */
  judged: boolean;
  /** The name of the error that ended it, when it failed (an `expect` of a suite throws AssertionError). */
  errorName?: string;
  skipKind?: SkipKind;
  /** The skip's reason (vitest's note). */
  reason?: string;
  failures: readonly CheckEvidence[];
  observed: boolean;
  /** Listed in EXPECTED_FAILURES_FILE: how it went. */
  expected?: 'failed' | 'passed';
  /** The run stopped under it (the interlock, the target refusing every request "not now"): why. It checked nothing. */
  stopped?: string;
}

/**
 * The verdict (docs/decisions.md "FAIL or ERROR"): FAIL only when a named check failed, the target did not answer, or
 * an `expect` of a suite failed; any other failure judged nothing (its own budget, a harness exception, a payer or
 * browser crash): ERROR. A skip carries its kind and reason; a pass with observations is WARN.
 */
export function classify(end: TestEnd): Verdict {
  const evidence = [...end.failures];
  if (end.stopped !== undefined && evidence.length === 0) return { status: 'notRun', evidence, reason: end.stopped };
  if (end.expected === 'failed') return { status: 'expectedFailure', evidence };
  if (end.state === 'skip')
    return { status: 'skip', evidence, ...(end.skipKind ? { skipKind: end.skipKind } : {}), ...(end.reason ? { reason: end.reason } : {}) };
  if (end.state === 'fail')
    return { status: end.judged || evidence.length > 0 || end.errorName === 'AssertionError' ? 'fail' : 'error', evidence };
  if (end.expected === 'passed') return { status: 'expectedFailurePassed', evidence };
  return { status: end.observed ? 'warn' : 'pass', evidence };
}
