/**
 * Every door of a limit: a limit is enforced where it is checked, and a bug lives on the other paths to the same
 * action. Here the doors the other suites do not take: the quick-pay form posted directly after its QR expired (from a
 * page opened in time), a screen first shown long after its link was created (its window counts from when it is
 * shown: 4.1 "after being shown"), a vigencia.fechaFin minutes in the past (no wait: an instant, not a calendar date),
 * through the screen and through PagoQr, and the success and failure limits reached on the screen, tried through
 * PagoQr and through a quick-pay started on the link's screen before the limit was reached. Time passes by the target's clock where it has one, else in real time within
 * MAX_WAIT_S (harness/run/waits.ts).
 */
import { describe } from 'vitest';
import { purchasePagoQr } from '../generators/bodies.ts';
import type { ConfiguracionRequest } from '../spec/types.ts';
import { activate, CARD_AND_QUICK_PAY, createLink } from './flows/links.ts';
import { lookUp } from './flows/lookups.ts';
import { createQuickPay, payQuickPay, qrPage, quickPayQrOf } from './flows/purchases.ts';
import { declineOnScreen, observedLinkBody, payOnScreen, testCard } from './flows/screens.ts';
import {
  asBool,
  clauseTest,
  fail,
  field,
  holds,
  letTimePass,
  notAccepted,
  NotJudged,
  notLate,
  onOurClock,
  type PageInput,
  paymentApproved,
  paymentNotApproved,
  type Screen,
  type ScreenForm,
  skipUnlessTimeCanPass,
  targetNow,
  type TestHandle,
  waitingTimeoutMs,
  withDeadline,
} from '../harness/index.ts';

async function linkWith(t: TestHandle, configuracion: Partial<ConfiguracionRequest>, fields: Parameters<typeof observedLinkBody>[1] = {}) {
  const base = await observedLinkBody(t, fields);
  return createLink(t, { ...base, configuracion: { ...base.configuracion, ...configuracion } });
}

/** When a quick-pay's QR stops being payable (its fechaVencimiento), as an instant of our clock; NaN: it states none. */
async function qrDeadline(t: TestHandle, response: Record<string, unknown>): Promise<number> {
  const vence = Date.parse(String((response['datosQuickPay'] as { fechaVencimiento?: unknown } | undefined)?.fechaVencimiento ?? ''));
  return Number.isNaN(vence) ? Number.NaN : onOurClock(t, vence);
}

/**
 * The page a quick-pay's QR leads to (4.6: urlQR is the QR), opened as the payer's browser opens it (its form kept to
 * submit later), first in line before the QR's `deadline` (withDeadline). A page without a form answered after that
 * deadline (less the clocks' margin) says the suite came too late, nothing of the target: not judged.
 */
async function openQuickPayPage(
  t: TestHandle,
  response: Record<string, unknown>,
  deadline: number,
): Promise<Screen & { form: ScreenForm }> {
  return withDeadline(deadline, () => openQuickPayPageNow(t, response, deadline));
}

async function openQuickPayPageNow(
  t: TestHandle,
  response: Record<string, unknown>,
  deadline: number,
): Promise<Screen & { form: ScreenForm }> {
  const urlQR = String((response['datosQuickPay'] as { urlQR?: unknown } | undefined)?.urlQR ?? '');
  const screen = await t.run.payer.openScreen(await qrPage(t, urlQR));
  const answeredAt = Date.now();
  // The margin of the clocks' offset (onOurClock), as lateBy (harness/run/waits.ts) allows it.
  if ((!screen.form || screen.status >= 400) && answeredAt + 1000 > deadline) {
    const s = (ms: number) => `${(Math.abs(ms) / 1000).toFixed(1)} s`;
    throw new NotJudged(
      `the quick-pay page (status ${screen.status}, no form) was answered ${s(answeredAt - deadline)} ` +
        `${answeredAt > deadline ? 'after' : 'before'} the fechaVencimiento its QR states (clocks compared to within 1.0 s): ` +
        'the suite was too late, which says nothing of the target',
    );
  }
  if (!screen.form || screen.status >= 400)
    return t.skip('page-not-driven', `the quick-pay page (status ${screen.status}) shows no form to post directly`);
  return screen as Screen & { form: ScreenForm };
}

/** The card a quick-pay page may ask for, entered only where it asks. */
async function cardFor(t: TestHandle): Promise<PageInput> {
  const { numeroTarjeta, cvv, mesVencimiento, anioVencimiento, nombreTitular, email } = await testCard(t);
  return { numeroTarjeta, cvv, mesVencimiento, anioVencimiento, nombreTitular, email };
}

