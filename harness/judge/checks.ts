/**
 * Named checks, one small function per rule, reused by every suite (as Schemathesis's checks are).
 * A check returns nothing when the rule holds and throws a CheckFailure otherwise; the failure carries the clause
 * ids, what was expected, what happened, and the redacted exchange with a curl line that replays it.
 * Checks only fail on what the spec states; where it is silent, suites record an observation instead.
 */
import { describeRedirectScheme, redirectVerifies, type RedirectScheme } from './schemes.ts';
import type { Exchange } from '../api/http.ts';
import { spoken } from '../record/command.ts';
import type { Contract } from '../api/contract.ts';
import type { PaymentOutcome } from '../payer/index.ts';
import { webhookTransaction } from './webhook.ts';
import { UnreadPage } from '../record/errors.ts';
import { CheckFailure, type CheckName, type Clauses, fail, list } from './failure.ts';
import { NoFormError, PaymentRefused } from '../payer/errors.ts';

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

const statusOf = (ex: Exchange): string => (ex.response ? String(ex.response.status) : 'no response');

/** One way a response or webhook breaks the contract: the clauses it breaks and what was wrong. */
export interface ContractFinding {
  clauses: string[];
  expected: string;
  actual: string;
  /** `observe`: a format the spec only describes (clauses of kind description): recorded as a WARN, never failed. */
  severity: 'fail' | 'observe';
}

/**
 * What of a response breaks the contract of spec/openapi.yaml for its operation and status: a success body that is
 * not JSON or not labelled JSON (4-json-bodies), and each schema violation under the type clause it breaks. Every
 * response passes here (harness/run/contract-observer.ts); [] = it conforms. Never throws on the target's input.
 */
export function contractFindings(contract: Contract, operationId: string, ex: Exchange): ContractFinding[] {
  if (!ex.response) return [];
  const { status, json, jsonError, jsonUnlabelled, contentType } = ex.response;
  const findings: ContractFinding[] = [];
  const success = status >= 200 && status < 300;
  if (success && (jsonError !== undefined || json === undefined)) {
    findings.push({
      clauses: ['4-json-bodies'],
      expected: 'a JSON response body (spec 4: "Request bodies and responses are JSON")',
      actual: `not a JSON response body: ${contentType || 'no content type'}${jsonError ? `; ${jsonError}` : ''}`,
      severity: 'fail',
    });
  } else if (success && jsonUnlabelled) {
    findings.push({
      clauses: ['4-json-bodies'],
      expected: 'a JSON body labelled as JSON (content-type application/json)',
      actual: `JSON labelled ${contentType || 'with no content type'}`,
      severity: 'fail',
    });
  }
  if (success && json === undefined) return findings;
  findings.push(...fractionFindings(json));
  const asked = operationId === 'issueToken' ? audienceAsked(ex) : undefined;
  for (const v of contract.validateResponse(operationId, status, json)) {
    // 5.2's scope is the audience asked for: a scope equal to a TOKEN_AUDIENCE of the service's own follows from
    // that audience (one finding: the audience, 5.1), not a second deviation of the response.
    if (asked !== undefined && v.path === '/scope' && scopeHolds(json, asked)) continue;
    findings.push({
      clauses: v.clause,
      expected: `a ${status} response of ${operationId} that matches the contract`,
      actual: `${v.path || '/'} ${v.message}`,
      severity: v.severity,
    });
  }
  return findings;
}

/** The audience a token request sent (its form body), when it was not the spec's service_api. */
function audienceAsked(ex: Exchange): string | undefined {
  const audience = new URLSearchParams(ex.request.bodyText ?? '').get('audience') ?? undefined;
  return audience === undefined || audience === 'service_api' ? undefined : audience;
}

/** The token response's scope names `audience` (a space-separated list holding it counts). */
function scopeHolds(json: unknown, audience: string): boolean {
  const scope = (json as { scope?: unknown } | null)?.scope;
  return typeof scope === 'string' && scope.split(' ').includes(audience);
}

