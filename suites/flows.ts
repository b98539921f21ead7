/**
 * The few multi-step helpers the suites share: create a link, pay it, read it back through activar.
 * Each returns the exchange it made so a check can show it; none asserts anything a test did not ask for.
 */
import { defaultContext, getAt, withUniqueRef, type Body, type BodyContext, type RuleEntry } from '../generators/requests.ts';
import { paymentLinkMinimal, purchase3ds, purchaseMposBanda, purchaseQuickPay, purchaseWallet, uniqueRef } from '../generators/bodies.ts';
import type {
  MposBandaRequest,
  PaymentLink,
  PaymentLinkCreateRequest,
  PaymentLinkCreated,
  Purchase3dsRequest,
  PurchaseQuickPayRequest,
  PurchaseWalletRequest,
} from '../spec/types.ts';
import {
  approvalOf,
  AmbiguousAnswerError,
  asBool,
  asInt,
  asString,
  bodyOf,
  type CardPayment,
  type CheckName,
  type ClauseTestSpec,
  type Credentials,
  decodeQrPng,
  describeExchange,
  echoed,
  type Exchange,
  fail,
  field,
  forTransaction,
  holds,
  type Need,
  notAccepted,
  notLate,
  observeResponse,
  onOurClock,
  paymentApproved,
  paymentDeclined,
  type PaymentOutcome,
  paymentWentThrough,
  PURCHASE_OPERATIONS,
  quoted,
  readInt,
  readResponse,
  readString,
  type ReceivedWebhook,
  rejected,
  secrets,
  succeeded,
  testcase,
  type TestHandle,
  unreadPage,
  webhookBodyField,
  webhookField,
  waitingFor,
  withDeadline,
} from '../harness/index.ts';

export interface CreatedLink {
  ex: Exchange;
  /** The response read as the contract types it (readAsContract); urlEnlace found another way when it was missing. */
  link: PaymentLinkCreated;
  request: PaymentLinkCreateRequest;
}

/**
 * POST /EnlacePago with the minimal valid body (plus overrides); fails the test unless it succeeds (4.1). Values are
 * read in any common encoding (their encoding is the contract testcase's finding); a missing or unusable urlEnlace
 * is found the other ways the spec gives (the QR image's code, then the activar record), so only the tests about
 * urlEnlace itself fail.
 */
export async function createLink(t: TestHandle, request: PaymentLinkCreateRequest = paymentLinkMinimal()): Promise<CreatedLink> {
  const { ex, request: sent } = await linkCreated(t, request);
  succeeded(ex, '4.1-endpoint', 'creating a payment link');
  bodyOf(ex, '4.1-response-fields');
  const body = readResponse(t.run.contract, 'createPaymentLink', ex);
  const idEnlace = readInt(body, 'idEnlace', '4.1-response-fields', ex);
  const urlEnlace =
    usableUrl(body['urlEnlace']) ?? (await linkUrlFromQr(t, body['urlQrCodeEnlace'])) ?? (await linkUrlFromRecord(t, idEnlace));
  if (urlEnlace === undefined) readString({}, 'urlEnlace', '4.1-response-fields', ex);
  return { ex, link: { ...body, idEnlace, urlEnlace } as unknown as PaymentLinkCreated, request: sent };
}

/**
 * POST /EnlacePago. A link charges nothing: an answer that may hide its creation (a 502/504, no answer, a dropped
 * connection: AmbiguousAnswerError) is settled by creating another one, once — the first may exist, unused, and no
 * test counts links. A purchase is never so re-made.
 */
