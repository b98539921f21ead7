/**
 * Letting the target's time pass: its clock is moved where it has clock control (the sandbox's test-control
 * API); elsewhere the test waits in real time, up to MAX_WAIT_S, or skips with the reason. A wait is an `await` inside
 * a concurrent test (suites/all.conformance.ts): the other tests go on meanwhile and waits overlap, so a run lasts about its
 * longest wait, not their sum. A test that may wait declares `movesClock: true` (the clock mode where there is a
 * clock) and the timeout `waitingTimeoutMs()`: the wait is the suite's own time, never a timeout of the target's.
 *
 *   clauseTest({ …, movesClock: true }, title, async (t) => {
 *     await letTimePass(t, 90, 'a payment 90 s after the screen was shown');
 *   }, waitingTimeoutMs());
 */
import type { TestHandle } from './conformance.ts';
import { approvalOf } from '../judge/checks.ts';
import { NotJudged } from '../record/errors.ts';
import type { PaymentOutcome } from '../payer/index.ts';
import { runBudget, TEST_BUDGET_MS } from './budget.ts';
import { currentRecord, doing } from '../record/test-record.ts';
import { pending } from '../record/progress.ts';
import { header } from '../api/http.ts';

/**
 * The budget of a test that may wait `waits` times up to MAX_WAIT_S (plus margins), its other work on top: a real-time
 * wait is the test's own time (not a wait for other tests), so its budget must hold it (harness/run/conformance.ts).
 */
export function waitingTimeoutMs(waits = 1): number {
  return TEST_BUDGET_MS + waits * (runBudget().maxWaitS + 10) * 1000;
}

/** The target moves time when told (its clock control), so waits take no real time. */
export const hasClock = (t: TestHandle): boolean => t.run.target.capabilities.includes('clock') && t.run.control !== undefined;

/**
 * Why `seconds` cannot pass on this target, or undefined when they can (moved, or waited within MAX_WAIT_S).
 * `limit`: the time limit the wait reaches (e.g. expires_in), when the wait adds a margin beyond it: a limit within
 * MAX_WAIT_S is waited for, margin included.
 */
export function cannotPass(t: TestHandle, seconds: number, what: string, limit = seconds): string | undefined {
  if (hasClock(t)) return undefined;
  const max = t.run.config.budget.maxWaitS;
  if (limit <= max) return undefined;
  return max === 0
    ? `the target has no clock control and real-time waits are off (MAX_WAIT_S=0): ${what} needs ${Math.ceil(seconds)} ` +
        `s of the target's time to pass`
    : `the target has no clock control and ${what} needs ${Math.ceil(seconds)} s of the target's time to pass, more than MAX_WAIT_S=${max}`;
}

/** Skips the test now when `seconds` cannot pass (so it creates nothing it cannot judge). */
export function skipUnlessTimeCanPass(t: TestHandle, seconds: number, what: string, limit = seconds): void {
  const why = cannotPass(t, seconds, what, limit);
  if (why) t.skip('beyond-max-wait', why);
}

/** The target's time moves on by `seconds`: its clock is advanced, or the test waits in real time (else it skips). */
export async function letTimePass(t: TestHandle, seconds: number, what: string, limit = seconds): Promise<void> {
  if (hasClock(t)) return t.run.control!.advanceClock(seconds);
  skipUnlessTimeCanPass(t, seconds, what, limit);
  // Named, so a budget that runs out meanwhile says what the test was doing; shown as progress while it lasts.
  const end = pending('wait', what, Math.ceil(seconds));
  try {
    await doing(
      `a real-time wait of ${Math.ceil(seconds)} s (${what})`,
      () => new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds) * 1000)),
    );
  } finally {
    end();
  }
}

/**
 * The target's time now (epoch ms): its clock where it has clock control, else the Date header of a response of it
 * (to the second; our own clock when it sends none), so a vigencia a few seconds ahead is ahead on its clock too.
 */
export async function targetNow(t: TestHandle): Promise<number> {
  if (hasClock(t)) return (await t.run.control!.now()).getTime();
  const before = Date.now();
  const ex = await t.run.http
    .request({ method: 'GET', url: t.run.target.baseUrl, label: 'target clock (Date header)' })
    .catch(() => undefined);
  const date = Date.parse(header(ex?.response, 'date') ?? '');
  // The Date header is truncated to the second: half a second is added back, and the request's own time.
  return Number.isNaN(date) ? Date.now() : date + 500 + (Date.now() - before) / 2;
}

/** How far the clocks' offset (onOurClock) may be off: a submission this close to the limit is not judged. */
const CLOCK_MARGIN_MS = 1000;

