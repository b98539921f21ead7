/**
 * Spec 4.6 — quick-pay: the API answers a QR (datosQuickPay.urlQR, an image) valid until fechaVencimiento. Paying it
 * before expiry approves the transaction; after expiry the payment is refused and the transaction stays unapproved.
 * Expiry is reached with the sandbox clock, or on a target without clock control by waiting when it is at most
 * MAX_WAIT_S away (harness/run/waits.ts); otherwise that test is skipped with the reason. How a vendor's page shows a refusal
 * is not shown, so the verdict comes from GET /TransaccionCompra/{id}.
 */
import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { parse } from 'node-html-parser';
import { activate, CARD_AND_QUICK_PAY, counterRead, createLink } from './flows/links.ts';
import { lookUp, webhookFor } from './flows/lookups.ts';
import {
  createQuickPay,
  datosAdicionales,
  paidQuickPay,
  payQuickPay,
  qrPage,
  qrTarget,
  quickPayQrOf,
  submitAskingNothing,
} from './flows/purchases.ts';
import { imagesNotServed, noServerErrorAt, observedLinkBody, payOnScreen, untypedImage, withIdChanged } from './flows/screens.ts';
import {
  absoluteUrl,
  approvalOf,
  asBool,
  clauseTest,
  containsPairs,
  dateAfter,
  field,
  fieldEquals,
  hasClock,
  isImage,
  letTimePass,
  notLate,
  onOurClock,
  PayerError,
  targetNow,
  waitingTimeoutMs,
  webhookPairs,
  withDeadline,
} from '../harness/index.ts';

const ENDPOINT = 'POST /TransaccionCompra/Quick-pay';

const datosQuickPay = (response: Record<string, unknown>) =>
  (response['datosQuickPay'] ?? {}) as { urlQR?: unknown; fechaVencimiento?: unknown };

