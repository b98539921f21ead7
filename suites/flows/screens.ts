/**
 * Paying on the payment screen (4.1) as the suites do: the test card, what a payment says, test-mode declines taken
 * as a premise or judged.
 */
import { parse } from 'node-html-parser';
import { paymentLinkMinimal } from '../../generators/bodies.ts';
import type { PaymentLinkCreateRequest } from '../../spec/types.ts';
import {
  approvalOf,
  type CardPayment,
  field,
  paymentDeclined,
  type PaymentOutcome,
  quoted,
  testcase,
  type TestHandle,
  unreadPage,
} from '../../harness/index.ts';
import { lookUp } from './lookups.ts';

/** The configured test card, with an expiry in the future, paying to the suite's redirect receiver. */
export async function testCard(t: TestHandle, overrides: Partial<CardPayment> = {}): Promise<CardPayment> {
  const receiver = await t.run.receiver();
  const { cardNumber, cvv } = t.run.config.testData;
  return {
    numeroTarjeta: cardNumber,
    cvv,
    mesVencimiento: 1,
    anioVencimiento: new Date().getUTCFullYear() + 3,
    nombreTitular: 'Prueba Conformidad',
    email: 'cliente@example.com',
    redirectPrefix: receiver.redirectUrl(),
    ...overrides,
  };
}

/**
 * A field of a payment's outcome: what the redirect says (6.3), else — a redirect without it is the 6.3 test's one
 * finding — what the lookup of its idTransaccion says (4.8, the source of truth).
 */
export async function saidOrLookedUp(t: TestHandle, params: Record<string, string>, name: string): Promise<unknown> {
  if (params[name] !== undefined || !params['idTransaccion']) return params[name];
  const { tx } = await lookUp(t, params['idTransaccion']);
  return field(tx, name);
}

/** The spec's test-mode decline: cvv "111" on the payment screen (spec 7). */
export const DECLINE_CVV = '111';

/** Pays a link on its hosted screen; the link must redirect to the receiver (configuracion.urlRedirect). */
export async function payOnScreen(t: TestHandle, urlEnlace: string, overrides: Partial<CardPayment> = {}): Promise<PaymentOutcome> {
  return t.run.payer.pay({ kind: 'link', url: urlEnlace, payment: await testCard(t, overrides) });
}

/** A link body whose redirect and webhook point at the suite's receiver, so outcomes can be observed. */
export async function observedLinkBody(
  t: TestHandle,
  overrides: Partial<PaymentLinkCreateRequest> = {},
): Promise<PaymentLinkCreateRequest> {
  const receiver = await t.run.receiver();
  const base = paymentLinkMinimal();
  return {
    ...base,
    ...overrides,
    configuracion: {
      notificarTransaccionCliente: false,
      urlRedirect: receiver.redirectUrl('link'),
      urlWebhook: receiver.webhookUrl('link'),
      ...overrides.configuracion,
    },
  };
}

/**
 * The images a hosted page names (`<img src>`, resolved against the page) that answer with no image: an error status
 * or another content type. One that cannot be fetched from here at all is left out (the network's, not the page's).
 */