describe('4.6 the quick-pay QR: its expiry on the form posted directly', () => {
  clauseTest(
    { clauses: '4.6-qr-expiry', endpoint: 'flow', purchase: true, movesClock: true },
    'the form of a quick-pay page opened before fechaVencimiento, posted after it, pays nothing',
    async (t) => {
      // The door itself first: the page's form posted directly, in time, pays (else this payer cannot post it: not judged).
      const control = await createQuickPay(t);
      const controlDeadline = await qrDeadline(t, control.response);
      const card = await cardFor(t);
      const posted = await withDeadline(controlDeadline, async () =>
        t.run.payer.pay({ kind: 'opened-page', screen: await openQuickPayPageNow(t, control.response, controlDeadline), card }),
      );
      const { tx: paid } = await lookUp(t, control.response['idTransaccion']);
      if (asBool(field(paid, 'esAprobada')) !== true) notLate(posted, controlDeadline, 'the control payment of the quick-pay form');
      if (asBool(field(paid, 'esAprobada')) !== true)
        t.skip(
          'page-not-driven',
          `the quick-pay page opened, then submitted, did not pay the quick-pay in time (${posted.kind}` +
            `${posted.kind === 'redirect' ? '' : ` ${posted.status}`}): the expiry on this door is not judged`,
        );

      const { response } = await createQuickPay(t);
      const vence = Date.parse(String((response['datosQuickPay'] as { fechaVencimiento?: unknown } | undefined)?.fechaVencimiento ?? ''));
      if (Number.isNaN(vence))
        return t.skip('premise-elsewhere', 'the quick-pay states no fechaVencimiento this suite reads: judged by the 4.6 response tests');
      const seconds = Math.ceil((vence - (await targetNow(t))) / 1000) + 15;
      skipUnlessTimeCanPass(t, seconds, 'a quick-pay form posted 15 s after its fechaVencimiento');
      const page = await openQuickPayPage(t, response, await onOurClock(t, vence));
      await letTimePass(t, seconds, 'the quick-pay form posted 15 s after its fechaVencimiento');
      const late = await t.run.payer.pay({ kind: 'opened-page', screen: page, card: await cardFor(t) });
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      if (asBool(field(tx, 'esAprobada')) === true) {
        fail(
          'payment-not-approved',
          '4.6-qr-expiry',
          'a quick-pay form posted after fechaVencimiento pays nothing (the QR expired), whether or not its page was opened in time',
          `the submission ended in ${late.kind}${late.kind === 'redirect' ? '' : ` ${late.status}`} and the lookup says esAprobada true`,
          ex,
        );
      }
    },
    waitingTimeoutMs(),
  );
});

describe("4.1 the screen's window counts from when it is shown", () => {
  clauseTest(
    { clauses: '4.1-duracion-intento', endpoint: 'flow', purchase: true, movesClock: true },
    'a screen first shown more than duracionInterfazIntentoMinutos after its link was created is paid within its own window',
    async (t) => {
      // 70 s after the link's creation, for a window of 1 minute: shown then, paid at once.
      skipUnlessTimeCanPass(t, 70, 'a screen first shown 70 s after its link was created (duracionInterfazIntentoMinutos 1)');
      const { link } = await linkWith(t, { duracionInterfazIntentoMinutos: 1 });
      await letTimePass(t, 70, 'a screen first shown 70 s after its link was created');
      paymentApproved(
        await payOnScreen(t, link.urlEnlace),
        '4.1-duracion-intento',
        'a payment made as soon as the screen was shown, 70 s after the link was created (validity 1 minute after being shown)',
      );
    },
    waitingTimeoutMs(),
  );
});

