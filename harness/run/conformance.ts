/**
 * `clauseTest`: how every conformance test is declared. One behaviour per test (as in test262 and the OpenID
 * conformance suite), its clause ids in the name and in the metadata the reporters read (harness/record/meta.ts).
 *
 *   clauseTest({ clauses: '4.1-monto-min', endpoint: 'POST /EnlacePago' }, 'monto 0 is rejected', async (t) => { … })
 *
 * The wrapper fails every test at once with one line when the target is unusable, stops purchases through the
 * interlock, skips with the reason when the target lacks what the test needs, records observations (WARN) and
 * failure evidence, and applies EXPECTED_FAILURES_FILE. A remote target's hosted screen the payer cannot drive
 * (PayerError: the spec does not show a screen's layout) skips the test with the reason; on the embedded sandbox,
 * whose screen contract is known (docs/decisions.md), it is an ERROR — except its script-built screen
 * (SANDBOX_SCREEN=js) without a browser (PAYER=http, or auto without Chromium), skipped with a pointer to PAYER=browser.
 * A page that refused what the payer sent, where the test needed the payment to go through (PaymentRefused), skips the
 * test naming the page's status and text on any target: nothing after an input the page did not take is judged.
 *
 * FAIL or ERROR (docs/decisions.md): a failed named check (or the target not answering within HTTP_TIMEOUT_MS) is the
 * target's failure, with its evidence in the meta; anything else that ends a test (its own budget, a harness
 * exception, a payer or browser crash) is the suite's — the reporters call it ERROR. Either way the test's transcript
 * (every step it made, harness/record/transcript.ts) goes into the meta. A test's own budget (TEST_TIMEOUT_MS,
 * harness/run/budget.ts) starts when its
 * work starts (its tenant, if any, created) and does not count its waits for other tests; vitest's timeout is the
 * run bound.
 *
 * Independence. The tests of a run overlap. A test that moves time or counts what its requests created gets
 * its own test-control tenant (`tenant: true`, implied by `needs: ['clock']`, `needs: ['stats']` and `movesClock`): a
 * fresh account and business with their own clock, counters and outbox, so its `t.run` / `t.call` act as that tenant
 * and `t.run.control` moves only its clock and reads only its counters and outbox — no other test can disturb it or be
 * disturbed by it, and nothing orders the tests. On a target without tenants, `needs: ['clock']` / `['stats']` skip
 * with the reason, and a `movesClock` test waits in real time as the primary business. Tests that only read their own
 * resources (outbox entries by unique address, webhooks by idTransaccion) use the primary business. What stays shared,
 * and why: docs/decisions.md "Independent tests".
 */
import { it, type TestContext } from 'vitest';
import '../record/meta.ts';
import { getRun, type Call, type Run } from './run.ts';
import { CheckFailure } from '../judge/checks.ts';
import { AmbiguousAnswerError, NotNowError } from '../api/errors.ts';
import { currentRecordExchanges, TestRecord, withRecord } from '../record/test-record.ts';
import { transcriptOf } from '../record/transcript.ts';
import { secrets } from '../record/redact.ts';
import { classify } from '../record/verdict.ts';
import { testcase, type Testcase } from '../record/testcase.ts';
import { chainLength } from './chains.ts';
import { budgetOf, runBoundMs, withinBudget } from './budget.ts';
import { isExpectedFailure } from './expected-failures.ts';
import { missing, NEED_KINDS, needReason, type Need } from './needs.ts';
import { declaredInShard, selectedByName } from './suite-files.ts';
import type { SkipKind } from '../record/skips.ts';
import { spoken } from '../record/command.ts';
import { runStarted, testDeclared, testDone } from '../record/progress.ts';
import {
  CheckFailures,
  evidenceOf,
  judged,
  notJudgedReason,
  observeServerErrors,
  UNPROCESSED,
  withPreamble,
  withSoftFailures,
} from './outcome.ts';

export type { Need } from './needs.ts';
export { TEST_BUDGET_MS, TestBudgetError } from './budget.ts';

export interface ClauseTestSpec {
  clauses: string | string[];
  /** `METHOD /path` as in the spec, or `flow`. */
  endpoint: string;
  needs?: Need[];
  /** A test that pays or purchases: refused by the interlock unless the business is in development. */
  purchase?: boolean;
  /** Runs as its own test-control tenant where the target has them (see "Independence" above); else as the primary business. */
  tenant?: boolean;
  /** Moves the clock where the target has tenants (its own tenant's), else waits in real time. */
  movesClock?: boolean;
}

