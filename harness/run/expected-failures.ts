/** EXPECTED_FAILURES_FILE: the names of tests whose judged failure is expected (one a line, # comments), read once. */
import { readFileSync } from 'node:fs';
import type { Run } from './run.ts';

let expectedFailures: Set<string> | undefined;
export function isExpectedFailure(run: Run, name: string): boolean {
  if (!expectedFailures) {
    const file = run.config.expectedFailuresFile;
    const lines = file ? readFileSync(file, 'utf8').split('\n') : [];
    expectedFailures = new Set(lines.map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')));
  }
  return expectedFailures.has(name);
}