/** What of a webhook body breaks the contract (6.1); PascalCase names are read as camelCase with fieldCase 'insensitive'. */
export function webhookFindings(
  contract: Contract,
  body: unknown,
  fieldCase: 'exact' | 'insensitive' = 'exact',
  read: { bom?: boolean } = {},
): ContractFinding[] {
  const fallback = contract.webhookTypeClauses;
  if (body === undefined)
    return [
      {
        clauses: ['4-json-bodies', ...fallback],
        expected: 'a JSON webhook body (6.1)',
        actual: 'a body that is not JSON',
        severity: 'fail',
      },
    ];
  // A tolerant reader: what a client in the wild strips or coerces is observed once per webhook, and every other
  // field still judged (the payload is not shown by 6.1).
  const tolerated: ContractFinding[] = read.bom
    ? [
        {
          clauses: ['6.1-webhook-payload-not-shown'],
          expected: 'a JSON webhook body',
          actual: 'a UTF-8 byte-order mark before the JSON (read after it; a strict JSON parser would refuse the body)',
          severity: 'observe',
        },
      ]
    : [];
  // The transaction data, unwrapped where the body wraps it (the payload is "not shown": 6.1).
  const data = webhookTransaction(body, fieldCase) ?? body;
  const shown =
    fieldCase === 'insensitive' && data !== null && typeof data === 'object' && !Array.isArray(data)
      ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v]))
      : data;
  return [
    ...tolerated,
    ...fractionFindings(body),
    ...contract.validateWebhook(shown).map((v): ContractFinding => {
      const value = atPointer(shown, v.path);
      if (v.keyword === 'type' && typeof value === 'string' && NUMERIC.test(value.trim())) {
        return {
          clauses: ['6.1-webhook-payload-not-shown'],
          expected: `${v.path} a JSON number (2.2 types it)`,
          actual: `${v.path} a number written as a string (${JSON.stringify(value)}): read as ${Number(value)}`,
          severity: 'observe',
        };
      }
      return {
        clauses: v.clause.length > 0 ? v.clause : fallback,
        expected: 'a webhook body that matches the contract (transactionSucceeded)',
        actual: `${v.path || '/'} ${v.message}`,
        severity: v.severity,
      };
    }),
  ];
}

/**
 * Date-times with more than 3 fractional digits (.NET writes 7): ISO 8601 allows any number, but a reader that parses
 * milliseconds truncates or refuses them — observed once per body, under the type's description (2).
 */