async function linkCreated(t: TestHandle, request: PaymentLinkCreateRequest): Promise<{ ex: Exchange; request: PaymentLinkCreateRequest }> {
  try {
    return { ex: await t.call('createPaymentLink', { json: request }), request };
  } catch (err) {
    if (!(err instanceof AmbiguousAnswerError)) throw err;
    err.settle('a link charges nothing: another one was created instead (the first may exist, unused)');
    // Its identifier made unique again (4.1: "intended to be unique"): the first link may hold it. A suffix keeps what
    // the identifier carries (case, script); the test reads the request that made the link it gets.
    const id = request.identificadorEnlaceComercio;
    const again: PaymentLinkCreateRequest =
      typeof id === 'string' && [...id].length <= 498
        ? { ...request, identificadorEnlaceComercio: `${id}-2` }
        : (withUniqueRef(request as unknown as Body) as unknown as PaymentLinkCreateRequest);
    const ex = await t.call('createPaymentLink', { json: again, label: 'createPaymentLink, again: the first answer was ambiguous' });
    return { ex, request: again };
  }
}

const usableUrl = (value: unknown): string | undefined => (typeof value === 'string' && URL.canParse(value) ? value : undefined);

/** The URL the link's QR image encodes (4.1: the QR leads to the payment screen), when it is a readable PNG. */
async function linkUrlFromQr(t: TestHandle, urlQr: unknown): Promise<string | undefined> {
  const url = usableUrl(urlQr);
  if (!url) return undefined;
  const image = await t.run.payer.fetchImage(url).catch(() => undefined);
  const text = image?.isPng ? decodeQrPng(image.bytes).text : undefined;
  return text !== undefined && URL.canParse(text, url) ? new URL(text, url).href : undefined;
}

/** urlEnlace (or urlEnlaceLargo) of the link's record, read through activar (needs the account). */
async function linkUrlFromRecord(t: TestHandle, idEnlace: number): Promise<string | undefined> {
  if (!t.run.target.account) return undefined;
  const ex = await t.call('activatePaymentLink', { pathParams: { id: idEnlace } });
  const record = readResponse(t.run.contract, 'activatePaymentLink', ex);
  return usableUrl(record['urlEnlace']) ?? usableUrl(field(record, 'urlEnlaceLargo'));
}

/** PUT /EnlacePago/{id}/activar: the only way the spec gives to read a link's full record (4.2), read as the contract types it. */
export async function activate(t: TestHandle, idEnlace: number): Promise<{ ex: Exchange; record: PaymentLink }> {
  const ex = await t.call('activatePaymentLink', { pathParams: { id: idEnlace } });
  succeeded(ex, '4.2-endpoint', 'activating the payment link');
  bodyOf(ex, '2.1-payment-link-types');
  return { ex, record: readResponse(t.run.contract, 'activatePaymentLink', ex) as unknown as PaymentLink };
}

/** The idTransaccion a screen payment's redirect names (undefined for any other outcome). */
export const idOf = (o: PaymentOutcome): string | undefined =>
  o.kind === 'redirect' ? o.params['idTransaccion'] : o.kind === 'page' ? o.settled?.idTransaccion : undefined;

/** The ids of a link record's transacciones that say approved (true) or declined (false). */
export function listedIds(record: PaymentLink, approved: boolean): string[] {
  return (record.transacciones ?? [])
    .filter((tx) => asBool(field(tx, 'esAprobada')) === approved)
    .map((tx) => String(field(tx, 'idTransaccion')));
}

/**
 * A counter of the link record (2.1) read through activar, the only read the spec gives, which may itself reset it:
 * 2.1 says what the counter counts, not what re-activation does to it, and 4.2 returns "the full link record", not
 * whether before or after. So `counted` (the count as it stood) passes; 0 is the reading "activar resets, then
 * answers", observed under the clause, and what holds under it — the payments counted are listed in transacciones —
 * is judged instead; any other value is wrong under every reading.
 */