describe("4.1 a screen's window is its own, not another screen's", () => {
  clauseTest(
    { clauses: '4.1-duracion-intento', endpoint: 'flow', purchase: true, movesClock: true, needs: ['account'] },
    "a screen posted after its window, carrying the hidden fields of another link's screen shown later, is not processed, or is observed",
    async (t) => {
      skipUnlessTimeCanPass(t, 75, 'a payment 75 s after the screen was shown (duracionInterfazIntentoMinutos 1)');
      const { link } = await linkWith(t, { duracionInterfazIntentoMinutos: 1 });
      const { link: other } = await linkWith(t, { duracionInterfazIntentoMinutos: 1 });
      const late = await t.run.payer.openScreen(link.urlEnlace);
      await letTimePass(t, 75, 'a payment 75 s after the screen was shown');
      const fresh = await t.run.payer.openScreen(other.urlEnlace);
      const [lateForm, freshForm] = [late.form, fresh.form];
      if (!lateForm || !freshForm)
        return t.skip('page-not-driven', 'a screen shows no form to post: its hidden fields are judged where both show one');
      // What the customer does not type (hidden fields), taken from the other link's screen just shown.
      const visible = new Set(freshForm.visible ?? []);
      const taken = Object.keys(freshForm.fields).filter(
        (name) => !visible.has(name) && name in lateForm.fields && lateForm.fields[name] !== freshForm.fields[name],
      );
      if (taken.length === 0)
        t.skip('nothing-to-judge', "the two screens' hidden fields are the same: no showing of its own to tell apart");
      for (const name of taken) lateForm.fields[name] = freshForm.fields[name] ?? '';
      await t.run.payer.pay({ kind: 'opened-screen', screen: late, payment: await testCard(t) });
      // Judged on the link whose screen was posted (a target reading the link from a hidden field paid the other).
      const { record } = await activate(t, link.idEnlace);
      const paid = (record.transacciones ?? []).filter((tx) => asBool(field(tx, 'esAprobada')) === true);
      if (paid.length > 0)
        t.observe(
          '4.1-duracion-intento',
          `a payment posted to a screen 75 s after it was shown (validity 1 minute), with the hidden fields (${taken.join(', ')}) of another link's screen shown since, was approved on its link (${paid.length} approved in transacciones): another screen's showing made it valid`,
        );
    },
    waitingTimeoutMs(),
  );
});

describe("4.1 a screen's window is not left out with its hidden fields", () => {
  clauseTest(
    { clauses: '4.1-duracion-intento', endpoint: 'flow', purchase: true, movesClock: true, needs: ['account'] },
    'a screen posted after its window without its hidden fields (what the customer does not type) is not processed, or is observed',
    async (t) => {
      skipUnlessTimeCanPass(t, 75, 'a payment 75 s after the screen was shown (duracionInterfazIntentoMinutos 1)');
      const { link } = await linkWith(t, { duracionInterfazIntentoMinutos: 1 });
      const late = await t.run.payer.openScreen(link.urlEnlace);
      const form = late.form;
      if (!form) return t.skip('page-not-driven', 'the screen shows no form to post: its hidden fields are judged where it shows one');
      const visible = new Set(form.visible ?? []);
      const hidden = Object.keys(form.fields).filter((name) => !visible.has(name));
      if (hidden.length === 0) return t.skip('nothing-to-judge', 'the screen has no hidden field to leave out');
      await letTimePass(t, 75, 'a payment 75 s after the screen was shown');
      for (const name of hidden) delete form.fields[name];
      await t.run.payer.pay({ kind: 'opened-screen', screen: late, payment: await testCard(t) });
      const { record } = await activate(t, link.idEnlace);
      const paid = (record.transacciones ?? []).filter((tx) => asBool(field(tx, 'esAprobada')) === true);
      if (paid.length > 0)
        t.observe(
          '4.1-duracion-intento',
          `a payment posted to a screen 75 s after it was shown (validity 1 minute), without its hidden fields (${hidden.join(', ')}), was approved (${paid.length} approved in transacciones): leaving them out left the window unchecked`,
        );
    },
    waitingTimeoutMs(),
  );
});

describe('3 vigencia.fechaFin minutes in the past: no wait needed', () => {
  clauseTest(
    { clauses: ['3-vigencia-bounds-use', '4.5-pays-the-link'], endpoint: 'flow', purchase: true },
    'a link whose vigencia.fechaFin passed minutes ago today takes no payment, on its screen nor through PagoQr',
    async (t) => {
      const now = await targetNow(t);
      // Three minutes ago, on today's UTC date (just after midnight: a second after it), written in UTC.
      const startOfDay = now - (now % 86_400_000);
      const fechaFin = new Date(Math.max(now - 180_000, startOfDay + 1000)).toISOString();
      const base = await observedLinkBody(t, { vigencia: { fechaFin } });
      const created = await t.call('createPaymentLink', { json: base });
      // Refusing a link that is already over is stricter than the spec asks (the target's right), and leaves nothing to pay.
      if (!(created.response && created.response.status >= 200 && created.response.status < 300))
        return t.skip(
          'nothing-to-judge',
          `a link whose vigencia.fechaFin (${fechaFin}) has passed was refused at creation (status ` +
            `${created.response?.status ?? 'none'}), as the target may: no link to pay, nothing to judge`,
        );
      // The link itself made as every test makes one (its URL found the ways the spec gives).
      const { link } = await createLink(t, { ...base, identificadorEnlaceComercio: `${base.identificadorEnlaceComercio}-b` });
      paymentNotApproved(
        await payOnScreen(t, link.urlEnlace),
        '3-vigencia-bounds-use',
        `a payment on the screen of a link whose vigencia.fechaFin ${fechaFin} passed minutes ago`,
      );
      if (!t.run.target.account) return;
      const paid = await t.call('purchasePagoQr', { json: purchasePagoQr(link.urlEnlace) });
      notAccepted(
        paid,
        ['3-vigencia-bounds-use', '4.5-pays-the-link'],
        `PagoQr of a link whose vigencia.fechaFin ${fechaFin} passed minutes ago`,
      );
    },
  );
});

