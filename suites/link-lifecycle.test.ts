/**
 * Spec 3 (a link's states), 4.2 (activar) and the payment-screen rules of 7 (cvv 111 declines in test mode, every
 * other payment is authorized), with the counters and transactions of 2.1 as the activar record shows them, and the
 * card the screen takes (4.1: a card no purchase could carry, approved, is observed).
 * The record is only readable through activar (4.2), which changes an unusable link; so a link's state before
 * activation is seen through payments (refused or not), and counters are read from links that are still usable.
 */
import { describe } from 'vitest';
import type { PaymentLink } from '../spec/types.ts';
import { notAcceptedWhereValidAccepted } from './flows/bodies.ts';
import { activate, counterRead, createLink } from './flows/links.ts';
import { declineNotNotifiedAsSuccess } from './flows/lookups.ts';
import {
  DECLINE_CVV,
  DECLINE_TESTCASE,
  declinedAsPremise,
  declineOnScreen,
  observedLinkBody,
  payOnScreen,
  testCard,
} from './flows/screens.ts';
import {
  approvalOf,
  clauseTest,
  type Exchange,
  fieldEquals,
  holds,
  paymentApproved,
  paymentDeclined,
  paymentNotApproved,
  type PaymentOutcome,
  readBool,
  readInt,
  sharedWork,
  targetNow,
  type TestHandle,
  unreadPage,
} from '../harness/index.ts';

const screenPayment = (clauses: string | string[], needs: 'account'[] = []) => ({ clauses, endpoint: 'flow', purchase: true, needs });

/** How a refused payment ended, for the observation of its (unstated) form. */
function refusalText(o: PaymentOutcome): string {
  return o.kind === 'redirect' ? 'a declined redirect' : `${o.kind} with status ${o.status}${o.estado ? ` ("${o.estado}")` : ''}`;
}

describe('3 failure limit and 4.2 activation', () => {
  clauseTest(
    screenPayment(['3-failure-limit-deactivates', '3-inactive-no-payments']),
    'after cantidadMaximaPagosFallidos declines, the link takes no further payment',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
      await declineOnScreen(t, link.urlEnlace, 2);
      const outcome = await payOnScreen(t, link.urlEnlace);
      paymentNotApproved(
        outcome,
        ['3-failure-limit-deactivates', '3-inactive-no-payments'],
        'a payment with a valid card after the failure limit was reached',
      );
      t.observe('7-error-format-not-shown', `the payment on the inactive link ended in ${refusalText(outcome)}`);
      // How the screen of a link that takes no payment looks is not shown: one that still offers the form, refusing
      // only what is submitted, has the customer type a card for nothing — observed.
      if (outcome.kind === 'refused' && outcome.answered === 'submission')
        t.observe(
          '3-inactive-no-payments',
          'the screen of the inactive link still showed a payment form; the payment was refused only once submitted',
        );
    },
  );

  clauseTest(
    screenPayment(['4.2-activar-restores', '4.2-endpoint', '3-usable-when-available'], ['account']),
    'activar makes an inactive link usable and payable again, and returns its record',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
      await declineOnScreen(t, link.urlEnlace, 2);
      const { ex, record } = await activate(t, link.idEnlace);
      fieldEquals(record.idEnlace, link.idEnlace, 'idEnlace of the returned record', '4.2-activar-restores', ex);
      fieldEquals(record.usable, true, 'usable after activar', ['4.2-activar-restores', '3-usable-when-available'], ex);
      paymentApproved(await payOnScreen(t, link.urlEnlace), '4.2-activar-restores', 'a payment after activar');
    },
  );

  clauseTest(
    { clauses: ['4.2-endpoint', '3-usable-when-available'], endpoint: 'PUT /EnlacePago/{id}/activar', needs: ['account'] },
    'the record of a new link says usable true',
    async (t) => {
      const { link } = await createLink(t);
      const { ex, record } = await activate(t, link.idEnlace);
      fieldEquals(record.idEnlace, link.idEnlace, 'idEnlace', '4.2-endpoint', ex);
      fieldEquals(record.usable, true, 'usable', '3-usable-when-available', ex);
    },
  );

  // 2.1: usable means "the link is available for use"; 3 bounds use by the validity dates but shows no transition
  // by them, nor what activar does to a link past its fechaFin. So a record saying usable true for a link no
  // instant from now on can pay is observed, never failed (variant usable-after-vigencia reads it so).
  clauseTest(
    {
      clauses: ['3-other-link-transitions-not-shown', '3-usable-when-available'],
      endpoint: 'PUT /EnlacePago/{id}/activar',
      needs: ['account'],
    },
    'the record of a link whose vigencia.fechaFin passed two days ago: usable true is observed',
    async (t) => {
      // Two days back: over under every reading of the date (an instant, or a calendar day in any offset).
      const fechaFin = new Date((await targetNow(t)) - 2 * 86_400_000).toISOString();
      const base = await observedLinkBody(t, { vigencia: { fechaFin } });
      const created = await t.call('createPaymentLink', { json: base });
      const status = created.response?.status ?? 0;
      if (status < 200 || status > 299)
        return t.skip(
          'premise-elsewhere',
          `a link whose vigencia.fechaFin (${fechaFin}) is over was refused at creation (status ${status || 'none'}): no record to read`,
        );
      const { ex, record } = await activate(t, readInt(created.response?.json, 'idEnlace', '4.1-response-fields', created));
      const usable = readBool(record, 'usable', '2.1-payment-link-types', ex);
      if (usable)
        t.observe(
          '3-other-link-transitions-not-shown',
          'the record (read through activar) of a link whose vigencia.fechaFin passed two days ago says usable true, ' +
            'though the validity dates bound its use (3)',
        );
    },
  );

  clauseTest(
    { clauses: '4.2-endpoint', endpoint: 'PUT /EnlacePago/{id}/activar', needs: ['account'] },
    'activar of an unknown idEnlace is refused',
    async (t) => {
      const ex = await t.call('activatePaymentLink', { pathParams: { id: 999_999_999 } });
      await notAcceptedWhereValidAccepted(t, ex, 'activatePaymentLink', '4.2-endpoint', 'activar of a link that does not exist');
      t.observe('7-error-format-not-shown', `activar of an unknown id answered ${ex.response?.status ?? 'nothing'}`);
    },
  );

  // 4.2 types the path's id an int; "<id>.0" is a decimal, which a lenient reader takes for the link: observed when it
  // re-activates the link (types are not among section 7's rules: docs/decisions.md, "Types in requests").
  clauseTest(
    { clauses: '4.2-endpoint', endpoint: 'PUT /EnlacePago/{id}/activar', needs: ['account'] },
    'activar with the idEnlace written as a decimal ("<id>.0", not an int): taken is observed',
    async (t) => {
      const { link } = await createLink(t);
      const ex = await t.call('activatePaymentLink', { pathParams: { id: `${link.idEnlace}.0` } });
      const status = ex.response?.status ?? 0;
      if (status >= 200 && status < 300)
        t.observe(
          '4.2-endpoint',
          `activar of "${link.idEnlace}.0" (a decimal, not an int) was accepted (${status}): the id read leniently`,
        );
    },
  );
});

