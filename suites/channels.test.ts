/**
 * The same transaction told by several channels (issue 27): for each way to buy, the webhook (6.1: "the transaction
 * data"), the redirect (6.3, where there is one), the link's transacciones (2.1) and the lookup (4.8) agree on the
 * id, the amount charged (4.1: quantity × monto), the payment form, the result and datosAdicionales. Values are read
 * tolerantly (a name for an enum, "29.00" for a number: how they are written is the contract testcases' finding);
 * a field a channel does not carry is observed where the spec does not show it (the webhook's payload), not failed.
 * Each comparison is judged on its own (`t.soft`): one channel's deviation does not hide another's.
 */
import { describe } from 'vitest';
import { clauseTest, type T } from '../harness/run/conformance.ts';
import { containsPairs, fieldEquals, paymentApproved } from '../harness/judge/checks.ts';
import { asBool, asEnum, asNumber, field, readResponse } from '../harness/judge/read.ts';
import { webhookField, webhookPairs, type ReceivedWebhook } from '../harness/api/receiver.ts';
import { paymentLinkMinimal, purchasePagoQr } from '../generators/bodies.ts';
import { activate, buy3ds, buyWallet, complete3ds, createLink, datosAdicionales, lookUp, observedLinkBody, payOnScreen, saidOrLookedUp, webhookFor } from './flows.ts';

const MONTO = 10.5;
const CANTIDAD = 3;
const CHARGED = Math.round(MONTO * CANTIDAD * 100) / 100;

/** A webhook field by the spec's name, read as `read` reads it; undefined (and observed) when the webhook lacks it. */
function fromWebhook(t: T, w: ReceivedWebhook, name: string, read: (v: unknown) => unknown = (v) => v): unknown {
  const raw = webhookField(w, name, t.run.config.webhook.fieldCase);
  if (raw === undefined) t.observe('6.1-webhook-payload-not-shown', `the webhook has no ${name}: not compared with the other channels`);
  return raw === undefined ? undefined : (read(raw) ?? raw);
}

const formaPagoOf = (v: unknown) => asEnum(v, 'formaPago');

/** A link of monto MONTO and cantidadPorDefecto CANTIDAD whose redirect and webhook go to the receiver. */
async function linkOfQuantity(t: T) {
  const base = await observedLinkBody(t, { monto: MONTO });
  return createLink(t, { ...base, configuracion: { ...base.configuracion, cantidadPorDefecto: CANTIDAD } });
}

describe('one link payment, told by every channel', () => {
  clauseTest({ clauses: ['6.1-webhook-transaction-data', '4.1-cantidad-por-defecto'], endpoint: 'flow', purchase: true },
    `a link payment of quantity ${CANTIDAD}: the webhook says the amount charged, as the lookup does`, async (t) => {
      const { link } = await linkOfQuantity(t);
      const params = paymentApproved(await payOnScreen(t, link.urlEnlace), '7-dev-authorizes', 'the payment');
      const id = params['idTransaccion'];
      const { ex, tx } = await lookUp(t, id);
      // The amount charged is 4.1-cantidad-por-defecto's own test's finding; here the channels must agree with it.
      const charged = asNumber(tx['monto']) ?? CHARGED;
      const webhook = await webhookFor(t, id, ['6.1-webhook-on-success']);
      const monto = fromWebhook(t, webhook, 'monto', asNumber);
      if (monto !== undefined) t.soft(() => fieldEquals(monto, charged, `monto (webhook; the lookup says ${charged})`, '6.1-webhook-transaction-data', ex));
      const forma = fromWebhook(t, webhook, 'formaPago', formaPagoOf);
      if (forma !== undefined) t.soft(() => fieldEquals(forma, formaPagoOf(tx['formaPago']), 'formaPago (webhook vs lookup)', '6.1-webhook-transaction-data', ex));
    });

  clauseTest({ clauses: ['2.1-transacciones-all', '4.8-same-transaction'], endpoint: 'flow', purchase: true, needs: ['account'] },
    `a link payment of quantity ${CANTIDAD}: the link's transacciones and the lookup say the same amount and result`, async (t) => {
      const { link } = await linkOfQuantity(t);
      const params = paymentApproved(await payOnScreen(t, link.urlEnlace), '7-dev-authorizes', 'the payment');
      const id = params['idTransaccion'];
      const { tx } = await lookUp(t, id);
      const { ex, record } = await activate(t, link.idEnlace);
      const listed = (record.transacciones ?? []).find((x) => String(field(x, 'idTransaccion')) === id);
      t.soft(() => fieldEquals(listed === undefined ? undefined : asNumber(field(listed, 'monto')), asNumber(tx['monto']), `monto of ${id} (link record vs lookup)`, '2.1-transacciones-all', ex));
      t.soft(() => fieldEquals(listed === undefined ? undefined : asBool(field(listed, 'esAprobada')), asBool(tx['esAprobada']), `esAprobada of ${id} (link record vs lookup)`, '2.1-transacciones-all', ex));
      const redirected = asNumber(await saidOrLookedUp(t, params, 'monto'));
      t.soft(() => fieldEquals(redirected, asNumber(tx['monto']), 'monto (redirect vs lookup)', '4.8-same-transaction', ex));
    });

  clauseTest({ clauses: ['4.1-cantidad-por-defecto', '4.5-pays-the-link'], endpoint: 'POST /TransaccionCompra/PagoQr', purchase: true, needs: ['account'] },
    `PagoQr on a link of quantity ${CANTIDAD} charges quantity × monto, in its answer and in the lookup`, async (t) => {
      const { link } = await createLink(t, paymentLinkMinimal({ monto: MONTO, configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'ventas@example.com', cantidadPorDefecto: CANTIDAD } }));
      const paid = await t.call('purchasePagoQr', { json: purchasePagoQr(link.urlEnlace) });
      const response = readResponse(t.run.contract, 'purchasePagoQr', paid);
      t.soft(() => fieldEquals(asNumber(response['monto']), CHARGED, `monto (PagoQr answer: quantity ${CANTIDAD} × ${MONTO})`, '4.1-cantidad-por-defecto', paid));
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      t.soft(() => fieldEquals(asNumber(tx['monto']), CHARGED, `monto (lookup: quantity ${CANTIDAD} × ${MONTO})`, '4.1-cantidad-por-defecto', ex));
    });
});