describe('3 the success and failure limits reached on the screen hold for PagoQr too', () => {
  clauseTest(
    {
      clauses: ['3-success-limit-bounds-use', '4.5-pays-the-link'],
      endpoint: 'POST /TransaccionCompra/PagoQr',
      purchase: true,
      needs: ['account'],
    },
    'a link paid to its cantidadMaximaPagosExitosos on its screen is not paid again through PagoQr',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
      paymentApproved(await payOnScreen(t, link.urlEnlace), '3-success-limit-bounds-use', 'the one payment the link allows');
      const paid = await t.call('purchasePagoQr', { json: purchasePagoQr(link.urlEnlace) });
      notAccepted(
        paid,
        ['3-success-limit-bounds-use', '4.5-pays-the-link'],
        'PagoQr of a link at its success limit of 1 (reached on its screen)',
      );
    },
  );

  clauseTest(
    {
      clauses: ['3-failure-limit-deactivates', '3-inactive-no-payments', '4.5-pays-the-link'],
      endpoint: 'POST /TransaccionCompra/PagoQr',
      purchase: true,
      needs: ['account'],
    },
    'a link made inactive by cantidadMaximaPagosFallidos declines on its screen is not paid through PagoQr',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { limitesDeUso: { cantidadMaximaPagosFallidos: 1 } }));
      await declineOnScreen(t, link.urlEnlace, 1);
      const paid = await t.call('purchasePagoQr', { json: purchasePagoQr(link.urlEnlace) });
      notAccepted(
        paid,
        ['3-failure-limit-deactivates', '3-inactive-no-payments', '4.5-pays-the-link'],
        'PagoQr of a link inactive after its failure limit of 1 (reached on its screen)',
      );
    },
  );
});

describe("3 the success limit holds for a quick-pay started on the link's screen", () => {
  clauseTest(
    {
      clauses: ['3-success-limit-bounds-use', '4.6-url-qr'],
      endpoint: 'flow',
      purchase: true,
      needs: ['account'],
    },
    "a quick-pay chosen on a link's screen, paid after the link reached cantidadMaximaPagosExitosos by card, pays nothing",
    async (t) => {
      const { link } = await createLink(
        t,
        await observedLinkBody(t, {
          formaPago: CARD_AND_QUICK_PAY,
          limitesDeUso: { cantidadMaximaPagosExitosos: 1 },
        }),
      );
      // The quick-pay first (its QR kept), then the one payment the link allows, by card on its screen.
      const { urlQR } = await quickPayQrOf(t, await payOnScreen(t, link.urlEnlace, { formaPago: 4 }), link.urlEnlace);
      paymentApproved(await payOnScreen(t, link.urlEnlace), '3-success-limit-bounds-use', 'the one payment the link allows, by card');
      const late = await payQuickPay(t, urlQR, false);
      const { ex, record } = await activate(t, link.idEnlace);
      const quickPays = (record.transacciones ?? []).filter((tx) => tx.formaPago === 4);
      holds(
        record.cantidadPagosExitosos <= 1 && !quickPays.some((tx) => asBool(tx.esAprobada) === true),
        'success-limit',
        '3-success-limit-bounds-use',
        'a link at its cantidadMaximaPagosExitosos of 1 takes no further payment, a quick-pay started on its screen before included',
        `the quick-pay page answered ${late.kind}${late.kind === 'redirect' ? '' : ` ${late.status}`}; the record says ` +
          `cantidadPagosExitosos ${record.cantidadPagosExitosos}, quick-pays ${JSON.stringify(quickPays.map((tx) => tx.esAprobada))}`,
        ex,
      );
    },
  );
});