describe('3 success limit', () => {
  clauseTest(
    screenPayment('3-success-limit-bounds-use'),
    'after cantidadMaximaPagosExitosos approved payments, the link takes no further payment',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosExitosos: 2 } }));
      for (const n of [1, 2])
        paymentApproved(await payOnScreen(t, link.urlEnlace), '3-success-limit-bounds-use', `approved payment ${n} of 2`);
      const outcome = await payOnScreen(t, link.urlEnlace);
      paymentNotApproved(outcome, '3-success-limit-bounds-use', 'a third payment on a link limited to 2');
      t.observe('3-other-link-transitions-not-shown', `a payment past the success limit ended in ${refusalText(outcome)}`);
    },
  );
});

/** A link paid decline, approve, decline, approve on its screen; its record read afterwards through activar. */
interface History {
  declined: string[];
  approved: string[];
  monto: number;
  ex: Exchange;
  record: PaymentLink;
}

const history = sharedWork<History>();

/** Built once by whichever test asks first; each 2.1 test then checks one field of the same record. */
function linkHistory(t: TestHandle): Promise<History> {
  return history(async () => {
    const request = await observedLinkBody(t);
    const { link } = await createLink(t, request);
    const declined: string[] = [];
    const approved: string[] = [];
    for (const cvv of [DECLINE_CVV, undefined, DECLINE_CVV, undefined]) {
      const outcome = await payOnScreen(t, link.urlEnlace, cvv === undefined ? {} : { cvv });
      const params =
        cvv === undefined
          ? paymentApproved(outcome, '7-dev-authorizes', 'a payment')
          : declinedAsPremise(t, outcome, 'a payment with cvv 111');
      const id = params['idTransaccion'];
      holds(id !== undefined && id !== '', 'redirect-id', '6.3-redirect-outcome', 'the redirect carries idTransaccion', JSON.stringify(id));
      (cvv === undefined ? approved : declined).push(id);
    }
    return { declined, approved, monto: request.monto, ...(await activate(t, link.idEnlace)) };
  });
}

