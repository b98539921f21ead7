/**
 * What a failed check is: the closed set of check names, the CheckFailure a check throws, and `fail`, the one way
 * evidence is made (the clauses, what was expected, what happened, the redacted exchange with a curl line). Apart from
 * the checks themselves so that the readers (read.ts) can fail a check without importing the checks that read.
 */
import type { Exchange } from '../api/http.ts';
import { redactExchange } from '../record/redact.ts';
import { renderExchange } from '../record/transcript.ts';
import { toCurl } from '../record/curl.ts';
import type { CheckEvidence } from '../record/meta.ts';

/**
 * Every check's name, a closed set: evidence, reports and tests name a check by one of these, so a rename or a typo
 * is a compile error. The generic checks below come first; then the named rules suites state with `holds`.
 */
export const CHECKS = [
  // the generic checks (checks.ts and its files by subject)
  'success',
  'rejected',
  'not-accepted',
  'field-equals',
  'json-object',
  'absolute-url',
  'date-after',
  'hash-verifies',
  'image',
  'payment-approved',
  'payment-declined',
  'payment-not-approved',
  'flag-equals',
  'field-in',
  'contains-pairs',
  'echoed',
  'created-nothing',
  'property',
  'text-as-sent',
  'pairs-as-sent',
  'query-kept',
  // the run's own: a response against the contract, a request the target never answered
  'contract',
  'answers',
  // rules the suites state with holds()
  'token-issued',
  'token-type',
  'expires-in',
  'token-lifetime',
  'development-mode',
  'no-token',
  'link-model',
  'idenlace-unique',
  'usable-field',
  'payment-screen',
  'screen-product',
  'qr-readable',
  'back-button',
  'main-image',
  'redirect-id',
  'redirect-monto',
  'redirect-target',
  'redirect-outcome',
  'hash-present',
  'url-completar',
  'transaction-model',
  'transaction-listed',
  'id-transaccion',
  'amount-charged',
  'bitcoin-transaction',
  'datos-bitcoin',
  'nullable-present',
  'mensaje-on-error',
  'failure-mensaje',
  'failure-resultado',
  'decline',
  'business-id',
  'success-limit',
  'failure-limit',
  'payments-counted',
  'webhook-received',
  'webhook-method',
  'webhook-target',
  'webhook-signature',
  'webhook-identificador',
  'decline-not-notified-approved',
  'email-sent',
  'sms-sent',
  'customer-emailed',
  'customer-not-emailed',
  'email-identificador',
  'account-record',
  'account-businesses',
  // money to the cent; a read after a change; credentials the contract does not allow for an operation
  'amount-equals',
  'state-after-change',
  'changed-nothing',
  'tenant-field-ignored',
  // a link's settings where a payment is posted; a field only on the outcomes the spec gives it
  'charged-nothing',
  'field-on-outcome',
  // category security (not spec clauses): tenant isolation
  'tenant-isolation',
] as const;
export type CheckName = (typeof CHECKS)[number];
/** A check's name in evidence: a property's counterexample names the check it broke. */
export type CheckId = CheckName | `property/${CheckName}`;
/** Evidence made by the judge: its check is one of CHECKS. */
export type JudgedEvidence = CheckEvidence<CheckId>;

export class CheckFailure extends Error {
  constructor(readonly evidence: JudgedEvidence) {
    super(formatEvidence(evidence));
    this.name = 'CheckFailure';
  }
}

/** A check's clause ids: one, or several. */
export type Clauses = string | string[];
export const list = (c: Clauses): string[] => (Array.isArray(c) ? c : [c]);

/** The exchange as a reader wants it in a report: request line, headers that matter, bodies; secrets redacted. */
export function describeExchange(exchange: Exchange): string {
  return renderExchange(redactExchange(exchange), 'all');
}

export function formatEvidence(e: CheckEvidence): string {
  const parts = [`[${e.check}] clause ${e.clauses.join(', ')}`, `expected: ${e.expected}`, `actual:   ${e.actual}`];
  if (e.exchange) parts.push('--- exchange (secrets redacted)', e.exchange);
  if (e.curl) parts.push('--- reproduce', e.curl);
  return parts.join('\n');
}

export function fail(check: CheckName, clauses: Clauses, expected: string, actual: string, exchange?: Exchange): never {
  throw new CheckFailure({
    check,
    clauses: list(clauses),
    expected,
    actual,
    ...(exchange ? { exchange: describeExchange(exchange), curl: toCurl(exchange), exchangeId: exchange.id } : {}),
  });
}
