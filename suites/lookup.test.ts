/**
 * Spec 4.8 — GET /TransaccionCompra/{id}: the transaction of each kind of purchase, with the values the purchase
 * showed (its response, or the redirect of 6.3 for payments made in the browser). A declined payment is reported in
 * the transaction itself (7). An unknown id is not found; its status code is not shown (7), so it is only observed.
 */
import { parse } from 'node-html-parser';
import { describe } from 'vitest';
import { paymentLinkMinimal, purchaseWallet } from '../generators/bodies.ts';
import { notAcceptedWhereValidAccepted } from './flows/bodies.ts';
import { activate, createLink } from './flows/links.ts';
import { lookUp, LOOKUP_TESTCASE } from './flows/lookups.ts';
import { buy3ds, buyMpos, buyWallet, complete3ds, createQuickPay, datosAdicionales, paidQuickPay } from './flows/purchases.ts';
import { DECLINE_CVV, declinedAsPremise, observedLinkBody, payOnScreen } from './flows/screens.ts';
import {
  asBool,
  asEnum,
  asNumber,
  bodyOf,
  clauseTest,
  containsPairs,
  type Exchange,
  fieldEquals,
  fieldIn,
  flagEquals,
  FORMA_PAGO,
  holds,
  NotJudged,
  paymentApproved,
  readResponse,
  readString,
  succeeded,
  type TestHandle,
} from '../harness/index.ts';

const ENDPOINT = 'GET /TransaccionCompra/{id}';

const BITCOIN_ONLY = {
  permitirTarjetaCreditoDebido: false,
  permitirPagoConPuntoPartner: false,
  permitirPagoEnCuotasPartner: false,
  permitirPagoEnBitcoin: true as const,
  permitePagoQuickPay: false,
};

/**
 * Each field of the looked-up transaction equals what the purchase showed (4.8). The id first and as a plain check
 * (it says which transaction this is: the rest depends on it); every other field judged on its own (`t.soft`). An enum
 * value outside 2.2 (formaPago 7) tells nothing about which transaction this is: it is the contract testcase's
 * finding, and not compared here.
 */
function sameTransaction(t: TestHandle, tx: Record<string, unknown>, expected: Record<string, unknown>, ex: Exchange): void {
  if ('idTransaccion' in expected) fieldEquals(tx['idTransaccion'], expected['idTransaccion'], 'idTransaccion', '4.8-same-transaction', ex);
  for (const [name, value] of Object.entries(expected)) {
    if (name === 'idTransaccion' || (name === 'formaPago' && asEnum(tx[name], 'formaPago') === undefined)) continue;
    t.soft(() => fieldEquals(tx[name], value, name, '4.8-same-transaction', ex));
  }
}

/**
 * The redirect's text values (6.3) against the JSON of the lookup: each field the redirect carries (one it lacks is
 * the finding of the 6.3 test, not a disagreement), each judged on its own.
 */
function sameAsRedirect(t: TestHandle, tx: Record<string, unknown>, params: Record<string, string>, ex: Exchange): void {
  const has = (name: string) => params[name] !== undefined;
  sameTransaction(
    t,
    tx,
    {
      idTransaccion: params['idTransaccion'],
      ...(has('monto') ? { monto: asNumber(params['monto']) } : {}),
      ...(has('formaPago') ? { formaPago: asEnum(params['formaPago'], 'formaPago') } : {}),
    },
    ex,
  );
  if (has('esAprobada'))
    t.soft(() =>
      flagEquals(params['esAprobada'], asBool(tx['esAprobada']) === true, 'esAprobada (redirect vs lookup)', '4.8-same-transaction', ex),
    );
  if (has('esReal'))
    t.soft(() => flagEquals(params['esReal'], asBool(tx['esReal']) === true, 'esReal (redirect vs lookup)', '4.8-same-transaction', ex));
  if (has('codigoAutorizacion'))
    t.soft(() =>
      fieldEquals(tx['codigoAutorizacion'] ?? '', params['codigoAutorizacion'], 'codigoAutorizacion', '4.8-same-transaction', ex),
    );
  // 6.3's mensaje is the transaction's (2.2): an approval's redirect says none ("") where the lookup says none (null).
  if (has('mensaje'))
    t.soft(() => fieldEquals(tx['mensaje'] ?? '', params['mensaje'], 'mensaje (redirect vs lookup)', '4.8-same-transaction', ex));
}

