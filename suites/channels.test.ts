/**
 * The same transaction told by several channels: for each way to buy, the webhook (6.1: "the transaction
 * data"), the link's transacciones (2.1), the purchase's own answer and the lookup (4.8) agree on the amount charged
 * (4.1: quantity × monto), the payment form, the result and datosAdicionales. The redirect (6.3) against the lookup is
 * suites/lookup.test.ts's (`sameAsRedirect`, for a screen payment and a 3DS completion), judged once there.
 * The lookup is the reference each channel is compared with. Values are read tolerantly (a name for an enum, "29.00"
 * for a number: how they are written is the contract testcases' finding); a field a channel does not carry is not
 * compared (the webhook's payload is not shown: observed). Each comparison is judged on its own (`t.soft`): one
 * channel's deviation does not hide another's.
 */
import { describe } from 'vitest';
import { purchasePagoQr } from '../generators/bodies.ts';
import { activate, createLink } from './flows/links.ts';
import { lookUp, webhookFor } from './flows/lookups.ts';
import { buy3ds, buyWallet, complete3ds, createQuickPay, datosAdicionales, paidQuickPay } from './flows/purchases.ts';
import { observedLinkBody, payOnScreen } from './flows/screens.ts';
import {
  amountEquals,
  asBool,
  asEnum,
  asNumber,
  clauseTest,
  containsPairs,
  type Exchange,
  field,
  fieldEquals,
  keyOf,
  paymentApproved,
  readResponse,
  type ReceivedWebhook,
  succeeded,
  type TestHandle,
  webhookField,
  webhookPairs,
} from '../harness/index.ts';

const MONTO = 10.5;
const CANTIDAD = 3;
const CHARGED = Math.round(MONTO * CANTIDAD * 100) / 100;

/** The fields every channel may tell, each read as it is compared. */
const READ = {
  monto: asNumber,
  formaPago: (v: unknown) => asEnum(v, 'formaPago'),
  esAprobada: asBool,
  resultadoTransaccion: (v: unknown) => asEnum(v, 'resultadoTransaccion'),
} as const;
type Told = keyof typeof READ;

/**
 * Each of `names` the channel tells (`said`: undefined where it does not carry it) against the lookup's `tx`, one
 * soft check per field under the channel's clause. A field either side does not carry, or carries as no value of its
 * type (formaPago 7, a monto that is no number), is not compared: that is the contract testcases' finding, and says
 * nothing of whether the channels agree.
 */
function agreesWithLookup(
  t: TestHandle,
  channel: string,
  said: (name: Told) => unknown,
  tx: Record<string, unknown>,
  names: Told[],
  clause: string,
  ex: Exchange,
): void {
  for (const name of names) {
    const told = READ[name](said(name));
    const looked = READ[name](field(tx, name));
    if (told === undefined || looked === undefined) continue;
    t.soft(() => fieldEquals(told, looked, `${name} (${channel} vs lookup)`, clause, ex));
  }
}

/** A webhook field by the spec's name; undefined (and observed) when the webhook lacks it. */
function fromWebhook(t: TestHandle, w: ReceivedWebhook, name: string): unknown {
  const raw = webhookField(w, name, t.run.config.webhook.fieldCase);
  if (raw === undefined) t.observe('6.1-webhook-payload-not-shown', `the webhook has no ${name}: not compared with the other channels`);
  return raw;
}

/** The pairs sent, each as the lookup tells it (its key found in any letter case); undefined when the lookup has none. */
function asTold(looked: unknown, sent: Record<string, string>): Record<string, string> | undefined {
  if (looked === null || typeof looked !== 'object' || Array.isArray(looked)) return undefined;
  const record = looked as Record<string, unknown>;
  const told = Object.entries(sent).flatMap(([key]) => {
    const found = keyOf(record, key);
    return found === undefined ? [] : [[found, String(record[found])]];
  });
  return told.length === 0 ? undefined : Object.fromEntries(told);
}