export function counterRead(
  t: TestHandle,
  record: PaymentLink,
  counter: 'cantidadIntentoPagoFallidos' | 'cantidadPagosExitosos',
  counted: number,
  clause: string,
  ex: Exchange,
): void {
  const value = asInt(record[counter]);
  if (value === counted) return;
  const what = counter === 'cantidadPagosExitosos' ? 'approved payments' : 'declines';
  if (value !== 0)
    fail(
      'payments-counted',
      clause,
      `${counter} = ${counted} (as it stood before activar) or 0 (activar reset it, then answered)`,
      `${counter} = ${JSON.stringify(record[counter])}`,
      ex,
    );
  const listed = listedIds(record, counter === 'cantidadPagosExitosos').length;
  holds(
    listed >= counted,
    'transaction-listed',
    clause,
    `the ${counted} ${what} made with the link listed in transacciones (activar answered ${counter} 0)`,
    `${listed} listed`,
    ex,
  );
  t.observe(
    clause,
    `activar answered ${counter} 0 after ${counted} ${what}, all listed in transacciones: read as "activar resets the ` +
      'counter, then answers the record" (2.1 and 4.2 do not say); the count itself was not judged',
  );
}

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
  return t.run.payer.payLink(urlEnlace, await testCard(t, overrides));
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
  const outcome = await t.run.payer.complete3ds(absolute, { redirectPrefix, card });
  return paymentApproved(outcome, clauses, 'the completed 3DS payment');
}

/**
 * Pays a quick-pay QR (4.6) with the configured test card, entered where its page asks for one (the spec does not
 * say what it asks). `inTime`: the payment is the test's premise, so a page refusing what the payer sent ends the
 * test unjudged, naming the page's answer (PaymentRefused), rather than failing the lookup that follows.
 */
