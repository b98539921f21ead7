/**
 * The comparison with a baseline and the ratchet (reporters/compare.ts) on small hand-made runs, and the escaping
 * that keeps test text inside index.html's data element (reporters/html.ts).
 */
import { describe, expect, it } from 'vitest';
import { compare, readReportSettings, SettingError, failOnGate, withBaseline } from '../../reporters/compare.ts';
import { renderHtml, scriptJson } from '../../reporters/html.ts';
import { summarize, type Clause, type RunInfo, type Status, type Summary, type ReportedTest } from '../../reporters/records.ts';

const run: RunInfo = {
  specVersion: '1',
  suiteVersion: '0.1.0',
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1000,
  outcome: 'failed',
  notes: [],
};
const catalogue: Clause[] = ['a', 'b', 'c', 'd'].map((id) => ({ id: `1-${id}`, section: '1', kind: 'rule', text: `clause ${id}` }));

function t(name: string, status: Status, clause = '1-a', file = 'suites/x.test.ts'): ReportedTest {
  return { file, name: `[${clause}] ${name}`, status, durationMs: 1, clauses: [clause], endpoint: 'POST /EnlacePago', observations: [] };
}
const runOf = (...tests: ReportedTest[]): Summary => summarize(run, tests, catalogue);
const names = (list: { name: string }[]) => list.map((x) => x.name);

describe('compare', () => {
  const baseline = runOf(
    t('stays green', 'pass'),
    t('known gap', 'fail', '1-b'),
    t('gets fixed', 'fail', '1-c'),
    t('gets skipped', 'pass', '1-d'),
    t('goes away', 'pass'),
    t('breaks', 'warn'),
  );
  const current = runOf(
    t('stays green', 'pass'),
    t('known gap', 'fail', '1-b'),
    t('gets fixed', 'warn', '1-c'),
    { ...t('gets skipped', 'skip', '1-d'), reason: 'no account credentials' },
    t('breaks', 'fail'),
    t('is new and fails', 'fail'),
    t('is new and passes', 'pass'),
  );
  const c = compare(current, baseline, 'base/', 'new');

  it('lists exactly the new failures, the fixed, the newly skipped, and what was added or removed', () => {
    expect(names(c.newFailures)).toEqual(['[1-a] breaks', '[1-a] is new and fails']);
    expect(c.newFailures[0]).toMatchObject({ status: 'fail', was: 'warn', file: 'suites/x.test.ts', clauses: ['1-a'] });
    expect(c.newFailures[1]?.was).toBeUndefined();
    expect(names(c.stillFailing)).toEqual(['[1-b] known gap']);
    expect(names(c.fixed)).toEqual(['[1-c] gets fixed']);
    expect(names(c.newlySkipped)).toEqual(['[1-d] gets skipped']);
    expect(names(c.added)).toEqual(['[1-a] is new and fails', '[1-a] is new and passes']);
    expect(c.removed).toEqual([{ name: '[1-a] goes away', file: 'suites/x.test.ts', clauses: ['1-a'], was: 'pass' }]);
    expect(c.clauseChanges).toEqual([
      { id: '1-a', from: 'PASS', to: 'FAIL' },
      { id: '1-c', from: 'FAIL', to: 'PASS' },
      { id: '1-d', from: 'PASS', to: 'SKIP' },
    ]);
    expect(c.baseline).toMatchObject({ source: 'base/', startedAt: run.startedAt, line: baseline.line });
  });

  it('is empty against itself', () => {
    const same = compare(current, current, 'x', 'any');
    for (const key of ['newFailures', 'fixed', 'newlySkipped', 'added', 'removed', 'clauseChanges'] as const) expect(same[key]).toEqual([]);
    expect(same.stillFailing).toHaveLength(3);
  });

  it('counts an expected failure of the baseline as known, and tells tests of the same name apart by file', () => {
    const before = runOf(t('listed', 'expectedFailure'), t('twin', 'pass', '1-a', 'a.test.ts'), t('twin', 'fail', '1-a', 'b.test.ts'));
    const after = runOf(t('listed', 'fail'), t('twin', 'fail', '1-a', 'a.test.ts'), t('twin', 'fail', '1-a', 'b.test.ts'));
    const x = compare(after, before, 'b', 'new');
    expect(x.newFailures).toEqual([expect.objectContaining({ name: '[1-a] twin', file: 'a.test.ts', was: 'pass' })]);
    expect(x.stillFailing.map((r) => r.file).sort()).toEqual(['b.test.ts', 'suites/x.test.ts']);
  });
});