async function paidLink(t: TestHandle, cvv?: string): Promise<Record<string, string>> {
  const { link } = await createLink(t, await observedLinkBody(t));
  const outcome = await payOnScreen(t, link.urlEnlace, cvv === undefined ? {} : { cvv });
  return cvv === DECLINE_CVV
    ? declinedAsPremise(t, outcome, 'the payment with cvv 111')
    : paymentApproved(outcome, '7-dev-authorizes', 'the link payment');
}

describe('4.8 the looked-up transaction is the one purchased', () => {
  clauseTest({ clauses: [...LOOKUP_TESTCASE.clauses], endpoint: ENDPOINT, purchase: true }, LOOKUP_TESTCASE, async (t) => {
    const { request, response } = await buyWallet(t, { datosAdicionales: datosAdicionales('lookup-wallet') });
    const { ex, tx } = await lookUp(t, response['idTransaccion'], true);
    sameTransaction(
      t,
      tx,
      {
        idTransaccion: response['idTransaccion'],
        esReal: response['esReal'],
        monto: request.monto,
        formaPago: response['formaPago'],
        idExterno: request.idExterno,
      },
      ex,
    );
    t.soft(() => containsPairs(tx['datosAdicionales'], request.datosAdicionales!, 'datosAdicionales', '2.2-datos-adicionales-echo', ex));
  });

  clauseTest(
    { clauses: ['4.8-same-transaction', '6.3-redirect-outcome', '2.2-datos-adicionales-echo'], endpoint: ENDPOINT, purchase: true },
    'a completed 3DS purchase',
    async (t) => {
      const purchase = await buy3ds(t, { datosAdicionales: datosAdicionales('lookup-3ds') });
      const params = await complete3ds(t, purchase);
      const { ex, tx } = await lookUp(t, purchase.response['idTransaccion']);
      sameTransaction(t, tx, { esReal: purchase.response['esReal'], monto: purchase.request.monto }, ex);
      sameAsRedirect(t, tx, params, ex);
      t.soft(() =>
        containsPairs(tx['datosAdicionales'], purchase.request.datosAdicionales!, 'datosAdicionales', '2.2-datos-adicionales-echo', ex),
      );
    },
  );

  clauseTest(
    { clauses: ['4.8-same-transaction', '2.2-formapago-values', '2.2-idexterno-echo'], endpoint: ENDPOINT, purchase: true },
    'a paid quick-pay, with formaPago QuickPay (4)',
    async (t) => {
      const { request, response } = await createQuickPay(t);
      // A payment the suite itself made after the stated fechaVencimiento is not the target's decline.
      const { ex, tx } = await paidQuickPay(t, response);
      sameTransaction(
        t,
        tx,
        {
          idTransaccion: response['idTransaccion'],
          esReal: response['esReal'],
          monto: request.monto,
          idExterno: request.idExterno,
          esAprobada: true,
        },
        ex,
      );
      // a value outside 2.2 (not an enum at all) is the contract testcase's finding; a wrong member is this test's
      if (asEnum(tx['formaPago'], 'formaPago') !== undefined)
        t.soft(() => fieldEquals(tx['formaPago'], FORMA_PAGO.QuickPay, 'formaPago (QuickPay=4)', '2.2-formapago-values', ex));
    },
  );

  clauseTest(
    { clauses: '4.8-same-transaction', endpoint: ENDPOINT, purchase: true, needs: ['mposPermission'] },
    'an MPOS purchase',
    async (t) => {
      const { request, response } = await buyMpos(t);
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      sameTransaction(
        t,
        tx,
        {
          idTransaccion: response['idTransaccion'],
          esReal: response['esReal'],
          esAprobada: response['esAprobada'],
          codigoAutorizacion: response['codigoAutorizacion'] ?? null,
          monto: request.monto,
        },
        ex,
      );
    },
  );

  clauseTest(
    { clauses: ['4.8-same-transaction', '6.3-redirect-outcome'], endpoint: ENDPOINT, purchase: true },
    'a link paid on its screen',
    async (t) => {
      const params = await paidLink(t);
      const { ex, tx } = await lookUp(t, params['idTransaccion']);
      sameAsRedirect(t, tx, params, ex);
    },
  );

  clauseTest(
    { clauses: '4.8-same-transaction', endpoint: ENDPOINT, purchase: true, needs: ['account'] },
    'a link paid through PagoQr',
    async (t) => {
      const { link, request } = await createLink(t);
      const paid = await t.call('purchasePagoQr', { json: { urlEnlacePago: link.urlEnlace } });
      succeeded(paid, '4.5-endpoint', 'paying the link through PagoQr');
      bodyOf(paid, '4.5-response-fields');
      const response = readResponse(t.run.contract, 'purchasePagoQr', paid);
      const { ex, tx } = await lookUp(t, readString(response, 'idTransaccion', '4.5-response-fields', paid));
      sameTransaction(t, tx, { idTransaccion: response['idTransaccion'], monto: request.monto }, ex);
    },
  );
});