export function fractionFindings(body: unknown): ContractFinding[] {
  const found: { at: string; digits: number }[] = [];
  const walk = (v: unknown, path: string): void => {
    const long = typeof v === 'string' ? LONG_FRACTION.exec(v) : null;
    if (long) found.push({ at: `${path || '/'} ${JSON.stringify(v)}`, digits: long[1]!.length });
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}/${k}`);
  };
  walk(body, '');
  if (found.length === 0) return [];
  const { at, digits } = found[0]!;
  return [
    {
      clauses: ['2-datetime-type'],
      expected: 'date-times a millisecond reader takes (at most 3 fractional digits)',
      actual: `${found.length} date-time(s) with ${digits} fractional digits, e.g. ${at} (valid ISO 8601: read at millisecond precision)`,
      severity: 'observe',
    },
  ];
}

const LONG_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.(\d{4,})(?:Z|[+-]\d{2}:?\d{2})?$/;

/** A decimal as text: what a lenient serializer writes for a number ("29.00", "-1", "1e3"). */
const NUMERIC = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** The value a JSON pointer (RFC 6901) names, or undefined. */
function atPointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let at: unknown = root;
  for (const part of pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

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

/** A field of the response equals what was sent or what the spec fixes. */
export function fieldEquals(actual: unknown, expected: unknown, field: string, clauses: Clauses, ex?: Exchange): void {
  if (!sameValue(actual, expected))
    fail('field-equals', clauses, `${field} = ${JSON.stringify(expected)}`, `${field} = ${JSON.stringify(actual)}`, ex);
}

/** Equal values: numbers to 1e-9, objects key by key whatever their order (a server may order keys as it likes), arrays item by item. */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) < 1e-9;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
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
 * The redirect carries a hash that verifies with the scheme configured or discovered (spec 6.3; harness/discovery/):
 * any of `schemes`, those the discovery's own redirect could not tell apart (the first is named).
 */
export function hashVerifies(params: Record<string, string>, schemes: readonly RedirectScheme[], secret: string, clauses: Clauses): void {
  const got = params['hash'] ?? '';
  if (!schemes.some((s) => redirectVerifies(params, s, secret))) {
    fail(
      'hash-verifies',
      clauses,
      `hash = ${schemes[0] ? describeRedirectScheme(schemes[0]) : '(no scheme)'}`,
      got === '' ? 'no hash parameter' : `a hash that does not verify (${got.slice(0, 12)}…)`,
    );
  }
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

/** How a hosted-screen payment ended, for failure messages (never the card data). */
function outcomeText(o: PaymentOutcome): string {
  if (o.kind === 'redirect') {
    return o.params['esAprobada'] === undefined && o.settled
      ? `a redirect to the merchant without esAprobada; the lookup says esAprobada=${o.settled.esAprobada}`
      : `a redirect to the merchant with esAprobada=${o.params['esAprobada'] ?? '(absent)'}`;
  }
  if (o.kind === 'page' && o.settled)
    return (
      `a page (status ${o.status}) after the payment; the lookup of ` +
      `${o.settled.idTransaccion ?? 'its transaction'} says esAprobada=${o.settled.esAprobada}`
    );
  if (o.kind === 'refused' && o.by === 'words') return `a page saying it refuses (status ${o.status}): "${o.text}"`;
  return `${o.kind === 'refused' ? 'a refusal' : 'a page'} (status ${o.status}${o.estado ? `, estado "${o.estado}"` : ''})`;
}

/**
 * Whether a hosted payment was approved: the redirect's esAprobada ("true"/"True"/…), else what the lookup said when
 * the redirect did not carry it (harness/run/run.ts settles it); undefined when no channel told.
 */
export function approvalOf(o: PaymentOutcome): 'true' | 'false' | undefined {
  if (o.kind === 'page') return o.settled?.esAprobada;
  if (o.kind !== 'redirect') return undefined;
  const said = o.params['esAprobada']?.trim().toLowerCase();
  if (said === 'true' || said === 'false') return said;
  return said === undefined ? o.settled?.esAprobada : undefined;
}
const esAprobada = approvalOf;

/**
 * A hosted-screen payment was processed and approved: the customer is sent back with esAprobada=true (spec 6.3).
 * Returns the outcome query.
 */
export function paymentApproved(o: PaymentOutcome, clauses: Clauses, what: string): Record<string, string> {
  paymentWentThrough(o, what);
  unreadPage(o, what);
  if (o.kind === 'page' && esAprobada(o) === 'true') return settledParams(o);
  if (o.kind !== 'redirect' || esAprobada(o) !== 'true')
    fail('payment-approved', clauses, `${what} is approved (redirect with esAprobada=true)`, outcomeText(o));
  return o.params;
}

/**
 * The one reading of a page after a submission that is neither a redirect, nor a refusal, nor a next step: what the
 * lookup settled (harness/run/run.ts), else the payer could not read the result — never the target's FAIL
 * (UnreadPage: not judged; the suite's own ERROR on the embedded sandbox). A page the test expects (a pending
 * Bitcoin or quick-pay page) is read by the test itself, not here.
 */
export function unreadPage(o: PaymentOutcome, what: string): void {
  if (o.kind !== 'page' || o.settled) return;
  const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i
    .exec(o.html)?.[1]
    ?.replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  throw new UnreadPage(
    `${what}: after the submission the page (status ${o.status}${heading ? `, "${heading}"` : ''}) is neither a ` +
      `redirect to urlRedirect, nor a refusal, nor a step with a button to go on, and no lookup told the outcome (no ` +
      `idTransaccion known or shown): "${o.text || '(no text)'}"; with PAYER=browser a page that finishes by script is followed`,
  );
}

/**
 * A test judging the redirect itself (6.3, 4.1 urlRedirect) needs the payer to have seen one: a page after the
 * payment (even one the lookup settled) may move on by script the HTTP payer does not run — not judged (UnreadPage).
 */
export function redirectSeen(o: PaymentOutcome, what: string): asserts o is PaymentOutcome & { kind: 'redirect' } {
  unreadPage(o, what);
  if (o.kind === 'page')
    throw new UnreadPage(
      `${what} ended on a page (status ${o.status}), not a redirect the payer saw (the lookup says ` +
        `esAprobada=${o.settled?.esAprobada}): the redirect is judged where one is seen; with PAYER=browser a redirect ` +
        `by script is followed`,
    );
}

/** The query a settled page stands for: the transaction and its approval as the lookup told them (no redirect came). */
function settledParams(o: PaymentOutcome & { kind: 'page' }): Record<string, string> {
  return { ...(o.settled?.idTransaccion ? { idTransaccion: o.settled.idTransaccion } : {}), esAprobada: o.settled!.esAprobada };
}

/**
 * The premise of a test that pays: the page took what the payer sent. A submission answered with an error status or
 * with the same form again is the page refusing the payer's input (field names, a value it wants otherwise), not a
 * verdict on the payment: PaymentRefused, naming the page's answer, and the test is not judged (SKIP). A 410 (Gone)
 * is the page saying the payment can no longer be made — a state the tests judge — and is left to them.
 */
export function paymentWentThrough(o: PaymentOutcome, what: string): void {
  if (o.kind !== 'refused') return;
  // A page with no way to pay and no words of refusal, where a payment was expected: a page the suite cannot read,
  // never a verdict: not judged, with the page's answer.
  if (o.by === 'no-form')
    throw new NoFormError(
      `${what}: the page (status ${o.status}) shows no form to pay and no words of refusal: "${o.text || o.estado || '(no text)'}"`,
    );
  // 410 (Gone) and a page saying in words that the link cannot be paid are states the tests judge.
  if (o.answered !== 'submission' || o.status === 410 || o.by === 'words') return;
  const how = o.formAgain ? `showed its form again (status ${o.status})` : `answered ${o.status}`;
  throw new PaymentRefused(`${what} did not go through: the page ${how} to what the payer sent: "${o.text || o.estado || '(no text)'}"`);
}

/** A hosted-screen payment was processed and declined: the customer is sent back with esAprobada=false (spec 6.3, 7). */
export function paymentDeclined(o: PaymentOutcome, clauses: Clauses, what: string): Record<string, string> {
  unreadPage(o, what);
  if (o.kind === 'page' && esAprobada(o) === 'false') return settledParams(o);
  if (o.kind !== 'redirect' || esAprobada(o) !== 'false')
    fail('payment-declined', clauses, `${what} is declined (redirect with esAprobada=false)`, outcomeText(o));
  return o.params;
}

/**
 * No payment was approved: a refusal, an error page or a decline all qualify; only an approved redirect fails. A page
 * with no way to pay and no words of refusal counts only where the payer has paid a page of that target before
 * (payableSeen; else the payer may simply not read this target's pages: not judged).
 */
export function paymentNotApproved(o: PaymentOutcome, clauses: Clauses, what: string): void {
  if (o.kind === 'refused' && o.by === 'no-form' && !o.payableSeen) {
    throw new NoFormError(
      `${what}: the page (status ${o.status}) shows no form and no words of refusal, and no page of this target was ` +
        `paid in this run to tell it from a page the suite cannot read: "${o.text || '(no text)'}"`,
    );
  }
  unreadPage(o, what);
  if (esAprobada(o) === 'true') fail('payment-not-approved', clauses, `${what} is not processed (no approved payment)`, outcomeText(o));
}

/** A boolean as JSON or as redirect text ("true"/"false", any case) equals `expected`. */
export function flagEquals(actual: unknown, expected: boolean, field: string, clauses: Clauses, ex?: Exchange): void {
  const text = typeof actual === 'string' ? actual.trim().toLowerCase() : actual;
  if (text !== expected && text !== String(expected))
    fail('flag-equals', clauses, `${field} = ${expected}`, `${field} = ${JSON.stringify(actual)}`, ex);
}

/** A field holds one of the values the spec allows. */
export function fieldIn(actual: unknown, allowed: readonly unknown[], field: string, clauses: Clauses, ex?: Exchange): void {
  if (!allowed.some((a) => sameValue(actual, a)))
    fail(
      'field-in',
      clauses,
      `${field} one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
      `${field} = ${JSON.stringify(actual)}`,
      ex,
    );
}

