/**
 * Purchases through the API (4.3–4.7): wallet, 3DS and its completion, quick-pay and its page, MPOS; each returns
 * the exchange, the body sent and the response read as the contract types it.
 */
import { purchase3ds, purchaseMposBanda, purchaseQuickPay, purchaseWallet, uniqueRef } from '../../generators/bodies.ts';
import type { MposBandaRequest, Purchase3dsRequest, PurchaseQuickPayRequest, PurchaseWalletRequest } from '../../spec/types.ts';
import {
  asBool,
  bodyOf,
  decodeQrPng,
  type Exchange,
  fail,
  notLate,
  onOurClock,
  paymentApproved,
  type PaymentOutcome,
  paymentWentThrough,
  readResponse,
  readString,
  type Screen,
  succeeded,
  type TestHandle,
  withDeadline,
} from '../../harness/index.ts';
import { testCard } from './screens.ts';
import { lookUp } from './lookups.ts';

/** A purchase made through the API: the exchange, the body sent and the response body. */
export interface Purchase<R> {
  ex: Exchange;
  request: R;
  response: Record<string, unknown>;
}

/** Free key/value data unique to one test, to see it echoed (datosAdicionales, spec 2.2, 6.1). */
export function datosAdicionales(prefix: string): Record<string, string> {
  return { pedido: uniqueRef(prefix), canal: 'conformance' };
}

/** POST /TransaccionCompra/Wallet (4.4) as the primary business; fails the test unless it succeeds. */
export async function buyWallet(t: TestHandle, overrides: Partial<PurchaseWalletRequest> = {}): Promise<Purchase<PurchaseWalletRequest>> {
  const request = purchaseWallet(t.run.config.testData, overrides);
  const ex = await t.call('purchaseWallet', { json: request });
  succeeded(ex, '4.4-endpoint', 'the wallet purchase');
  bodyOf(ex, '4.4-response-fields');
  return { ex, request, response: readResponse(t.run.contract, 'purchaseWallet', ex) };
}

/** POST /TransaccionCompra/3DS (4.3) whose urlRedirect is the suite's receiver; fails the test unless it succeeds. */
export async function buy3ds(t: TestHandle, overrides: Partial<Purchase3dsRequest> = {}): Promise<Purchase<Purchase3dsRequest>> {
  const receiver = await t.run.receiver();
  const request = purchase3ds(receiver.redirectUrl('3ds'), t.run.config.testData, overrides);
  const ex = await t.call('purchase3ds', { json: request });
  succeeded(ex, '4.3-endpoint', 'the 3DS purchase');
  bodyOf(ex, '4.3-response-fields');
  return { ex, request, response: readResponse(t.run.contract, 'purchase3ds', ex) };
}

/**
 * The payer's browser completes the page at urlCompletarPago3Ds and must come back approved to urlRedirect (4.3, 6.3).
 * A relative URL is resolved against the API's URL, as a browser resolves a relative link: that it is not absolute
 * is the finding of the test about urlCompletarPago3Ds, not of every 3DS test.
 */
export async function complete3ds(
  t: TestHandle,
  purchase: Purchase<Purchase3dsRequest>,
  clauses: string[] = ['4.3-url-completar', '6.3-redirect-outcome'],
  /** Where the outcome is read: urlRedirect by default; its base when its own query is what a test judges. */
  redirectPrefix = purchase.request.urlRedirect,
): Promise<Record<string, string>> {
  const url = readString(purchase.response, 'urlCompletarPago3Ds', '4.3-response-fields', purchase.ex);
  const absolute = URL.canParse(url, purchase.ex.request.url) ? new URL(url, purchase.ex.request.url).href : url;
  // A page that asks for the card again (the spec does not say what it asks) gets the purchase's own card.
  const tarjeta = purchase.request.tarjetaCreditoDebido;
  const { challengeCode } = t.run.config;
  const card = {
    ...tarjeta,
    nombreTitular: `${purchase.request.nombre} ${purchase.request.apellido}`,
    email: purchase.request.email,
    ...(challengeCode ? { codigoDesafio: challengeCode } : {}),
  };
  const outcome = await t.run.payer.pay({ kind: '3ds', url: absolute, redirectPrefix, card });
  return paymentApproved(outcome, clauses, 'the completed 3DS payment');
}