describe('4.6 the quick-pay QR', () => {
  clauseTest(
    { clauses: ['4.6-url-qr', '4.6-endpoint'], endpoint: ENDPOINT, purchase: true },
    'urlQR is an absolute URL serving an image',
    async (t) => {
      const { ex, response } = await createQuickPay(t);
      const url = absoluteUrl(datosQuickPay(response).urlQR, 'datosQuickPay.urlQR', '4.6-url-qr', ex);
      const image = await t.run.payer.fetchImage(url.href);
      isImage(image, url.href, '4.6-url-qr');
      // The format is not shown (4.6 "URL of the QR"); the suite pays only a PNG's code.
      if (!image.isPng)
        t.observe('4.6-url-qr', `the QR image is ${image.contentType || 'of no content type'}, not PNG: the suite cannot pay it`);
      untypedImage(t, image, url.href, '4.6-url-qr');
    },
  );

  clauseTest({ clauses: '4.6-qr-expiry', endpoint: ENDPOINT, purchase: true }, 'fechaVencimiento lies in the future', async (t) => {
    const { ex, response } = await createQuickPay(t);
    dateAfter(datosQuickPay(response).fechaVencimiento, new Date(), 'datosQuickPay.fechaVencimiento', '4.6-qr-expiry', ex);
  });

  clauseTest(
    { clauses: ['4.6-url-qr', '4.6-qr-expiry', '7-dev-authorizes'], endpoint: 'flow', purchase: true },
    'paying the QR before it expires approves the transaction',
    async (t) => {
      const { response } = await createQuickPay(t);
      // A payment the suite itself made after the stated fechaVencimiento is not the target's decline.
      const { ex, tx } = await paidQuickPay(t, response);
      fieldEquals(tx['esAprobada'], true, 'esAprobada after paying the QR', ['4.6-url-qr', '7-dev-authorizes'], ex);
    },
  );

  clauseTest(
    { clauses: ['4.6-url-qr', '7-dev-authorizes'], endpoint: 'flow', purchase: true },
    'the page the QR leads to, where it asks the payer nothing, takes its own form as served and approves the transaction',
    async (t) => {
      const { response } = await createQuickPay(t);
      const urlQR = String(datosQuickPay(response).urlQR ?? '');
      const deadline = await onOurClock(t, Date.parse(String(datosQuickPay(response).fechaVencimiento)));
      const clauses = ['4.6-url-qr', '7-dev-authorizes'];
      const outcome = await withDeadline(deadline, async () => {
        const page = await t.run.payer.openScreen(await qrPage(t, urlQR));
        return submitAskingNothing(t, page, undefined, clauses, 'the quick-pay page');
      });
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      if (asBool(tx['esAprobada']) !== true) notLate(outcome, deadline, 'the quick-pay page submitted as served');
      fieldEquals(tx['esAprobada'], true, 'esAprobada after the quick-pay page was submitted', clauses, ex);
    },
  );

  // What the page the QR leads to shows is not shown (4.6): an image it names that answers no image (an error, a page)
  // is a broken image, observed.
  clauseTest(
    { clauses: '4.6-url-qr', endpoint: 'flow', purchase: true },
    'the page the QR leads to names no image that serves none, else observed',
    async (t) => {
      const { response } = await createQuickPay(t);
      const urlQR = String(datosQuickPay(response).urlQR ?? '');
      const page = await t.run.payer.openScreen(await qrPage(t, urlQR));
      const notServed = await imagesNotServed(t, page.html, page.url);
      if (notServed.length > 0)
        t.observe('4.6-url-qr', `the page the QR leads to (${page.url}) names images that serve none: ${notServed.join('; ')}`);
    },
  );

  // The other side of the limit: the validity stated is the one honoured (a page that refuses well before the
  // fechaVencimiento it states passes the test after this one).
  clauseTest(
    { clauses: '4.6-qr-expiry', endpoint: 'flow', purchase: true, movesClock: true },
    'a payment shortly before fechaVencimiento is still approved',
    async (t) => {
      const { response } = await createQuickPay(t);
      const vence = Date.parse(String(datosQuickPay(response).fechaVencimiento));
      const fromNow = (vence - (await targetNow(t))) / 1000;
      // A margin for the payment's own round trips: a tenth of the validity, at least 5 s and at most 60 s.
      const shortlyBefore = Math.floor(fromNow - Math.min(60, Math.max(5, fromNow / 10)));
      if (shortlyBefore <= 0)
        return t.skip(
          'nothing-to-judge',
          `the QR is valid for ${fromNow.toFixed(0)} s only: too short to pay it shortly before its end with a margin`,
        );
      // Validity longer than the run may wait in real time: paid as late as MAX_WAIT_S allows — still before the stated
      // fechaVencimiento, so still to be approved (a QR that dies well before what it states fails here).
      const maxWaitS = t.run.config.budget.maxWaitS;
      const before = hasClock(t) || shortlyBefore <= maxWaitS ? shortlyBefore : maxWaitS;
      if (before < shortlyBefore)
        t.observe(
          '4.6-qr-expiry',
          `the QR states ${fromNow.toFixed(0)} s of validity, more than MAX_WAIT_S=${maxWaitS}: paid ${before} s into ` +
            `it, not shortly before its end`,
        );
      if (before <= 0)
        return t.skip(
          'beyond-max-wait',
          `real-time waits are off (MAX_WAIT_S=0): the QR's ${fromNow.toFixed(0)} s of validity cannot be waited for`,
        );
      await letTimePass(t, before, `a payment ${before} s into a QR valid for ${fromNow.toFixed(0)} s`, before);
      const deadline = await onOurClock(t, vence);
      const outcome = await withDeadline(deadline, () => payQuickPay(t, datosQuickPay(response).urlQR));
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      if (asBool(tx['esAprobada']) !== true) notLate(outcome, deadline, 'the QR payment shortly before fechaVencimiento');
      fieldEquals(
        tx['esAprobada'],
        true,
        `esAprobada after paying the QR ${before} s into its ${fromNow.toFixed(0)} s of validity`,
        '4.6-qr-expiry',
        ex,
      );
    },
    waitingTimeoutMs(),
  );

  clauseTest(
    { clauses: '4.6-qr-expiry', endpoint: 'flow', purchase: true, movesClock: true },
    'a payment after fechaVencimiento is refused and the transaction stays unapproved',
    async (t) => {
      const { response } = await createQuickPay(t);
      const id = response['idTransaccion'];
      const vence = Date.parse(String(datosQuickPay(response).fechaVencimiento));
      // Measured on the target's clock (a test clock moves only when moved; a remote one may run ahead of ours).
      const fromNow = (vence - (await targetNow(t))) / 1000;
      await letTimePass(t, Math.ceil(fromNow) + 2, "a payment after the quick-pay's fechaVencimiento", fromNow);
      // How a vendor's page refuses is not shown: anything but a refusal is noted, and the lookup decides.
      try {
        const outcome = await payQuickPay(t, datosQuickPay(response).urlQR, false);
        if (outcome.kind !== 'refused')
          t.observe(
            '4.6-qr-expiry',
            `the expired QR's page answered ` +
              `${outcome.kind === 'page' ? `a page with status ${outcome.status}` : 'a redirect'}, not a refusal`,
          );
        // The QR has expired, so the page it leads to offering its form is noted: only the submission was refused.
        else if (outcome.answered === 'submission')
          t.observe(
            '4.6-qr-expiry',
            `the expired QR's page still offered its form and refused only the submission (status ${outcome.status})`,
          );
      } catch (err) {
        if (!(err instanceof PayerError)) throw err;
        t.observe('4.6-qr-expiry', `the expired QR could not be paid: ${err.message}`);
      }
      const { ex, tx } = await lookUp(t, id);
      fieldEquals(tx['esAprobada'], false, 'esAprobada after paying an expired QR', '4.6-qr-expiry', ex);
    },
    waitingTimeoutMs(),
  );
});

