/**
 * How a test's end is classified (docs/decisions.md): a failed named check or the target not answering is the
 * target's failure (FAIL, with its evidence); a premise that did not hold (a page that refused the input, a screen the
 * payer cannot drive) skips with the reason; anything else is the suite's own (ERROR). Soft checks (`t.soft`) are
 * gathered here into the one failure the test ends with.
 */
import type { SkipKind } from '../record/skips.ts';
import { CheckFailure, describeExchange, type JudgedEvidence } from '../judge/checks.ts';
import { NotJudged, UnreadPage } from '../record/errors.ts';
import { AmbiguousAnswerError, HttpError, NotNowError } from '../api/errors.ts';
import { NoFormError, PayerError, PaymentRefused } from '../payer/errors.ts';
import { FieldsNotFoundError } from '../payer/field-mapping.ts';
import { curlPreamble } from '../record/curl.ts';
import type { Exchange } from '../api/http.ts';
import type { CheckEvidence, Observation } from '../record/meta.ts';
import type { Run } from './run.ts';

export const UNPROCESSED =
  'not checked: the target answered 429 (rate limited) or 503 (unavailable), so it did not process the request; ' +
  'run again with fewer requests per second (a lower MAX_RPS) or when the target is up';

/** Several independent checks of one test failed (soft checks): the test fails once, with every one of them. */
export class CheckFailures extends CheckFailure {
  constructor(readonly all: readonly CheckFailure[]) {
    super(all[0]!.evidence);
    this.name = 'CheckFailure';
    this.message = `${all.length} independent checks failed:\n\n${all.map((f, i) => `(${i + 1}) ${f.message}`).join('\n\n')}`;
  }
}

/** What a test ends with: soft failures and the check that then stopped it end it together. */
export function withSoftFailures(thrown: unknown, softs: readonly CheckFailure[]): unknown {
  return softs.length > 0 && thrown instanceof CheckFailure && !(thrown instanceof CheckFailures)
    ? new CheckFailures([...softs, thrown])
    : thrown;
}

/** Why a test that ended with `err` is not judged (skipped), or undefined when it is judged or errored. */
export function notJudgedReason(err: unknown, run: Run): { kind: SkipKind; reason: string } | undefined {
  // The page refused what the payer sent: the test's premise (a payment that went through) does not hold.
  if (err instanceof PaymentRefused)
    return {
      kind: 'refused-by-target',
      reason: `not judged: ${err.message}; ${screenRemedy(err.message)}`,
    };
  // An unread result page is the suite's own limit: on the embedded sandbox, whose pages it must read, an ERROR.
  if (err instanceof UnreadPage)
    return run.target.kind === 'embedded' ? undefined : { kind: 'page-unread', reason: `not judged: ${err.message}` };
  // "Not now" after every retry: nothing was processed, nothing judged.
  if (err instanceof NotNowError) return { kind: 'rate-limited', reason: err.message };
  // A payment or creation whose answer may hide its processing, not found out: never guessed, never re-sent.
  if (err instanceof AmbiguousAnswerError)
    return {
      kind: 'undecidable',
      reason: `not judged: ${err.message} (evidence: ${describeExchange(err.exchange).split('\n').slice(0, 1).join('')} → ${err.answer}; the transcript has it)`,
    };
  if (err instanceof NotJudged) return { kind: 'undecidable', reason: `not judged: ${err.message}` };
  // A page whose fields the payer could not map (harness/payer/field-mapping.ts): the suite's limit, not the target's.
  if (err instanceof FieldsNotFoundError)
    return { kind: 'page-not-driven', reason: `not judged: ${err.message}; ${screenRemedy(err.message)}` };
  const scripted = run.config.sandbox.screen === 'js' || run.config.sandbox.screen === 'frame';
  if (err instanceof NoFormError && run.target.kind === 'embedded' && scripted && run.config.payer.kind !== 'browser') {
    return {
      kind: 'page-not-driven',
      reason:
        `the embedded sandbox serves its hosted screens built by JavaScript ` +
        `(SANDBOX_SCREEN=${run.config.sandbox.screen}), which the HTTP payer cannot fill: run with PAYER=browser (or ` +
        `PAYER=auto) to test them (${err.message})`,
    };
  }
  if (err instanceof PayerError && run.target.kind === 'remote') {
    return {
      kind: 'page-not-driven',
      reason: `hosted screen not drivable by the suite: ${err.message}; ${screenRemedy(err.message)}`,
    };
  }
  return undefined;
}

