/**
 * What a person sees: a calm console (a few lines whatever the number of tests, each failure once with one line of
 * expected and actual, skips by kind with what to set), summary.md's skips grouped by kind without ids in the group,
 * and every command named as the user runs it (`npx payment-conformance …` installed, `npm run …` in a clone).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { command, spoken } from '../../harness/record/command.ts';
import { summarize, type Clause, type RunInfo, type ReportedTest } from '../../reporters/records.ts';
import { renderConsole, renderMarkdown } from '../../reporters/summary.ts';

const run: RunInfo = {
  targetUrl: 'http://127.0.0.1:4010/api',
  targetKind: 'remote',
  mode: 'development',
  specVersion: '1',
  suiteVersion: '0.1.0',
  startedAt: new Date(0).toISOString(),
  durationMs: 1000,
  outcome: 'passed',
  notes: [],
};
const catalogue: Clause[] = [{ id: '4.1-monto-min', section: '4.1', kind: 'rule', text: 'monto is at least 0.01' }] as Clause[];

function test(name: string, extra: Partial<ReportedTest> = {}): ReportedTest {
  return {
    file: 'suites/links.test.ts',
    name,
    status: 'pass',
    durationMs: 1,
    clauses: ['4.1-monto-min'],
    endpoint: 'POST /EnlacePago',
    observations: [],
    ...extra,
  };
}

/** A run the size of the suite: 200 passing tests, 59 skipped for the account, 12 skipped each with its own transaction id. */
function bigRun(extra: ReportedTest[] = []): ReportedTest[] {
  return [
    ...Array.from({ length: 200 }, (_, i) =>
      test(
        `passes ${i}`,
        i % 20 === 0
          ? {
              status: 'warn',
              observations: [
                { clause: '4.1-monto-min', message: 'a' },
                { clause: '4.1-monto-min', message: 'b' },
              ],
            }
          : {},
      ),
    ),
    ...Array.from({ length: 59 }, (_, i) =>
      test(`account ${i}`, {
        status: 'skip',
        skipKind: 'credential-missing',
        reason: 'no account credentials: set ACCOUNT_USER and ACCOUNT_PASSWORD',
      }),
    ),
    ...Array.from({ length: 12 }, (_, i) =>
      test(`undecided ${i}`, {
        status: 'skip',
        skipKind: 'undecidable',
        reason: `transaction ${100_000 + i} "pending-${i}" was neither approved nor declined within 10 s`,
      }),
    ),
    ...extra,
  ];
}

