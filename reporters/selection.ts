/**
 * Re-running what failed: the lines the console prints beside the failures (`--failed`, one test by `--name`), the
 * failures of the last whole run read back from its summary.json, and where a run of part of the suite writes its
 * reports (REPORT_DIR/selected: beside the whole run's, never over them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { command } from '../harness/record/command.ts';
import { isIn } from '../harness/record/verdict.ts';
import type { ReportedTest, Summary } from './records.ts';

/** The folder under REPORT_DIR where a run of part of the suite writes its reports. */
export const SELECTED_DIR = 'selected';

/** A word for a POSIX shell: in single quotes, a quote inside written '\'' . */
export function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The FAIL and ERROR tests of a summary (the run's own problems, file '', are not tests to re-run). */
export function failedTests(summary: Pick<Summary, 'tests'>): ReportedTest[] {
  return summary.tests.filter((t) => isIn('failed', t.status) && t.file !== '');
}

/** The command re-running one test by its exact name. */
export function rerunOne(t: Pick<ReportedTest, 'name'>): string {
  return command('run', `--name ${shellWord(t.name)}`);
}

/** The lines printed below the failures: how to re-run them all, and one. */
export function rerunLines(summary: Pick<Summary, 'tests'>): string[] {
  const failed = failedTests(summary);
  if (failed.length === 0) return [];
  const lines = [`  re-run the ${failed.length === 1 ? 'failure' : `${failed.length} failures and errors`}: ${command('run', '--failed')}`];
  if (failed.length > 1) lines.push(`  re-run one: ${rerunOne(failed[0]!)}`);
  return lines;
}

/**
 * The names of the FAIL and ERROR tests of the last whole run (REPORT_DIR/summary.json), or why there are none to
 * re-run (a sentence).
 */
export function lastFailures(reportDir: string): { names: string[]; files: string[] } | { none: string } {
  const file = join(reportDir, 'summary.json');
  if (!existsSync(file)) return { none: `there is no report of a whole run to read the failures from (${file})` };
  let summary: Summary;
  try {
    summary = JSON.parse(readFileSync(file, 'utf8')) as Summary;
  } catch (err) {
    return { none: `${file} cannot be read (${(err as Error).message})` };
  }
  const failed = failedTests(summary);
  return failed.length > 0
    ? { names: failed.map((t) => t.name), files: [...new Set(failed.map((t) => t.file))] }
    : { none: `the last whole run (${file}) has no FAIL or ERROR to re-run` };
}