// The page a quick-pay's QR leads to, and what its address answers for no quick-pay, are not shown (7); the address
// with its idTransaccion changed is a client's mistake, and a server error is no answer to it: observed.
describe('4.6 the quick-pay page of no quick-pay', () => {
  clauseTest(
    { clauses: ['4.6-url-qr', '7-error-format-not-shown'], endpoint: 'flow', purchase: true },
    'the page the QR leads to, with its idTransaccion changed to one of no quick-pay, answers no server error (5xx: observed)',
    async (t) => {
      const { ex, response } = await createQuickPay(t);
      const id = String(response['idTransaccion'] ?? '');
      const urlQR = absoluteUrl(datosQuickPay(response).urlQR, 'datosQuickPay.urlQR', '4.6-url-qr', ex).href;
      const target = await qrTarget(t, urlQR);
      if (target === undefined)
        return t.skip('page-not-driven', `the quick-pay QR at ${urlQR} could not be read: the page it leads to is not known`);
      // Another id of the same form: digits as digits, anything else a new UUID.
      const other = /^\d+$/.test(id) ? '9'.repeat(id.length) : randomUUID();
      const changed = withIdChanged(target, id, other);
      if (changed === undefined)
        return t.skip('nothing-to-judge', `the page the QR leads to (${target}) does not carry idTransaccion ${id} once`);
      await noServerErrorAt(t, changed, 'the quick-pay page of a quick-pay that does not exist');
    },
  );
});

