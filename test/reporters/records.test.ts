/**
 * The verdict rules of reporters/records.ts on hand-built records: FAIL only for a judged failure, else ERROR; a
 * clause's status from the checks that failed; an ERROR never a FAIL of a clause; the transcript as text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clauseOutcomes, summarize, transcriptText, type RunInfo, type ReportedTest } from '../../reporters/records.ts';
import { classify } from '../../harness/record/verdict.ts';
import { SKIP_KINDS } from '../../harness/record/skips.ts';

const run: RunInfo = {
  specVersion: '1',
  suiteVersion: '1',
  startedAt: '2026-01-01T00:00:00Z',
  durationMs: 1,
  outcome: 'failed',
  notes: [],
};
const record = (r: Partial<ReportedTest>): ReportedTest => ({
  file: 'suites/x.test.ts',
  name: 'x',
  status: 'pass',
  durationMs: 1,
  clauses: [],
  endpoint: 'flow',
  observations: [],
  ...r,
});
const clause = (id: string) => ({ id, section: '4.6', kind: 'rule', text: id });

describe('FAIL or ERROR, decided once (harness/record/verdict.ts classify)', () => {
  const end = { state: 'fail' as const, judged: false, failures: [], observed: false };
  it('is FAIL only with a judged failure, check evidence or an expect assertion; anything else is ERROR', () => {
    const evidence = { check: 'payment-approved', clauses: ['4.6-url-qr'], expected: 'true', actual: 'false' };
    expect(classify({ ...end, judged: true }).status).toBe('fail');
    expect(classify({ ...end, failures: [evidence] })).toEqual({ status: 'fail', evidence: [evidence] });
    expect(classify({ ...end, errorName: 'AssertionError' }).status).toBe('fail');
    for (const errorName of ['Error', 'TypeError', 'TestBudgetError', 'PayerError', 'HttpError'])
      expect(classify({ ...end, errorName }).status, errorName).toBe('error');
  });
  it('a skip keeps its kind and reason; a pass with observations is WARN; an expected failure is reported as such', () => {
    expect(classify({ ...end, state: 'skip', skipKind: 'page-unread', reason: 'r' })).toEqual({
      status: 'skip',
      skipKind: 'page-unread',
      reason: 'r',
      evidence: [],
    });
    expect(classify({ ...end, state: 'pass', observed: true }).status).toBe('warn');
    expect(classify({ ...end, state: 'pass', expected: 'failed' }).status).toBe('expectedFailure');
    expect(classify({ ...end, state: 'pass', expected: 'passed' }).status).toBe('expectedFailurePassed');
  });
  it('a run that stopped under the test (the interlock, "not now" everywhere) is not run, decided in the worker; a check failed first still fails', () => {
    expect(classify({ ...end, errorName: 'InterlockError', stopped: 'production' })).toEqual({
      status: 'notRun',
      reason: 'production',
      evidence: [],
    });
    expect(classify({ ...end, state: 'skip', stopped: 'refusing' }).status).toBe('notRun');
    const evidence = { check: 'rejected', clauses: ['7-violations-rejected'], expected: '4xx', actual: '200' };
    expect(classify({ ...end, failures: [evidence], stopped: 'production' }).status).toBe('fail');
  });
});

describe("a clause's status", () => {
  const failed = record({
    name: 'quick-pay paid',
    status: 'fail',
    clauses: ['4.6-url-qr', '7-dev-authorizes', '2.2-formapago-values', '4.6-qr-expiry'],
    failure: { check: 'payment-approved', clauses: ['4.6-url-qr', '7-dev-authorizes'], expected: 'esAprobada true', actual: 'false' },
  });

  it('comes from the clauses the failing check cites, not every clause the test cites', () => {
    expect(Object.fromEntries(clauseOutcomes(failed))).toEqual({
      '4.6-url-qr': 'fail',
      '7-dev-authorizes': 'fail',
      '2.2-formapago-values': 'notRun',
      '4.6-qr-expiry': 'notRun',
    });
    const s = summarize(
      run,
      [failed, record({ clauses: ['2.2-formapago-values'] })],
      ['4.6-url-qr', '7-dev-authorizes', '2.2-formapago-values', '4.6-qr-expiry'].map(clause),
    );
    expect(Object.fromEntries(s.clauses.map((c) => [c.id, c.status]))).toEqual({
      '4.6-url-qr': 'FAIL',
      '7-dev-authorizes': 'FAIL',
      '2.2-formapago-values': 'PASS',
      '4.6-qr-expiry': 'not run',
    });
  });

  it('fails every cited clause when there is no check evidence (an expect of a suite)', () => {
    expect(Object.fromEntries(clauseOutcomes(record({ status: 'fail', clauses: ['a', 'b'], error: 'AssertionError: …' })))).toEqual({
      a: 'fail',
      b: 'fail',
    });
  });

  it('is ERROR, never FAIL, for an errored test — and a FAIL elsewhere still wins', () => {
    const errored = record({ status: 'error', clauses: ['4.6-url-qr', '4.6-qr-expiry'], error: 'TestBudgetError: …' });
    const s = summarize(run, [errored, record({ clauses: ['4.6-qr-expiry'] })], ['4.6-url-qr', '4.6-qr-expiry'].map(clause));
    expect(s.clauses.map((c) => c.status)).toEqual(['ERROR', 'ERROR']);
    expect(summarize(run, [errored, failed], ['4.6-url-qr'].map(clause)).clauses[0]?.status).toBe('FAIL');
    expect(s.totals.error).toBe(1);
    expect(s.line.failed).toBe(1);
  });
});

describe('a transcript as text', () => {
  it('one line per step, the detail indented, the failing step marked, a gap where steps were left out', () => {
    const text = transcriptText({
      steps: [
        { at: 5, kind: 'api', title: 'POST /api/EnlacePago → 200 in 4 ms', detail: '> POST http://h/api/EnlacePago\n< 200' },
        { at: 6, kind: 'gap', title: '… 3 step(s) omitted …' },
        { at: 1234, kind: 'page', title: 'browser POST /pagar/1 → 200', failing: true },
      ],
      omitted: 3,
    });
    expect(text.split('\n')).toEqual([
      '      0.01 s  api      POST /api/EnlacePago → 200 in 4 ms',
      '             > POST http://h/api/EnlacePago',
      '             < 200',
      '   … 3 step(s) omitted …',
      '>>    1.23 s  page     browser POST /pagar/1 → 200   <<< failing step',
    ]);
  });
});

describe('typed skips', () => {
  const skipped = record({
    name: 'needs OTHER_*',
    status: 'skip',
    reason: 'no second merchant: set OTHER_…',
    skipKind: 'credential-missing',
  });

  it('summary.json lists each kind of this run with what to set; junit.xml carries the kind as a property', async () => {
    const s = summarize(run, [skipped, record({ name: 'plain' })], []);
    expect(s.skipKinds).toEqual({ 'credential-missing': SKIP_KINDS['credential-missing'] });
    expect(s.tests.find((t) => t.name === 'needs OTHER_*')?.skipKind).toBe('credential-missing');
    const { renderJUnit } = await import('../../reporters/junit.ts');
    expect(renderJUnit(s)).toMatch(/<property name="skipKind" value="credential-missing"\/>/);
  });

  it('every kind says what it is and what to set to run its tests, and docs/reports.md names it', () => {
    const doc = readFileSync(new URL('../../docs/reports.md', import.meta.url), 'utf8');
    for (const [kind, about] of Object.entries(SKIP_KINDS)) {
      expect(about.title.length * about.toRun.length, kind).toBeGreaterThan(0);
      expect(doc, kind).toContain(`\`${kind}\``);
    }
  });
});
