/**
 * The suite's own lateness is never the target's decline: notLate leaves a test unjudged when the payment
 * was not approved and may have reached the target after the validity it stated (its answer came later than a clock
 * margin before the limit), and says nothing otherwise. A payment that is a test's premise before a deadline
 * (paymentRead) is judged on only when it went through; and work before a deadline is first in every queue.
 */
import { describe, expect, it } from 'vitest';
import { beforeDeadline, notLate, paymentRead } from '../../harness/run/waits.ts';
import { priorityNow } from '../../harness/api/queue-order.ts';
import { currentRecord, TestRecord, withRecord } from '../../harness/record/test-record.ts';
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

describe('paymentRead and beforeDeadline', () => {
  it('a refusal after the deadline is undecidable, with when the payer started, sent and was answered', () => {
    expect(() => paymentRead(refused(40_000, 41_000), 20_000, 'paying the QR')).toThrow(NotJudged);
    expect(() => paymentRead(refused(40_000, 41_000), 20_000, 'paying the QR')).toThrow(
      /the page answered 410 "vencido"; the payer started 20\.0 s after the deadline, sent it 1\.0 s later, and was answered 21\.0 s after it .*too late/,
    );
  });
  it('a refusal in time is not judged either (the test needs the payment made), naming who judges it', () => {
    expect(() => paymentRead(refused(0, 5_000), 20_000, 'paying the QR')).toThrow(/Refused in time/);
  });
  it('a declined redirect is not the premise either; an approval is judged on, late or not', () => {
    const declined: PaymentOutcome = { ...approved(5_000), params: { esAprobada: 'false' } } as PaymentOutcome;
    expect(() => paymentRead(declined, 20_000, 'paying the QR')).toThrow(/declined/);
    expect(() => paymentRead(approved(25_000), 20_000, 'paying the QR')).not.toThrow();
  });
  it('work before a deadline is first in line, the nearest deadline first, and only while it lasts', async () => {
    const record = new TestRecord('t');
    await withRecord(record, async () => {
      const ordinary = priorityNow();
      const seen: number[] = [];
      await beforeDeadline(Date.now() + 60_000, 'paying', async () => {
        seen.push(priorityNow());
        await beforeDeadline(Date.now() + 30_000, 'paying sooner', async () => {
          seen.push(priorityNow());
          return approved(1);
        });
        return approved(1);
      });
      expect(seen[0]).toBeGreaterThan(1_000_000);
      expect(seen[1]).toBeGreaterThan(seen[0]!);
      expect(currentRecord()?.deadlineAt).toBeUndefined();
      expect(priorityNow()).toBe(ordinary);
    });
  });
});
