/**
 * Payment links as the suites use them: created (the urlEnlace found where an answer leaves it out), activated
 * and read through activar, and the failure counter read under every reading 2.1 leaves open.
 */
import { withUniqueRef, type Body } from '../../generators/requests.ts';
import { paymentLinkMinimal } from '../../generators/bodies.ts';
import type { PaymentLink, PaymentLinkCreateRequest, PaymentLinkCreated } from '../../spec/types.ts';
import {
  AmbiguousAnswerError,
  asBool,
  asInt,
  bodyOf,
  decodeQrPng,
  type Exchange,
  fail,
  field,
  holds,
  type PaymentOutcome,
  readInt,
  readResponse,
  readString,
  succeeded,
  type TestHandle,
} from '../../harness/index.ts';

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

/** A link's formaPago taking cards and QuickPay only (2.3): the screen's quick-pay, chosen beside a card. */
export const CARD_AND_QUICK_PAY = {
  permitirTarjetaCreditoDebido: true,
  permitirPagoConPuntoPartner: false,
  permitirPagoEnCuotasPartner: false,
  permitirPagoEnBitcoin: false,
  permitePagoQuickPay: true,
} as const;

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