export async function payQuickPay(t: TestHandle, urlQR: unknown, inTime = true): Promise<PaymentOutcome> {
  const { numeroTarjeta, cvv, mesVencimiento, anioVencimiento, nombreTitular, email } = await testCard(t);
  const outcome = await t.run.payer.payQuickPay(String(urlQR), {
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

/** GET /TransaccionCompra/{id} (4.8) as the primary business; fails the test unless it succeeds. Read as the contract types it. */
export async function lookUp(
  t: TestHandle,
  idTransaccion: unknown,
  judged = false,
): Promise<{ ex: Exchange; tx: Record<string, unknown> }> {
  const ex = await t.call('getTransaction', { pathParams: { id: String(idTransaccion) }, auth: 'bearer' });
  succeeded(ex, '4.8-endpoint', 'looking the transaction up');
  bodyOf(ex, '4.8-response-fields');
  const tx = readResponse(t.run.contract, 'getTransaction', ex);
  // Another transaction than the one asked for is the finding of the test that judges it; others need this one.
  if (!judged && asString(tx['idTransaccion']) !== String(idTransaccion)) {
    t.skip(
      'premise-elsewhere',
      `GET /TransaccionCompra/${String(idTransaccion)} answered the transaction ` +
        `${JSON.stringify(asString(tx['idTransaccion']) ?? null)}: judged by ${quoted(LOOKUP_TESTCASE)}; this test ` +
        `needs the transaction it asked for`,
    );
  }
  return { ex, tx };
}

/** The test that judges that a lookup answers the transaction asked for (4.8). */
export const LOOKUP_TESTCASE = testcase(
  [
    '4.8-endpoint',
    '4.8-same-transaction',
    '4.8-response-fields',
    '2.2-transaction-types',
    '2.2-idexterno-echo',
    '2.2-datos-adicionales-echo',
    '2-dictionary-type',
  ],
  'a wallet purchase',
);

/** The test that judges webhook delivery itself (6.1); others only need a webhook to read. */
export const WEBHOOK_TESTCASE = testcase(
  ['6.1-webhook-on-success', '6.1-webhook-url'],
  'a successful purchase is POSTed to the urlWebhook of its configuracion',
);

/**
 * The webhook of a transaction, waited for up to WEBHOOK_TIMEOUT_S, then on up to MAX_WAIT_S where that is longer and
 * the target is known to reach the receiver (6.1 shows no delivery time; the internet delivers late) — a receiver
 * nothing reaches is not waited on for minutes. When none arrives the test fails if delivery is its subject
 * (`judged`), else it skips naming the testcase that judges delivery (one fault, one finding). The wait is the
 * target's time, bounded by itself: the test's budget does not count it (a late webhook is no slow suite).
 */
export async function webhookFor(t: TestHandle, idTransaccion: unknown, clauses: string[], judged = false): Promise<ReceivedWebhook> {
  const receiver = await t.run.receiver();
  const { fieldCase, timeoutS: firstS } = t.run.config.webhook;
  const reaches = () => t.run.target.kind === 'embedded' || receiver.webhooks().length > 0;
  const match = forTransaction(String(idTransaccion), fieldCase);
  let timeoutS = firstS;
  try {
    return await waitingFor(`the webhook of transaction ${String(idTransaccion)}`, async () => {
      // Started at once for both phases: a delivery between them is not missed.
      const waited = receiver.waitForWebhook(match, Math.max(firstS, t.run.config.budget.maxWaitS) * 1000);
      const first = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), firstS * 1000).unref());
      const early = await Promise.race([waited, first]);
      if (early !== 'late') return early;
      if (!reaches() || t.run.config.budget.maxWaitS <= firstS) {
        waited.catch(() => undefined);
        throw new Error(`no webhook ${match.what} within ${firstS} s (${receiver.webhooks().length} webhook(s) received in all)`);
      }
      timeoutS = t.run.config.budget.maxWaitS;
      return waited;
    });
  } catch (err) {
    // A missing webhook is judged only where the target is known to reach the receiver: the embedded sandbox, or a
    // receiver that has had a delivery from it in this run (as a page is judged only where one was paid).
    const reached = t.run.target.kind === 'embedded' || receiver.webhooks().length > 0;
    if (!reached) {
      const at = t.run.config.receiver.publicUrl
        ? `WEBHOOK_PUBLIC_URL (${receiver.webhookUrl()})`
        : `${receiver.webhookUrl()} (RECEIVER_HOST; WEBHOOK_PUBLIC_URL unset)`;
      return t.skip(
        'receiver-unreached',
        `no webhook for transaction ${String(idTransaccion)} within ${timeoutS} s, and none at all has reached the ` +
          `suite's receiver at ${at} in this run: the target may not reach it, which says nothing of the target; set ` +
          `WEBHOOK_PUBLIC_URL to a URL at which it reaches this machine`,
      );
    }
    if (!judged)
      return t.skip(
        'premise-elsewhere',
        `no webhook for transaction ${String(idTransaccion)} within ${timeoutS} s: delivery is judged by ` +
          `${quoted(WEBHOOK_TESTCASE)}; this test needs the webhook`,
      );
    return fail(
      'webhook-received',
      clauses,
      `a webhook POST for transaction ${String(idTransaccion)} within ${timeoutS} s`,
      (err as Error).message,
    );
  }
}

/**
 * Webhooks of a declined transaction. 6.1 says a webhook "is sent when a transaction succeeds", never that it is sent
 * only then, and shows no delivery guarantee (nor order): so one that claims the decline approved fails, any other
 * is observed. `approvedId`, a payment of the same setup, must be notified first — the receiver is then reachable —
 * and the decline's webhooks are looked for a little later (at once in the outbox where the target shows one).
 */
