/** The soak's judgement (bench/soak.ts): statuses test by test against the reference, the verdict and the table. */
import { describe, expect, it } from 'vitest';
import { differenceKind, type SoakRun, type SummaryLike, soakProblems, soakTable, statusDifferences } from '../../bench/soak.ts';

const summary = (tests: [string, string, string?][]): SummaryLike => {
  const totals: Record<string, number> = { pass: 0, fail: 0, warn: 0, skip: 0, error: 0, notRun: 0 };
  for (const [, status] of tests) totals[status] = (totals[status] ?? 0) + 1;
  return {
    totals,
    tests: tests.map(([name, status, reason]) => ({ file: 'suites/a.test.ts', name, status, ...(reason ? { reason } : {}) })),
  };
};
const run = (label: string, s: SummaryLike | undefined, code: number | null = 0): SoakRun => ({
  label,
  code,
  seconds: 100,
  ...(s ? { summary: s } : {}),
});

const REF = summary([
  ['[4.6] a quick-pay is paid', 'pass'],
  ['[4.1] a screen is paid in time', 'warn'],
  ['[5.1] audience', 'skip', 'no second business'],
]);

describe('statusDifferences', () => {
  it('is empty when every test has the reference status', () => {
    expect(statusDifferences(REF, summary([...REF.tests].reverse().map((t) => [t.name, t.status, t.reason])))).toEqual([]);
  });

  it('names each test judged otherwise, with both statuses and the reason given now, sorted', () => {
    const now = summary([
      ['[4.6] a quick-pay is paid', 'skip', 'the suite was too late: the QR expired 3 s before the payment'],
      ['[4.1] a screen is paid in time', 'pass'],
      ['[5.1] audience', 'skip', 'no second business'],
    ]);
    expect(statusDifferences(REF, now)).toEqual([
      { test: 'suites/a.test.ts › [4.1] a screen is paid in time', reference: 'warn', run: 'pass' },
      {
        test: 'suites/a.test.ts › [4.6] a quick-pay is paid',
        reference: 'pass',
        run: 'skip',
        reason: 'the suite was too late: the QR expired 3 s before the payment',
      },
    ]);
  });

  it('counts a test only one of the runs has as a difference', () => {
    const now = summary([
      ['[4.6] a quick-pay is paid', 'pass'],
      ['[4.1] a screen is paid in time', 'warn'],
      ['[9.9] new', 'pass'],
    ]);
    expect(statusDifferences(REF, now)).toEqual([
      { test: 'suites/a.test.ts › [5.1] audience', reference: 'skip', reason: 'no second business' },
      { test: 'suites/a.test.ts › [9.9] new', run: 'pass' },
    ]);
  });

  it('tells apart tests of the same name in different files', () => {
    const a: SummaryLike = {
      totals: { pass: 2 },
      tests: [
        { file: 'x', name: 't', status: 'pass' },
        { file: 'y', name: 't', status: 'pass' },
      ],
    };
    const b: SummaryLike = {
      totals: { pass: 1, skip: 1 },
      tests: [
        { file: 'x', name: 't', status: 'pass' },
        { file: 'y', name: 't', status: 'skip' },
      ],
    };
    expect(statusDifferences(a, b)).toEqual([{ test: 'y › t', reference: 'pass', run: 'skip' }]);
  });
});

