/**
 * Re-running what failed: a printed name selects exactly its test (no pattern), `--failed` reads the last whole run's
 * FAIL and ERROR names, and the console's re-run lines are commands a shell takes as printed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { selectedByName } from '../../harness/run/suite-files.ts';
import { lastFailures, rerunLines, shellWord } from '../../reporters/selection.ts';
import type { ReportedTest } from '../../reporters/records.ts';

const folder = mkdtempSync(join(tmpdir(), 'selection-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const NAME = '[4.1-monto-min 7-violations-rejected] createPaymentLink: monto 0; monto "diez" (no number) are rejected (+1)';
const test = (name: string, status: ReportedTest['status'], file = 'suites/validation.test.ts') =>
  ({ name, status, file, clauses: [], endpoint: '', durationMs: 1, observations: [] }) as ReportedTest;

describe('a test selected by its name', () => {
  it('as declared, or as the console prints it (file > name), never by pattern', () => {
    const env = (names: string[]) => ({ CONFORMANCE_NAMES: JSON.stringify(names) });
    expect(selectedByName(NAME, env([NAME]))).toBe(true);
    expect(selectedByName(NAME, env([`suites/validation.test.ts > ${NAME}`]))).toBe(true);
    expect(selectedByName(NAME, env(['4.1-monto-min']))).toBe(false);
    expect(selectedByName('[4.1-monto-min] another', env([NAME]))).toBe(false);
    expect(selectedByName(NAME, {})).toBe(true);
  });
});

describe('--failed', () => {
  it("reads the last whole run's FAIL and ERROR names, not its run problems", () => {
    const tests = [test(NAME, 'fail'), test('[4.2] b', 'error'), test('[4.3] c', 'pass'), test('run stopped', 'error', '')];
    writeFileSync(join(folder, 'summary.json'), JSON.stringify({ tests }));
    expect(lastFailures(folder)).toEqual({ names: [NAME, '[4.2] b'], files: ['suites/validation.test.ts'] });
  });

  it('says why there is nothing to re-run', () => {
    expect(lastFailures(join(folder, 'none'))).toMatchObject({ none: expect.stringMatching(/no report of a whole run/) });
    writeFileSync(join(folder, 'summary.json'), JSON.stringify({ tests: [test('a', 'pass')] }));
    expect(lastFailures(folder)).toMatchObject({ none: expect.stringMatching(/no FAIL or ERROR/) });
  });
});

describe('the re-run lines', () => {
  it('name --failed, and one test by a name a shell gives back as printed', () => {
    const lines = rerunLines({ tests: [test(`${NAME} it's`, 'fail'), test('[4.2] b', 'error')] });
    expect(lines[0]).toMatch(/re-run the 2 failures and errors: .*--failed$/);
    const word = lines[1]!.slice(lines[1]!.indexOf('--name ') + '--name '.length);
    expect(execFileSync('sh', ['-c', `printf %s ${word}`], { encoding: 'utf8' })).toBe(`${NAME} it's`);
    expect(shellWord('plain-name')).toBe('plain-name');
  });
});