describe('4.6 what the quick-pay keeps', () => {
  clauseTest(
    { clauses: ['4.6-response-fields', '2.2-idexterno-echo'], endpoint: ENDPOINT, purchase: true },
    'idExterno and monto are echoed',
    async (t) => {
      const { ex, request, response } = await createQuickPay(t, { monto: 4.75 });
      t.soft(() => fieldEquals(response['idExterno'], request.idExterno, 'idExterno', '2.2-idexterno-echo', ex));
      t.soft(() => fieldEquals(response['monto'], request.monto, 'monto', '4.6-response-fields', ex));
    },
  );

  clauseTest(
    { clauses: ['4.6-response-fields', '2.2-esreal-test-not-charged'], endpoint: ENDPOINT, purchase: true },
    'esReal is false for a development business',
    async (t) => {
      const { ex, response } = await createQuickPay(t);
      fieldEquals(response['esReal'], false, 'esReal', '2.2-esreal-test-not-charged', ex);
    },
  );

  clauseTest(
    { clauses: ['2.2-datos-adicionales-echo', '4.8-same-transaction'], endpoint: 'flow', purchase: true },
    'datosAdicionales are kept with the transaction',
    async (t) => {
      const sent = datosAdicionales('qp');
      const { response } = await createQuickPay(t, { datosAdicionales: sent });
      const { ex, tx } = await lookUp(t, response['idTransaccion']);
      containsPairs(tx['datosAdicionales'], sent, 'datosAdicionales', '2.2-datos-adicionales-echo', ex);
    },
  );

  clauseTest(
    { clauses: ['6.1-webhook-datos-adicionales', '6.1-webhook-on-success'], endpoint: 'flow', purchase: true },
    'a paid quick-pay is notified with its datosAdicionales',
    async (t) => {
      const receiver = await t.run.receiver();
      const sent = datosAdicionales('qp-webhook');
      const { response } = await createQuickPay(t, {
        datosAdicionales: sent,
        configuracion: { urlWebhook: receiver.webhookUrl('quick-pay') },
      });
      // First in line before the QR's expiry, and not judged when the suite paid it too late (a loaded machine).
      await paidQuickPay(t, response);
      const webhook = await webhookFor(t, response['idTransaccion'], ['6.1-webhook-on-success']);
      containsPairs(webhookPairs(webhook.json, sent).pairs, sent, 'datosAdicionales (webhook)', '6.1-webhook-datos-adicionales');
    },
  );
});

