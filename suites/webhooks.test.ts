/**
 * Spec 6.1 / 6.4 — webhooks: a POST to urlWebhook when a transaction succeeds, carrying the transaction data, the
 * datosAdicionales sent and esProductiva (false for a test). The spec never says "only" on success: a webhook for
 * a declined transaction is observed, and fails only when it claims the decline approved.
 * Not shown (6.1): the full payload, the signature, retries and delivery guarantees — the signature is verified
 * with the scheme of WEBHOOK_SIGNATURE or the one discovered on the run's first webhook (auto, harness/discovery/),
 * retries are only observed. Field names are matched per WEBHOOK_FIELD_CASE
 * (any casing by default); the datosAdicionales pairs are found wherever the body carries them (webhookPairs).
 */
import { describe } from 'vitest';
import { createLink } from './flows/links.ts';
import { declineNotNotifiedAsSuccess, WEBHOOK_TESTCASE, webhookFor } from './flows/lookups.ts';
import { buy3ds, buyWallet, complete3ds, datosAdicionales } from './flows/purchases.ts';
import { DECLINE_CVV, declinedAsPremise, observedLinkBody, payOnScreen } from './flows/screens.ts';
import {
  asBool,
  asNumber,
  clauseTest,
  containsPairs,
  describeWebhookSignature,
  fieldEquals,
  flagEquals,
  holds,
  paymentApproved,
  type ReceivedWebhook,
  signatureHeaders,
  type TestHandle,
  webhookField,
  webhookPairs,
} from '../harness/index.ts';

const WALLET = 'POST /TransaccionCompra/Wallet';

/** A field of the webhook body, by the spec's name (case per WEBHOOK_FIELD_CASE). */
function field(t: TestHandle, w: ReceivedWebhook, name: string): unknown {
  return webhookField(w, name, t.run.config.webhook.fieldCase);
}

/** A wallet purchase notified to the receiver under `tag`, and its webhook. */
async function notifiedWallet(t: TestHandle, tag: string, judged = false) {
  const receiver = await t.run.receiver();
  const purchase = await buyWallet(t, { configuracion: { urlWebhook: receiver.webhookUrl(tag) }, datosAdicionales: datosAdicionales(tag) });
  const webhook = await webhookFor(t, purchase.response['idTransaccion'], ['6.1-webhook-on-success', '6.1-webhook-url'], judged);
  return { ...purchase, webhook };
}