export interface TestHandle {
  run: Run;
  call: Call;
  /** Record what was observed where the spec is silent: WARN in the reports, never a failure. */
  observe(clause: string, message: string): void;
  /**
   * Record what the test itself could not arrange (its own coverage, not the target's behaviour — payments meant to
   * overlap that did not): a line of its transcript, never a WARN, so a verdict does not flicker with scheduling.
   */
  remark(message: string): void;
  /** Skip (not judged) with its kind and a reason, both shown in the reports. */
  skip(kind: SkipKind, reason: string): never;
  /** Sets a fast-check seed / replay command in the metadata, for properties. */
  replay(seed: number, command: string): void;
  /** Adds clause ids learnt while running (the contract testcases cite every clause found violated). */
  cite(clauses: string[]): void;
  /** A value the test learnt that no report, log or screenshot may show (a token, a client secret), by its kind. */
  secret(value: string | undefined, kind: string): void;
  /**
   * Judges an independent clause without stopping the test: a failed check is recorded and the test goes on, failing
   * once at the end with every such failure. A step the rest depends on stays a plain (throwing) check. Severity is
   * chosen here: `observe` records the failed check as a WARN on its first clause instead.
   */
  soft(check: () => void, severity?: 'fail' | 'observe'): void;
}

export { testName } from '../record/testcase.ts';

/** The test's handle on its run and its record (the TestRecord). */
export function testApi(ctx: TestContext, run: Run, record: TestRecord, softs: CheckFailure[]): TestHandle {
  const observe = (clause: string, message: string): void => {
    record.observations.push({ clause, message });
    void ctx.annotate(`WARN ${clause}: ${message}`, 'warning');
  };
  return {
    run,
    call: run.call,
    observe,
    remark: (message) => record.note({ kind: 'note', title: message }),
    skip: (kind, reason) => {
      Object.assign(record, { skipKind: kind, skipReason: reason });
      return ctx.skip(reason);
    },
    replay: (seed, command) => Object.assign(record, { seed, replay: spoken(command) }),
    cite: (more) => record.cite(more),
    secret: (value, kind) => secrets.add(value, kind),
    soft(check, severity = 'fail') {
      try {
        check();
      } catch (err) {
        if (!(err instanceof CheckFailure)) throw err;
        const { clauses, expected, actual } = err.evidence;
        if (severity === 'observe') return observe(clauses[0] ?? record.clauses[0] ?? '', `expected ${expected}; got ${actual}`);
        softs.push(err);
        record.failures.push(withPreamble(err.evidence, run));
      }
    },
  };
}

/**
 * Runs the test's body in its record's scope; with soft failures it ends failing once, with every one of them.
 * Resolves to the number of its requests the target did not process (429, 503).
 */
export async function runBody(
  record: TestRecord,
  t: TestHandle,
  softs: readonly CheckFailure[],
  fn: (t: TestHandle) => Promise<void>,
): Promise<number> {
  return withRecord(record, async () => {
    await fn(t);
    if (softs.length > 0) throw new CheckFailures(softs);
    const exchanges = currentRecordExchanges();
    observeServerErrors(t.observe, exchanges, record.observations);
    return exchanges.filter((ex) => ex.response?.status === 429 || ex.response?.status === 503).length;
  });
}

/**
 * Declares a test; returns its identity (harness/record/testcase.ts). `title` may be a Testcase other tests refer to:
 * its clauses must be the spec's, so the name they quote is the test's.
 */