/** The pairs sent, each as the lookup tells it (its key found in any letter case); a pair it lacks, as sent. */
function asTold(looked: unknown, sent: Record<string, string>): Record<string, string> {
  if (looked === null || typeof looked !== 'object' || Array.isArray(looked)) return sent;
  const keys = Object.keys(looked);
  return Object.fromEntries(
    Object.entries(sent).map(([key, value]) => {
      const found = keys.find((k) => k.toLowerCase() === key.toLowerCase());
      return found === undefined ? [key, value] : [found, String((looked as Record<string, unknown>)[found])];
    }),
  );
}

describe('one API purchase, told by every channel', () => {
  clauseTest({ clauses: ['6.1-webhook-transaction-data', '4.8-same-transaction'], endpoint: 'POST /TransaccionCompra/Wallet', purchase: true },
    'a wallet purchase: its answer, its webhook and its lookup agree on the amount, the payment form, the result and datosAdicionales', async (t) => {
      const receiver = await t.run.receiver();
      const sent = datosAdicionales('canales-wallet');
      const { response, request } = await buyWallet(t, { datosAdicionales: sent, configuracion: { urlWebhook: receiver.webhookUrl('canales') } });
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      t.soft(() => fieldEquals(asNumber(tx['monto']), request.monto, 'monto (lookup)', '4.8-same-transaction', ex));
      t.soft(() => fieldEquals(formaPagoOf(tx['formaPago']), formaPagoOf(response['formaPago']), 'formaPago (answer vs lookup)', '4.8-same-transaction', ex));
      const webhook = await webhookFor(t, response['idTransaccion'], ['6.1-webhook-on-success']);
      const monto = fromWebhook(t, webhook, 'monto', asNumber);
      if (monto !== undefined) t.soft(() => fieldEquals(monto, request.monto, 'monto (webhook)', '6.1-webhook-transaction-data', ex));
      const forma = fromWebhook(t, webhook, 'formaPago', formaPagoOf);
      if (forma !== undefined) t.soft(() => fieldEquals(forma, formaPagoOf(tx['formaPago']), 'formaPago (webhook vs lookup)', '6.1-webhook-transaction-data', ex));
      const aprobada = fromWebhook(t, webhook, 'esAprobada', asBool);
      if (aprobada !== undefined) t.soft(() => fieldEquals(aprobada, asBool(tx['esAprobada']), 'esAprobada (webhook vs lookup)', '6.1-webhook-transaction-data', ex));
      // Agreement between the channels on the pairs sent, as the lookup tells them (the echo of what was sent, key
      // for key, is judged by the datosAdicionales tests; a lookup may carry more pairs than were sent).
      const told = asTold(field(tx, 'datosAdicionales'), sent);
      t.soft(() => containsPairs(webhookPairs(webhook.json, told).pairs, told, 'datosAdicionales (webhook vs lookup)', '6.1-webhook-datos-adicionales', ex));
    });

  clauseTest({ clauses: ['6.1-webhook-transaction-data', '4.8-same-transaction', '6.3-redirect-outcome'], endpoint: 'flow', purchase: true },
    'a completed 3DS purchase: its redirect, its webhook and its lookup agree on the amount and the payment form', async (t) => {
      const receiver = await t.run.receiver();
      const purchase = await buy3ds(t, { configuracion: { urlWebhook: receiver.webhookUrl('canales-3ds') } });
      const params = await complete3ds(t, purchase);
      const { ex, tx } = await lookUp(t, purchase.response['idTransaccion']);
      const redirected = asNumber(await saidOrLookedUp(t, params, 'monto'));
      t.soft(() => fieldEquals(redirected, asNumber(tx['monto']), 'monto (redirect vs lookup)', '4.8-same-transaction', ex));
      const webhook = await webhookFor(t, purchase.response['idTransaccion'], ['6.1-webhook-on-success']);
      const monto = fromWebhook(t, webhook, 'monto', asNumber);
      if (monto !== undefined) t.soft(() => fieldEquals(monto, asNumber(tx['monto']), 'monto (webhook vs lookup)', '6.1-webhook-transaction-data', ex));
      const forma = fromWebhook(t, webhook, 'formaPago', formaPagoOf);
      if (forma !== undefined) t.soft(() => fieldEquals(forma, formaPagoOf(tx['formaPago']), 'formaPago (webhook vs lookup)', '6.1-webhook-transaction-data', ex));
    });
});
