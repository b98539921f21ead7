/**
 * Serialisation breadth: what a serializer or a page size changes without anyone deciding it.
 * datosAdicionales keys of every case and script come back exactly (a dictionary's keys are data, 2: "string keys
 * to string values"); a link lists every one of its transactions, more than any page size a server might use (2.1:
 * "All transactions made with the link"); a client secret is compared exactly (5.1).
 */
import { describe } from 'vitest';
import { paymentLinkMinimal, purchasePagoQr, uniqueRef } from '../generators/bodies.ts';
import { activate, createLink } from './flows/links.ts';
import { lookUp, webhookFor } from './flows/lookups.ts';
import { buyWallet } from './flows/purchases.ts';
import { requestToken } from './flows/tokens.ts';
import {
  clauseTest,
  containsPairs,
  field,
  fieldEquals,
  holds,
  notAccepted,
  readResponse,
  succeeded,
  webhookPairs,
} from '../harness/index.ts';

/** Keys a serializer could re-case or re-encode: every case, accents, other scripts, separators. */
function keysOfEveryKind(tag: string): Record<string, string> {
  return {
    pedido: uniqueRef(tag),
    Pedido: 'mayúscula inicial',
    CANAL: 'MAYÚSCULAS',
    claveMixta_2: 'camelCase con número',
    'clave-con-guion': 'guion',
    'clave.con.punto': 'punto',
    ñandú: 'acentos',
    注文番号: '漢字',
    ключ: 'кириллица',
  };
}

/** More transactions on one link than the page sizes servers commonly use (10, 20, 25, 50, 100): 101. */
const MANY = 101;

describe('2.2 / 6.1 datosAdicionales keys come back as sent', () => {
  clauseTest(
    { clauses: ['2.2-datos-adicionales-echo', '4.8-same-transaction'], endpoint: 'POST /TransaccionCompra/Wallet', purchase: true },
    'keys of every case and script, in the purchase response and the lookup',
    async (t) => {
      const sent = keysOfEveryKind('claves');
      const { ex, response } = await buyWallet(t, { datosAdicionales: sent });
      containsPairs(response['datosAdicionales'], sent, 'datosAdicionales (response)', '2.2-datos-adicionales-echo', ex);
      const looked = await lookUp(t, response['idTransaccion']);
      containsPairs(looked.tx['datosAdicionales'], sent, 'datosAdicionales (lookup)', '2.2-datos-adicionales-echo', looked.ex);
    },
  );

  clauseTest(
    { clauses: ['6.1-webhook-datos-adicionales'], endpoint: 'POST /TransaccionCompra/Wallet', purchase: true },
    'keys of every case and script, in the webhook',
    async (t) => {
      const receiver = await t.run.receiver();
      const sent = keysOfEveryKind('claves-webhook');
      const { response } = await buyWallet(t, { datosAdicionales: sent, configuracion: { urlWebhook: receiver.webhookUrl('claves') } });
      const webhook = await webhookFor(t, response['idTransaccion'], ['6.1-webhook-on-success']);
      containsPairs(webhookPairs(webhook.json, sent).pairs, sent, 'datosAdicionales (webhook)', '6.1-webhook-datos-adicionales');
    },
  );
});

describe('2.2 identifiers come back exactly', () => {
  clauseTest(
    { clauses: ['2.2-idexterno-echo', '4.8-same-transaction'], endpoint: 'POST /TransaccionCompra/Wallet', purchase: true },
    'an idExterno of upper and lower case, accents and another script, in the purchase response and the lookup',
    async (t) => {
      // 29 characters: within the 50 that section 8 allows a quick-pay's idExterno (the wallet's states no bound).
      const idExterno = `Pedido-ÑandúÄ-注文-${Date.now().toString(36).toUpperCase()}${Math.random().toString(36).slice(2, 6)}`;
      const { ex, response } = await buyWallet(t, { idExterno });
      if (response['idExterno'] !== undefined)
        t.soft(() => fieldEquals(response['idExterno'], idExterno, 'idExterno (response)', '2.2-idexterno-echo', ex));
      const looked = await lookUp(t, response['idTransaccion']);
      t.soft(() => fieldEquals(looked.tx['idExterno'], idExterno, 'idExterno (lookup)', '2.2-idexterno-echo', looked.ex));
    },
  );
});

describe('2.1 every transaction of a link, beyond any page size', () => {
  // The counters are judged by their own tests (suites/links.test.ts): a list cut at a page is this test's finding.
  clauseTest(
    { clauses: '2.1-transacciones-all', endpoint: 'POST /TransaccionCompra/PagoQr', purchase: true, needs: ['account'] },
    `a link paid ${MANY} times lists all ${MANY} transacciones`,
    async (t) => {
      const { link } = await createLink(t, paymentLinkMinimal());
      // Sent together (the request cap bounds them): the list's length, not the order of payments, is judged here.
      const paid = await Promise.all(
        Array.from({ length: MANY }, (_, i) =>
          t.call('purchasePagoQr', { json: purchasePagoQr(link.urlEnlace), label: `PagoQr ${i + 1} of ${MANY}` }),
        ),
      );
      const ids = paid.map((ex, i) => {
        succeeded(ex, '4.5-endpoint', `payment ${i + 1} of ${MANY} through PagoQr`);
        return String(readResponse(t.run.contract, 'purchasePagoQr', ex)['idTransaccion'] ?? '');
      });
      const { ex, record } = await activate(t, link.idEnlace);
      const listed = new Set((record.transacciones ?? []).map((tx) => String(field(tx, 'idTransaccion'))));
      const missing = ids.filter((id) => !listed.has(id));
      holds(
        missing.length === 0,
        'transaction-listed',
        '2.1-transacciones-all',
        `transacciones lists all ${MANY} payments of the link`,
        `${listed.size} listed; missing ${missing.length}: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`,
        ex,
      );
    },
  );
});

describe('5.1 credentials compared exactly', () => {
  clauseTest(
    { clauses: '5.1-client-credentials', endpoint: 'POST /connect/token' },
    'the client secret in another letter case gets no token',
    async (t) => {
      const { business } = t.run.target;
      const swapped = [...business.clientSecret].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
      if (swapped === business.clientSecret)
        return t.skip('nothing-to-judge', 'the client secret has no letters: its case cannot be changed');
      const ex = await requestToken(t, { clientId: business.clientId, clientSecret: swapped });
      notAccepted(
        ex,
        '5.1-client-credentials',
        'a token request with the client secret in another letter case (a secret is compared exactly)',
      );
      const body = ex.response?.json as Record<string, unknown> | undefined;
      holds(
        !body?.['access_token'],
        'no-token',
        '5.1-client-credentials',
        'no access_token for a secret in another case',
        'an access_token was issued',
        ex,
      );
    },
  );
});
