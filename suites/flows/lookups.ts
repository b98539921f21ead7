/**
 * What a transaction is afterwards: its lookup (4.8) and its webhooks (6.1), and the testcases other tests name
 * when those are the premise they stand on.
 */
import {
  asString,
  bodyOf,
  type Exchange,
  fail,
  forTransaction,
  holds,
  quoted,
  readResponse,
  type ReceivedWebhook,
  succeeded,
  testcase,
  type TestHandle,
  webhookBodyField,
  webhookField,
  waitingFor,
} from '../../harness/index.ts';

/** GET /TransaccionCompra/{id} (4.8) as the primary business; fails the test unless it succeeds. Read as the contract types it. */
export async function lookUp(
  t: TestHandle,
  idTransaccion: unknown,
  judged = false,
): Promise<{ ex: Exchange; tx: Record<string, unknown> }> {
  const ex = await t.call('getTransaction', { pathParams: { id: String(idTransaccion) }, auth: 'bearer' });
  succeeded(ex, '4.8-endpoint', 'looking the transaction up');
  bodyOf(ex, '4.8-response-fields');
  const tx = readResponse(t.run.contract, 'getTransaction', ex);
  // Another transaction than the one asked for is the finding of the test that judges it; others need this one.
  if (!judged && asString(tx['idTransaccion']) !== String(idTransaccion)) {
    t.skip(
      'premise-elsewhere',
      `GET /TransaccionCompra/${String(idTransaccion)} answered the transaction ` +
        `${JSON.stringify(asString(tx['idTransaccion']) ?? null)}: judged by ${quoted(LOOKUP_TESTCASE)}; this test ` +
        `needs the transaction it asked for`,
    );
  }
  return { ex, tx };
}

/** The test that judges that a lookup answers the transaction asked for (4.8). */
export const LOOKUP_TESTCASE = testcase(
  [
    '4.8-endpoint',
    '4.8-same-transaction',
    '4.8-response-fields',
    '2.2-transaction-types',
    '2.2-idexterno-echo',
    '2.2-datos-adicionales-echo',
    '2-dictionary-type',
  ],
  'a wallet purchase',
);

/** The test that judges webhook delivery itself (6.1); others only need a webhook to read. */
export const WEBHOOK_TESTCASE = testcase(
  ['6.1-webhook-on-success', '6.1-webhook-url'],
  'a successful purchase is POSTed to the urlWebhook of its configuracion',
);

/**
 * The webhook of a transaction, waited for up to WEBHOOK_TIMEOUT_S, then on up to MAX_WAIT_S where that is longer and
 * the target is known to reach the receiver (6.1 shows no delivery time; the internet delivers late) — a receiver
 * nothing reaches is not waited on for minutes. When none arrives the test fails if delivery is its subject
 * (`judged`), else it skips naming the testcase that judges delivery (one fault, one finding). The wait is the
 * target's time, bounded by itself: the test's budget does not count it (a late webhook is no slow suite).
 */
