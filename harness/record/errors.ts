/**
 * A test not judged (NotJudged, UnreadPage): what any room raises when a test cannot be judged, and the verdict reads.
 * Each message is one line naming the behaviour and what to do; none carries a secret value. A bad setting is
 * setup/errors.ts's, the transport's and tokens' errors api/errors.ts's, the payer's payer/errors.ts's.
 */

/**
 * What a test needs to judge its behaviour could not be had for a reason that is neither the target's fault under
 * this test's clauses nor the suite's crash: an outcome no channel told, the suite itself too late for a validity
 * the target stated. The test is not judged (SKIP) and the message says why, with the timings where they matter.
 */
export class NotJudged extends Error {
  override name = 'NotJudged';
}

/**
 * After a payment was submitted, a page that is neither a redirect, nor a refusal, nor a next step, and whose outcome
 * no lookup settled: the payer could not read the result. Never the target's FAIL: not judged on a vendor's target,
 * the suite's own ERROR on the embedded sandbox (whose pages the suite must read).
 */
export class UnreadPage extends NotJudged {
  override name = 'UnreadPage';
}
