/**
 * Spec 4.5 — POST /TransaccionCompra/PagoQr: an account pays a payment link from its short URL (the URL its QR
 * holds). The payment shows in the link's record (2.1) like a screen payment, and the link's state (3) bounds it:
 * an unknown or unusable link is not paid. The spec shows no status for a refusal: "refused" is "not 2xx".
 * Whether PagoQr completes the payment at once is not shown (it may wait for the payer's bank): what depends on an
 * approved payment is checked only once GET /TransaccionCompra/{id} says it was approved, and observed otherwise.
 */
import { describe } from 'vitest';
import { paymentLinkMinimal, purchasePagoQr } from '../generators/bodies.ts';
import type { PaymentLinkCreateRequest } from '../spec/types.ts';
import { activate, createLink } from './flows/links.ts';
import { declineOnScreen, observedLinkBody } from './flows/screens.ts';
import {
  asBool,
  bodyOf,
  clauseTest,
  type Exchange,
  fieldEquals,
  holds,
  notAccepted,
  readResponse,
  readString,
  succeeded,
  type TestHandle,
} from '../harness/index.ts';

const spec = (clauses: string | string[]) => ({
  clauses,
  endpoint: 'POST /TransaccionCompra/PagoQr',
  needs: ['account' as const],
  purchase: true,
});

async function payQr(t: TestHandle, urlEnlacePago: string, label?: string): Promise<Exchange> {
  return t.call('purchasePagoQr', { json: purchasePagoQr(urlEnlacePago), ...(label ? { label } : {}) });
}

/**
 * The premise that the PagoQr transaction is approved, looked up as the account that made it (4.8). Whether PagoQr
 * completes at once is not shown (3: transitions not shown), so one not approved yet skips the test, with the facts.
 */
async function approvedNow(t: TestHandle, paid: Exchange, what: string): Promise<void> {
  bodyOf(paid, '4.5-response-fields');
  const id = readString(readResponse(t.run.contract, 'purchasePagoQr', paid), 'idTransaccion', '4.5-response-fields', paid);
  const ex = await t.call('getTransaction', { pathParams: { id }, auth: 'account' });
  succeeded(ex, '4.8-endpoint', 'looking the PagoQr transaction up');
  bodyOf(ex, '4.8-response-fields');
  const esAprobada = readResponse(t.run.contract, 'getTransaction', ex)['esAprobada'];
  if (asBool(esAprobada) !== true)
    t.skip(
      'nothing-to-judge',
      `the PagoQr transaction ${id} is not approved right after the request (esAprobada ${JSON.stringify(esAprobada)}; ` +
        `whether PagoQr completes at once is not shown): ${what} not judged, nothing to judge`,
    );
}

/** A refusal with its status observed: the spec shows no error status (7). */
function refused(t: TestHandle, ex: Exchange, clauses: string | string[], what: string): void {
  notAccepted(ex, clauses, what);
  t.observe('7-error-format-not-shown', `${what}: answered ${ex.response?.status ?? 'nothing'}`);
}