describe('differenceKind', () => {
  it('names a test the suite reached too late, an observation made in one run only, and any other change', () => {
    const late =
      'not judged: the QR payment may have reached the target after the validity it stated: … the suite was too late, which says nothing of the target';
    expect(differenceKind({ test: 'x', reference: 'pass', run: 'skip', reason: late })).toBe('too late');
    expect(differenceKind({ test: 'x', reference: 'skip', run: 'pass', reason: late })).toBe('too late');
    expect(differenceKind({ test: 'x', reference: 'warn', run: 'pass' })).toBe('observation');
    expect(differenceKind({ test: 'x', reference: 'pass', run: 'warn' })).toBe('observation');
    expect(differenceKind({ test: 'x', reference: 'pass', run: 'skip', reason: 'no second business' })).toBe('verdict');
    expect(differenceKind({ test: 'x', reference: 'pass', run: 'fail' })).toBe('verdict');
    expect(differenceKind({ test: 'x', run: 'pass' })).toBe('verdict');
  });

  it('takes the reason of whichever run skipped the test', () => {
    const ref = summary([['[4.8] read after write', 'skip', 'the suite was too late']]);
    const now = summary([['[4.8] read after write', 'pass']]);
    const [d] = statusDifferences(ref, now);
    expect(d).toEqual({
      test: 'suites/a.test.ts › [4.8] read after write',
      reference: 'skip',
      run: 'pass',
      reason: 'the suite was too late',
    });
    expect(differenceKind(d!)).toBe('too late');
  });
});

describe('soakProblems', () => {
  it('passes a run with exit 0, no FAIL or ERROR and the reference statuses', () => {
    expect(soakProblems(run('ref', REF))).toEqual([]);
    expect(soakProblems(run('hog', REF), run('ref', REF))).toEqual([]);
  });

  it('refuses a FAIL, an ERROR, a non-zero exit, a missing summary and each status difference', () => {
    const bad = summary([
      ['[4.6] a quick-pay is paid', 'fail'],
      ['[4.1] a screen is paid in time', 'error'],
      ['[5.1] audience', 'skip', 'no second business'],
    ]);
    expect(soakProblems(run('hog', bad, 1), run('ref', REF))).toEqual([
      '1 FAIL, 1 ERROR',
      'exit 1',
      '2 statuses differ from the reference',
    ]);
    expect(soakProblems(run('hog', undefined, null))).toEqual(['no summary.json (exit null)']);
    expect(soakProblems(run('hog', REF), run('ref', undefined, 3))).toEqual(['no reference to compare with']);
  });

  it('does not compare the reference with itself', () => {
    const ref = run('ref', REF);
    expect(soakProblems(ref, ref)).toEqual([]);
  });
});

describe('soakTable', () => {
  it('prints a row per run with its counts, passed, differences, time and verdict, then the tests that differ', () => {
    const ref = run('reference (idle)', REF);
    const late = summary([
      ['[4.6] a quick-pay is paid', 'skip', 'the suite was too late'],
      ['[4.1] a screen is paid in time', 'warn'],
      ['[5.1] audience', 'skip', 'no second business'],
    ]);
    const table = soakTable([ref, run('two at once, 1 of 2', REF), run('CPU hog', late)], ref);
    const lines = table.split('\n');
    expect(lines[0]).toMatch(
      /^\| run +\| PASS \| FAIL \| WARN \| SKIP \| ERROR \| other \| tests \| passed \| differ \| +time \| verdict +\|$/,
    );
    expect(lines[2]).toMatch(/^\| reference \(idle\) +\| +1 \| +0 \| +1 \| +1 \| +0 \| +0 \| +3 \| +2\/3 \| +ref \| 100 s \| ok +\|$/);
    expect(lines[3]).toMatch(/^\| two at once, 1 of 2 +\|.*\| +0 \| 100 s \| ok +\|$/);
    expect(lines[4]).toMatch(
      /^\| CPU hog +\| +0 \| +0 \| +1 \| +2 \| +0 \| +0 \| +3 \| +1\/3 \| +1 \| 100 s \| 1 status differs from the reference \|$/,
    );
    expect(table).toContain(
      'CPU hog: 1 test judged otherwise than reference (idle):\n  [too late] PASS → SKIP  suites/a.test.ts › [4.6] a quick-pay is paid: the suite was too late',
    );
  });

  it('shows a run without summary with dashes and why', () => {
    const table = soakTable([run('ref', REF), run('broken', undefined, null)]);
    expect(table.split('\n')[3]).toMatch(/^\| broken +\| +- \| +- \|.*\| +\? \| 100 s \| no summary\.json \(exit null\) \|$/);
  });
});