describe('failOnGate (the ratchet)', () => {
  const baseline = runOf(t('known gap', 'fail'));
  it('FAIL_ON=any fails on any failure; FAIL_ON=new only on a new one', () => {
    const same = runOf(t('known gap', 'fail'));
    expect(failOnGate(same).failed).toBe(true);
    expect(failOnGate({ ...same, comparison: compare(same, baseline, 'b', 'any') }).failed).toBe(true);
    const ratchet = failOnGate({ ...same, comparison: compare(same, baseline, 'b', 'new') });
    expect(ratchet).toEqual({
      failed: false,
      line: 'FAIL_ON=new: 0 new failures, 1 known failure of the baseline not counted → the run passes',
    });
    const worse = runOf(t('known gap', 'fail'), t('regression', 'fail'));
    expect(failOnGate({ ...worse, comparison: compare(worse, baseline, 'b', 'new') }).failed).toBe(true);
  });

  it('FAIL_ON=new still fails on an ERROR, even one the baseline had', () => {
    const error: ReportedTest = {
      file: '',
      name: 'run stopped',
      status: 'error',
      durationMs: 0,
      clauses: [],
      endpoint: '',
      error: 'stopped',
      observations: [],
    };
    const withError = runOf(t('known gap', 'fail'), error);
    const v = failOnGate({ ...withError, comparison: compare(withError, withError, 'b', 'new') });
    expect(v.failed).toBe(true);
    expect(v.line).toContain('1 ERROR');
  });
});

describe('BASELINE and FAIL_ON', () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  it('refuses FAIL_ON=new without a baseline and a baseline that is not a summary, naming the variable', () => {
    expect(readReportSettings(env({}))).toEqual({ failOn: 'any' });
    expect(readReportSettings(env({ FAIL_ON: '', BASELINE: '' }))).toEqual({ failOn: 'any' });
    expect(() => readReportSettings(env({ FAIL_ON: 'new' }))).toThrow(SettingError);
    expect(() => readReportSettings(env({ BASELINE: '/nonexistent' }))).toThrow(
      /^BASELINE must be .* \(got "\/nonexistent", which does not exist\)/,
    );
  });

  it('a baseline that cannot be read when the report is written becomes a note, not a crash', () => {
    const s = withBaseline(runOf(t('x', 'pass')), '/nonexistent', 'new');
    expect(s.comparison).toBeUndefined();
    expect(s.run.notes).toEqual([expect.stringContaining('BASELINE must be')]);
  });
});

describe('index.html data', () => {
  it('keeps hostile test text inside the JSON element', () => {
    const evil = '</script><script>alert(1)</script><!-- & \u2028';
    expect(scriptJson({ evil })).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(scriptJson({ evil }))).toEqual({ evil });
    const html = renderHtml(runOf({ ...t(evil, 'fail'), error: evil }));
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toContain('alert(1)</script>');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  });
});

describe('one shard against a whole baseline', () => {
  it('judges only its own files: the other shards\' tests are not "removed", and no clause changes are claimed', () => {
    const baseline = runOf(
      t('in shard 1', 'pass', '1-a', 'a.test.ts'),
      t('in shard 2', 'fail', '1-b', 'b.test.ts'),
      t('gone', 'pass', '1-a', 'a.test.ts'),
    );
    const shard = summarize({ ...run, shards: ['1/2'] }, [t('in shard 1', 'fail', '1-a', 'a.test.ts')], catalogue);
    const c = compare(shard, baseline, 'b', 'new');
    expect(names(c.newFailures)).toEqual(['[1-a] in shard 1']);
    expect(names(c.removed)).toEqual(['[1-a] gone']);
    expect(c.clauseChanges).toEqual([]);
  });
});