export async function webhookFor(t: TestHandle, idTransaccion: unknown, clauses: string[], judged = false): Promise<ReceivedWebhook> {
  const receiver = await t.run.receiver();
  const { fieldCase, timeoutS: firstS } = t.run.config.webhook;
  const reaches = () => t.run.target.kind === 'embedded' || receiver.webhooks().length > 0;
  const match = forTransaction(String(idTransaccion), fieldCase);
  let timeoutS = firstS;
  try {
    return await waitingFor(`the webhook of transaction ${String(idTransaccion)}`, async () => {
      // Started at once for both phases: a delivery between them is not missed.
      const waited = receiver.waitForWebhook(match, Math.max(firstS, t.run.config.budget.maxWaitS) * 1000);
      const first = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), firstS * 1000).unref());
      const early = await Promise.race([waited, first]);
      if (early !== 'late') return early;
      if (!reaches() || t.run.config.budget.maxWaitS <= firstS) {
        waited.catch(() => undefined);
        throw new Error(`no webhook ${match.what} within ${firstS} s (${receiver.webhooks().length} webhook(s) received in all)`);
      }
      timeoutS = t.run.config.budget.maxWaitS;
      return waited;
    });
  } catch (err) {
    // A missing webhook is judged only where the target is known to reach the receiver: the embedded sandbox, or a
    // receiver that has had a delivery from it in this run (as a page is judged only where one was paid).
    const reached = t.run.target.kind === 'embedded' || receiver.webhooks().length > 0;
    if (!reached) {
      const at = t.run.config.receiver.publicUrl
        ? `WEBHOOK_PUBLIC_URL (${receiver.webhookUrl()})`
        : `${receiver.webhookUrl()} (RECEIVER_HOST; WEBHOOK_PUBLIC_URL unset)`;
      return t.skip(
        'receiver-unreached',
        `no webhook for transaction ${String(idTransaccion)} within ${timeoutS} s, and none at all has reached the ` +
          `suite's receiver at ${at} in this run: the target may not reach it, which says nothing of the target; set ` +
          `WEBHOOK_PUBLIC_URL to a URL at which it reaches this machine`,
      );
    }
    if (!judged)
      return t.skip(
        'premise-elsewhere',
        `no webhook for transaction ${String(idTransaccion)} within ${timeoutS} s: delivery is judged by ` +
          `${quoted(WEBHOOK_TESTCASE)}; this test needs the webhook`,
      );
    return fail(
      'webhook-received',
      clauses,
      `a webhook POST for transaction ${String(idTransaccion)} within ${timeoutS} s`,
      (err as Error).message,
    );
  }
}

/**
 * Webhooks of a declined transaction. 6.1 says a webhook "is sent when a transaction succeeds", never that it is sent
 * only then, and shows no delivery guarantee (nor order): so one that claims the decline approved fails, any other
 * is observed. `approvedId`, a payment of the same setup, must be notified first — the receiver is then reachable —
 * and the decline's webhooks are looked for a little later (at once in the outbox where the target shows one).
 */
export async function declineNotNotifiedAsSuccess(t: TestHandle, declinedId: string, approvedId: string): Promise<void> {
  await webhookFor(t, approvedId, ['6.1-webhook-on-success']);
  const outbox = t.run.target.capabilities.includes('outbox');
  await new Promise((resolve) => setTimeout(resolve, outbox ? 200 : Math.min(t.run.config.webhook.timeoutS, 3) * 1000));
  const { fieldCase } = t.run.config.webhook;
  const sent = (await t.run.receiver())
    .webhooks()
    .filter((w) => webhookField(w, 'idTransaccion', fieldCase) === declinedId)
    .map((w) => webhookField(w, 'esAprobada', fieldCase));
  const queued = outbox
    ? (await t.run.control!.outbox()).webhooks
        .filter((w) => webhookBodyField(w.body, 'idTransaccion', fieldCase) === declinedId)
        .map((w) => webhookBodyField(w.body, 'esAprobada', fieldCase))
    : [];
  const claimsApproved = [...sent, ...queued].filter((v) => v === true || String(v).trim().toLowerCase() === 'true').length;
  holds(
    claimsApproved === 0,
    'decline-not-notified-approved',
    ['6.1-webhook-transaction-data', '6.1-webhook-on-success'],
    `no webhook for the declined transaction ${declinedId} says esAprobada true (it carries the transaction data)`,
    `${claimsApproved} webhook(s) say esAprobada true`,
  );
  if (sent.length + queued.length > 0) {
    t.observe(
      '6.1-webhook-on-success',
      `a webhook for the declined transaction ${declinedId} (esAprobada ` +
        `${[...sent, ...queued].map((v) => JSON.stringify(v)).join(', ')}): ${sent.length} received, ${queued.length} ` +
        `in the outbox; 6.1 says webhooks are sent when a transaction succeeds`,
    );
  }
}
