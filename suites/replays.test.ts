/**
 * Replays: the same payment sent twice, as a double click, a browser's resend or a retrying proxy does.
 * The spec states nothing on replays, so a replay that charges again is observed (WARN) — except where it breaks a
 * rule the spec does state: the link's counters still count what its transactions say (2.1), a link limited to one
 * success never takes two (3), and the redirect answering a replay tells what was recorded (6.3). The harness never
 * re-sends a payment by itself (principle 5): each replay here
 * is an explicit step of its test, with its own evidence.
 */
import { describe } from 'vitest';
import { activate, createLink, idOf, listedIds } from './flows/links.ts';
import { lookUp, webhookFor } from './flows/lookups.ts';
import { buy3ds, complete3ds } from './flows/purchases.ts';
import { observedLinkBody, testCard } from './flows/screens.ts';
import {
  approvalOf,
  asBool,
  asNumber,
  asString,
  clauseTest,
  field,
  fieldEquals,
  holds,
  paymentApproved,
  type PaymentOutcome,
  type TestHandle,
} from '../harness/index.ts';

const flow = (clauses: string[], needs: 'account'[] = []) => ({ clauses, endpoint: 'flow', purchase: true, needs });

/**
 * What the redirect answering a replay says (6.3: the outcome) is what the service recorded: the transaction it names
 * exists and has that result — whatever the service chose to do with the replay (answer the first outcome again,
 * charge again, refuse). Its lookup made here; the check returned (undefined when the redirect names none).
 */
async function replayTold(t: TestHandle, again: PaymentOutcome, firstId: string | undefined): Promise<(() => void) | undefined> {
  const id = idOf(again);
  if (id === undefined || id === '') return undefined;
  const ex = await t.call('getTransaction', { pathParams: { id }, auth: 'bearer', label: "the transaction the replay's redirect names" });
  return () => {
    const status = ex.response?.status ?? 0;
    holds(
      status >= 200 && status < 300,
      'redirect-outcome',
      '6.3-redirect-outcome',
      `the transaction ${id} named by the redirect answering the replay is known to the lookup (4.8)`,
      `GET /TransaccionCompra/${id} answered ${status || 'nothing'}`,
      ex,
    );
    const said = approvalOf(again);
    const recorded = asBool(field(ex.response?.json, 'esAprobada'));
    if (said === undefined || recorded === undefined || recorded === (said === 'true')) return;
    // The first transaction named again as not approved can mean "this attempt was refused": observed, not failed.
    if (id === firstId && said === 'false')
      t.observe(
        '6.3-redirect-outcome',
        `the redirect answering the replay names the first transaction ${id} with esAprobada=false, while it is ` +
          `approved (read as: the replay refused)`,
      );
    else fieldEquals(recorded, said === 'true', `esAprobada of ${id} (the replay's redirect said ${said})`, '6.3-redirect-outcome', ex);
  };
}

/** A screen opened, paid, and its very submission sent once more; both outcomes. */
async function paidTwice(t: TestHandle, urlEnlace: string): Promise<{ first: PaymentOutcome; again: PaymentOutcome }> {
  const screen = await t.run.payer.openScreen(urlEnlace);
  const card = await testCard(t);
  const first = await t.run.payer.pay({ kind: 'opened-screen', screen, payment: card });
  const again = await t.run.payer.resubmitScreen(screen, card);
  return { first, again };
}

