/**
 * Named checks, one small function per rule, reused by every suite (as Schemathesis's checks are).
 * A check returns nothing when the rule holds and throws a CheckFailure otherwise; the failure carries the clause
 * ids, what was expected, what happened, and the redacted exchange with a curl line that replays it.
 * Checks only fail on what the spec states; where it is silent, suites record an observation instead.
 *
 * This file holds the checks of a response as such (its status, its body, a URL, a date, an image, a plain
 * condition, a property's counterexample, nothing created) and is the one place the others are found, each in a file
 * of its subject: failure.ts (the names, CheckFailure, fail), contract-findings.ts, payment-checks.ts,
 * echo-checks.ts (values given back), amounts.ts (money to the cent).
 */
import type { Exchange } from '../api/http.ts';
import { spoken } from '../record/command.ts';
import { CheckFailure, type CheckName, type Clauses, fail, list } from './failure.ts';

// The failure's vocabulary, where the suites and the run have always found it.
export {
  CHECKS,
  type CheckId,
  type CheckName,
  type JudgedEvidence,
  CheckFailure,
  describeExchange,
  formatEvidence,
  fail,
} from './failure.ts';

// The checks by subject, found here as the suites and the run always found them (harness/index.ts re-exports them).
export { contractFindings, fractionFindings, webhookFindings, type ContractFinding } from './contract-findings.ts';
export {
  approvalOf,
  hashVerifies,
  paymentApproved,
  paymentDeclined,
  paymentNotApproved,
  paymentWentThrough,
  queryKept,
  redirectSeen,
  unreadPage,
} from './payment-checks.ts';
export { containsPairs, echoed, fieldEquals, fieldIn, flagEquals, pairsAsSent, textAsSent } from './echo-checks.ts';
export { amountDue, amountEquals, amountText, centsOf } from './amounts.ts';

const statusOf = (ex: Exchange): string => (ex.response ? String(ex.response.status) : 'no response');

/** The request succeeded: a 2xx (the spec lists no success status codes, so any 2xx is success). */
export function succeeded(ex: Exchange, clauses: Clauses, what = 'the request'): void {
  const s = ex.response?.status;
  if (s === undefined || s < 200 || s > 299) fail('success', clauses, `${what} succeeds (2xx)`, statusOf(ex), ex);
}

/** A stated validation rule was enforced: a 4xx (the spec says violations are rejected; never a 2xx or a 5xx). */
export function rejected(ex: Exchange, clauses: Clauses, rule: string): void {
  const s = ex.response?.status;
  if (s === undefined || s < 400 || s > 499) fail('rejected', clauses, `rejected with a client error (4xx): ${rule}`, statusOf(ex), ex);
}

/** The request was not accepted (not 2xx). For statements the spec makes without implying a client error. */
export function notAccepted(ex: Exchange, clauses: Clauses, what: string): void {
  const s = ex.response?.status;
  if (s !== undefined && s >= 200 && s < 300) fail('not-accepted', clauses, `not accepted: ${what}`, statusOf(ex), ex);
}

/**
 * The response's JSON body as a record, or a failure when it is not one. A body that is not JSON at all is the
 * contract testcase's finding (4-json-bodies): the failure names it, since this test cannot go on without the body.
 */
export function bodyOf(ex: Exchange, clauses: Clauses): Record<string, unknown> {
  const json = ex.response?.json;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    const res = ex.response;
    const notJson = res !== undefined && json === undefined;
    const actual = notJson
      ? `not a JSON response body: ` +
        `${res.contentType || 'no content type'}${res.jsonError ? `; ${res.jsonError}` : ''}; the contract testcase of ` +
        `${ex.label ?? 'these'} responses reports it (4-json-bodies)`
      : Array.isArray(json)
        ? 'an array'
        : json === null
          ? 'null'
          : typeof json;
    fail('json-object', clauses, 'a JSON response body holding an object', actual, ex);
  }
  return json as Record<string, unknown>;
}

/** An absolute http(s) URL, as a field that a browser is sent to must be. */
export function absoluteUrl(value: unknown, field: string, clauses: Clauses, ex?: Exchange): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    fail('absolute-url', clauses, `${field} is an absolute http(s) URL`, JSON.stringify(value), ex);
  }
  return url;
}

/** A date-time that lies after `after` (e.g. an expiry in the future). */
export function dateAfter(value: unknown, after: Date, field: string, clauses: Clauses, ex?: Exchange): Date {
  const d = typeof value === 'string' ? new Date(value) : undefined;
  if (!d || Number.isNaN(d.getTime()) || d.getTime() <= after.getTime()) {
    fail('date-after', clauses, `${field} after ${after.toISOString()}`, JSON.stringify(value), ex);
  }
  return d;
}

/**
 * An image ("URL of the QR image", 4.1 / 4.6): the status is 2xx and the content type is image/*, or the bytes are
 * a PNG. Its format is not shown; callers observe one that is not PNG.
 */
export function isImage(image: { status: number; contentType?: string; isPng: boolean }, url: string, clauses: Clauses): void {
  const typed = /^image\//i.test(image.contentType?.trim() ?? '');
  if (image.status < 200 || image.status > 299 || !(typed || image.isPng)) {
    fail(
      'image',
      clauses,
      `${url} serves an image (2xx, content-type image/*)`,
      `${image.status} ${image.contentType || 'no content type'}${image.isPng ? '' : ' (not PNG bytes)'}`,
    );
  }
}

/** A plain condition with its evidence: for the few rules no other check expresses. */
export function holds(
  condition: boolean,
  check: CheckName,
  clauses: Clauses,
  expected: string,
  actual: string,
  ex?: Exchange,
): asserts condition {
  if (!condition) fail(check, clauses, expected, actual, ex);
}

/** A fast-check property found a counterexample: the shrunk case's own evidence, with the seed, path and replay command. */
export function counterexampleFound(
  clauses: Clauses,
  property: string,
  found: { error: unknown; counterexample: string; seed: number; path: string; shrinks: number; command: string },
): never {
  const inner = found.error instanceof CheckFailure ? found.error.evidence : undefined;
  const cause = inner ? inner.actual : found.error instanceof Error ? found.error.message : String(found.error);
  throw new CheckFailure({
    check: inner ? `property/${inner.check.replace(/^property\//, '') as CheckName}` : 'property',
    clauses: list(clauses),
    expected: `${property}${inner ? ` — ${inner.expected}` : ''}`,
    actual: [
      cause,
      `counterexample (seed ${found.seed}, path ${found.path}, shrunk ${found.shrinks} times): ${found.counterexample}`,
      `replay: ${spoken(found.command)}`,
    ].join('\n'),
    ...(inner?.exchange ? { exchange: inner.exchange } : {}),
    ...(inner?.curl ? { curl: inner.curl } : {}),
  });
}

/**
 * Nothing was created between two snapshots of the test-control stats: no link, no transaction (7: violations are
 * rejected). `over` says what the snapshots bracket when it is more than `ex` (e.g. a whole property and its replay).
 */
export function createdNothing(
  before: { links: number; transactions: number },
  after: { links: number; transactions: number },
  clauses: Clauses,
  ex?: Exchange,
  over?: string,
): void {
  if (after.links !== before.links || after.transactions !== before.transactions) {
    fail(
      'created-nothing',
      clauses,
      'a rejected request creates no link and no transaction',
      `links ${before.links} → ${after.links}, transactions ${before.transactions} → ${after.transactions}${over ? `, ${over}` : ''}`,
      ex,
    );
  }
}
