/**
 * Error classes of the harness. Each message is one line that names the behaviour and what to do about it; none
 * ever carries a secret value (callers build messages from redacted text only).
 */
import type { Exchange } from './exchange.ts';
import { redactUrlsIn } from './redact.ts';

/** A bad or missing environment variable: the message names the variable, its meaning and an example. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(message: string, readonly variable: string) {
    super(message);
  }
}

/**
 * A transport failure (no HTTP response): timeout, refused, reset, run bound. `exchange` is the redacted attempt.
 * `byTarget`: the target took the request and did not answer it (no answer within HTTP_TIMEOUT_MS, the connection
 * reset): the target's failure (FAIL, harness/run/conformance.ts); else (refused, unresolvable, the run bound) nothing
 * was judged (ERROR).
 */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly byTarget: boolean;
  constructor(message: string, readonly exchange: Exchange, options?: { cause?: unknown; byTarget?: boolean }) {
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

/** The payer could not go on as a browser would (no form, redirect loop, missing field). */
export class PayerError extends Error {
  override name = 'PayerError';
  // Its messages quote the pages it was on, whose query may carry what was typed into a screen submitted by GET.
  constructor(message: string, options?: { cause?: unknown }) {
    super(redactUrlsIn(message), options);
  }
}

/**
 * The page shows no form (or not the field) the payer can fill: raised before anything was submitted, so another
 * payer (PAYER=auto: the browser) may still try, and a screen built by JavaScript is told apart from a fault.
 */
export class NoFormError extends PayerError {
  override name = 'NoFormError';
}

/**
 * A hosted page refused what the payer sent (an error status, or its form shown again): the payment a test needed
 * as its premise did not go through, so what follows is not judged. The message names the page's answer.
 */
export class PaymentRefused extends PayerError {
  override name = 'PaymentRefused';
}

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

/**
 * The target refused (401) a token still inside its expires_in, confirmed by a second request with it: 5.2's finding,
 * judged once for the run (suites/contract.test.ts); the non-idempotent request that met it is never re-sent, so
 * its test is not judged.
 */
export class TokenRefusedEarly extends NotJudged {
  override name = 'TokenRefusedEarly';
}