describe('6.1 the webhook of a successful transaction', () => {
  clauseTest({ clauses: [...WEBHOOK_TESTCASE.clauses], endpoint: WALLET, purchase: true }, WEBHOOK_TESTCASE, async (t) => {
    const { webhook } = await notifiedWallet(t, 'wallet-url', true);
    t.soft(() => holds(webhook.method === 'POST', 'webhook-method', '6.1-webhook-url', 'an HTTP POST', webhook.method));
    t.soft(() =>
      holds(webhook.tag === 'wallet-url', 'webhook-target', '6.1-webhook-url', 'sent to the urlWebhook of the purchase', webhook.path),
    );
    // Its body is judged against the contract, with every other webhook, by the webhook contract testcase.
  });

  clauseTest(
    { clauses: '6.1-webhook-transaction-data', endpoint: WALLET, purchase: true },
    'the body carries the data of the transaction',
    async (t) => {
      const { request, webhook } = await notifiedWallet(t, 'wallet-data');
      // The full payload is not shown (6.1): fields beyond idTransaccion are compared when present, noted when absent.
      // Read tolerantly ("29.00", "True"): how a value is written is the webhook contract testcase's finding.
      const expected: [string, unknown, (v: unknown) => unknown][] = [
        ['monto', request.monto, asNumber],
        ['esAprobada', true, asBool],
        ['idExterno', request.idExterno, (v) => v],
      ];
      for (const [name, value, read] of expected) {
        const got = field(t, webhook, name);
        if (got === undefined) t.observe('6.1-webhook-payload-not-shown', `the webhook has no ${name}`);
        else t.soft(() => fieldEquals(read(got) ?? got, value, `${name} (webhook)`, '6.1-webhook-transaction-data'));
      }
    },
  );

  clauseTest(
    { clauses: ['6.1-webhook-esproductiva', '6.4-test-identifiable'], endpoint: WALLET, purchase: true },
    'esProductiva is false for a test transaction',
    async (t) => {
      const { webhook } = await notifiedWallet(t, 'wallet-esproductiva');
      flagEquals(field(t, webhook, 'esProductiva'), false, 'esProductiva (webhook)', ['6.1-webhook-esproductiva', '6.4-test-identifiable']);
    },
  );

  clauseTest(
    { clauses: ['6.1-webhook-datos-adicionales', '2.2-datos-adicionales-echo'], endpoint: WALLET, purchase: true },
    'the datosAdicionales sent with the purchase are in the body',
    async (t) => {
      const { request, webhook } = await notifiedWallet(t, 'wallet-datos');
      containsPairs(
        webhookPairs(webhook.json, request.datosAdicionales!).pairs,
        request.datosAdicionales!,
        'datosAdicionales (webhook)',
        '6.1-webhook-datos-adicionales',
      );
    },
  );

  clauseTest(
    { clauses: ['6.1-webhook-on-success', '6.1-webhook-datos-adicionales', '4.3-url-completar'], endpoint: 'flow', purchase: true },
    'a completed 3DS payment is notified with its datosAdicionales',
    async (t) => {
      const receiver = await t.run.receiver();
      const sent = datosAdicionales('3ds');
      const purchase = await buy3ds(t, { configuracion: { urlWebhook: receiver.webhookUrl('3ds') }, datosAdicionales: sent });
      await complete3ds(t, purchase);
      const webhook = await webhookFor(t, purchase.response['idTransaccion'], ['6.1-webhook-on-success', '4.3-url-completar']);
      containsPairs(webhookPairs(webhook.json, sent).pairs, sent, 'datosAdicionales (webhook)', '6.1-webhook-datos-adicionales');
    },
  );
});

describe('6.1 a declined transaction is not notified as a success', () => {
  clauseTest(
    { clauses: ['6.1-webhook-on-success', '6.1-webhook-transaction-data', '7-cvv-111-declines'], endpoint: 'flow', purchase: true },
    'no webhook says a declined link payment (cvv 111) was approved',
    async (t) => {
      const receiver = await t.run.receiver();
      const { link } = await createLink(
        t,
        await observedLinkBody(t, { configuracion: { notificarTransaccionCliente: false, urlWebhook: receiver.webhookUrl('decline') } }),
      );
      const declined = declinedAsPremise(t, await payOnScreen(t, link.urlEnlace, { cvv: DECLINE_CVV }), 'the payment with cvv 111');
      // Control: an approved payment on the same link is notified, so the receiver is reachable and the wait is real.
      const approved = paymentApproved(await payOnScreen(t, link.urlEnlace), '7-dev-authorizes', 'a payment with another cvv');
      await declineNotNotifiedAsSuccess(t, declined['idTransaccion'] ?? '', approved['idTransaccion'] ?? '');
    },
  );
});

