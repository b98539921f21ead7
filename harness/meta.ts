/**
 * What a conformance test tells the reporters, carried in vitest's TaskMeta (serialised to the main process).
 * Suites set it through `clauseTest` (harness/conformance.ts); reporters read `testCase.meta()`.
 */

/** The evidence of a failed check: what the rule wanted, what the target did, and how to reproduce it. */
export interface CheckEvidence {
  /** Named check that failed, e.g. `rejected`, `contract`, `hash-verifies`. */
  check: string;
  clauses: string[];
  expected: string;
  actual: string;
  /** The redacted exchange that showed it (request and response as text), when there was one. */
  exchange?: string;
  /** One shell line that replays the request; secrets appear as $VARIABLES, never as values. */
  curl?: string;
}

/** Something observed where the spec is silent: reported as WARN, never a failure. */
export interface Observation {
  clause: string;
  message: string;
}

export interface ConformanceMeta {
  /** Clause ids of spec/clauses.yaml that the test checks. */
  clauses: string[];
  /** `METHOD /path` of the spec (e.g. `POST /EnlacePago`), or `flow` for multi-endpoint flows. */
  endpoint: string;
  /** fast-check seed and path of a property, to replay it. */
  seed?: number;
  replay?: string;
  failure?: CheckEvidence;
  observations?: Observation[];
  /** Listed in EXPECTED_FAILURES_FILE: `failed` = it failed as expected; `passed` = it no longer fails. */
  expected?: 'failed' | 'passed';
}

// TaskMeta is declared in @vitest/runner; augmenting vitest's re-export does not merge.
declare module '@vitest/runner' {
  interface TaskMeta extends Partial<ConformanceMeta> {}
}