/**
 * A hosted page (3DS, quick-pay) that asks the payer nothing — no input, choice, checkbox nor script — submitted as it
 * was served. There is no input of the payer's a refusal could be about, so an error status (not 410: a payment that
 * can no longer be made, which tests judge) is the page refusing its own form: the target is judged (`clauses`).
 * A page that asks something or builds itself by script (with the HTTP payer) is driven by the flows above instead:
 * not judged here (`nothing-to-judge`). The outcome is returned for the test to judge further.
 */
export async function submitAskingNothing(
  t: TestHandle,
  page: Screen,
  redirectPrefix: string | undefined,
  clauses: string[],
  what: string,
): Promise<PaymentOutcome> {
  const form = page.form;
  if (!form || page.status >= 400)
    return t.skip(
      'premise-elsewhere',
      `${what} (status ${page.status}) shows no form: the page itself is judged by the tests completing it`,
    );
  const asks = [
    ...(form.visible ?? []),
    ...(form.required ?? []),
    ...Object.keys(form.selects),
    ...(form.checkboxes ?? []).map((c) => c.name),
  ];
  const scripted = t.run.config.payer.kind === 'http' && /<script\b/i.test(page.html);
  if (asks.length > 0 || scripted)
    return t.skip(
      'nothing-to-judge',
      `nothing to judge here: ${what} ${scripted ? 'runs a script' : `asks the payer for ${[...new Set(asks)].join(', ')}`} ` +
        '(a refusal could be about what the payer entered); it is judged where the flows drive the page',
    );
  const outcome = await t.run.payer.pay({ kind: 'opened-page', screen: page, ...(redirectPrefix === undefined ? {} : { redirectPrefix }) });
  if (outcome.kind === 'refused' && outcome.answered === 'submission' && outcome.by === 'status' && outcome.status !== 410)
    fail(
      'payment-approved',
      clauses,
      `${what}, asking the payer nothing, takes its own form submitted as served`,
      `the submission was answered ${outcome.status}: "${outcome.text || outcome.estado || '(no text)'}"`,
    );
  return outcome;
}

/** Where the QR image at `urlQR` leads (its PNG's text, made absolute), or undefined: not a PNG this suite decodes. */
export async function qrTarget(t: TestHandle, urlQR: string): Promise<string | undefined> {
  const image = await t.run.payer.fetchImage(urlQR);
  const text = image.isPng ? decodeQrPng(image.bytes).text : undefined;
  return text !== undefined && URL.canParse(text, urlQR) ? new URL(text, urlQR).href : undefined;
}

/** The page a quick-pay QR leads to, or a skip: a QR this suite does not decode is judged by the urlQR image test. */
export async function qrPage(t: TestHandle, urlQR: string): Promise<string> {
  return (
    (await qrTarget(t, urlQR)) ??
    t.skip(
      'premise-elsewhere',
      `the quick-pay QR at ${urlQR} is not a PNG the suite decodes: judged by "urlQR is an absolute URL serving an image"`,
    )
  );
}

/**
 * The quick-pay QR a link's screen shows once QuickPay was chosen on it (how the screen shows it is not shown: the
 * first image of the page whose PNG holds a URL) and the page it leads to, or a skip: the suite cannot drive that
 * screen's quick-pay.
 */