describe("4.6 a quick-pay chosen on a link's screen", () => {
  // 4.1 nombreProducto: "Product name shown to the customer". Who pays by the QR a link's screen shows sees the page it
  // leads to (on a phone, maybe); what that page shows is not shown, so one that does not name the product is observed.
  clauseTest(
    { clauses: ['4.6-url-qr', '4.1-url-enlace-leads-to-screen'], endpoint: 'flow', purchase: true },
    "the page the QR of a quick-pay chosen on a link's screen leads to names the link's product, else observed",
    async (t) => {
      const nombreProducto = 'Lámpara de mesa para QuickPay';
      const { link } = await createLink(
        t,
        await observedLinkBody(t, {
          nombreProducto,
          formaPago: CARD_AND_QUICK_PAY,
        }),
      );
      // The QR's validity starts at the choice and its length is not told here (no fechaVencimiento reaches the
      // suite): from the choice to its page opened, the test goes first in line as work before a deadline, so a
      // loaded machine does not let the QR expire (the soak's QRs live 30 s).
      const page = await withDeadline(Date.now() + 30_000, async () => {
        const chosen = await payOnScreen(t, link.urlEnlace, { formaPago: 4 });
        return t.run.payer.openScreen((await quickPayQrOf(t, chosen, link.urlEnlace)).page);
      });
      if (page.status < 200 || page.status >= 300)
        return t.skip('premise-elsewhere', `the quick-pay page answered ${page.status}: judged by the quick-pay tests`);
      if (!parse(page.html).text.includes(nombreProducto))
        t.observe(
          '4.1-url-enlace-leads-to-screen',
          `the page the QR of a quick-pay chosen on the link's screen leads to (${page.url}) does not name the link's ` +
            `product "${nombreProducto}"`,
        );
    },
  );

  // How a link's screen goes on to a quick-pay is not shown, so whether that payment is one "made with the link" is the
  // record's to say: once transacciones lists it approved, it is the last successful transaction (transaccionCompra)
  // and a successful payment counted (2.1). Not listed at all is observed.
  clauseTest(
    {
      clauses: ['2.1-transaccion-compra-last-success', '2.1-successful-payments-counted', '4.6-url-qr'],
      endpoint: 'flow',
      purchase: true,
      needs: ['account'],
    },
    "a quick-pay chosen on a link's screen and paid by its QR, listed approved in the link record, is its transaccionCompra and counted",
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { formaPago: CARD_AND_QUICK_PAY }));
      // First in line from the choice to the payment: the QR's validity starts at the choice (see above).
      await withDeadline(Date.now() + 30_000, async () => {
        const { urlQR } = await quickPayQrOf(t, await payOnScreen(t, link.urlEnlace, { formaPago: 4 }), link.urlEnlace);
        await payQuickPay(t, urlQR);
      });
      const { ex, record } = await activate(t, link.idEnlace);
      const listed = record.transacciones ?? [];
      if (listed.length === 0) {
        t.observe(
          '2.1-transacciones-all',
          "the quick-pay chosen on the link's screen and paid by its QR is not among the link's transacciones",
        );
        return;
      }
      // The link's only payment: the quick-pay, whatever its formaPago is written as.
      const approved = listed.filter((tx) => asBool(field(tx, 'esAprobada')) === true).map((tx) => field(tx, 'idTransaccion'));
      if (approved.length !== 1)
        return t.skip('premise-elsewhere', `the link lists ${approved.length} approved transactions after one quick-pay paid`);
      t.soft(() =>
        fieldEquals(
          record.transaccionCompra?.idTransaccion,
          approved[0],
          'transaccionCompra.idTransaccion (the quick-pay paid)',
          '2.1-transaccion-compra-last-success',
          ex,
        ),
      );
      t.soft(() => counterRead(t, record, 'cantidadPagosExitosos', 1, '2.1-successful-payments-counted', ex));
    },
  );

  // A link's screen may offer QuickPay (2.3 permitePagoQuickPay). How it goes on from there is not shown; a quick-pay is
  // a payment through its QR (1, 4.6: urlQR valid until fechaVencimiento), so one approved at once, with no QR paid, is
  // observed. A screen that does not offer it, or a payer that cannot choose it, leaves nothing to judge.
  clauseTest(
    { clauses: ['4.6-url-qr'], endpoint: 'flow', purchase: true },
    'is left to its QR: choosing QuickPay on the screen approves nothing before the QR is paid (an approval at once is observed)',
    async (t) => {
      const { link } = await createLink(
        t,
        await observedLinkBody(t, {
          formaPago: CARD_AND_QUICK_PAY,
        }),
      );
      const outcome = await payOnScreen(t, link.urlEnlace, { formaPago: 4 });
      if (approvalOf(outcome) === 'true')
        t.observe(
          '4.6-url-qr',
          `choosing QuickPay on the link's screen was approved at once (${outcome.kind === 'redirect' ? 'a redirect with esAprobada=true' : `a page, status ${outcome.status}`}), with no QR to pay`,
        );
    },
  );

  // A quick-pay is paid through its QR (4.6: urlQR, "URL of the QR"); how the screen goes on once QuickPay is chosen is
  // not shown. A page answering the choice that shows neither an image (the QR) nor a link to follow leaves the customer
  // nothing to pay with: observed. A redirect, or a refusal, is not judged here.
  clauseTest(
    { clauses: ['4.6-url-qr'], endpoint: 'flow', purchase: true },
    'the page answering QuickPay chosen on the screen shows a QR image or a link to go on, else observed',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { formaPago: CARD_AND_QUICK_PAY }));
      const outcome = await payOnScreen(t, link.urlEnlace, { formaPago: 4 });
      if (outcome.kind !== 'page' || outcome.status < 200 || outcome.status > 299)
        return t.skip(
          'nothing-to-judge',
          `choosing QuickPay on the screen ended in ${outcome.kind === 'redirect' ? 'a redirect' : `${outcome.kind} (status ${outcome.status})`}, not a page: nothing to judge here`,
        );
      const root = parse(outcome.html);
      const images = root.querySelectorAll('img[src], source[srcset], canvas, svg');
      const links = root.querySelectorAll('a[href]').filter((a) => !/^(#|javascript:|$)/i.test(a.getAttribute('href') ?? ''));
      if (images.length === 0 && links.length === 0)
        t.observe(
          '4.6-url-qr',
          `the page answering QuickPay chosen on the link's screen (status ${outcome.status}) shows no image and no link: no QR to pay`,
        );
    },
  );
});
