/**
 * Spec 8 / 5.2 — a token lives expires_in seconds: it works when issued and is refused once that time has passed.
 * Expiry is reached by moving the target's clock (the harness then forgets its cached tokens), or in real time when
 * expires_in is at most MAX_WAIT_S (harness/run/waits.ts); otherwise the test skips with the reason. The inside of the
 * lifetime needs no expiry: a token is used as late as the run may wait.
 */
import { describe } from 'vitest';
import { paymentLinkMinimal } from '../generators/bodies.ts';
import { freshToken } from './flows/tokens.ts';
import {
  clauseTest,
  hasClock,
  letTimePass,
  NotJudged,
  notAccepted,
  skipUnlessTimeCanPass,
  succeeded,
  waitingTimeoutMs,
  withDeadline,
} from '../harness/index.ts';

describe('8 access token lifetime', () => {
  clauseTest(
    { clauses: ['8-token-lifetime', '5.2-token-reuse'], endpoint: 'POST /EnlacePago', movesClock: true },
    'a token is accepted when issued and refused once expires_in seconds have passed',
    async (t) => {
      const { token, expiresIn } = await freshToken(t);
      const auth = { header: `Bearer ${token}` };
      succeeded(
        await t.call('createPaymentLink', { json: paymentLinkMinimal(), auth }),
        '5.2-token-reuse',
        'a request with the token just issued',
      );
      await letTimePass(
        t,
        expiresIn + 1,
        `a request with the token ${expiresIn + 1} s after it was issued (expires_in ${expiresIn})`,
        expiresIn,
      );
      const late = await t.call('createPaymentLink', { json: paymentLinkMinimal(), auth });
      notAccepted(late, '8-token-lifetime', `a request with the token ${expiresIn + 1} s after it was issued (expires_in ${expiresIn})`);
    },
    waitingTimeoutMs(),
  );

  // The other side of the limit: the lifetime advertised is the one honoured (a token that dies at a third of its
  // expires_in passes the test above). Without clock control the token is used as late as MAX_WAIT_S allows, so a
  // token dying early is still caught where its early death comes within the run's wait.
  clauseTest(
    { clauses: ['8-token-lifetime', '5.2-token-reuse'], endpoint: 'POST /EnlacePago', movesClock: true },
    'a token is still accepted as late as the run can use it inside its expires_in (shortly before it runs out, or after MAX_WAIT_S)',
    async (t) => {
      const { token, expiresIn, issuedAt } = await freshToken(t);
      // A margin for the round trips between issue and use: a tenth of the lifetime, at least 2 s and at most 60 s.
      const inside = Math.max(1, expiresIn - Math.min(60, Math.max(2, Math.ceil(expiresIn / 10))));
      const maxWait = t.run.config.budget.maxWaitS;
      if (!hasClock(t) && maxWait === 0)
        skipUnlessTimeCanPass(t, inside, `a request with the token ${inside} s after it was issued (expires_in ${expiresIn})`);
      const before = hasClock(t) ? inside : Math.min(inside, maxWait);
      await letTimePass(t, before, `a request with the token ${before} s after it was issued (expires_in ${expiresIn})`, before);
      // Meant inside the lifetime: first in line at the request cap; a refusal that reached the target after the
      // lifetime counted from the token's request (the suite late under load) is undecidable, never the target's.
      const expiry = issuedAt + expiresIn * 1000;
      const late = await withDeadline(hasClock(t) ? Number.NaN : expiry, () =>
        t.call('createPaymentLink', { json: paymentLinkMinimal(), auth: { header: `Bearer ${token}` } }),
      );
      const status = late.response?.status ?? 0;
      const answered = late.answeredAt ?? Date.now();
      if (!hasClock(t) && (status < 200 || status >= 300) && answered + 1000 > expiry)
        throw new NotJudged(
          `the request meant inside the token's expires_in of ${expiresIn} s was answered ${status} ` +
            `${((answered - issuedAt) / 1000).toFixed(1)} s after the token was asked for (sent ` +
            `${(((late.sentAt ?? answered) - issuedAt) / 1000).toFixed(1)} s after): too late to tell, which says nothing of the target`,
        );
      succeeded(
        late,
        ['8-token-lifetime', '5.2-token-reuse'],
        `a request with the token ${before} s after it was issued, inside its expires_in of ${expiresIn} s`,
      );
    },
    waitingTimeoutMs(),
  );
});
