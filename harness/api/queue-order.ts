/**
 * The order of a queue for shared capacity (the request cap, the browser payer's turns), read from the record of the
 * test asking (harness/record/test-record.ts).
 */
import { currentRecord, forOtherTests } from '../record/test-record.ts';

/** Above every other priority for any deadline (epoch ms) of this millennium. */
const DEADLINE_FIRST = 1e14;

/**
 * A test's place in a queue for shared capacity (the request cap, the browser payer's turns). Work tests wait for
 * goes first (shared work, a test's tenant being created): it is on their path — after work before a deadline
 * (TestRecord.deadlineAt), nearest first. Then the longest chain of requests
 * still to run, where the last run's report in REPORT_DIR tells each
 * test's length (critical path first, harness/run/chains.ts); without one, the test furthest along its own chain.
 */
export function priorityNow(): number {
  const scope = currentRecord();
  // Work before a deadline goes first, the nearest deadline first: a queue must never make it late.
  if (scope?.deadlineAt !== undefined && !forOtherTests()) return DEADLINE_FIRST - scope.deadlineAt;
  if (forOtherTests() || !scope) return 1_000_000;
  const made = scope.madeBefore + scope.exchanges.length;
  if (scope.expected === undefined) return made;
  // A chain longer than last time (a model test draws its commands anew) is still a long one: not last in line.
  return 10_000 + Math.max(scope.expected - made, Math.ceil(made / 2), 1);
}

/** Whether the test asking acts before a deadline (TestRecord.deadlineAt): a queue may let it use capacity kept for that. */
export function beforeDeadline(): boolean {
  return currentRecord()?.deadlineAt !== undefined && !forOtherTests();
}

/** Who is served next in a queue ordered by priorityNow: the highest priority, then the first come (lowest seq). */
export function nextInLine(waiting: readonly { priority: number; seq: number }[]): number {
  let next = 0;
  for (let i = 1; i < waiting.length; i++) {
    const [w, best] = [waiting[i]!, waiting[next]!];
    if (w.priority > best.priority || (w.priority === best.priority && w.seq < best.seq)) next = i;
  }
  return next;
}