describe('4.8 a transaction not yet paid', () => {
  // docs/decisions.md "Null and absent": 2.2's nullable fields are null until they have a value; one left out (a
  // serializer that ignores nulls) reads as null, and the contract testcase observes it (2-nullable-omitted).
  clauseTest(
    { clauses: ['4.8-response-fields', '2.2-transaction-types'], endpoint: ENDPOINT, purchase: true },
    'a 3DS purchase not yet completed is looked up with montoOriginal and resultadoTransaccion null (or left out) or of their 2.2 types',
    async (t) => {
      const purchase = await buy3ds(t);
      const { ex, tx } = await lookUp(t, purchase.response['idTransaccion']);
      const montoOriginal = tx['montoOriginal'] ?? null;
      holds(
        montoOriginal === null || typeof montoOriginal === 'number',
        'nullable-present',
        ['4.8-response-fields', '2.2-transaction-types'],
        'montoOriginal a decimal or null (left out reads as null)',
        `montoOriginal = ${JSON.stringify(montoOriginal)}`,
        ex,
      );
      // no result yet (null, or left out) or one of 2.2's
      fieldIn(
        tx['resultadoTransaccion'] ?? null,
        [null, 0, 1, 2],
        'resultadoTransaccion (none yet, or ExitosaAprobada=0, ExitosaDeclinada=1, Fallida=2)',
        ['4.8-response-fields', '2.2-transaction-types'],
        ex,
      );
    },
  );
});