describe('replays of a payment', () => {
  clauseTest(
    flow(['2.1-successful-payments-counted', '2.1-transacciones-all', '6.3-redirect-outcome'], ['account']),
    'the same screen submission sent twice: its redirect tells what was recorded, and every transaction listed is ' +
      'counted (a second charge is observed)',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t));
      const { first, again } = await paidTwice(t, link.urlEnlace);
      const firstId = paymentApproved(first, '7-dev-authorizes', 'the payment')['idTransaccion'];
      const charged = approvalOf(again) === 'true' && idOf(again) !== firstId;
      if (charged)
        t.observe(
          '2.1-successful-payments-counted',
          `the same submission sent again was approved as another transaction (${idOf(again)} after ${firstId}): a ` +
            `double click charges twice (the spec states nothing on replays)`,
        );
      // A refused replay is the service's choice; 410 (Gone) is the answer of a link that can no longer be paid, and this
      // one still can (7: the status of a refusal is not shown): observed, as a forged post refused so is.
      if (again.kind === 'refused' && again.status === 410)
        t.observe(
          '7-error-format-not-shown',
          'the same submission sent again at once was refused with 410, the status of a payment that can no longer be ' +
            'made, though the link can still be paid',
        );
      const told = await replayTold(t, again, firstId === undefined ? undefined : String(firstId));
      if (told) t.soft(told);
      const { ex, record } = await activate(t, link.idEnlace);
      const approved = listedIds(record, true);
      // A charge made by the replay but never counted. Which counter takes what is judged by the counting tests; a
      // refused replay counted as a failed attempt (no transaction) is a reading the spec allows: so at least, not equal.
      const listed = (record.transacciones ?? []).length;
      const counted = (asNumber(record.cantidadPagosExitosos) ?? 0) + (asNumber(record.cantidadIntentoPagoFallidos) ?? 0);
      holds(
        counted >= listed,
        'payments-counted',
        '2.1-successful-payments-counted',
        `every transaction listed is counted (cantidadPagosExitosos + cantidadIntentoPagoFallidos ≥ ${listed} transacciones)`,
        `${counted} counted for ${listed} listed`,
        ex,
      );
      holds(
        approved.includes(String(firstId)),
        'transaction-listed',
        '2.1-transacciones-all',
        `transacciones lists the approved ${firstId}`,
        `approved ids listed: ${approved.join(', ') || 'none'}`,
        ex,
      );
    },
  );

  clauseTest(
    flow(['3-success-limit-bounds-use'], ['account']),
    'the same screen submission sent twice on a link limited to one success: at most one approved payment',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
      const { first } = await paidTwice(t, link.urlEnlace);
      paymentApproved(first, '7-dev-authorizes', 'the payment');
      const { ex, record } = await activate(t, link.idEnlace);
      const approved = listedIds(record, true);
      holds(
        approved.length <= 1,
        'success-limit',
        '3-success-limit-bounds-use',
        'at most 1 approved payment on a link limited to one (the same submission sent twice)',
        `${approved.length} approved: ${approved.join(', ')}`,
        ex,
      );
    },
  );

  clauseTest(
    flow(['4.3-url-completar', '3-transaction-transitions-not-shown']),
    'a 3DS page completed twice: the transaction stays the one approved (a second approval or notification is observed)',
    async (t) => {
      const receiver = await t.run.receiver();
      const purchase = await buy3ds(t, { configuracion: { urlWebhook: receiver.webhookUrl('3ds-replay') } });
      const id = String(purchase.response['idTransaccion']);
      await complete3ds(t, purchase);
      const before = await lookUp(t, id);
      const codigo = asString(before.tx['codigoAutorizacion']);
      fieldEquals(before.tx['esAprobada'], true, 'esAprobada after completion', '4.3-url-completar', before.ex);
      // The same page again, as a customer's back button and submit would.
      const url = String(purchase.response['urlCompletarPago3Ds']);
      const again = await t.run.payer.pay({
        kind: '3ds',
        url: new URL(url, purchase.ex.request.url).href,
        redirectPrefix: purchase.request.urlRedirect,
        card: { ...purchase.request.tarjetaCreditoDebido },
      });
      const after = await lookUp(t, id);
      fieldEquals(after.tx['esAprobada'], true, 'esAprobada after the page was completed again', '4.3-url-completar', after.ex);
      if (asString(after.tx['codigoAutorizacion']) !== codigo) {
        t.observe(
          '3-transaction-transitions-not-shown',
          `completing the 3DS page again changed codigoAutorizacion (${JSON.stringify(codigo)} → ` +
            `${JSON.stringify(asString(after.tx['codigoAutorizacion']))}): the approval was made twice`,
        );
      }
      if (approvalOf(again) === 'true')
        t.observe('3-transaction-transitions-not-shown', 'the completed 3DS page took a second completion and answered approved again');
      await webhookFor(t, id, ['6.1-webhook-on-success']);
      await new Promise((resolve) => setTimeout(resolve, t.run.target.capabilities.includes('outbox') ? 300 : 2000));
      // Told apart by their bytes: the same body again is at-least-once delivery (observed once per run by the
      // contract testcases), another body a second notification of the completion.
      const bodies = new Set(
        receiver
          .webhooks()
          .filter((w) => w.answeredStatus < 300 && w.tag === '3ds-replay' && JSON.stringify(w.json ?? '').includes(id))
          .map((w) => w.rawBody.toString('base64')),
      );
      if (bodies.size > 1)
        t.observe(
          '6.1-webhook-signature-not-shown',
          `the approved 3DS transaction ${id} was notified ${bodies.size} times with different bodies although each ` +
            `delivery was answered 2xx (delivery guarantees are not shown)`,
        );
    },
  );
});