export function clauseTest(
  spec: ClauseTestSpec,
  title: string | Testcase,
  fn: (t: TestHandle) => Promise<void>,
  timeoutMs?: number,
): Testcase {
  const clauses = Array.isArray(spec.clauses) ? spec.clauses : [spec.clauses];
  const declared = typeof title === 'string' ? testcase(clauses, title) : title;
  if (declared.clauses.join(' ') !== clauses.join(' '))
    throw new Error(`clauseTest: the testcase "${declared.name}" is declared with other clauses than the test's (${clauses.join(' ')})`);
  const { name } = declared;
  if (!declaredInShard()) return declared; // another shard's test (harness/run/suite-files.ts)
  if (!selectedByName(name)) return declared; // not among the names asked for (--name, --failed)
  testDeclared();
  it(name, { meta: { clauses, endpoint: spec.endpoint }, timeout: Math.max(runBoundMs(), timeoutMs ?? 0) }, async (ctx: TestContext) => {
    // The test's record, and its one meta write, also when a need skips it or vitest ends it (the run bound): the
    // transcript shows how far it got.
    const record = Object.assign(new TestRecord(name), { clauses, endpoint: spec.endpoint });
    runStarted();
    let memory: Run['payerMemory'] | undefined;
    ctx.onTestFinished(({ task }) => {
      testDone();
      record.end();
      // The pages' fields discovered so far are the run's notes (whichever test paid such a page first, however it
      // ended), not an observation of this test's target.
      if (memory) record.runNotes.push(...memory.fields.newNotes());
      const state = task.result?.state === 'fail' ? 'fail' : task.result?.state === 'skip' ? 'skip' : 'pass';
      const error = task.result?.errors?.[0];
      if (state === 'fail' && !record.transcript)
        record.transcript = transcriptOf(record, {
          failingExchangeId: record.failures[0]?.exchangeId,
          end: error?.message ?? 'the test failed',
        });
      // The verdict, once, here where the test ran: reporters copy it.
      record.verdict = classify({
        state,
        judged: record.judged,
        ...(error?.name ? { errorName: error.name } : {}),
        ...(record.skipKind ? { skipKind: record.skipKind } : {}),
        ...(record.skipReason ? { reason: record.skipReason } : {}),
        failures: record.failures,
        observed: record.observations.length > 0,
        ...(record.expectedOutcome ? { expected: record.expectedOutcome } : {}),
        // A test the interlock stopped (a payment refused: the target is in production) checked nothing.
        ...(record.stopped ? { stopped: record.stopped } : error?.name === 'InterlockError' ? { stopped: error.message } : {}),
      });
      Object.assign(ctx.task.meta, record.toMeta());
    });
    const shared = await getRun();
    memory = shared.payerMemory;
    if (shared.target.unreachable) throw new Error(`target unusable: ${shared.target.unreachable}`);
    // The target refuses "not now" whatever the run does: what is left is not run (one line, exit 2), not a page of FAILs.
    const stopped = (): never => {
      record.stopped = shared.http.refusing!;
      return ctx.skip(shared.http.refusing);
    };
    if (shared.http.refusing) stopped();
    const needed = (need: Need): never => {
      Object.assign(record, { skipKind: NEED_KINDS[need], skipReason: needReason(shared, need) });
      return ctx.skip(record.skipReason);
    };
    for (const need of spec.needs ?? []) if (missing(shared, need)) needed(need);
    if (spec.purchase) shared.interlock.assertMayPay();
    // Its own tenant (see "Independence" above) where it moves time or counts, and the target has tenants.
    const own = spec.tenant || spec.movesClock || spec.needs?.some((n) => n === 'clock' || n === 'stats');
    const run = own && shared.tenant ? await shared.tenant() : shared;
    for (const need of spec.needs ?? []) if (run !== shared && missing(run, need)) needed(need);
    // Its budget starts now. Its tenant's creation was the first request of its chain.
    Object.assign(record, { startedAt: Date.now(), madeBefore: run !== shared ? 1 : 0, expected: chainLength(run.config.reportDir, name) });
    const softs: CheckFailure[] = [];
    const t = testApi(ctx, run, record, softs);
    let unprocessed: number;
    try {
      unprocessed = await withinBudget(record, budgetOf(run, timeoutMs), runBody(record, t, softs, fn));
    } catch (thrown) {
      if (shared.http.refusing && !(thrown instanceof NotNowError)) stopped();
      const err = withSoftFailures(thrown, softs);
      const skip = notJudgedReason(err, run);
      // An ambiguous answer keeps its evidence: the transcript says what was sent and what came back instead.
      if (err instanceof AmbiguousAnswerError)
        record.transcript = transcriptOf(record, { failingExchangeId: err.exchange.id, end: err.message });
      if (skip !== undefined) t.skip(skip.kind, skip.reason);
      const evidence = thrown instanceof CheckFailures ? undefined : evidenceOf(thrown, run, record.clauses);
      if (evidence) record.failures.push(evidence);
      const end = `${err instanceof Error ? err.name : 'Error'}: ${err instanceof Error ? err.message : String(err)}`;
      record.transcript = transcriptOf(record, { failingExchangeId: record.failures[0]?.exchangeId, end });
      record.judged = judged(err);
      // Only a judged failure can be an expected one: the suite's own failure (ERROR) always counts.
      if (isExpectedFailure(run, name) && record.judged) return void (record.expectedOutcome = 'failed');
      throw err;
    }
    // A "refused" that was only a rate limiter (429) or an unavailable service (503) says nothing about the rule.
    if (unprocessed > 0) t.skip('rate-limited', `${UNPROCESSED} (${unprocessed} request(s) of this test)`);
    if (isExpectedFailure(run, name)) record.expectedOutcome = 'passed';
  });
  return declared;
}
