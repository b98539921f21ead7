/**
 * The counted rules under concurrency (3, 2.1): payments of one link made at the same instant — on its screen, through
 * PagoQr, declines with cvv 111 — never approve more than cantidadMaximaPagosExitosos, the failed-payment limit still
 * deactivates the link, the counters of its record equal its transactions, and activar sent with payments loses
 * none of them. The verdict depends only on counts the spec states, never on timing: a payment the target refuses or
 * makes wait (a 4xx, a 429, a page saying no) is not approved, which every rule here allows; a target that approved
 * none of them is observed, not failed.
 */
import { describe } from 'vitest';
import { paymentLinkMinimal, purchasePagoQr } from '../generators/bodies.ts';
import { activate, counterRead, createLink, idOf, listedIds } from './flows/links.ts';
import { DECLINE_CVV, observedLinkBody, payOnScreen, testCard } from './flows/screens.ts';
import {
  approvalOf,
  asBool,
  asNumber,
  clauseTest,
  type Exchange,
  field,
  fieldEquals,
  holds,
  type PaymentOutcome,
  readResponse,
  succeeded,
  type TestHandle,
  unreadPage,
} from '../harness/index.ts';

/** Payments sent together: enough to overlap on any target the request cap lets through (at least 2 in flight). */
const AT_ONCE = 3;

const screenPayments = (clauses: string[]) => ({ clauses, endpoint: 'flow', purchase: true, needs: ['account' as const] });

/** Opens `n` screens of the link (each a customer of its own), then submits them all at the same instant. */
async function payAtOnce(t: TestHandle, urlEnlace: string, n: number, cvv?: string): Promise<PaymentOutcome[]> {
  const screens = await Promise.all(Array.from({ length: n }, () => t.run.payer.openScreen(urlEnlace)));
  const card = await testCard(t, cvv === undefined ? {} : { cvv });
  const outcomes = await Promise.all(screens.map((screen) => t.run.payer.pay({ kind: 'opened-screen', screen, payment: card })));
  // A payment whose result page the payer could not read might be any of them: the counts are not judged.
  for (const [i, o] of outcomes.entries()) unreadPage(o, `payment ${i + 1} of ${n} at once`);
  return outcomes;
}

/** `n` PagoQr payments of the link sent at the same instant. */
function pagoQrAtOnce(t: TestHandle, urlEnlace: string, n = AT_ONCE): Promise<Exchange[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      t.call('purchasePagoQr', { json: purchasePagoQr(urlEnlace), label: `PagoQr ${i + 1} of ${n} (at once)` }),
    ),
  );
}

/**
 * Whether at least two of the payments were in flight together (sent → answered): where none overlapped (a request
 * cap of 1, a browser filling one page while another was answered) the transcript says so — the limit was then
 * judged as for payments one after another, which the spec's counts still bound. A remark, not a WARN: the overlap is
 * the suite's scheduling, nothing the target did.
 */
function saySideBySide(t: TestHandle, spans: { from?: number; to?: number }[], clause: string, what: string): void {
  const known = spans.filter((s): s is { from: number; to: number } => s.from !== undefined && s.to !== undefined);
  const overlapped = known.some((a, i) => known.some((b, j) => i !== j && a.from < b.to && b.from < a.to));
  if (known.length >= 2 && !overlapped)
    t.remark(`${clause}: the ${what} did not overlap (each answered before the next was sent): judged as payments one after another`);
}

const exchangeSpan = (ex: Exchange) => ({ from: ex.sentAt, to: ex.answeredAt });
const outcomeSpan = (o: PaymentOutcome) => ({ from: o.timing?.submittedAt, to: o.timing?.answeredAt });

/** PagoQr payments none of which the target took: what it answered instead; undefined when one went through. */
function noneTaken(paid: Exchange[]): string | undefined {
  const statuses = paid.map((p) => p.response?.status ?? 0);
  return statuses.some((s) => s >= 200 && s < 300) ? undefined : statuses.map((s) => s || 'no answer').join(', ');
}

/** The ids of the PagoQr payments the lookup says approved (PagoQr's response does not say). */
async function approvedByLookup(t: TestHandle, paid: Exchange[]): Promise<string[]> {
  const approved: string[] = [];
  for (const ex of paid.filter((p) => (p.response?.status ?? 0) >= 200 && (p.response?.status ?? 0) < 300)) {
    const id = String(readResponse(t.run.contract, 'purchasePagoQr', ex)['idTransaccion'] ?? '');
    if (id === '') continue;
    const looked = await t.call('getTransaction', { pathParams: { id }, auth: 'account' });
    if (asBool(field(looked.response?.json, 'esAprobada')) === true) approved.push(id);
  }
  return approved;
}