describe('4.8 a Bitcoin payment', () => {
  // The transaction of a payment made on the screen is found through the link's record (2.1 transacciones, via activar).
  clauseTest(
    {
      clauses: ['4.8-datos-bitcoin', '4.8-bitcoin-url-qr', '2.1-transacciones-all'],
      endpoint: ENDPOINT,
      purchase: true,
      needs: ['account'],
    },
    'carries datosBitcoin: urlQR, qrData, amounts in bitcoins and dollars, and the QR expiry',
    async (t) => {
      const { link } = await createLink(
        t,
        await observedLinkBody(t, {
          formaPago: {
            permitirTarjetaCreditoDebido: false,
            permitirPagoConPuntoPartner: false,
            permitirPagoEnCuotasPartner: false,
            permitirPagoEnBitcoin: true,
            permitePagoQuickPay: false,
          },
        }),
      );
      await payOnScreen(t, link.urlEnlace, { formaPago: 3 });
      const { ex: read, record } = await activate(t, link.idEnlace);
      const bitcoin = (record.transacciones ?? []).find((tx) => tx.formaPago === 3);
      holds(
        bitcoin !== undefined,
        'bitcoin-transaction',
        '2.1-transacciones-all',
        "the Bitcoin payment among the link's transacciones (formaPago 3)",
        JSON.stringify(record.transacciones ?? null).slice(0, 300),
        read,
      );
      const { ex, tx } = await lookUp(t, bitcoin.idTransaccion);
      const datos = tx['datosBitcoin'] as Record<string, unknown> | null | undefined;
      holds(
        typeof datos === 'object' && datos !== null,
        'datos-bitcoin',
        '4.8-datos-bitcoin',
        'datosBitcoin for a Bitcoin payment',
        JSON.stringify(datos),
        ex,
      );
      fieldEquals(datos['ammountInDollars'], tx['monto'], 'datosBitcoin.ammountInDollars', '4.8-datos-bitcoin', ex);
      // The rate is not shown, but a payment of more than nothing in dollars is more than nothing in bitcoins.
      const bitcoins = asNumber(datos['ammountInBitcoins']);
      const dollars = asNumber(datos['ammountInDollars']);
      if (dollars !== undefined && dollars > 0)
        holds(
          bitcoins !== undefined && bitcoins > 0,
          'datos-bitcoin',
          '4.8-datos-bitcoin',
          `datosBitcoin.ammountInBitcoins, the amount in bitcoins of a payment of ${dollars} dollars, is more than 0`,
          JSON.stringify(datos['ammountInBitcoins']),
          ex,
        );
      // qrData is "the address to copy instead of the QR": a Bitcoin address is letters and digits (base58 or bech32),
      // possibly written as a bitcoin: URI; one that is not is observed (a description, no rule).
      const qrData = datos['qrData'];
      if (typeof qrData === 'string') {
        const address = qrData.replace(/^bitcoin:/i, '').split('?')[0] ?? '';
        if (!/^[A-Za-z0-9]{14,90}$/.test(address))
          t.observe(
            '4.8-datos-bitcoin',
            `datosBitcoin.qrData ${JSON.stringify(qrData)} is not an address to copy (letters and digits only)`,
          );
      }
      // fechaVencimiento is the "QR expiry" (a description): a QR expiring before the payment it was handed out for is
      // no time to pay, observed. Both dates are the service's, read in the same clock.
      const vence = Date.parse(String(datos['fechaVencimiento'] ?? ''));
      const hecha = Date.parse(String(tx['fechaTransaccion'] ?? ''));
      if (Number.isFinite(vence) && Number.isFinite(hecha) && vence < hecha)
        t.observe(
          '4.8-datos-bitcoin',
          `datosBitcoin.fechaVencimiento ${String(datos['fechaVencimiento'])} is before the payment's fechaTransaccion ` +
            `${String(tx['fechaTransaccion'])}: the QR expired before it was handed out`,
        );
      // "QR URL" describes the value (4.8-bitcoin-url-qr): a URL that serves no image is observed.
      const urlQR = datos['urlQR'];
      if (typeof urlQR === 'string' && URL.canParse(urlQR)) {
        const image = await t.run.payer.fetchImage(urlQR);
        if (image.status < 200 || image.status > 299 || !/^image\//i.test(image.contentType))
          t.observe(
            '4.8-bitcoin-url-qr',
            `datosBitcoin.urlQR ${urlQR} answered ${image.status} ${image.contentType || '(no content type)'}, not an image`,
          );
      }
    },
  );
});

describe('4.8 what the screen shows of a Bitcoin payment', () => {
  // How the screen answers a Bitcoin payment is not shown; datosBitcoin describes what the customer pays with (the QR
  // at urlQR, or qrData, "the address to copy instead of the QR"): a page after the payment showing neither is observed.
  clauseTest(
    { clauses: ['4.8-datos-bitcoin', '4.8-bitcoin-url-qr'], endpoint: ENDPOINT, purchase: true, needs: ['account'] },
    'the page answering a Bitcoin payment on the screen shows its QR (datosBitcoin.urlQR) or its address (qrData)',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { formaPago: BITCOIN_ONLY }));
      const outcome = await payOnScreen(t, link.urlEnlace, { formaPago: 3 });
      const { record } = await activate(t, link.idEnlace);
      const bitcoin = (record.transacciones ?? []).find((tx) => tx.formaPago === 3);
      if (bitcoin === undefined)
        throw new NotJudged(`the Bitcoin payment on the screen (${outcome.kind}) left no transaction of formaPago 3 to compare with`);
      const { tx } = await lookUp(t, bitcoin.idTransaccion);
      const datos = (tx['datosBitcoin'] ?? {}) as Record<string, unknown>;
      const qrData = typeof datos['qrData'] === 'string' ? datos['qrData'] : undefined;
      const urlQR = typeof datos['urlQR'] === 'string' && URL.canParse(datos['urlQR']) ? new URL(datos['urlQR']).href : undefined;
      // A redirect away from the service leaves what the customer saw to the pages it went through: not judged here.
      if (outcome.kind === 'redirect')
        return t.skip(
          'nothing-to-judge',
          `the Bitcoin payment on the screen ended in a redirect to ${outcome.location}: no page of the service to judge`,
        );
      if (qrData === undefined && urlQR === undefined)
        return t.skip(
          'premise-elsewhere',
          `the lookup of ${bitcoin.idTransaccion} gives no datosBitcoin.urlQR nor qrData to look for: the datosBitcoin tests judge it`,
        );
      const root = parse(outcome.html);
      const targets = root
        .querySelectorAll('img[src], a[href], source[srcset]')
        .map((el) => el.getAttribute('src') ?? el.getAttribute('href') ?? el.getAttribute('srcset') ?? '')
        .map((src) => (urlQR !== undefined && URL.canParse(src, urlQR) ? new URL(src, urlQR).href : src));
      const shown = (qrData !== undefined && root.text.includes(qrData)) || (urlQR !== undefined && targets.includes(urlQR));
      if (!shown)
        t.observe(
          '4.8-datos-bitcoin',
          `the page answering the Bitcoin payment ${bitcoin.idTransaccion} (status ${outcome.status}) shows neither its QR ` +
            `${urlQR ?? '(no urlQR)'} nor its address ${qrData ?? '(no qrData)'}: the customer is not shown what to pay`,
        );
    },
  );
});

