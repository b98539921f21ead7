/**
 * Soft checks in the reports: a test that failed several independent checks shows the first, citing every
 * clause each cites, so the clause grid FAILs each — and leaves the ones no failed check cites not run; JUnit and
 * summary.md give every failure its own evidence.
 */
import { describe, expect, it } from 'vitest';
import { failureOf } from '../../reporters/collect.ts';
import { clauseOutcomes, describeFailure, type ReportedTest } from '../../reporters/records.ts';
import { renderJUnit } from '../../reporters/junit.ts';

const monto = { check: 'field-equals', clauses: ['2.1-a'], expected: 'monto = 10', actual: 'monto = 5' };
const info = { check: 'field-equals', clauses: ['2.4-b'], expected: 'infoProducto kept', actual: 'infoProducto missing' };

describe('several failed checks of one test', () => {
  it('show the first, citing every clause each cites', () => {
    expect(failureOf(monto, [monto, info])).toEqual({ ...monto, clauses: ['2.1-a', '2.4-b'] });
    expect(failureOf(monto, undefined)).toBe(monto);
    expect(failureOf(monto, [monto])).toBe(monto);
  });

  it('fail each cited clause in the grid; a clause no failed check cites is not run', () => {
    const record: ReportedTest = {
      file: 'suites/x.test.ts',
      name: 'x',
      status: 'fail',
      durationMs: 1,
      clauses: ['2.1-a', '2.4-b', '2.5-c'],
      endpoint: 'flow',
      observations: [],
      failure: failureOf(monto, [monto, info]),
    };
    expect(Object.fromEntries(clauseOutcomes(record))).toEqual({ '2.1-a': 'fail', '2.4-b': 'fail', '2.5-c': 'notRun' });
  });

  it('give every failure its own evidence in JUnit and summary.md (describeFailure)', () => {
    const record: ReportedTest = {
      file: 'suites/x.test.ts',
      name: 'x',
      status: 'fail',
      durationMs: 1,
      clauses: ['2.1-a', '2.4-b'],
      endpoint: 'flow',
      observations: [],
      failure: failureOf(monto, [monto, info]),
      failures: [monto, info],
    };
    const { message, text } = describeFailure(record);
    expect(message).toMatch(/^2 independent checks failed \(2\.1-a; 2\.4-b\): field-equals: expected monto = 10/);
    expect(text).toContain('(1 of 2)\ncheck: field-equals\nclauses: 2.1-a\nexpected: monto = 10\nactual: monto = 5');
    expect(text).toContain('(2 of 2)\ncheck: field-equals\nclauses: 2.4-b\nexpected: infoProducto kept\nactual: infoProducto missing');
    const xml = renderJUnit({
      run: { specVersion: '1', suiteVersion: '1', startedAt: new Date(0).toISOString() },
      tests: [record],
    } as never);
    expect(xml).toContain('infoProducto missing');
    expect(xml).toContain('monto = 5');
  });
});
