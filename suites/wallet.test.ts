/**
 * Spec 4.4 — wallet purchase: approved by default in development (7), its response echoes what was sent, and it
 * says it is a test (esReal false, 2.2). resultadoTransaccion is a string per the 4.4 table and an int per 2.2:
 * "ExitosaAprobada", 0 and "0" are all read as "approved" (how it is written is the contract testcase's finding).
 */
import { describe } from 'vitest';
import { lookUp } from './flows/lookups.ts';
import { buyWallet, datosAdicionales } from './flows/purchases.ts';
import { purchaseWallet } from '../generators/bodies.ts';
import { asEnum, clauseTest, containsPairs, fieldEquals, RESULTADO } from '../harness/index.ts';

const ENDPOINT = 'POST /TransaccionCompra/Wallet';

describe('4.4 wallet purchase', () => {
  clauseTest(
    { clauses: ['4.4-endpoint', '7-dev-authorizes'], endpoint: ENDPOINT, purchase: true },
    'a wallet purchase of a development business is approved',
    async (t) => {
      const { response } = await buyWallet(t);
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      fieldEquals(tx['esAprobada'], true, 'esAprobada', '7-dev-authorizes', ex);
    },
  );

  clauseTest(
    {
      clauses: ['4.4-response-fields', '2.2-resultado-values', '4.4-resultado-string', '4.4-fecha-datetime'],
      endpoint: ENDPOINT,
      purchase: true,
    },
    'resultadoTransaccion of the approved purchase is ExitosaAprobada',
    async (t) => {
      const { ex, response } = await buyWallet(t);
      fieldEquals(
        asEnum(response['resultadoTransaccion'], 'resultadoTransaccion'),
        RESULTADO.ExitosaAprobada,
        'resultadoTransaccion (ExitosaAprobada = 0)',
        ['2.2-resultado-values', '4.4-resultado-string'],
        ex,
      );
    },
  );

  clauseTest(
    { clauses: ['4.4-response-fields', '2.2-esreal-test-not-charged'], endpoint: ENDPOINT, purchase: true },
    'esReal is false for a development business',
    async (t) => {
      const { ex, response } = await buyWallet(t);
      fieldEquals(response['esReal'], false, 'esReal', '2.2-esreal-test-not-charged', ex);
    },
  );

  clauseTest({ clauses: ['4.4-response-fields'], endpoint: ENDPOINT, purchase: true }, 'monto is the amount sent', async (t) => {
    const { ex, request, response } = await buyWallet(t, { monto: 19.99 });
    fieldEquals(response['monto'], request.monto, 'monto', '4.4-response-fields', ex);
  });

  clauseTest(
    { clauses: ['4.4-response-fields', '2.2-idexterno-echo'], endpoint: ENDPOINT, purchase: true },
    'idExterno is echoed',
    async (t) => {
      const { ex, request, response } = await buyWallet(t);
      fieldEquals(response['idExterno'], request.idExterno, 'idExterno', '2.2-idexterno-echo', ex);
    },
  );

  clauseTest(
    { clauses: ['4.4-response-fields', '2.2-datos-adicionales-echo'], endpoint: ENDPOINT, purchase: true },
    'datosAdicionales are echoed',
    async (t) => {
      const sent = datosAdicionales('wallet');
      const { ex, response } = await buyWallet(t, { datosAdicionales: sent });
      containsPairs(response['datosAdicionales'], sent, 'datosAdicionales', '2.2-datos-adicionales-echo', ex);
    },
  );

  // 4.4 gives monto only as a required double (the amount charged, 2.2); section 7 bounds the monto of links, quick-pay
  // and MPOS above 0, not the wallet's: a wallet purchase of no amount accepted is observed, never failed.
  clauseTest(
    { clauses: '4.4-request-fields', endpoint: ENDPOINT, purchase: true },
    'a wallet purchase of monto 0 or -5 (no amount to charge) is refused, else observed',
    async (t) => {
      for (const monto of [0, -5]) {
        const ex = await t.call('purchaseWallet', {
          json: purchaseWallet(t.run.config.testData, { monto }),
          label: `a wallet purchase of monto ${monto}`,
        });
        const status = ex.response?.status ?? 0;
        if (status >= 200 && status < 300)
          t.observe(
            '4.4-request-fields',
            `a wallet purchase of monto ${monto} was accepted (status ${status}); monto is the amount charged, and ` +
              'section 7 bounds the monto of links, quick-pay and MPOS above 0',
          );
      }
    },
  );
});