export async function declineNotNotifiedAsSuccess(t: TestHandle, declinedId: string, approvedId: string): Promise<void> {
  await webhookFor(t, approvedId, ['6.1-webhook-on-success']);
  const outbox = t.run.target.capabilities.includes('outbox');
  await new Promise((resolve) => setTimeout(resolve, outbox ? 200 : Math.min(t.run.config.webhook.timeoutS, 3) * 1000));
  const { fieldCase } = t.run.config.webhook;
  const sent = (await t.run.receiver())
    .webhooks()
    .filter((w) => webhookField(w, 'idTransaccion', fieldCase) === declinedId)
    .map((w) => webhookField(w, 'esAprobada', fieldCase));
  const queued = outbox
    ? (await t.run.control!.outbox()).webhooks
        .filter((w) => webhookBodyField(w.body, 'idTransaccion', fieldCase) === declinedId)
        .map((w) => webhookBodyField(w.body, 'esAprobada', fieldCase))
    : [];
  const claimsApproved = [...sent, ...queued].filter((v) => v === true || String(v).trim().toLowerCase() === 'true').length;
  holds(
    claimsApproved === 0,
    'decline-not-notified-approved',
    ['6.1-webhook-transaction-data', '6.1-webhook-on-success'],
    `no webhook for the declined transaction ${declinedId} says esAprobada true (it carries the transaction data)`,
    `${claimsApproved} webhook(s) say esAprobada true`,
  );
  if (sent.length + queued.length > 0) {
    t.observe(
      '6.1-webhook-on-success',
      `a webhook for the declined transaction ${declinedId} (esAprobada ` +
        `${[...sent, ...queued].map((v) => JSON.stringify(v)).join(', ')}): ${sent.length} received, ${queued.length} ` +
        `in the outbox; 6.1 says webhooks are sent when a transaction succeeds`,
    );
  }
}

/** POST {auth_url}/connect/token with a business's client credentials (5.1), outside the token cache; contract-observed. */
export async function requestToken(t: TestHandle, business: Credentials): Promise<Exchange> {
  const ex = await t.run.http.request({
    method: 'POST',
    url: `${t.run.target.authUrl}/connect/token`,
    form: {
      grant_type: 'client_credentials',
      audience: t.run.config.tokenAudience,
      client_id: business.clientId,
      client_secret: business.clientSecret,
    },
    idempotent: true,
    label: 'token request',
  });
  observeResponse(t.run.contract, 'issueToken', ex);
  return ex;
}

/** A token of the primary business issued now, outside the run's cache, and the lifetime it announces. */
export async function freshToken(t: TestHandle): Promise<{ token: string; expiresIn: number; issuedAt: number }> {
  const asked = Date.now();
  const ex = await requestToken(t, t.run.target.business);
  succeeded(ex, '5.1-token-request', 'the token request');
  const body = bodyOf(ex, '5.2-token-response');
  // "3600" is read as 3600: how expires_in is written is the contract testcase's finding
  const expiresIn = asInt(body['expires_in']);
  holds(
    expiresIn !== undefined && expiresIn > 0,
    'expires-in',
    '8-token-lifetime',
    'expires_in a positive number of seconds',
    JSON.stringify(expiresIn),
    ex,
  );
  const token = String(body['access_token']);
  secrets.add(token, 'access-token');
  // The earliest it may have been issued (when its request went out): its lifetime is counted from there.
  return { token, expiresIn, issuedAt: ex.sentAt ?? asked };
}

/** The idAplicativo of the primary business, read from a new link's record (2.1 via activar: needs the account). */
export async function businessIdOf(t: TestHandle): Promise<string> {
  const { link } = await createLink(t);
  const { ex, record } = await activate(t, link.idEnlace);
  const id = record.idAplicativo;
  if (typeof id !== 'string' || id === '')
    fail('business-id', '2.1-payment-link-types', 'the link record names its business (idAplicativo)', JSON.stringify(id), ex);
  return id;
}

/** `METHOD /path` of the spec for the operations that take a JSON body (clauseTest's endpoint). */
export const BODY_ENDPOINTS: Record<string, string> = {
  createPaymentLink: 'POST /EnlacePago',
  purchase3ds: 'POST /TransaccionCompra/3DS',
  purchaseWallet: 'POST /TransaccionCompra/Wallet',
  purchasePagoQr: 'POST /TransaccionCompra/PagoQr',
  purchaseQuickPay: 'POST /TransaccionCompra/Quick-pay',
  purchaseMposBanda: 'POST /TransaccionCompra/Mpos/Banda',
};