/**
 * The webhook against the lookup: the fields it carries, and the pairs sent as the lookup tells them (the echo of
 * what was sent, key for key, is the datosAdicionales tests' finding; a lookup may carry more pairs than were sent).
 */
function webhookAgrees(
  t: TestHandle,
  webhook: ReceivedWebhook,
  tx: Record<string, unknown>,
  sent: Record<string, string> | undefined,
  ex: Exchange,
): void {
  agreesWithLookup(
    t,
    'webhook',
    (name) => fromWebhook(t, webhook, name),
    tx,
    ['monto', 'formaPago', 'esAprobada', 'resultadoTransaccion'],
    '6.1-webhook-transaction-data',
    ex,
  );
  const told = sent && asTold(field(tx, 'datosAdicionales'), sent);
  if (told)
    t.soft(() =>
      containsPairs(
        webhookPairs(webhook.json, told).pairs,
        told,
        'datosAdicionales (webhook vs lookup)',
        '6.1-webhook-datos-adicionales',
        ex,
      ),
    );
}

/** A link of monto MONTO and cantidadPorDefecto CANTIDAD whose redirect and webhook go to the receiver. */
async function linkOfQuantity(t: TestHandle) {
  const base = await observedLinkBody(t, { monto: MONTO });
  return createLink(t, { ...base, configuracion: { ...base.configuracion, cantidadPorDefecto: CANTIDAD } });
}

/**
 * The link's record (activar) against the lookup: the transaction as transacciones lists it. Not listed at all is
 * 2.1-transacciones-all's own finding; its values are compared where it is.
 */
async function listingAgrees(t: TestHandle, idEnlace: number, id: string, tx: Record<string, unknown>): Promise<void> {
  const { ex, record } = await activate(t, idEnlace);
  const listed = (record.transacciones ?? []).find((x) => String(field(x, 'idTransaccion')) === id);
  if (listed === undefined) return;
  const fields: ('monto' | 'formaPago' | 'esAprobada' | 'resultadoTransaccion')[] = [
    'monto',
    'formaPago',
    'esAprobada',
    'resultadoTransaccion',
  ];
  agreesWithLookup(t, 'link record', (name) => field(listed, name), tx, fields, '2.1-transacciones-all', ex);
}

describe('one link payment, told by every channel', () => {
  clauseTest(
    { clauses: ['6.1-webhook-transaction-data', '4.1-cantidad-por-defecto'], endpoint: 'flow', purchase: true },
    `a link payment of quantity ${CANTIDAD}: the webhook says the amount charged, the payment form and the result, as the lookup does`,
    async (t) => {
      const { link } = await linkOfQuantity(t);
      const params = paymentApproved(await payOnScreen(t, link.urlEnlace), '7-dev-authorizes', 'the payment');
      const id = params['idTransaccion'];
      const { ex, tx } = await lookUp(t, id);
      // The amount charged is 4.1-cantidad-por-defecto's own test's finding; here the channels must agree with it.
      webhookAgrees(t, await webhookFor(t, id, ['6.1-webhook-on-success']), tx, undefined, ex);
    },
  );

  clauseTest(
    { clauses: '2.1-transacciones-all', endpoint: 'flow', purchase: true, needs: ['account'] },
    `a link payment of quantity ${CANTIDAD}: the link's transacciones say the amount, the payment form and the result the lookup says`,
    async (t) => {
      const { link } = await linkOfQuantity(t);
      const params = paymentApproved(await payOnScreen(t, link.urlEnlace), '7-dev-authorizes', 'the payment');
      const id = params['idTransaccion'];
      const { tx } = await lookUp(t, id);
      await listingAgrees(t, link.idEnlace, String(id), tx);
    },
  );

  clauseTest(
    {
      clauses: ['4.1-cantidad-por-defecto', '4.5-pays-the-link', '6.1-webhook-transaction-data', '2.1-transacciones-all'],
      endpoint: 'POST /TransaccionCompra/PagoQr',
      purchase: true,
      needs: ['account'],
    },
    `PagoQr on a link of quantity ${CANTIDAD} charges quantity × monto, and its answer, webhook, the link's ` +
      `transacciones and the lookup agree`,
    async (t) => {
      const { link } = await linkOfQuantity(t);
      const sent = datosAdicionales('canales-pagoqr');
      const paid = await t.call('purchasePagoQr', { json: purchasePagoQr(link.urlEnlace, { datosAdicionales: sent }) });
      succeeded(paid, '4.5-pays-the-link', 'PagoQr of a payable link');
      const response = readResponse(t.run.contract, 'purchasePagoQr', paid);
      t.soft(() =>
        amountEquals(
          response['monto'],
          CHARGED,
          `monto (PagoQr answer: quantity ${CANTIDAD} × ${MONTO})`,
          '4.1-cantidad-por-defecto',
          paid,
        ),
      );
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      t.soft(() => amountEquals(tx['monto'], CHARGED, `monto (lookup: quantity ${CANTIDAD} × ${MONTO})`, '4.1-cantidad-por-defecto', ex));
      webhookAgrees(t, await webhookFor(t, response['idTransaccion'], ['6.1-webhook-on-success']), tx, sent, ex);
      await listingAgrees(t, link.idEnlace, String(response['idTransaccion']), tx);
    },
  );
});

