/**
 * Spec 4.7 — stripe/chip POS purchase: needs "additional permissions" (what they are is not shown, 5.5), takes
 * idAplicativo from the business's credentials, answers tipoTransaccion 4 or 5 and esReal by the business's mode.
 * The validation rules of 4.7 (mesVencimiento, monto, idAplicativo for an account) are in validation.test.ts.
 * The CLIENT_ID business's purchases need its permission (MPOS_PERMITTED=yes; need 'mposPermission').
 */
import { describe } from 'vitest';
import { purchaseMposBanda } from '../generators/bodies.ts';
import { lookUp } from './flows/lookups.ts';
import { buyMpos, datosAdicionales } from './flows/purchases.ts';
import { clauseTest, containsPairs, fieldEquals, fieldIn, notAccepted, targetNow } from '../harness/index.ts';

const ENDPOINT = 'POST /TransaccionCompra/Mpos/Banda';

describe('4.7 MPOS purchase by a business with the permission', () => {
  clauseTest(
    {
      clauses: ['4.7-endpoint', '4.7-permission-required', '7-dev-authorizes'],
      endpoint: ENDPOINT,
      purchase: true,
      needs: ['mposPermission'],
    },
    'the purchase is approved in development',
    async (t) => {
      const { ex, response } = await buyMpos(t);
      fieldEquals(response['esAprobada'], true, 'esAprobada', '7-dev-authorizes', ex);
    },
  );

  clauseTest(
    { clauses: '4.7-tipo-transaccion', endpoint: ENDPOINT, purchase: true, needs: ['mposPermission'] },
    'tipoTransaccion is MPosChip (4) or MPosContactless (5)',
    async (t) => {
      const { ex, response } = await buyMpos(t);
      fieldIn(response['tipoTransaccion'], [4, 5], 'tipoTransaccion', '4.7-tipo-transaccion', ex);
    },
  );

  clauseTest(
    { clauses: ['4.7-response-fields', '2.2-esreal-test-not-charged'], endpoint: ENDPOINT, purchase: true, needs: ['mposPermission'] },
    'esReal is false for a development business',
    async (t) => {
      const { ex, response } = await buyMpos(t);
      fieldEquals(response['esReal'], false, 'esReal', ['4.7-response-fields', '2.2-esreal-test-not-charged'], ex);
    },
  );

  clauseTest(
    { clauses: ['4.7-response-fields'], endpoint: ENDPOINT, purchase: true, needs: ['mposPermission'] },
    'monto is the amount sent',
    async (t) => {
      const { ex, request, response } = await buyMpos(t, { monto: 31.5 });
      fieldEquals(response['monto'], request.monto, 'monto', '4.7-response-fields', ex);
    },
  );

  clauseTest(
    {
      clauses: ['4.7-idaplicativo-conditional', '4.7-endpoint', '2.2-datos-adicionales-echo'],
      endpoint: 'flow',
      purchase: true,
      needs: ['mposPermission'],
    },
    "without idAplicativo the business's own is taken: the business finds the transaction with its data",
    async (t) => {
      const sent = datosAdicionales('mpos');
      const { request, response } = await buyMpos(t, { datosAdicionales: sent });
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      fieldEquals(tx['monto'], request.monto, 'monto', '4.7-idaplicativo-conditional', ex);
      containsPairs(tx['datosAdicionales'], sent, 'datosAdicionales', '2.2-datos-adicionales-echo', ex);
    },
  );
});

// 4.7 validates anioVencimiento "by an MPOS-specific rule" it does not show: a card that expired two years ago, taken,
// is observed (whatever the rule, a POS that charges an expired card is worth a look), never failed.
describe('4.7 the MPOS rule of anioVencimiento (not shown)', () => {
  clauseTest(
    { clauses: '4.7-anio-rule-not-shown', endpoint: ENDPOINT, purchase: true, needs: ['mposPermission'] },
    'a card whose expiry passed two years ago is refused (taken: observed)',
    async (t) => {
      const anioVencimiento = new Date(await targetNow(t)).getUTCFullYear() - 2;
      const request = purchaseMposBanda(t.run.config.testData, { mesVencimiento: 1, anioVencimiento });
      const ex = await t.call('purchaseMposBanda', { json: request, auth: 'bearer' });
      const status = ex.response?.status ?? 0;
      if (status >= 200 && status < 300)
        t.observe('4.7-anio-rule-not-shown', `an MPOS purchase with a card expired since 01/${anioVencimiento} was accepted (${status})`);
    },
  );

  // A card's track 2 carries its expiry as YYMM, so a POS may send the year in two digits; the rule being unshown, a
  // refusal of next year so written is observed, never failed.
  clauseTest(
    { clauses: '4.7-anio-rule-not-shown', endpoint: ENDPOINT, purchase: true, needs: ['mposPermission'] },
    'a card expiring next year, anioVencimiento in two digits, is taken (refused: observed)',
    async (t) => {
      const anioVencimiento = (new Date(await targetNow(t)).getUTCFullYear() + 1) % 100;
      const request = purchaseMposBanda(t.run.config.testData, { mesVencimiento: 12, anioVencimiento });
      const ex = await t.call('purchaseMposBanda', { json: request, auth: 'bearer' });
      const status = ex.response?.status ?? 0;
      if (status < 200 || status > 299)
        t.observe(
          '4.7-anio-rule-not-shown',
          `an MPOS purchase with a card expiring 12/${anioVencimiento} (two digits) was refused (${status})`,
        );
    },
  );
});

describe('4.7 MPOS purchase by a business without the permission', () => {
  clauseTest(
    { clauses: '4.7-permission-required', endpoint: ENDPOINT, purchase: true, needs: ['businessNoMpos'] },
    'is refused',
    async (t) => {
      const call = t.run.callAs(t.run.target.businessNoMpos);
      const ex = await call('purchaseMposBanda', { json: purchaseMposBanda(t.run.config.testData), auth: 'bearer' });
      notAccepted(ex, '4.7-permission-required', 'an MPOS purchase by a business without the additional permission');
      const status = ex.response?.status ?? 0;
      if (status < 400 || status > 499) t.observe('7-error-format-not-shown', `refused with status ${status} (a 4xx would be usual)`);
    },
  );
});
