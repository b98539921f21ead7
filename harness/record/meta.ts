/**
 * What a conformance test tells the reporters, carried in vitest's TaskMeta (serialised to the main process).
 * Suites set it through `clauseTest` (harness/run/conformance.ts), written once from the test's TestRecord
 * (`toMeta`); reporters read `testCase.meta()`.
 */
import type { SkipKind } from './skips.ts';
import type { CheckEvidence, Verdict } from './verdict.ts';
import type { NetworkTally } from './network.ts';

// The evidence of a failed check is the verdict's (verdict.ts); named here too, where the reporters read the meta.
export type { CheckEvidence };

/**
 * One step of a test's transcript (harness/record/transcript.ts): an API call, a token request, a hosted page loaded or posted
 * (by either payer), a redirect the payer caught, a webhook the receiver got, a wait, or how the test ended. Redacted.
 */
export interface TranscriptStep {
  /** Milliseconds since the test (its attempt) started. */
  at: number;
  kind: 'api' | 'token' | 'page' | 'redirect' | 'webhook' | 'wait' | 'note' | 'end' | 'gap';
  /** One line: `POST /api/EnlacePago (createPaymentLink) → 200 in 12 ms`. */
  title: string;
  /** The request and response (a few headers, bodies clipped), or what was received. */
  detail?: string;
  /** The step the failing check names (else the last one). */
  failing?: true;
}

/** Every step a failed or errored test made, in order, size-bounded (first and last steps kept). */
export interface Transcript {
  steps: TranscriptStep[];
  /** Steps left out of the middle (a `gap` step stands where they were). */
  omitted: number;
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
  /** The first failed check (the one that stopped the test, or its first soft check). */
  failure?: CheckEvidence;
  /** Every failed check when several independent ones failed (soft checks, `t.soft`), `failure` first. */
  failures?: CheckEvidence[];
  /** The test's transcript, when it failed or errored. */
  transcript?: Transcript;
  observations?: Observation[];
  /** Listed in EXPECTED_FAILURES_FILE: `failed` = it failed as expected; `passed` = it no longer fails. */
  expected?: 'failed' | 'passed';
  /** Why the test was not judged, when it was skipped (harness/record/skips.ts). */
  skipKind?: SkipKind;
  /** Requests the test made (its tenant's creation included): the next run's order at the request cap. */
  requests?: number;
  /** What the network did to the test (retries, 429s, 503s, time paced, ambiguous answers), when anything. */
  network?: NetworkTally;
  /** The verdict, decided where the test ran (harness/record/verdict.ts `classify`); reporters copy it. */
  verdict?: Verdict;
  /**
   * What the run learnt while this test ran that is about the run, not the test's target (the hosted pages' fields
   * the payer discovered): the reporters make them notes of the run (summary.json `run.notes`), never a WARN.
   */
  runNotes?: string[];
}

// TaskMeta is declared in @vitest/runner; augmenting vitest's re-export does not merge.
declare module '@vitest/runner' {
  interface TaskMeta extends Partial<ConformanceMeta> {}
}