export async function imagesNotServed(t: TestHandle, html: string, pageUrl: string): Promise<string[]> {
  const urls = new Set(
    parse(html)
      .querySelectorAll('img[src]')
      .map((el) => el.getAttribute('src') ?? '')
      .filter((src) => src !== '' && !src.startsWith('data:') && URL.canParse(src, pageUrl))
      .map((src) => new URL(src, pageUrl).href),
  );
  const notServed: string[] = [];
  for (const url of urls) {
    const image = await t.run.payer.fetchImage(url).catch(() => undefined);
    if (image !== undefined && (image.status < 200 || image.status > 299 || !/^image\//i.test(image.contentType)))
      notServed.push(`${url} (status ${image.status}, ${image.contentType || 'no content type'})`);
  }
  return notServed;
}

/**
 * A QR image served as image bytes (PNG) under no image/* content type: what the bytes are is judged by isImage; the
 * header a URL "of the QR" answers is not shown, and one that does not say image is observed (a client trusting it
 * does not show the QR).
 */
export function untypedImage(t: TestHandle, image: { contentType: string; isPng: boolean }, url: string, clause: string): void {
  if (image.isPng && !/^image\//i.test(image.contentType.trim()))
    t.observe(clause, `the QR image at ${url} is PNG bytes served as ${image.contentType || 'no content type'}, not image/*`);
}

/** The test that judges the test-mode decline itself (spec 7); others only need declines to happen. */
export const DECLINE_TESTCASE = testcase(
  ['7-cvv-111-declines', '6.1-webhook-on-success', '6.1-webhook-transaction-data'],
  'cvv 111 on the screen declines the payment, and no webhook says it was approved',
);

/**
 * A decline a test needs as its premise (one fault, one finding): when cvv 111 did not decline, the test skips
 * naming the testcase that judges the decline, instead of failing a second time for it.
 */
export function declinedAsPremise(t: TestHandle, outcome: PaymentOutcome, what: string): Record<string, string> {
  unreadPage(outcome, what);
  if (outcome.kind === 'redirect' && approvalOf(outcome) === 'false') return outcome.params;
  if (outcome.kind === 'page' && approvalOf(outcome) === 'false')
    return { idTransaccion: outcome.settled?.idTransaccion ?? '', esAprobada: 'false' };
  const how =
    outcome.kind === 'redirect' ? `a redirect with esAprobada=${approvalOf(outcome) ?? '(absent)'}` : `${outcome.kind} ${outcome.status}`;
  return t.skip(
    'premise-elsewhere',
    `${what} was not declined (${how}): the test-mode decline is judged by ${quoted(DECLINE_TESTCASE)}; this test needs a declined payment`,
  );
}

/**
 * Makes `n` payments with the test-mode decline cvv on the link's screen (spec 7). Each must be declined: a failure
 * when the decline is the test's subject (`judged`), else a skip naming the testcase that judges it.
 */
export async function declineOnScreen(t: TestHandle, urlEnlace: string, n: number, judged = false): Promise<Record<string, string>[]> {
  const declines: Record<string, string>[] = [];
  for (let i = 1; i <= n; i++) {
    const outcome = await payOnScreen(t, urlEnlace, { cvv: DECLINE_CVV });
    const what = `test-mode decline ${i} of ${n}`;
    declines.push(judged ? paymentDeclined(outcome, '7-cvv-111-declines', what) : declinedAsPremise(t, outcome, what));
  }
  return declines;
}

/**
 * `url` with the id it carries (a whole path segment's digits or value, or a query value) changed to `other`, as a
 * client's mistake or a guess would send it; undefined when the id is not in its path or query exactly once.
 */
export function withIdChanged(url: string, id: string, other: string): string | undefined {
  if (id === '' || !URL.canParse(url)) return undefined;
  const u = new URL(url);
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const at = new RegExp(`(?<![0-9A-Za-z-])${escaped}(?![0-9A-Za-z-])`, 'g');
  const tail = `${u.pathname}${u.search}`;
  if ((tail.match(at) ?? []).length !== 1) return undefined;
  return `${u.origin}${tail.replace(at, other)}${u.hash}`;
}

/**
 * GET of a page or image address naming something that does not exist: what it answers is not shown (7), so only a
 * server error is observed — it is no answer to a client's mistake.
 */
export async function noServerErrorAt(t: TestHandle, url: string, what: string): Promise<void> {
  const ex = await t.run.http.request({ method: 'GET', url, idempotent: true, notNow: 'answer', label: what });
  const status = ex.response?.status ?? 0;
  if (status >= 500) t.observe('7-error-format-not-shown', `${what} (${url}) was answered ${status}, a server error`);
}

/** What a template prints for a value it never had (undefined, NaN, an object). */
const LEFTOVER = /\bundefined\b|\bNaN\b|\[object Object\]/;

/**
 * A hosted page showing a value its template never had, as JavaScript prints it: the customer reads a variable, not
 * the purchase. Observed (the spec shows none of the pages' words); only the text a page shows (no scripts, styles).
 */
export function leftoverShown(t: TestHandle, html: string, clause: string, what: string): void {
  const root = parse(html);
  root.querySelectorAll('script, style, noscript, template').forEach((el) => el.remove());
  const text = (root.querySelector('body') ?? root).text.replace(/\s+/g, ' ');
  const found = LEFTOVER.exec(text);
  if (found === null) return;
  const around = text.slice(Math.max(0, found.index - 30), found.index + found[0].length + 30).trim();
  t.observe(clause, `${what} shows "${found[0]}" in its text ("…${around}…")`);
}