describe('4.5 paying a link from its QR', () => {
  clauseTest(
    spec(['4.5-endpoint', '4.5-pays-the-link', '4.5-response-fields']),
    'PagoQr with the short URL pays the link for its monto',
    async (t) => {
      const request: PaymentLinkCreateRequest = paymentLinkMinimal({ monto: 17.35 });
      const { link } = await createLink(t, request);
      const ex = await payQr(t, link.urlEnlace);
      succeeded(ex, ['4.5-endpoint', '4.5-pays-the-link'], 'paying the link from its short URL');
      bodyOf(ex, '4.5-response-fields');
      const body = readResponse(t.run.contract, 'purchasePagoQr', ex);
      holds(
        readString(body, 'idTransaccion', '4.5-response-fields', ex) !== '',
        'id-transaccion',
        '4.5-response-fields',
        'a non-empty idTransaccion',
        JSON.stringify(body['idTransaccion']),
        ex,
      );
      fieldEquals(body['monto'], request.monto, "monto (the link's amount)", '4.5-pays-the-link', ex);
      if (body['producto'] !== request.nombreProducto) {
        t.observe('4.5-response-fields', `producto is ${JSON.stringify(body['producto'])}, not the link's nombreProducto`);
      }
    },
  );

  clauseTest(
    spec(['4.5-pays-the-link', '2.1-successful-payments-counted', '2.1-transacciones-all', '2.1-transaccion-compra-last-success']),
    'an approved PagoQr payment shows in the link record: counted, listed, and its last successful transaction',
    async (t) => {
      const { link } = await createLink(t);
      const paid = await payQr(t, link.urlEnlace);
      succeeded(paid, '4.5-endpoint', 'paying the link from its short URL');
      await approvedNow(t, paid, 'the link record');
      const id = readString(readResponse(t.run.contract, 'purchasePagoQr', paid), 'idTransaccion', '4.5-response-fields', paid);
      const { ex, record } = await activate(t, link.idEnlace);
      fieldEquals(record.cantidadPagosExitosos, 1, 'cantidadPagosExitosos', '2.1-successful-payments-counted', ex);
      holds(
        record.transacciones.some((tx) => tx.idTransaccion === id),
        'transaction-listed',
        '2.1-transacciones-all',
        `transacciones lists ${String(id)}`,
        `ids listed: ${record.transacciones.map((tx) => tx.idTransaccion).join(', ') || '(none)'}`,
        ex,
      );
      fieldEquals(
        record.transaccionCompra?.idTransaccion,
        id,
        'transaccionCompra.idTransaccion',
        '2.1-transaccion-compra-last-success',
        ex,
      );
      // The nombreAplicativo of the purchase and of the link record name the same owning business.
      fieldEquals(
        bodyOf(paid, '4.5-response-fields')['nombreAplicativo'],
        record.nombreAplicativo,
        'nombreAplicativo',
        '4.5-response-fields',
        paid,
      );
    },
  );

  clauseTest(spec('4.5-pays-the-link'), 'PagoQr with the URL of no link is refused', async (t) => {
    const { link } = await createLink(t);
    const unknown = new URL(link.urlEnlace);
    unknown.pathname = `${unknown.pathname.replace(/\/+$/, '')}-no-existe`;
    refused(t, await payQr(t, unknown.href), '4.5-pays-the-link', 'PagoQr with the short URL of no link');
  });

  // "short URL of the payment link" names the value; a URL the link's short URL is only the start of is another one.
  clauseTest(spec('4.5-pays-the-link'), 'PagoQr with the short URL followed by another path segment pays nothing (observed)', async (t) => {
    const { link } = await createLink(t);
    const longer = new URL(link.urlEnlace);
    longer.pathname = `${longer.pathname.replace(/\/+$/, '')}/otro`;
    const paid = await payQr(t, longer.href);
    const s = paid.response?.status ?? 0;
    if (s >= 200 && s < 300)
      t.observe('4.5-pays-the-link', `PagoQr with ${longer.href}, not the link's short URL ${link.urlEnlace}, was accepted (${s})`);
  });

  // The link's path on another host is not the link's short URL either (a service may answer on several of its own
  // hosts, so observed, as the longer path above).
  clauseTest(spec('4.5-pays-the-link'), "PagoQr with the short URL's path on another host pays nothing (observed)", async (t) => {
    const { link } = await createLink(t);
    const otro = new URL(link.urlEnlace);
    otro.hostname = 'otro-comercio.invalid';
    const paid = await payQr(t, otro.href);
    const s = paid.response?.status ?? 0;
    if (s >= 200 && s < 300)
      t.observe('4.5-pays-the-link', `PagoQr with ${otro.href}, not the link's short URL ${link.urlEnlace}, was accepted (${s})`);
  });

  clauseTest(
    spec(['4.5-pays-the-link', '3-inactive-no-payments']),
    'PagoQr of a link made inactive by its failure limit is refused',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosFallidos: 1 } }));
      await declineOnScreen(t, link.urlEnlace, 1);
      refused(t, await payQr(t, link.urlEnlace), ['4.5-pays-the-link', '3-inactive-no-payments'], 'PagoQr of an inactive link');
    },
  );

  clauseTest(spec(['4.5-pays-the-link', '3-success-limit-bounds-use']), 'PagoQr of a link past its success limit is refused', async (t) => {
    const { link } = await createLink(t, paymentLinkMinimal({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    const first = await payQr(t, link.urlEnlace, 'PagoQr 1 of 1');
    succeeded(first, '4.5-endpoint', 'the one payment the link allows');
    await approvedNow(t, first, 'the success limit');
    refused(
      t,
      await payQr(t, link.urlEnlace, 'PagoQr 2 of 1'),
      ['4.5-pays-the-link', '3-success-limit-bounds-use'],
      'PagoQr past cantidadMaximaPagosExitosos',
    );
  });
});
