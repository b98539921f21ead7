/**
 * A test's identity: its name, `[clause ids] title`, which baselines, EXPECTED_FAILURES_FILE and the merge key on. A
 * testcase other tests name (a premise judged elsewhere) is declared once as a `Testcase` and passed to `clauseTest`
 * where it is defined, so a reference can never drift from the test it names.
 */
export interface Testcase {
  clauses: readonly string[];
  title: string;
  /** `[clause ids] title`: what the reports show and key on. */
  name: string;
}

export function testName(clauses: readonly string[], title: string): string {
  return `[${clauses.join(' ')}] ${title}`;
}

export function testcase(clauses: readonly string[], title: string): Testcase {
  return { clauses, title, name: testName(clauses, title) };
}

/** How a message names a testcase: its name in quotes. */
export function quoted(tc: Testcase): string {
  return `"${tc.name}"`;
}