/**
 * Verdicts that account for the suite's own time: why a payment that was not approved may have reached the
 * target after the validity it stated (`deadline`, epoch ms on OUR clock), or undefined when it surely came in time.
 * The target may have received it as late as its answer came back, so that instant counts, less a margin for the
 * clocks' offset.
 */
export function lateBy(outcome: PaymentOutcome, deadline: number, what: string): string | undefined {
  const { timing } = outcome;
  if (timing === undefined || approvalOf(outcome) === 'true' || timing.answeredAt + CLOCK_MARGIN_MS <= deadline) return undefined;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const sent = timing.submittedAt ?? timing.answeredAt;
  return (
    `${what} may have reached the target after the validity it stated: the page opened ` +
    `${s(deadline - timing.openedAt)} before that limit, the payment was submitted ${s(sent - timing.openedAt)} after ` +
    `opening and answered ${s(timing.answeredAt - sent)} later, ${s(Math.abs(timing.answeredAt - deadline))} ` +
    `${timing.answeredAt > deadline ? 'after' : 'before'} the limit (clocks compared to within ${s(CLOCK_MARGIN_MS)}): ` +
    `the suite was too late, which says nothing of the target`
  );
}

/** A payment that was not approved and may have come late (lateBy) is not the target's decline: not judged. */
export function notLate(outcome: PaymentOutcome, deadline: number, what: string): void {
  const late = lateBy(outcome, deadline, what);
  if (late !== undefined) throw new NotJudged(late);
}

/** A deadline on the target's clock (a stated fechaVencimiento) as an instant of ours: the clocks' offset taken now. */
export async function onOurClock(t: TestHandle, targetMs: number): Promise<number> {
  const before = Date.now();
  const theirs = await targetNow(t);
  return targetMs - (theirs - (before + Date.now()) / 2);
}

/**
 * Runs `act`, work meant to reach the target before `deadline` (epoch ms on our clock), with the test first in line
 * at the payer's turns and the request cap (TestRecord.deadlineAt): a queue of other tests' pages never makes it late.
 * The payer's own timing (PaymentOutcome.timing) starts when it starts driving, so the lead is measured from there.
 */
export async function withDeadline<T>(deadline: number, act: () => Promise<T>): Promise<T> {
  const scope = currentRecord();
  if (!scope || Number.isNaN(deadline)) return act();
  const outer = scope.deadlineAt;
  scope.deadlineAt = Math.min(outer ?? Number.POSITIVE_INFINITY, deadline);
  try {
    return await act();
  } finally {
    scope.deadlineAt = outer;
  }
}

/**
 * A payment a test needs made before a deadline (its premise, not its finding): judged on only when it reached the
 * target in time and went through; else not judged (undecidable), with when it was opened, sent and answered against
 * the deadline, and what the page answered. A page that refused it in time is another test's finding (the QR's or
 * the link's own rules), never this one's.
 */
export function paymentRead(outcome: PaymentOutcome, deadline: number, what: string): void {
  if (outcome.kind !== 'refused' && approvalOf(outcome) !== 'false') return;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const said = outcome.kind === 'redirect' ? '' : (outcome.text || outcome.estado || '').slice(0, 120);
  const answer =
    outcome.kind === 'redirect'
      ? 'it was declined (redirect with esAprobada=false)'
      : `the page answered ${outcome.status}${said ? ` "${said}"` : ''}`;
  const { timing } = outcome;
  if (timing === undefined || Number.isNaN(deadline))
    throw new NotJudged(`${what} did not go through (${answer}); the test needs it made: nothing to judge`);
  const sent = timing.submittedAt ?? timing.answeredAt;
  const times =
    `the payer started ${s(Math.abs(deadline - timing.openedAt))} ${timing.openedAt <= deadline ? 'before' : 'after'} the ` +
    `deadline, sent it ${s(sent - timing.openedAt)} later, and was answered ${s(Math.abs(timing.answeredAt - deadline))} ` +
    `${timing.answeredAt <= deadline ? 'before' : 'after'} it`;
  const late = timing.answeredAt + CLOCK_MARGIN_MS > deadline;
  throw new NotJudged(
    `${what} did not go through: ${answer}; ${times} (clocks compared to within ${s(CLOCK_MARGIN_MS)}). ` +
      (late
        ? 'The suite was too late for the deadline, which says nothing of the target'
        : 'Refused in time: judged by the tests of that refusal (the QR, the link, test mode), not here'),
  );
}

/** withDeadline, then paymentRead: the payment meant before `deadline`, judged on only when it was in time and went through. */
export async function beforeDeadline(deadline: number, what: string, pay: () => Promise<PaymentOutcome>): Promise<PaymentOutcome> {
  const outcome = await withDeadline(deadline, pay);
  paymentRead(outcome, deadline, what);
  return outcome;
}