/**
 * The spec of a test that sends bodies of one operation and judges whether they are accepted (validation rules,
 * properties): its endpoint, purchase flag and needs.
 */
export function bodyTestSpec(on: { operationId: string; auth?: string }, clauses: string[], needs: Need[] = []): ClauseTestSpec {
  const all: Need[] = [...(on.auth === 'account' || on.operationId === 'purchasePagoQr' ? (['account'] as const) : []), ...needs];
  // MPOS purchases need the business's additional permission (4.7); a business without it refuses every body.
  if (on.operationId === 'purchaseMposBanda') all.push('mposPermission');
  return {
    clauses,
    endpoint: BODY_ENDPOINTS[on.operationId]!,
    purchase: PURCHASE_OPERATIONS.has(on.operationId),
    ...(all.length > 0 ? { needs: all } : {}),
  };
}

/** The run's data for generated bodies (generators/requests.ts); the business id (an account names it in MPOS) only when asked. */
export async function bodyContext(t: TestHandle, withBusinessId = false): Promise<BodyContext> {
  const idAplicativo = withBusinessId ? await businessIdOf(t) : defaultContext.idAplicativo;
  return { ...defaultContext, testData: t.run.config.testData, idAplicativo, now: new Date() };
}

/**
 * The positive control of a rejection test: "X is rejected" says something only where the same operation accepts a
 * valid request in this run (a route that is not there rejects everything). One accepted already counts; else the
 * operation's canonical valid request is sent, once per run. Where it is not accepted either, the test is not judged.
 */
export async function acceptsValid(t: TestHandle, operationId: string): Promise<void> {
  if (t.run.accepted.has(operationId)) return;
  const status = await t.run.accepted.control(operationId, () => sendValid(t, operationId));
  if (status >= 200 && status < 300) return;
  // A rate limiter or an unavailable service processed nothing: no verdict on the operation either way.
  if (status === 429 || status === 503) {
    t.skip(
      'rate-limited',
      `not checked: the target answered ${status} to ${operationId}'s canonical valid request (the positive control of a ` +
        'rejection), so it processed nothing; run again with fewer requests at once or when the target is up',
    );
  }
  t.skip(
    'no-positive-control',
    `${operationId} accepted no request in this run, and its canonical valid request answered ${status || 'nothing'}: ` +
      `a rejection says nothing where nothing is accepted; the operation's own tests report why (is API_BASE_URL the ` +
      `API's base, with its path?)`,
  );
}

/** The canonical valid request of a body operation, sent as the test's own step (its label says why). */
async function sendValid(t: TestHandle, operationId: string): Promise<Exchange> {
  const label = `${operationId}: its canonical valid request (the positive control of a rejection)`;
  const { testData } = t.run.config;
  // Its own pairs: a request of its own, never the same body another test sends (no replay of anyone's purchase).
  const own = { datosAdicionales: datosAdicionales('control') };
  switch (operationId) {
    case 'createPaymentLink':
      return t.call(operationId, { json: paymentLinkMinimal(), label });
    case 'purchase3ds':
      return t.call(operationId, { json: purchase3ds((await t.run.receiver()).redirectUrl('control'), testData, own), label });
    case 'purchaseWallet':
      return t.call(operationId, { json: purchaseWallet(testData, own), label });
    case 'purchaseQuickPay':
      return t.call(operationId, { json: purchaseQuickPay(own), auth: 'bearer', label });
    case 'purchaseMposBanda':
      return t.call(operationId, { json: purchaseMposBanda(testData, own), auth: 'bearer', label });
    case 'purchasePagoQr': {
      const link = await t.call('createPaymentLink', { json: paymentLinkMinimal(), label: 'a link for the positive control of PagoQr' });
      const url = field(link.response?.json, 'urlEnlace');
      return t.call(operationId, { json: { urlEnlacePago: typeof url === 'string' ? url : '', ...own }, auth: 'account', label });
    }
    case 'activatePaymentLink': {
      const link = await t.call('createPaymentLink', { json: paymentLinkMinimal(), label: 'a link for the positive control of activar' });
      return t.call(operationId, { pathParams: { id: String(field(link.response?.json, 'idEnlace') ?? '') }, label });
    }
    case 'getTransaction': {
      const wallet = await t.call('purchaseWallet', {
        json: purchaseWallet(testData, own),
        label: 'a purchase for the positive control of the lookup',
      });
      return t.call(operationId, {
        pathParams: { id: String(field(wallet.response?.json, 'idTransaccion') ?? '') },
        auth: 'bearer',
        label,
      });
    }
    default:
      throw new Error(`no canonical valid request for ${operationId}`);
  }
}

