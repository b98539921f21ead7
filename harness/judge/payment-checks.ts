/**
 * Checks of a hosted-screen payment as the payer saw it end (harness/payer/ PaymentOutcome): approved, declined, not
 * approved, the redirect and its hash, the query urlRedirect kept. The premises of a test that pays (the page took
 * what was sent, the page could be read) are not verdicts: they throw the payer's errors, and the test is not judged.
 */
import { describeRedirectScheme, redirectVerifies, type RedirectScheme } from './schemes.ts';
import type { PaymentOutcome } from '../payer/index.ts';
import { UnreadPage } from '../record/errors.ts';
import { type Clauses, fail } from './failure.ts';
import { NoFormError, PaymentRefused } from '../payer/errors.ts';

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