/** Every key/value pair that was sent comes back unchanged (datosAdicionales echoed: spec 2.2, 6.1). */
export function containsPairs(actual: unknown, sent: Record<string, string>, field: string, clauses: Clauses, ex?: Exchange): void {
  const got = actual !== null && typeof actual === 'object' && !Array.isArray(actual) ? (actual as Record<string, unknown>) : undefined;
  const missing = Object.entries(sent)
    .filter(([k, v]) => got?.[k] !== v)
    .map(([k]) => k);
  if (missing.length > 0) {
    fail(
      'contains-pairs',
      clauses,
      `${field} holds the pairs sent (${Object.keys(sent).join(', ')})`,
      got ? `${field} differs at ${missing.join(', ')}: ${JSON.stringify(got)}` : `${field} = ${JSON.stringify(actual)}`,
      ex,
    );
  }
}

/** A value as a reader sees it in a failure: its JSON type named where it is not a string. */
function asWritten(v: unknown): string {
  if (typeof v === 'string')
    return [...v].length > 80
      ? `the string ${JSON.stringify(v.slice(0, 40))}… (${[...v].length} characters)`
      : `the string ${JSON.stringify(v)}`;
  if (v === undefined) return 'nothing (absent)';
  if (v === null) return 'null';
  return `${Array.isArray(v) ? 'an array' : `the ${typeof v}`} ${JSON.stringify(v)}`;
}