describe('6.1 what the spec does not show: signature and retries', () => {
  clauseTest(
    { clauses: '6.1-webhook-signature-not-shown', endpoint: WALLET, purchase: true },
    'the webhook signature verifies when configured',
    async (t) => {
      const { webhook } = await notifiedWallet(t, 'wallet-signature');
      const signatures = t.run.signature;
      if (!signatures) {
        const names = signatureHeaders(webhook.headers);
        t.observe(
          '6.1-webhook-signature-not-shown',
          names.length > 0
            ? `signature-like headers: ${names.join(', ')} (not verified: WEBHOOK_SIGNATURE=off)`
            : 'no signature-like header',
        );
        return;
      }
      const ref = await signatures.reference(webhook);
      if (!ref.scheme) {
        // The spec shows no signature: one outside the candidates is not the target's fault.
        t.observe(
          '6.1-webhook-signature-not-shown',
          `no candidate scheme made a webhook signature verify (WEBHOOK_SIGNATURE=auto); tried ${ref.tried}. Set ` +
            `WEBHOOK_SIGNATURE and its companions (see .env.example) to verify it`,
        );
        return;
      }
      if (ref.source === 'discovered')
        t.observe('6.1-webhook-signature-not-shown', `webhook signature discovered: ${describeWebhookSignature(ref.scheme)}`);
      holds(
        signatures.verifies(webhook, ref),
        'webhook-signature',
        '6.1-webhook-signature-not-shown',
        `the ${describeWebhookSignature(ref.scheme)} (WEBHOOK_SIGNATURE=${t.run.config.webhook.signature})`,
        webhook.headers[ref.scheme.header] === undefined ? `no ${ref.scheme.header} header` : 'a signature that does not verify',
      );
    },
  );

  clauseTest(
    { clauses: ['6.1-webhook-retries-not-shown', '6.1-webhook-on-success'], endpoint: WALLET, purchase: true },
    'a delivery answered 503 is observed for a retry (never failed)',
    async (t) => {
      const receiver = await t.run.receiver();
      receiver.failNext(1, 503, 'retry');
      try {
        const { response } = await buyWallet(t, { configuracion: { urlWebhook: receiver.webhookUrl('retry') } });
        const id = response['idTransaccion'];
        const first = await webhookFor(t, id, ['6.1-webhook-on-success']);
        if (first.answeredStatus < 300)
          return t.skip(
            'undecidable',
            `the first delivery of ${String(id)} was answered ${first.answeredStatus}, not the 503 the receiver was set to give it, ` +
              'so a retry could not be watched for',
          );
        const { timeoutS } = t.run.config.webhook;
        const delivered = await receiver
          .waitForWebhook((w) => field(t, w, 'idTransaccion') === id && w.answeredStatus < 300, timeoutS * 1000)
          .catch(() => undefined);
        const attempts = receiver.webhooks().filter((w) => field(t, w, 'idTransaccion') === id).length;
        t.observe(
          '6.1-webhook-retries-not-shown',
          delivered
            ? `after a 503 the webhook was retried and delivered (${attempts} attempts, ` +
                `${delivered.at.getTime() - first.at.getTime()} ms after the first)`
            : `after a 503 the webhook was not retried within ${timeoutS} s`,
        );
      } finally {
        receiver.failNext(0, 200, 'retry');
      }
    },
  );

  // 204 No Content is how many receivers say "taken": a success, so the webhook is delivered (a response without a
  // body must not trip the sender up). Retries being unshown, a copy sent again is only observed.
  clauseTest(
    { clauses: ['6.1-webhook-retries-not-shown', '6.1-webhook-on-success'], endpoint: WALLET, purchase: true },
    'a delivery answered 204 No Content is not sent again (observed)',
    async (t) => {
      const receiver = await t.run.receiver();
      receiver.failNext(1, 204, 'no-content');
      try {
        const { response } = await buyWallet(t, { configuracion: { urlWebhook: receiver.webhookUrl('no-content') } });
        const id = response['idTransaccion'];
        const first = await webhookFor(t, id, ['6.1-webhook-on-success']);
        // The receiver's 204 went to another delivery (or none): the suite's premise, not the target's doing.
        if (first.answeredStatus !== 204)
          return t.skip(
            'undecidable',
            `the first delivery of ${String(id)} was answered ${first.answeredStatus}, not the 204 the receiver was set to give it, ` +
              'so a copy sent after a 204 could not be watched for',
          );
        // A few seconds, not WEBHOOK_TIMEOUT_S: a copy sent at once is what a sender that misread the 204 does.
        const waitS = Math.min(3, t.run.config.webhook.timeoutS);
        const again = await receiver
          .waitForWebhook((w) => field(t, w, 'idTransaccion') === id && w !== first, waitS * 1000)
          .catch(() => undefined);
        if (again)
          t.observe(
            '6.1-webhook-retries-not-shown',
            `a delivery answered 204 was sent again ${again.at.getTime() - first.at.getTime()} ms later (watched ${waitS} s)`,
          );
      } finally {
        receiver.failNext(0, 200, 'no-content');
      }
    },
  );
});
