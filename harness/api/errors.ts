/**
 * Errors of talking to the target: a transport failure, a request whose credentials went stale before it was sent,
 * the token endpoint's refusal, a token refused inside its lifetime. One line each, never a secret value.
 */
import type { Exchange } from '../record/exchange.ts';
import { NotJudged } from '../record/errors.ts';
import type { AmbiguousAnswer } from '../record/network.ts';

/**
 * A transport failure (no HTTP response): timeout, refused, reset, run bound. `exchange` is the redacted attempt.
 * `byTarget`: the target took the request and did not answer it (no answer within HTTP_TIMEOUT_MS, the connection
 * reset): the target's failure (FAIL, harness/run/conformance.ts); else (refused, unresolvable, the run bound) nothing
 * was judged (ERROR).
 */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly byTarget: boolean;
  constructor(
    message: string,
    readonly exchange: Exchange,
    options?: { cause?: unknown; byTarget?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.byTarget = options?.byTarget ?? false;
  }
}

/**
 * A request whose credentials went stale while it waited for its turn (the target's clock was moved meanwhile and
 * the token cache forgot its token): it was NOT sent, and the caller prepares it again with a fresh token.
 */
export class StaleRequestError extends Error {
  override name = 'StaleRequestError';
}

/** The token endpoint refused or answered something that is not a token. */
export class TokenError extends Error {
  override name = 'TokenError';
}

/**
 * The target refused (401) a token still inside its expires_in, confirmed by a second request with it: 5.2's finding,
 * judged once for the run (suites/contract.test.ts); the non-idempotent request that met it is never re-sent, so
 * its test is not judged.
 */
export class TokenRefusedEarly extends NotJudged {
  override name = 'TokenRefusedEarly';
}

/**
 * A non-idempotent request (a payment, a creation) whose answer may hide its processing: a 502/504, no answer within
 * the timeout, a connection dropped after it was sent. It is never sent again (principle 5: never charge twice); the
 * caller finds out where the spec gives a way (the record, a lookup) or the test is not judged (undecidable), with the
 * evidence — never a FAIL.
 */
export class AmbiguousAnswerError extends NotJudged {
  override name = 'AmbiguousAnswerError';
  constructor(
    message: string,
    readonly exchange: Exchange,
    /** What came back instead of an answer (`502`, `no response within 15 s`, `connection dropped`). */
    readonly answer: string,
    options?: { cause?: unknown; noted?: AmbiguousAnswer; silent?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.noted = options?.noted;
    this.silent = options?.silent ?? false;
  }
  /** No answer within the timeout (not a gateway's answer nor a dropped connection): the target may not be answering at all. */
  readonly silent: boolean;
  /** Its entry in the test's network tally: the caller that finds out writes how (`settled`) there. */
  readonly noted: AmbiguousAnswer | undefined;

  /** Says how it was settled (or why it could not be), in the test's tally and transcript. */
  settle(how: string): void {
    if (this.noted) this.noted.settled = how;
  }
}

/**
 * The target kept answering "not now" (429 rate limited, 503 unavailable) to a request after every retry the run
 * allows: it processed nothing, so nothing is judged (skip kind rate-limited), never a FAIL.
 */
export class NotNowError extends NotJudged {
  override name = 'NotNowError';
  constructor(
    message: string,
    readonly exchange: Exchange,
    readonly status: number,
    /** The one line a run that cannot go on without this request ends with (the probe's token: exit 2). */
    readonly setupLine: string = message,
  ) {
    super(message);
  }
}

/**
 * The target refused so many requests in a row "not now" that the run stops: one line, exit 2 (the set-up: a rate
 * the target does not take, or a target that is down), never a page of FAILs. Raised for every request after that.
 */
export class TargetRefusingError extends Error {
  override name = 'TargetRefusingError';
}