/** Where two texts first differ, by code point: its index and the code points either side (U+XXXX), for accents and look-alikes. */
function firstDifference(got: string, sent: string): string {
  const a = [...got];
  const b = [...sent];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const cp = (c: string | undefined) =>
    c === undefined ? 'the end' : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(c)}`;
  return `${b.length} characters sent, ${a.length} came back; first difference at character ${i + 1}: sent ${cp(b[i])}, came back ${cp(a[i])}`;
}

/**
 * Free text comes back byte for byte (2: free content; 2.2 idExterno, 2.1 nombreProducto, 2.4 descripcionProducto):
 * the same string, not trimmed, re-cased, normalised nor turned into another type. The failure says where it differs.
 */
export function textAsSent(actual: unknown, sent: string, field: string, clauses: Clauses, ex?: Exchange): void {
  if (actual === sent) return;
  fail(
    'text-as-sent',
    clauses,
    `${field} = ${asWritten(sent)}, exactly as sent`,
    typeof actual === 'string' ? `${field} = ${asWritten(actual)}: ${firstDifference(actual, sent)}` : `${field} = ${asWritten(actual)}`,
    ex,
  );
}

/**
 * A dictionary's pairs come back as sent (2: "string keys to string values"): every key sent, its value the same
 * string — "00123" is not 123, "" is not null. Other keys beside them are allowed. The failure lists each pair that
 * differs and how.
 */
export function pairsAsSent(actual: unknown, sent: Record<string, string>, field: string, clauses: Clauses, ex?: Exchange): void {
  const got = actual !== null && typeof actual === 'object' && !Array.isArray(actual) ? (actual as Record<string, unknown>) : undefined;
  if (got === undefined) {
    if (Object.keys(sent).length === 0) return;
    fail('pairs-as-sent', clauses, `${field} holds the ${Object.keys(sent).length} pairs sent`, `${field} = ${asWritten(actual)}`, ex);
  }
  const differ = Object.entries(sent)
    .filter(([k, v]) => got[k] !== v)
    .map(([k, v]) => `${JSON.stringify(k)}: sent ${asWritten(v)}, came back ${k in got ? asWritten(got[k]) : 'no such key'}`);
  if (differ.length > 0)
    fail(
      'pairs-as-sent',
      clauses,
      `${field} holds the ${Object.keys(sent).length} pairs sent, each value the string sent`,
      `${differ.length} pair(s) differ: ${differ.slice(0, 4).join('; ')}${differ.length > 4 ? '; …' : ''}`,
      ex,
    );
}

/**
 * The query urlRedirect was given is still on the URL the customer lands on (4.1 urlRedirect, 6.3: the outcome is
 * added to it): each parameter sent, its value as sent (decoded). Parameters the service adds are allowed.
 */
export function queryKept(landed: Record<string, string>, sent: Record<string, string>, clauses: Clauses, location?: string): void {
  const lost = Object.entries(sent).filter(([k, v]) => landed[k] !== v);
  if (lost.length > 0)
    fail(
      'query-kept',
      clauses,
      `the redirect keeps urlRedirect's own query: ${Object.entries(sent)
        .map(([k, v]) => `${k}=${v}`)
        .join('&')}`,
      `${lost.map(([k]) => (k in landed ? `${k}=${landed[k]}` : `${k} missing`)).join(', ')}${location ? ` (landed at ${location})` : ''}`,
    );
}

/**
 * What was sent comes back: each field of `sent` equals the same field of `shown`, objects compared key by key
 * (a server may order keys differently), numbers to 1e-9.
 */
export function echoed(shown: unknown, sent: unknown, field: string, clauses: Clauses, ex?: Exchange): void {
  if (sent !== null && typeof sent === 'object' && !Array.isArray(sent)) {
    const got = shown !== null && typeof shown === 'object' && !Array.isArray(shown) ? (shown as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(sent)) echoed(got[key], value, `${field}.${key}`, clauses, ex);
    return;
  }
  const describe = (v: unknown) =>
    typeof v === 'string' && v.length > 80
      ? `a string of ${[...v].length} characters starting ${JSON.stringify(v.slice(0, 40))}`
      : JSON.stringify(v);
  if (!sameValue(shown, sent)) fail('echoed', clauses, `${field} = ${describe(sent)} (as sent)`, `${field} = ${describe(shown)}`, ex);
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

/** A decimal as text: digits, an optional fraction, an optional exponent (what JSON and String(number) write). */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The decimal text an amount is written as: a JSON number as a reader reads it back (its shortest round trip:
 * 0.30000000000000004 stays so, 10.50 reads 10.5), a string as written ("10.50"). Undefined when it is not a number.
 */
export function amountText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return DECIMAL.test(text) && /\d/.test(text) ? text : undefined;
}

/** The exact number of cents a decimal text denotes, or undefined when it is not a whole number of cents (or no number). */
export function centsOf(text: string): bigint | undefined {
  const m = DECIMAL.exec(text.trim());
  if (!m || !/\d/.test(`${m[2]}${m[3] ?? ''}`)) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = m;
  // digits × 10^(shift): the point moved by the exponent, then two places for cents
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  const shift = Number(exponent) - fraction.length + 2;
  let cents: bigint;
  if (shift >= 0) cents = BigInt(digits || '0') * 10n ** BigInt(shift);
  else {
    const cut = -shift;
    const padded = digits.padStart(cut + 1, '0');
    if (/[1-9]/.test(padded.slice(padded.length - cut))) return undefined;
    cents = BigInt(padded.slice(0, padded.length - cut));
  }
  return sign === '-' ? -cents : cents;
}

/** The spec's arithmetic at two decimals (4.1: amount charged = quantity × monto): `monto` in cents times `cantidad`. */
export function amountDue(monto: number, cantidad = 1): { cents: bigint; text: string } {
  const unit = centsOf(String(monto)) ?? BigInt(Math.round(monto * 100));
  const cents = unit * BigInt(cantidad);
  return { cents, text: centsText(cents) };
}

const centsText = (cents: bigint): string => {
  const abs = cents < 0n ? -cents : cents;
  return `${cents < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
};

/**
 * An amount the service wrote equals, to the cent, what the spec's arithmetic gives: its decimal text parsed exactly,
 * never compared within a tolerance (a JSON number 0.30000000000000004 is not 0.30; 0.31 is a cent off). How it is
 * written (10.5, "10.50") is the contract testcase's matter: any decimal text of the same cents passes.
 */
export function amountEquals(
  actual: unknown,
  expected: number | { cents: bigint; text: string },
  field: string,
  clauses: Clauses,
  ex?: Exchange,
): void {
  const due = typeof expected === 'number' ? amountDue(expected) : expected;
  const text = amountText(actual);
  const cents = text === undefined ? undefined : centsOf(text);
  if (cents === due.cents) return;
  const how =
    text === undefined
      ? `not a number: ${JSON.stringify(actual)}`
      : cents === undefined
        ? `${text}, not a whole number of cents (binary floating-point noise, or a fraction of a cent)`
        : `${text}, ${cents > due.cents ? cents - due.cents : due.cents - cents} cent(s) ${cents > due.cents ? 'more' : 'less'}`;
  fail('amount-equals', clauses, `${field} = ${due.text} exactly (to the cent)`, `${field} = ${how}`, ex);
}
