/**
 * Soft checks: independent clauses of one test are each judged. A body with two failing soft checks ends
 * failing once with both, each recorded on the test's TestRecord and in its meta (`failure` the first, `failures` all);
 * a plain check still stops the test, ending it together with the soft failures before it.
 */
import type { TestContext } from 'vitest';
import { describe, expect, it } from 'vitest';
import { CheckFailure, fieldEquals, holds } from '../../harness/judge/checks.ts';
import { TestRecord } from '../../harness/record/test-record.ts';
import { runBody, testApi, type TestHandle } from '../../harness/run/conformance.ts';
import { CheckFailures, withSoftFailures } from '../../harness/run/outcome.ts';
import type { Run } from '../../harness/run/run.ts';
import { PayerMemory } from '../../harness/payer/memory.ts';

const ctx = {
  annotate: async () => undefined,
  skip: (reason: string) => {
    throw new Error(reason);
  },
} as unknown as TestContext;
const run = { call: async () => undefined, config: {}, target: {}, payerMemory: new PayerMemory() } as unknown as Run;

function harness(): { record: TestRecord; softs: CheckFailure[]; t: TestHandle } {
  const record = Object.assign(new TestRecord('[2.1-a 2.4-b 2.5-c] soft'), { clauses: ['2.1-a', '2.4-b', '2.5-c'], endpoint: 'flow' });
  const softs: CheckFailure[] = [];
  return { record, softs, t: testApi(ctx, run, record, softs) };
}

describe('soft checks', () => {
  it('a body with two failing soft checks runs to its end and fails once with both', async () => {
    const { record, softs, t } = harness();
    let reachedEnd = false;
    const ended = runBody(record, t, softs, async () => {
      t.soft(() => fieldEquals(5, 10, 'monto', '2.1-a'));
      t.soft(() => fieldEquals('x', 'x', 'nombreProducto', '2.1-a'));
      t.soft(() => holds(false, 'field-equals', '2.4-b', 'infoProducto kept', 'infoProducto missing'));
      reachedEnd = true;
    });
    const err = await ended.catch((e: unknown) => e);
    expect(reachedEnd).toBe(true);
    expect(err).toBeInstanceOf(CheckFailures);
    expect((err as CheckFailures).all.map((f) => f.evidence.clauses)).toEqual([['2.1-a'], ['2.4-b']]);
    expect((err as Error).message).toMatch(/^2 independent checks failed/);
    expect((err as Error).message).toContain('monto = 10');
    expect((err as Error).message).toContain('infoProducto missing');
    const meta = record.toMeta();
    expect(meta.failure?.clauses).toEqual(['2.1-a']);
    expect(meta.failures?.map((f) => f.clauses)).toEqual([['2.1-a'], ['2.4-b']]);
    expect(meta.clauses).toEqual(['2.1-a', '2.4-b', '2.5-c']);
  });

  it('a passing soft check records nothing; one failure gives `failure` alone', async () => {
    const { record, softs, t } = harness();
    await expect(runBody(record, t, softs, async () => t.soft(() => fieldEquals(1, 1, 'monto', '2.1-a')))).resolves.toBe(0);
    expect(record.toMeta()).not.toHaveProperty('failure');
    const other = harness();
    await expect(
      runBody(other.record, other.t, other.softs, async () => other.t.soft(() => fieldEquals(1, 2, 'monto', '2.5-c'))),
    ).rejects.toBeInstanceOf(CheckFailure);
    expect(other.record.toMeta().failure?.clauses).toEqual(['2.5-c']);
    expect(other.record.toMeta()).not.toHaveProperty('failures');
  });

  it('severity is chosen at the call: an observed soft check is a WARN on its clause, never a failure', async () => {
    const { record, softs, t } = harness();
    await expect(runBody(record, t, softs, async () => t.soft(() => fieldEquals(1, 2, 'monto', '2.4-b'), 'observe'))).resolves.toBe(0);
    expect(record.toMeta()).not.toHaveProperty('failure');
    expect(record.observations).toEqual([{ clause: '2.4-b', message: expect.stringMatching(/^expected monto = 2.*; got monto = 1/) }]);
  });

  it('a plain check stops the test and ends it with the soft failures before it; other errors pass through', async () => {
    const { record, softs, t } = harness();
    let after = false;
    const thrown = await runBody(record, t, softs, async () => {
      t.soft(() => fieldEquals(1, 2, 'monto', '2.1-a'));
      holds(false, 'field-equals', '2.5-c', 'active', 'inactive');
      after = true;
    }).catch((e: unknown) => e);
    expect(after).toBe(false);
    const err = withSoftFailures(thrown, softs);
    expect(err).toBeInstanceOf(CheckFailures);
    expect((err as CheckFailures).all.map((f) => f.evidence.check)).toEqual(['field-equals', 'field-equals']);
    const crash = new TypeError('harness bug');
    expect(() =>
      t.soft(() => {
        throw crash;
      }),
    ).toThrow(crash);
    expect(withSoftFailures(crash, softs)).toBe(crash);
  });

  it("a remark on the test's own coverage is a note in its transcript, never a WARN", async () => {
    const { record, softs, t } = harness();
    await expect(runBody(record, t, softs, async () => t.remark('2.1-a: the 3 payments did not overlap'))).resolves.toBe(0);
    expect(record.observations).toEqual([]);
    expect(record.steps).toMatchObject([{ kind: 'note', title: '2.1-a: the 3 payments did not overlap' }]);
  });
});