/** A request the rule says is rejected, judged after its positive control (acceptsValid). */
export async function rejectedWhereValidAccepted(
  t: TestHandle,
  ex: Exchange,
  operationId: string,
  clauses: string[],
  rule: string,
): Promise<void> {
  const status = ex.response?.status ?? 0;
  // A 429 processed nothing: the test ends not checked, as any test that met one.
  if (status >= 400 && status <= 499 && status !== 429) await acceptsValid(t, operationId);
  rejected(ex, clauses, rule);
}

/** A request the spec says is not accepted (a refusal: no token, a wrong password…), judged after its positive control. */
export async function notAcceptedWhereValidAccepted(
  t: TestHandle,
  ex: Exchange,
  operationId: string,
  clauses: string | string[],
  what: string,
): Promise<void> {
  const status = ex.response?.status ?? 0;
  if ((status < 200 || status > 299) && status !== 429 && status !== 503) await acceptsValid(t, operationId);
  notAccepted(ex, clauses, what);
}

/** POSTs a body as the business (bearer), or as the account where the endpoint (4.5) or the rule (4.7 idAplicativo) wants it. */
export function sendBody(t: TestHandle, operationId: string, body: unknown, auth?: 'account'): Promise<Exchange> {
  return t.call(operationId, { json: body, auth: auth ?? (operationId === 'purchasePagoQr' ? 'account' : 'bearer') });
}

/** The fields of an accepted body come back as sent, in the success response or in the link record (activar: needs the account). */
export async function echoedBack(
  t: TestHandle,
  entry: Pick<RuleEntry, 'echo'>,
  sent: Body,
  accepted: Exchange,
  clauses: string[],
): Promise<void> {
  if (!entry.echo) return;
  bodyOf(accepted, clauses);
  // read as the contract types it (the label is the operationId): an encoding is the contract testcase's finding
  const operationId = accepted.label ?? '';
  let shown: unknown =
    operationId in t.run.contract.operations ? readResponse(t.run.contract, operationId, accepted) : accepted.response?.json;
  let ex = accepted;
  if (entry.echo.in === 'record') ({ ex, record: shown } = await activate(t, readInt(shown, 'idEnlace', '4.1-response-fields', accepted)));
  for (const field of entry.echo.fields) {
    const value = getAt(sent, field);
    // a field sent as null (a notification target) may come back null or absent: only values are compared
    if (value !== undefined && value !== null) echoed(getAt(shown, field), value, field.slice(1), clauses, ex);
  }
}

/**
 * A security check, its severity chosen here (not a spec clause): FAIL with SECURITY_CHECKS=fail, else a WARN with the
 * same evidence. Returns whether the rule held, so a test stops after a WARN as it would after a FAIL.
 */
export function securityCheck(
  t: TestHandle,
  condition: boolean,
  check: CheckName,
  clause: string,
  expected: string,
  actual: string,
  ex?: Exchange,
): boolean {
  if (condition) return true;
  if (t.run.config.securityChecks === 'fail') fail(check, clause, expected, actual, ex);
  t.observe(
    clause,
    `security check failed (SECURITY_CHECKS=observe, so not failed): expected ${expected}; actual ` +
      `${actual}${ex ? `\n${describeExchange(ex)}` : ''}`,
  );
  return false;
}