describe('7 a failed payment is reported in the transaction', () => {
  clauseTest(
    { clauses: ['7-failure-in-transaction', '2.2-mensaje-on-error', '2.2-resultado-values'], endpoint: ENDPOINT, purchase: true },
    'a declined payment: esAprobada false, mensaje with the error, resultadoTransaccion 1 or 2',
    async (t) => {
      const params = await paidLink(t, DECLINE_CVV);
      const { ex, tx } = await lookUp(t, params['idTransaccion']);
      fieldEquals(tx['esAprobada'], false, 'esAprobada', '7-failure-in-transaction', ex);
      const mensaje = tx['mensaje'];
      holds(
        typeof mensaje === 'string' && mensaje.trim() !== '',
        'mensaje-on-error',
        ['7-failure-in-transaction', '2.2-mensaje-on-error'],
        'mensaje holding the error text',
        JSON.stringify(mensaje),
        ex,
      );
      fieldIn(
        tx['resultadoTransaccion'],
        [1, 2],
        'resultadoTransaccion (ExitosaDeclinada=1, Fallida=2)',
        ['7-failure-in-transaction', '2.2-resultado-values'],
        ex,
      );
    },
  );
});

describe('4.8 an unknown id', () => {
  clauseTest({ clauses: '4.8-endpoint', endpoint: ENDPOINT }, 'is not found', async (t) => {
    const ex = await t.call('getTransaction', { pathParams: { id: '00000000-0000-4000-8000-000000000000' }, auth: 'bearer' });
    await notAcceptedWhereValidAccepted(t, ex, 'getTransaction', '4.8-endpoint', 'a lookup of an id that names no transaction');
    const status = ex.response?.status ?? 0;
    if (status < 400 || status > 499)
      t.observe('7-error-format-not-shown', `an unknown id answered ${status} (a 4xx such as 404 would be usual)`);
  });
});

// Who reads a transaction where an account owns two businesses (CLIENT_ID and SECOND_CLIENT_ID): 4.8 takes "account or
// business" and 1 says an account owns its businesses, but which transactions each may read is not stated — observed.
describe('4.8 the transactions of the two businesses of one account', () => {
  const is2xx = (ex: Exchange): boolean => (ex.response?.status ?? 0) >= 200 && (ex.response?.status ?? 0) < 300;

  clauseTest(
    { clauses: ['4.8-endpoint', '5.5-either-endpoints'], endpoint: ENDPOINT, purchase: true, needs: ['businessNoMpos'] },
    "a business's token does not read a transaction of the other business (observed)",
    async (t) => {
      const { response } = await buyWallet(t);
      const id = String(response['idTransaccion']);
      const ex = await t.run.callAs(t.run.target.businessNoMpos)('getTransaction', { pathParams: { id }, auth: 'bearer' });
      if (is2xx(ex))
        t.observe(
          '5.5-either-endpoints',
          `the second business's token (SECOND_CLIENT_ID) read transaction ${id} of the first business (CLIENT_ID): ${ex.response?.status}`,
        );
    },
  );

  clauseTest(
    { clauses: ['4.8-endpoint', '5.5-either-endpoints'], endpoint: ENDPOINT, purchase: true, needs: ['account', 'businessNoMpos'] },
    'the account reads a transaction of each business it owns (observed)',
    async (t) => {
      const second = t.run.callAs(t.run.target.businessNoMpos);
      // The account owns the second business where it may activate that business's link (4.2, account only).
      const created = await second('createPaymentLink', { json: paymentLinkMinimal(), auth: 'bearer' });
      succeeded(created, '4.1-endpoint', "the second business's link");
      const idEnlace = bodyOf(created, '4.1-response-fields')['idEnlace'] as string | number;
      const owned = await t.call('activatePaymentLink', { pathParams: { id: idEnlace }, auth: 'account' });
      if (!is2xx(owned))
        return t.skip(
          'nothing-to-judge',
          `the account did not activate the second business's link (${owned.response?.status ?? 'no answer'}): it is not shown to own that business, nothing to judge`,
        );
      const bought = await second('purchaseWallet', { json: purchaseWallet(t.run.config.testData), auth: 'bearer' });
      succeeded(bought, '4.4-endpoint', "the second business's wallet purchase");
      const id = String(bodyOf(bought, '4.4-response-fields')['idTransaccion']);
      const ex = await t.call('getTransaction', { pathParams: { id }, auth: 'account' });
      if (!is2xx(ex))
        t.observe(
          '5.5-either-endpoints',
          `the account activated a link of its second business (SECOND_CLIENT_ID) but could not read that business's transaction ${id}: ${ex.response?.status}`,
        );
    },
  );
});