describe('2.1 counters and transactions of a link (decline, approve, decline, approve)', () => {
  const spec = (clauses: string | string[]) => screenPayment(clauses, ['account']);

  clauseTest(spec('2.1-failed-attempts-counted'), 'cantidadIntentoPagoFallidos counts the declined payments', async (t) => {
    const { ex, record } = await linkHistory(t);
    counterRead(t, record, 'cantidadIntentoPagoFallidos', 2, '2.1-failed-attempts-counted', ex);
  });

  clauseTest(spec('2.1-successful-payments-counted'), 'cantidadPagosExitosos counts the approved payments', async (t) => {
    const { ex, record } = await linkHistory(t);
    fieldEquals(record.cantidadPagosExitosos, 2, 'cantidadPagosExitosos', '2.1-successful-payments-counted', ex);
  });

  clauseTest(spec('2.1-transacciones-all'), 'transacciones lists every payment of the link, approved and declined', async (t) => {
    const { ex, record, declined, approved, monto } = await linkHistory(t);
    const listed = new Map(record.transacciones.map((tx) => [tx.idTransaccion, tx]));
    fieldEquals(record.transacciones.length, 4, 'number of transacciones', '2.1-transacciones-all', ex);
    for (const [id, esAprobada] of [...declined.map((id) => [id, false] as const), ...approved.map((id) => [id, true] as const)]) {
      const tx = listed.get(id);
      holds(
        tx !== undefined,
        'transaction-listed',
        '2.1-transacciones-all',
        `transacciones lists ${id}`,
        `ids listed: ${[...listed.keys()].join(', ')}`,
        ex,
      );
      fieldEquals(tx.esAprobada, esAprobada, `esAprobada of ${id}`, '2.1-transacciones-all', ex);
      fieldEquals(tx.monto, monto, `monto of ${id}`, '2.1-transacciones-all', ex);
    }
  });

  clauseTest(spec('2.1-transaccion-compra-last-success'), 'transaccionCompra is the last approved payment', async (t) => {
    const { ex, record, approved } = await linkHistory(t);
    fieldEquals(
      record.transaccionCompra?.idTransaccion,
      approved[1],
      'transaccionCompra.idTransaccion',
      '2.1-transaccion-compra-last-success',
      ex,
    );
    fieldEquals(record.transaccionCompra?.esAprobada, true, 'transaccionCompra.esAprobada', '2.1-transaccion-compra-last-success', ex);
  });

  clauseTest(
    spec(['7-cvv-111-declines', '7-failure-in-transaction']),
    'a cvv 111 payment is recorded declined: esAprobada false, a mensaje, resultadoTransaccion 1 or 2',
    async (t) => {
      const { ex, record, declined } = await linkHistory(t);
      for (const id of declined) {
        const tx = record.transacciones.find((x) => x.idTransaccion === id);
        holds(tx !== undefined, 'transaction-listed', '2.1-transacciones-all', `transacciones lists the declined ${id}`, 'not listed', ex);
        fieldEquals(tx.esAprobada, false, `esAprobada of ${id}`, '7-cvv-111-declines', ex);
        holds(
          typeof tx.mensaje === 'string' && tx.mensaje.trim() !== '',
          'failure-mensaje',
          '7-failure-in-transaction',
          `mensaje of ${id} holds the error text`,
          JSON.stringify(tx.mensaje),
          ex,
        );
        holds(
          tx.resultadoTransaccion === 1 || tx.resultadoTransaccion === 2,
          'failure-resultado',
          '7-failure-in-transaction',
          `resultadoTransaccion of ${id} is 1 (declined) or 2 (failed)`,
          JSON.stringify(tx.resultadoTransaccion),
          ex,
        );
      }
    },
  );
});