describe('3 / 2.1 payments of one link at the same instant', () => {
  clauseTest(
    screenPayments(['3-success-limit-bounds-use', '2.1-successful-payments-counted']),
    `${AT_ONCE} screen payments at the same instant on a link limited to one success: at most one approved, and the ` +
      `record counts what was approved`,
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
      const outcomes = await payAtOnce(t, link.urlEnlace, AT_ONCE);
      saySideBySide(t, outcomes.map(outcomeSpan), '3-success-limit-bounds-use', `${AT_ONCE} screen payments`);
      const approved = outcomes.filter((o) => approvalOf(o) === 'true').map((o) => idOf(o) ?? '?');
      holds(
        approved.length <= 1,
        'success-limit',
        '3-success-limit-bounds-use',
        `at most 1 of ${AT_ONCE} simultaneous payments approved (cantidadMaximaPagosExitosos 1)`,
        `${approved.length} approved: ${approved.join(', ')}`,
      );
      if (approved.length === 0)
        t.observe(
          '3-success-limit-bounds-use',
          `none of ${AT_ONCE} simultaneous payments was approved (${outcomes.map((o) => o.kind).join(', ')})`,
        );
      const { ex, record } = await activate(t, link.idEnlace);
      fieldEquals(record.cantidadPagosExitosos, approved.length, 'cantidadPagosExitosos', '2.1-successful-payments-counted', ex);
      fieldEquals(listedIds(record, true).length, approved.length, 'approved transacciones', '2.1-successful-payments-counted', ex);
    },
  );

  clauseTest(
    {
      clauses: ['3-success-limit-bounds-use', '4.5-pays-the-link', '2.1-successful-payments-counted'],
      endpoint: 'POST /TransaccionCompra/PagoQr',
      purchase: true,
      needs: ['account'],
    },
    `${AT_ONCE} PagoQr payments at the same instant on a link limited to one success: at most one approved, and the ` +
      `record counts and lists what was approved`,
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
      const paid = await pagoQrAtOnce(t, link.urlEnlace);
      const refused = noneTaken(paid);
      // A target that takes no PagoQr at once (a refusal, a 429) cannot show the limit under concurrency: said, not failed.
      if (refused !== undefined)
        return t.skip(
          paid.some((p) => p.response?.status === 429) ? 'rate-limited' : 'refused-by-target',
          `the target took none of ${AT_ONCE} PagoQr payments sent at once (answers: ${refused}): the limit under ` +
            `concurrency was not shown`,
        );
      saySideBySide(t, paid.map(exchangeSpan), '3-success-limit-bounds-use', `${AT_ONCE} PagoQr payments`);
      const approved = await approvedByLookup(t, paid);
      holds(
        approved.length <= 1,
        'success-limit',
        '3-success-limit-bounds-use',
        `at most 1 of ${AT_ONCE} simultaneous PagoQr payments approved (cantidadMaximaPagosExitosos 1)`,
        `${approved.length} approved: ${approved.join(', ')}`,
      );
      const { ex, record } = await activate(t, link.idEnlace);
      t.soft(() =>
        fieldEquals(record.cantidadPagosExitosos, approved.length, 'cantidadPagosExitosos', '2.1-successful-payments-counted', ex),
      );
      t.soft(() =>
        fieldEquals(listedIds(record, true).length, approved.length, 'approved transacciones', '2.1-successful-payments-counted', ex),
      );
    },
  );

  clauseTest(
    screenPayments(['3-failure-limit-deactivates', '2.1-failed-attempts-counted']),
    `${AT_ONCE} declines at the same instant on a link limited to two failures: the link is then inactive, and the ` +
      `record counts each decline`,
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
      const outcomes = await payAtOnce(t, link.urlEnlace, AT_ONCE, DECLINE_CVV);
      saySideBySide(t, outcomes.map(outcomeSpan), '3-failure-limit-deactivates', `${AT_ONCE} declines`);
      const declined = outcomes.filter((o) => approvalOf(o) === 'false').length;
      holds(
        outcomes.every((o) => approvalOf(o) !== 'true'),
        'decline',
        '7-cvv-111-declines',
        'no payment with cvv 111 approved',
        outcomes.map((o) => approvalOf(o) ?? o.kind).join(', '),
      );
      if (declined < 2)
        return t.skip(
          'nothing-to-judge',
          `only ${declined} of ${AT_ONCE} simultaneous cvv-111 payments were processed as declines (the others refused ` +
            `or not said): the failure limit of 2 was not reached, nothing to judge`,
        );
      const after = await payOnScreen(t, link.urlEnlace);
      unreadPage(after, 'the payment after the declines');
      holds(
        approvalOf(after) !== 'true',
        'failure-limit',
        '3-failure-limit-deactivates',
        `no payment approved after ${declined} simultaneous declines reached cantidadMaximaPagosFallidos 2`,
        `approved: ${idOf(after) ?? '?'}`,
      );
      const { ex, record } = await activate(t, link.idEnlace);
      // Read through the activar that revives the link: as it stood, or reset first (counterRead).
      counterRead(t, record, 'cantidadIntentoPagoFallidos', listedIds(record, false).length, '2.1-failed-attempts-counted', ex);
      fieldEquals(
        listedIds(record, false).length,
        declined,
        'declined transacciones (= the declines answered)',
        '2.1-failed-attempts-counted',
        ex,
      );
    },
  );
});

