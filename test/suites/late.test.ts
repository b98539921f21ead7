/**
 * The suite's own lateness is never the target's decline: notLate leaves a test unjudged when the payment
 * was not approved and may have reached the target after the validity it stated (its answer came later than a clock
 * margin before the limit), and says nothing otherwise.
 */
import { describe, expect, it } from 'vitest';
import { notLate } from '../../harness/run/waits.ts';
import { NotJudged } from '../../harness/record/errors.ts';
import type { PaymentOutcome } from '../../harness/payer/index.ts';

const refused = (openedAt: number, submittedAt: number): PaymentOutcome => ({
  kind: 'refused',
  status: 410,
  html: '',
  text: 'vencido',
  answered: 'submission',
  by: 'status',
  timing: { openedAt, submittedAt, answeredAt: submittedAt + 40 },
});
const approved = (submittedAt: number): PaymentOutcome => ({
  kind: 'redirect',
  location: 'http://r/?esAprobada=true',
  params: { esAprobada: 'true' },
  timing: { openedAt: 0, submittedAt, answeredAt: submittedAt + 1 },
});

describe('notLate', () => {
  it('a refusal submitted after the stated limit is not judged, with the timings', () => {
    expect(() => notLate(refused(0, 25_000), 20_000, 'the QR payment')).toThrow(NotJudged);
    expect(() => notLate(refused(0, 25_000), 20_000, 'the QR payment')).toThrow(
      /may have reached the target after the validity it stated: the page opened 20\.0 s before that limit, the payment was submitted 25\.0 s after opening and answered 0\.0 s later, 5\.0 s after the limit/,
    );
  });
  it('a refusal answered within the clock margin of the limit is not judged either (the target may have seen it late)', () => {
    expect(() => notLate(refused(0, 19_500), 20_000, 'the QR payment')).toThrow(
      /0\.5 s before the limit \(clocks compared to within 1\.0 s\)/,
    );
  });
  it('a refusal answered well before the limit is left to the test (the target refused early)', () => {
    expect(() => notLate(refused(0, 15_000), 20_000, 'the QR payment')).not.toThrow();
  });
  it('an approval, late or not, is left to the test', () => {
    expect(() => notLate(approved(25_000), 20_000, 'the QR payment')).not.toThrow();
  });
  it('an outcome without timings is left to the test', () => {
    expect(() => notLate({ kind: 'page', status: 200, html: '', text: '' }, 20_000, 'the QR payment')).not.toThrow();
  });
});
