/**
 * Money to the cent: every amount the service writes — the purchase's answer, the lookup (4.8), the webhook (6.1), the
 * redirect (6.3), the link's transacciones (2.1) — is what the spec's arithmetic gives at two decimals (4.1: amount
 * charged = quantity × monto; a purchase's own monto, echoed). Compared exactly (amountEquals): a value with binary
 * noise (0.30000000000000004) or a cent off is a finding under the clause that states the arithmetic; how it is
 * written (10.5, "10.50") is the contract testcases' matter. 0.10 is the amount whose multiples doubles cannot hold.
 */
import { describe } from 'vitest';
import { purchasePagoQr } from '../generators/bodies.ts';
import type { ConfiguracionRequest } from '../spec/types.ts';
import { activate, createLink } from './flows/links.ts';
import { lookUp, webhookFor } from './flows/lookups.ts';
import { buyWallet } from './flows/purchases.ts';
import { observedLinkBody, payOnScreen } from './flows/screens.ts';
import {
  amountDue,
  amountEquals,
  clauseTest,
  field,
  paymentApproved,
  readResponse,
  succeeded,
  type TestHandle,
  webhookField,
} from '../harness/index.ts';

/** A link of `monto` whose redirect and webhook go to the receiver, with these settings. */
async function linkOf(t: TestHandle, monto: number, configuracion: Partial<ConfiguracionRequest>) {
  const base = await observedLinkBody(t, { monto });
  return createLink(t, { ...base, configuracion: { ...base.configuracion, ...configuracion } });
}

const MONTO = 0.1;
const CANTIDAD = 3;

/** The webhook's and the link record's amounts of one payment, each against the amount due (soft: each its own rule). */
async function laterAmounts(
  t: TestHandle,
  id: string,
  idEnlace: number | undefined,
  due: ReturnType<typeof amountDue>,
  clause: string,
): Promise<void> {
  const webhook = await webhookFor(t, id, ['6.1-webhook-on-success']);
  t.soft(() => amountEquals(webhookField(webhook, 'monto', t.run.config.webhook.fieldCase), due, `monto (webhook of ${id})`, clause));
  if (idEnlace === undefined || !t.run.target.account) return;
  const { ex, record } = await activate(t, idEnlace);
  const listed = (record.transacciones ?? []).find((x) => String(field(x, 'idTransaccion')) === id);
  // Not listed at all is 2.1-transacciones-all's own finding.
  if (listed !== undefined) t.soft(() => amountEquals(field(listed, 'monto'), due, `monto (the link's transacciones, ${id})`, clause, ex));
  const compra = record.transaccionCompra;
  if (compra && String(field(compra, 'idTransaccion')) === id)
    t.soft(() => amountEquals(field(compra, 'monto'), due, "monto (the link's transaccionCompra)", clause, ex));
}

describe('4.1 quantity × monto, to the cent, everywhere it is written', () => {
  clauseTest(
    { clauses: ['4.1-cantidad-por-defecto', '4.1-cantidad-editable'], endpoint: 'flow', purchase: true },
    `${CANTIDAD} × ${MONTO.toFixed(2)} on an editable-quantity link is ${amountDue(MONTO, CANTIDAD).text} in the ` +
      `redirect, the lookup, the webhook and the link's transacciones`,
    async (t) => {
      const due = amountDue(MONTO, CANTIDAD);
      const { link } = await linkOf(t, MONTO, { esCantidadEditable: true, cantidadPorDefecto: 1 });
      const params = paymentApproved(
        await payOnScreen(t, link.urlEnlace, { cantidad: CANTIDAD }),
        '4.1-cantidad-editable',
        `a payment of quantity ${CANTIDAD}`,
      );
      const id = params['idTransaccion'] ?? '';
      if (params['monto'] !== undefined) t.soft(() => amountEquals(params['monto'], due, 'monto (redirect)', '4.1-cantidad-por-defecto'));
      const { ex, tx } = await lookUp(t, id);
      t.soft(() => amountEquals(tx['monto'], due, 'monto (lookup)', '4.1-cantidad-por-defecto', ex));
      // montoOriginal may be null (2.2: nullable); a value is the amount charged, no refund having been made
      if (tx['montoOriginal'] !== null && tx['montoOriginal'] !== undefined)
        t.soft(() => amountEquals(tx['montoOriginal'], due, 'montoOriginal (lookup)', '4.1-cantidad-por-defecto', ex));
      await laterAmounts(t, id, link.idEnlace, due, '4.1-cantidad-por-defecto');
    },
  );

  clauseTest(
    {
      clauses: ['4.1-cantidad-por-defecto', '4.5-pays-the-link'],
      endpoint: 'POST /TransaccionCompra/PagoQr',
      purchase: true,
      needs: ['account'],
    },
    `PagoQr of a link of quantity ${CANTIDAD} × ${MONTO.toFixed(2)} charges ${amountDue(MONTO, CANTIDAD).text}: its ` +
      `answer, the lookup, the webhook and the link's transacciones`,
    async (t) => {
      const due = amountDue(MONTO, CANTIDAD);
      const { link } = await linkOf(t, MONTO, { cantidadPorDefecto: CANTIDAD });
      const paid = await t.call('purchasePagoQr', { json: purchasePagoQr(link.urlEnlace) });
      succeeded(paid, '4.5-pays-the-link', 'PagoQr of a payable link');
      const response = readResponse(t.run.contract, 'purchasePagoQr', paid);
      t.soft(() => amountEquals(response['monto'], due, 'monto (PagoQr answer)', '4.1-cantidad-por-defecto', paid));
      const id = String(response['idTransaccion']);
      const { ex, tx } = await lookUp(t, id);
      t.soft(() => amountEquals(tx['monto'], due, 'monto (lookup)', '4.1-cantidad-por-defecto', ex));
      await laterAmounts(t, id, link.idEnlace, due, '4.1-cantidad-por-defecto');
    },
  );
});

describe("2.2 a purchase's own monto, echoed to the cent", () => {
  clauseTest(
    {
      clauses: ['4.4-response-fields', '4.8-same-transaction', '6.1-webhook-transaction-data'],
      endpoint: 'POST /TransaccionCompra/Wallet',
      purchase: true,
    },
    'a wallet purchase of 0.30 is 0.30 in its answer, the lookup and the webhook',
    async (t) => {
      const receiver = await t.run.receiver();
      const {
        ex: bought,
        response,
        request,
      } = await buyWallet(t, { monto: 0.3, configuracion: { urlWebhook: receiver.webhookUrl('money') } });
      const due = amountDue(request.monto);
      t.soft(() => amountEquals(response['monto'], due, 'monto (wallet answer)', '4.4-response-fields', bought));
      const id = String(response['idTransaccion']);
      const { ex, tx } = await lookUp(t, id);
      t.soft(() => amountEquals(tx['monto'], due, 'monto (lookup)', '4.8-same-transaction', ex));
      const webhook = await webhookFor(t, id, ['6.1-webhook-on-success']);
      t.soft(() =>
        amountEquals(
          webhookField(webhook, 'monto', t.run.config.webhook.fieldCase),
          due,
          'monto (webhook)',
          '6.1-webhook-transaction-data',
        ),
      );
    },
  );
});