describe('4.2 / 2.1 activar at the same instant as payments', () => {
  // What activar does to the counters is not stated (variant activar-resets-counters): only what holds either way is
  // judged — a payment approved is listed, and no more payments are counted approved than are listed.
  clauseTest(
    {
      clauses: ['2.1-transacciones-all', '2.1-successful-payments-counted'],
      endpoint: 'PUT /EnlacePago/{id}/activar',
      purchase: true,
      needs: ['account'],
    },
    `activar sent with ${AT_ONCE} PagoQr payments of the same link: every approved payment stays listed, and none is counted that is not`,
    async (t) => {
      const { link } = await createLink(t, paymentLinkMinimal());
      const paid = await withActivar(t, link.idEnlace, () => pagoQrAtOnce(t, link.urlEnlace));
      const approved = await approvedByLookup(t, paid);
      if (approved.length === 0)
        return t.skip(
          'nothing-to-judge',
          `none of ${AT_ONCE} PagoQr payments sent with activar was approved ` +
            `(${paid.map((p) => p.response?.status ?? 'no answer').join(', ')}): nothing to find in the link`,
        );
      await noneLost(t, link.idEnlace, approved, []);
    },
  );

  clauseTest(
    {
      clauses: ['2.1-transacciones-all', '2.1-successful-payments-counted'],
      endpoint: 'PUT /EnlacePago/{id}/activar',
      purchase: true,
      needs: ['account'],
    },
    `activar sent with ${AT_ONCE} screen payments of the same link, one a decline: every payment stays listed, and no ` +
      `success is counted that is not`,
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t));
      const screens = await Promise.all(Array.from({ length: AT_ONCE }, () => t.run.payer.openScreen(link.urlEnlace)));
      const [card, declining] = [await testCard(t), await testCard(t, { cvv: DECLINE_CVV })];
      const outcomes = await withActivar(t, link.idEnlace, () =>
        Promise.all(screens.map((screen, i) => t.run.payer.pay({ kind: 'opened-screen', screen, payment: i === 0 ? declining : card }))),
      );
      for (const [i, o] of outcomes.entries()) unreadPage(o, `screen payment ${i + 1} of ${AT_ONCE}`);
      const approved = outcomes.filter((o) => approvalOf(o) === 'true').map((o) => idOf(o) ?? '?');
      const declined = outcomes.filter((o) => approvalOf(o) === 'false').map((o) => idOf(o) ?? '?');
      if (approved.length + declined.length === 0)
        return t.skip(
          'nothing-to-judge',
          `none of ${AT_ONCE} screen payments sent with activar was processed ` +
            `(${outcomes.map((o) => o.kind).join(', ')}): nothing to find in the link`,
        );
      await noneLost(t, link.idEnlace, approved, declined);
    },
  );
});

/**
 * `pay` sent with activar: activar first, the payments a moment behind it, so on a target that reads the link, waits,
 * and writes it back whole, they land in between. (Only whether a fault is seen depends on timing; the verdict never
 * does.) activar itself must succeed: the link is the test's own.
 */
async function withActivar<R>(t: TestHandle, idEnlace: number, pay: () => Promise<R>): Promise<R> {
  const racing = t.call('activatePaymentLink', { pathParams: { id: idEnlace }, label: 'activar (at once with the payments)' });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const [activated, paid] = await Promise.all([racing, pay()]);
  succeeded(activated, '4.2-endpoint', 'activating the payment link while it is being paid');
  return paid;
}

/**
 * After payments raced activar: each payment answered is listed, approved and declined apart, and no more successes
 * are counted than are listed (what activar does to the counters is not stated: only what holds either way is judged;
 * the failure counter's own count is the tests of 2.1-failed-attempts-counted's finding).
 */
async function noneLost(t: TestHandle, idEnlace: number, approved: string[], declined: string[]): Promise<void> {
  const { ex, record } = await activate(t, idEnlace);
  for (const [ids, ok] of [
    [approved, true],
    [declined, false],
  ] as const) {
    const shown = listedIds(record, ok);
    const lost = ids.filter((id) => !shown.includes(id));
    t.soft(() =>
      holds(
        lost.length === 0,
        'transaction-listed',
        '2.1-transacciones-all',
        `transacciones lists the ${ids.length} ${ok ? 'approved' : 'declined'} payments made with activar`,
        `not listed: ${lost.join(', ')}`,
        ex,
      ),
    );
  }
  if (approved.length === 0) return;
  const shown = listedIds(record, true).length;
  const counted = asNumber(record.cantidadPagosExitosos) ?? 0;
  t.soft(() =>
    holds(
      counted <= shown,
      'payments-counted',
      '2.1-successful-payments-counted',
      `cantidadPagosExitosos (${counted}) at most the approved transacciones listed (${shown})`,
      `${counted} counted, ${shown} listed`,
      ex,
    ),
  );
}