describe('one API purchase, told by every channel', () => {
  clauseTest(
    { clauses: ['6.1-webhook-transaction-data', '4.8-same-transaction'], endpoint: 'POST /TransaccionCompra/Wallet', purchase: true },
    'a wallet purchase: its answer, its webhook and its lookup agree on the amount, the payment form, the result and datosAdicionales',
    async (t) => {
      const receiver = await t.run.receiver();
      const sent = datosAdicionales('canales-wallet');
      const { response, request } = await buyWallet(t, {
        datosAdicionales: sent,
        configuracion: { urlWebhook: receiver.webhookUrl('canales') },
      });
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      t.soft(() => fieldEquals(asNumber(tx['monto']), request.monto, 'monto (lookup)', '4.8-same-transaction', ex));
      agreesWithLookup(t, 'answer', (name) => response[name], tx, ['formaPago', 'esAprobada'], '4.8-same-transaction', ex);
      webhookAgrees(t, await webhookFor(t, response['idTransaccion'], ['6.1-webhook-on-success']), tx, sent, ex);
    },
  );

  clauseTest(
    { clauses: ['6.1-webhook-transaction-data', '6.1-webhook-datos-adicionales'], endpoint: 'flow', purchase: true },
    'a completed 3DS purchase: its webhook and its lookup agree on the amount, the payment form, the result and datosAdicionales',
    async (t) => {
      const receiver = await t.run.receiver();
      const sent = datosAdicionales('canales-3ds');
      const purchase = await buy3ds(t, { datosAdicionales: sent, configuracion: { urlWebhook: receiver.webhookUrl('canales-3ds') } });
      await complete3ds(t, purchase);
      const { ex, tx } = await lookUp(t, purchase.response['idTransaccion']);
      webhookAgrees(t, await webhookFor(t, purchase.response['idTransaccion'], ['6.1-webhook-on-success']), tx, sent, ex);
    },
  );

  clauseTest(
    { clauses: ['6.1-webhook-transaction-data', '4.8-same-transaction'], endpoint: 'flow', purchase: true },
    'a paid quick-pay: its answer, its webhook and its lookup agree on the amount, the payment form, the result and datosAdicionales',
    async (t) => {
      const receiver = await t.run.receiver();
      const sent = datosAdicionales('canales-qp');
      const { request, response } = await createQuickPay(t, {
        datosAdicionales: sent,
        configuracion: { urlWebhook: receiver.webhookUrl('canales-qp') },
      });
      const { ex, tx } = await paidQuickPay(t, response);
      t.soft(() => fieldEquals(asNumber(tx['monto']), request.monto, 'monto (lookup of the quick-pay paid)', '4.8-same-transaction', ex));
      webhookAgrees(t, await webhookFor(t, response['idTransaccion'], ['6.1-webhook-on-success']), tx, sent, ex);
    },
  );
});
