/**
 * The suite's own lateness is never the target's decline (issue 26): notLate leaves a test unjudged when the payer
 * submitted after the validity the target stated and the payment was not approved, and says nothing otherwise.
 */
import { describe, expect, it } from 'vitest';
import { notLate } from '../../suites/flows.ts';
import { NotJudged } from '../../harness/record/errors.ts';
import type { PaymentOutcome } from '../../harness/payer/index.ts';

const refused = (openedAt: number, submittedAt: number): PaymentOutcome => ({
  kind: 'refused', status: 410, html: '', text: 'vencido', answered: 'submission', by: 'status', timing: { openedAt, submittedAt, answeredAt: submittedAt + 40 },
});
const approved = (submittedAt: number): PaymentOutcome => ({
  kind: 'redirect', location: 'http://r/?esAprobada=true', params: { esAprobada: 'true' }, timing: { openedAt: 0, submittedAt, answeredAt: submittedAt + 1 },
});

describe('notLate', () => {
  it('a refusal submitted after the stated limit is not judged, with the timings', () => {
    expect(() => notLate(refused(0, 25_000), 20_000, 'the QR payment')).toThrow(NotJudged);
    expect(() => notLate(refused(0, 25_000), 20_000, 'the QR payment')).toThrow(/submitted 5\.0 s after the validity the target stated/);
  });
  it('a refusal submitted in time is left to the test (the target refused early)', () => {
    expect(() => notLate(refused(0, 15_000), 20_000, 'the QR payment')).not.toThrow();
  });
  it('an approval, late or not, is left to the test', () => {
    expect(() => notLate(approved(25_000), 20_000, 'the QR payment')).not.toThrow();
  });
  it('an outcome without timings is left to the test', () => {
    expect(() => notLate({ kind: 'page', status: 200, html: '', text: '' }, 20_000, 'the QR payment')).not.toThrow();
  });
});