describe('7 test mode on the payment screen', () => {
  clauseTest(screenPayment([...DECLINE_TESTCASE.clauses]), DECLINE_TESTCASE, async (t) => {
    const { link } = await createLink(t, await observedLinkBody(t));
    const declinedId = (await declineOnScreen(t, link.urlEnlace, 1, true))[0]?.['idTransaccion'] ?? '';
    holds(declinedId !== '', 'redirect-id', '6.3-redirect-outcome', 'the redirect of the declined payment carries idTransaccion', 'none');
    const approved = paymentApproved(
      await payOnScreen(t, link.urlEnlace),
      '7-dev-authorizes',
      'a payment with a valid card after the decline',
    );
    await declineNotNotifiedAsSuccess(t, declinedId, approved['idTransaccion'] ?? '');
  });

  clauseTest(
    screenPayment('7-cvv-111-declines'),
    'cvv 111 declines a payment by points or in instalments on the screen too, not only a plain card payment',
    async (t) => {
      const formaPago = {
        permitirTarjetaCreditoDebido: true as const,
        permitirPagoConPuntoPartner: true,
        permitirPagoEnCuotasPartner: true,
        permitirPagoEnBitcoin: false,
        permitePagoQuickPay: false,
      };
      const { link } = await createLink(t, await observedLinkBody(t, { formaPago, cantidadMaximaCuotas: 'Tres' }));
      const forms = [
        { what: 'a payment by points (formaPago 1)', pay: { formaPago: 1 } },
        { what: 'a payment in 3 instalments (formaPago 2)', pay: { formaPago: 2, cuotas: 3 } },
      ];
      const notPaid: string[] = [];
      for (const { what, pay } of forms) {
        // The premise: the screen pays this form with another cvv (else the business does not offer it — 4.11, not
        // shown — or this payer cannot choose it): only then is the decline judged.
        const control = await payOnScreen(t, link.urlEnlace, pay);
        if (approvalOf(control) !== 'true') {
          notPaid.push(`${what} with cvv ${t.run.config.testData.cvv} was not approved`);
          continue;
        }
        paymentDeclined(await payOnScreen(t, link.urlEnlace, { ...pay, cvv: DECLINE_CVV }), '7-cvv-111-declines', `${what} with cvv 111`);
      }
      if (notPaid.length === forms.length)
        t.skip('page-not-driven', `${notPaid.join('; ')}: the screen paid neither form through this payer, so no decline is judged`);
    },
  );

  clauseTest(screenPayment('7-dev-authorizes'), 'in development, payments with any cvv but 111 are authorized', async (t) => {
    const { link } = await createLink(t, await observedLinkBody(t));
    const cvvs = ['123', '000', '112', '999'];
    for (const [i, cvv] of cvvs.entries()) {
      paymentApproved(
        await payOnScreen(t, link.urlEnlace, { cvv }),
        '7-dev-authorizes',
        `test payment ${i + 1} of ${cvvs.length} (a cvv other than 111)`,
      );
    }
  });
});

// The spec shows none of the screen's inputs, but every card it describes has a number of digits ("no spaces", 4.3)
// and an int expiry month (1 to 12: 4.7) and year (4.3). A screen that approves a card breaking that shape, posted
// past the inputs' own constraints as a customer's browser could, is observed; any refusal is the screen checking it.
type CardForged = { numeroTarjeta?: string; mesVencimiento?: string; anioVencimiento?: string };

/** Each forged card paid on a new screen of one link: the ones approved, as `what` says them. */
async function forgedCardsApproved(t: TestHandle, cases: [what: string, forged: CardForged][]): Promise<string[]> {
  const { link } = await createLink(t, await observedLinkBody(t));
  const taken: string[] = [];
  for (const [what, forged] of cases) {
    const screen = await t.run.payer.openScreen(link.urlEnlace);
    const o = await t.run.payer.pay({ kind: 'opened-screen', screen, payment: await testCard(t), forged });
    unreadPage(o, `the payment with ${what}`);
    if (approvalOf(o) === 'true') taken.push(what);
  }
  return taken;
}

describe('4.1 the card entered on the payment screen', () => {
  clauseTest(
    screenPayment('4.1-url-enlace-leads-to-screen'),
    'a card expiring in month 0 or 13, entered on the screen, is refused or observed',
    async (t) => {
      const taken = await forgedCardsApproved(t, [
        ['expiry month 13', { mesVencimiento: '13' }],
        ['expiry month 0', { mesVencimiento: '0' }],
      ]);
      if (taken.length > 0)
        t.observe(
          '4.1-url-enlace-leads-to-screen',
          `the screen approved a card with ${taken.join(' and a card with ')} (a month is 1 to 12)`,
        );
    },
  );

  clauseTest(
    screenPayment('4.1-url-enlace-leads-to-screen'),
    'a card whose expiry month or year has a fraction, entered on the screen, is refused or observed',
    async (t) => {
      const anio = Number((await testCard(t)).anioVencimiento);
      const taken = await forgedCardsApproved(t, [
        ['expiry month 1.5', { mesVencimiento: '1.5' }],
        [`expiry year ${anio}.5`, { anioVencimiento: `${anio}.5` }],
      ]);
      if (taken.length > 0)
        t.observe('4.1-url-enlace-leads-to-screen', `the screen approved a card with ${taken.join(' and a card with ')} (ints)`);
    },
  );

  clauseTest(
    screenPayment('4.1-url-enlace-leads-to-screen'),
    'a card number with letters after its digits, entered on the screen, is refused or observed',
    async (t) => {
      const { numeroTarjeta } = await testCard(t);
      const taken = await forgedCardsApproved(t, [['the test card number followed by "ABC"', { numeroTarjeta: `${numeroTarjeta}ABC` }]]);
      if (taken.length > 0) t.observe('4.1-url-enlace-leads-to-screen', `the screen approved a card with ${taken[0]} (a number of digits)`);
    },
  );
});
