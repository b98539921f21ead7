/**
 * Errors of talking to the target: a transport failure, a request whose credentials went stale before it was sent,
 * the token endpoint's refusal, a token refused inside its lifetime. One line each, never a secret value.
 */
import type { Exchange } from '../record/exchange.ts';
import { NotJudged } from '../record/errors.ts';

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