const saved = { ...process.env };
afterEach(() => {
  for (const key of ['PAYMENT_CONFORMANCE_COMMAND', 'CONFORMANCE_FILES']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

describe('the console', () => {
  it('a passing run: a few lines, skips by kind with what to set, where the reports are', () => {
    const lines = renderConsole(summarize(run, bigRun(), catalogue), '/tmp/reports');
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines.join('\n')).not.toMatch(/✓|passes \d/);
    expect(lines).toContain('   59 credential-missing: set ACCOUNT_USER, ACCOUNT_PASSWORD');
    expect(lines.some((l) => /^\s+12 undecidable: /.test(l))).toBe(true);
    expect(lines).toContain('Observations (WARN, not failures): 20 in 10 tests (summary.md)');
    expect(lines.some((l) => l.startsWith('Reports: /tmp/reports/index.html'))).toBe(true);
    expect(lines.at(-1)).toBe('200 passed, 0 failed, 71 skipped');
  });

  it('a failing run lists each failure once: its clauses, then one line of expected and actual', () => {
    const failure = {
      check: 'rejected',
      clauses: ['4.1-monto-min'],
      expected: 'a 4xx\nmore detail',
      actual: '200\nthe body',
      exchange: 'POST /EnlacePago …',
    };
    const lines = renderConsole(
      summarize(
        { ...run, outcome: 'failed' },
        bigRun([
          test('[4.1-monto-min] monto 0 is rejected', {
            status: 'fail',
            failure,
            replay: 'FC_SEED=1 npm run conformance -- suites/links.test.ts',
          }),
        ]),
        catalogue,
      ),
      '/tmp/reports',
    );
    const at = lines.findIndex((l) => l.startsWith('  FAIL '));
    expect(lines.filter((l) => l.includes('monto 0 is rejected'))).toHaveLength(1);
    expect(lines[at]).toBe('  FAIL suites/links.test.ts > [4.1-monto-min] monto 0 is rejected');
    expect(lines[at + 1]).toBe('      expected a 4xx · actual 200');
    expect(lines.join('\n')).not.toContain('the body');
  });

  it('"Uncovered clauses" only for the whole suite: not for chosen suite files, a -t filter or a shard', () => {
    const whole = renderConsole(summarize(run, bigRun(), catalogue), '/tmp/reports');
    expect(whole.some((l) => l.startsWith('Uncovered rule/flow clauses: 0'))).toBe(true);
    const filteredByName = bigRun([test('other', { status: 'skip', reason: 'not selected by the test name filter (-t)' })]);
    expect(renderConsole(summarize(run, filteredByName, catalogue), '/tmp/reports').join('\n')).not.toContain('Uncovered');
    const shard = renderConsole(summarize({ ...run, shards: ['1/3'] }, bigRun(), catalogue), '/tmp/reports');
    expect(shard.join('\n')).not.toContain('Uncovered');
    process.env['CONFORMANCE_FILES'] = 'links';
    expect(renderConsole(summarize(run, bigRun(), catalogue), '/tmp/reports').join('\n')).not.toContain('Uncovered');
  });
});

describe('summary.md', () => {
  it('groups skips by kind, reasons that differ only by an id in one group; observations counted as listed', () => {
    const md = renderMarkdown(summarize(run, bigRun(), catalogue));
    expect(md).toContain('### undecidable');
    const groups = [...md.matchAll(/^\*\*(.*)\*\* \((\d+)\)$/gm)].map((m) => [m[1], Number(m[2])]);
    expect(groups).toContainEqual(['transaction … "…" was neither approved nor declined within 10 s', 12]);
    expect(groups.every(([key]) => !/\d{5}/.test(String(key)))).toBe(true);
    // Each test still shows its own reason.
    expect(md).toContain('undecided 3 — transaction 100003 "pending-3"');
    const heading = /^## Observations \(WARN\): (\d+) in (\d+) tests$/m.exec(md)!;
    const section = md.slice(heading.index).split('\n## ')[0]!;
    expect(Number(heading[1])).toBe(section.split('\n').filter((l) => l.startsWith('- ')).length);
  });
});

describe('the command the user ran', () => {
  it('in a clone: npm run …', () => {
    delete process.env['PAYMENT_CONFORMANCE_COMMAND'];
    expect(command('run', "-t 'x'")).toBe("npm run conformance -- -t 'x'");
    expect(command('merge')).toBe('npm run reports:merge');
    expect(spoken('FC_SEED=1 npm run conformance -- suites/a.test.ts')).toBe('FC_SEED=1 npm run conformance -- suites/a.test.ts');
  });

  it('installed: npx payment-conformance …, in the replay lines, the shard summary and its console', () => {
    process.env['PAYMENT_CONFORMANCE_COMMAND'] = 'npx payment-conformance';
    expect(command('run', "-t 'x'")).toBe("npx payment-conformance run -t 'x'");
    expect(spoken("FC_SEED=1 npm run conformance -- suites/a.test.ts -t 'y'")).toBe(
      "FC_SEED=1 npx payment-conformance run suites/a.test.ts -t 'y'",
    );
    expect(spoken('run npm run discover again')).toBe('run npx payment-conformance discover again');
    const shard = summarize({ ...run, shards: ['2/3'] }, bigRun(), catalogue);
    const printed = [...renderConsole(shard, '/tmp/reports'), renderMarkdown(shard)].join('\n');
    expect(printed).not.toContain('npm run');
    expect(printed).toContain('npx payment-conformance merge');
  });
});