export async function quickPayQrOf(t: TestHandle, chosen: PaymentOutcome, screenUrl: string): Promise<{ urlQR: string; page: string }> {
  const html = chosen.kind === 'page' ? chosen.html : '';
  for (const [, src] of html.matchAll(/<img\b[^>]*\bsrc="([^"]+)"/gi)) {
    if (!src || !URL.canParse(src.replace(/&amp;/g, '&'), screenUrl)) continue;
    const urlQR = new URL(src.replace(/&amp;/g, '&'), screenUrl).href;
    const page = await qrTarget(t, urlQR);
    if (page !== undefined) return { urlQR, page };
  }
  return t.skip(
    'page-not-driven',
    `choosing QuickPay on the link's screen answered ${chosen.kind}${chosen.kind === 'redirect' ? '' : ` ${chosen.status}`}, ` +
      'with no QR image this suite decodes: the quick-pay of a link is not driven',
  );
}

/**
 * Pays a quick-pay QR (4.6) with the configured test card, entered where its page asks for one (the spec does not
 * say what it asks). `inTime`: the payment is the test's premise, so a page refusing what the payer sent ends the
 * test unjudged, naming the page's answer (PaymentRefused), rather than failing the lookup that follows.
 */
export async function payQuickPay(t: TestHandle, urlQR: unknown, inTime = true): Promise<PaymentOutcome> {
  const { numeroTarjeta, cvv, mesVencimiento, anioVencimiento, nombreTitular, email } = await testCard(t);
  const outcome = await t.run.payer.pay({
    kind: 'quick-pay',
    url: String(urlQR),
    card: { numeroTarjeta, cvv, mesVencimiento, anioVencimiento, nombreTitular, email },
  });
  if (inTime) paymentWentThrough(outcome, 'paying the quick-pay QR');
  return outcome;
}

/**
 * Pays a quick-pay's QR meaning to be in time and looks the transaction up (4.8). Not approved, and answered near or
 * past the fechaVencimiento it states: the suite was late (notLate), the test not judged.
 */
export async function paidQuickPay(
  t: TestHandle,
  response: Record<string, unknown>,
): Promise<{ ex: Exchange; tx: Record<string, unknown> }> {
  const datos = response['datosQuickPay'] as { urlQR?: unknown; fechaVencimiento?: unknown } | undefined;
  const vence = await onOurClock(t, Date.parse(String(datos?.fechaVencimiento)));
  const outcome = await withDeadline(vence, () => payQuickPay(t, datos?.urlQR));
  const looked = await lookUp(t, response['idTransaccion']);
  if (asBool(looked.tx['esAprobada']) !== true) notLate(outcome, vence, 'the QR payment');
  return looked;
}

/** POST /TransaccionCompra/Quick-pay (4.6) logged in as the primary business; fails the test unless it succeeds. */
export async function createQuickPay(
  t: TestHandle,
  overrides: Partial<PurchaseQuickPayRequest> = {},
): Promise<Purchase<PurchaseQuickPayRequest>> {
  const request = purchaseQuickPay(overrides);
  const ex = await t.call('purchaseQuickPay', { json: request, auth: 'bearer' });
  succeeded(ex, '4.6-endpoint', 'the quick-pay request');
  bodyOf(ex, '4.6-response-fields');
  return { ex, request, response: readResponse(t.run.contract, 'purchaseQuickPay', ex) };
}

/** POST /TransaccionCompra/Mpos/Banda (4.7) logged in as the primary business (MPOS permission); fails the test unless it succeeds. */
export async function buyMpos(t: TestHandle, overrides: Partial<MposBandaRequest> = {}): Promise<Purchase<MposBandaRequest>> {
  const request = purchaseMposBanda(t.run.config.testData, overrides);
  const ex = await t.call('purchaseMposBanda', { json: request, auth: 'bearer' });
  succeeded(ex, ['4.7-endpoint', '4.7-permission-required'], 'the MPOS purchase of a business with the MPOS permission');
  bodyOf(ex, '4.7-response-fields');
  return { ex, request, response: readResponse(t.run.contract, 'purchaseMposBanda', ex) };
}
