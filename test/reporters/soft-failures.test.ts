/**
 * Soft checks in the reports (issue 28): a test that failed several independent checks shows the first, citing every
 * clause each cites, so the clause grid FAILs each — and leaves the ones no failed check cites not run.
 */
import { describe, expect, it } from 'vitest';
import { failureOf } from '../../reporters/collect.ts';
import { clauseOutcomes, type TestRecord } from '../../reporters/records.ts';

const monto = { check: 'field-equals', clauses: ['2.1-a'], expected: 'monto = 10', actual: 'monto = 5' };
const info = { check: 'field-equals', clauses: ['2.4-b'], expected: 'infoProducto kept', actual: 'infoProducto missing' };

describe('several failed checks of one test', () => {
  it('show the first, citing every clause each cites', () => {
    expect(failureOf(monto, [monto, info])).toEqual({ ...monto, clauses: ['2.1-a', '2.4-b'] });
    expect(failureOf(monto, undefined)).toBe(monto);
    expect(failureOf(monto, [monto])).toBe(monto);
  });

  it('fail each cited clause in the grid; a clause no failed check cites is not run', () => {
    const record: TestRecord = { file: 'suites/x.test.ts', name: 'x', status: 'fail', durationMs: 1, clauses: ['2.1-a', '2.4-b', '2.5-c'], endpoint: 'flow', observations: [], failure: failureOf(monto, [monto, info]) };
    expect(Object.fromEntries(clauseOutcomes(record))).toEqual({ '2.1-a': 'fail', '2.4-b': 'fail', '2.5-c': 'notRun' });
  });
});