/**
 * The variable that would have let a test the payer could not get through run: on a 3DS page, the challenge's answer
 * (SCREEN_CHALLENGE_CODE) before the inputs' names — a one-time code the page refused is not a naming problem.
 */
export function screenRemedy(message: string): string {
  const names = "if the page's inputs are named otherwise, set SCREEN_FIELD_NAMES (see .env.example)";
  if (!/3DS|challenge|desaf[ií]o/i.test(message)) return names;
  return (
    `set SCREEN_CHALLENGE_CODE to the code the 3DS page expects, or to shown-in:<CSS selector> of the element showing ` +
    `it, quoted in .env where it holds a "#" (SCREEN_CHALLENGE_CODE='shown-in:#code'); ${names}`
  );
}

/** The evidence a judged failure carries into the report (curl lines with their preamble), or undefined for the suite's own failure. */
export function evidenceOf(err: unknown, run: Run, clauses: string[]): CheckEvidence | undefined {
  if (err instanceof CheckFailure) return withPreamble(err.evidence, run);
  if (err instanceof HttpError && err.byTarget) return withPreamble(noAnswer(err, clauses), run);
  return undefined;
}

/**
 * A server error the test did not fail on (e.g. a 500 for an unknown id, where the spec only says "not 2xx"):
 * the spec shows no status codes, so it is an observation, but never a silent one.
 */
export function observeServerErrors(
  observe: (clause: string, message: string) => void,
  exchanges: readonly Exchange[],
  already: readonly Observation[],
): void {
  for (const ex of exchanges) {
    const status = ex.response?.status;
    const noted = already.some((o) => o.message.includes(String(status)));
    if (status !== undefined && status >= 500 && status !== 503 && !noted) {
      observe('7-error-format-not-shown', `${ex.request.method} ${new URL(ex.request.url).pathname} answered ${status} (a server error)`);
    }
  }
}

/** A curl line that needs $ACCESS_TOKEN comes with the lines that fetch it, so it can be pasted as it is. */
export function withPreamble(evidence: CheckEvidence, run: Run): CheckEvidence {
  if (!evidence.curl?.includes('$ACCESS_TOKEN') && !evidence.curl?.includes('$ACCOUNT_TOKEN')) return evidence;
  const preamble = curlPreamble({ authUrl: run.target.authUrl, accountAuth: run.config.accountAuth, audience: run.config.tokenAudience });
  return { ...evidence, curl: [...preamble, evidence.curl].join('\n') };
}

/**
 * The target took a request and did not answer it within HTTP_TIMEOUT_MS (or dropped the connection): the target's
 * failure, with its evidence. Every clause the test cites is cited: the test could not get past that request.
 */
function noAnswer(err: HttpError, clauses: string[]): JudgedEvidence {
  return {
    check: 'answers',
    clauses,
    expected: 'an answer to the request (within HTTP_TIMEOUT_MS)',
    actual: err.message,
    exchange: describeExchange(err.exchange),
    ...(err.exchange.curl ? { curl: err.exchange.curl } : {}),
    exchangeId: err.exchange.id,
  };
}

/** A failure the target is judged by: a named check, or the target not answering. Anything else is the suite's (ERROR). */
export function judged(err: unknown): boolean {
  return err instanceof CheckFailure || (err instanceof HttpError && err.byTarget);
}
