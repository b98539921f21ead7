/**
 * The reports' data: one record per conformance test, the run's metadata, and the tallies per clause and per
 * endpoint. Plain data and pure functions, so the vitest reporters and the shard merge (reporters/merge.ts) write
 * the same files from the same records. summary.json is `Summary` as is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { CheckEvidence, Observation, Transcript } from '../harness/record/meta.ts';
import { SKIP_KINDS, type SkipKind } from '../harness/record/skips.ts';
import {
  CLAUSE_ORDER,
  CLAUSE_STATUS_OF,
  STATUS_GROUPS,
  STATUSES,
  VOCABULARY,
  type Counts,
  type Status,
  type StatusGroup,
} from '../harness/record/verdict.ts';
import { eventful, sumTallies, type NetworkTally } from '../harness/record/network.ts';

// The verdict's vocabulary is the worker's (harness/record/verdict.ts): the reports only read it.
export { LABELS, STATUSES, type Counts, type Status } from '../harness/record/verdict.ts';

export interface ReportedTest {
  /** Test file relative to the root (`suites/links.test.ts`); '' for problems of the run itself. */
  file: string;
  /** The test's name (clauseTest: `[clause ids] title`). */
  name: string;
  status: Status;
  durationMs: number;
  clauses: string[];
  /** `METHOD /path` or `flow`; '' when the test names none. */
  endpoint: string;
  seed?: number;
  replay?: string;
  /** Why it was skipped or not run. */
  reason?: string;
  /** The kind of skip (harness/record/skips.ts), for a skipped test that names one. */
  skipKind?: SkipKind;
  /** The check that failed (already redacted by the harness); several independent ones: citing every clause of each. */
  failure?: CheckEvidence;
  /** Every independent check that failed (soft checks), each with its own evidence, when more than one did. */
  failures?: CheckEvidence[];
  /** The thrown error when there is no check evidence, or what an ERROR is about. */
  error?: string;
  /** Every step the test made, in order, the failing one marked (failed and errored tests; redacted by the harness). */
  transcript?: Transcript;
  observations: Observation[];
  /** Requests the test made: the next run in this REPORT_DIR serves the longest chains first (harness/run/chains.ts). */
  requests?: number;
  /** What the network did to the test (retries, 429s, 503s, time paced, ambiguous answers and how each was settled). */
  network?: NetworkTally;
}

export interface RunInfo {
  targetUrl?: string;
  targetKind?: string;
  mode?: string;
  specVersion: string;
  suiteVersion: string;
  fcSeed?: number;
  startedAt: string;
  durationMs: number;
  outcome: 'passed' | 'failed' | 'interrupted';
  /** Why (part of) the run did not happen: the interlock, an unreachable target, an interruption. */
  abort?: string;
  /** `1/3` for one shard; after a merge, every shard merged. */
  shards?: string[];
  /** What the shards of one run share (RUN_ID, or the CI run's id: reporters/run-id.ts); the merge refuses mixed runs. */
  runId?: string;
  /**
   * Remarks on the run as a whole, never a test's verdict: problems of the reporting itself (catalogue missing,
   * unreadable run info), what the global setup recovered from, and what the run learnt about the target's pages
   * (their fields the payer discovered: meta `runNotes`).
   */
  notes: string[];
}

export interface Clause {
  id: string;
  section: string;
  kind: string;
  text: string;
}

export interface ClauseRow extends Clause {
  covered: boolean;
  /** The worst outcome of its tests (FAIL, expected failure, ERROR, WARN, PASS, SKIP, not run) or `not covered`. */
  status: string;
  counts: Counts;
}

export interface Summary {
  format: 'conformance-summary/1';
  run: RunInfo;
  totals: Counts;
  /**
   * What the last printed line says: passed = PASS+WARN+expected-failure-passed, failed = FAIL+ERROR (both fail the
   * run; totals keep them apart), rest skipped.
   */
  line: { passed: number; failed: number; skipped: number };
  clauses: ClauseRow[];
  /** Clauses of kind rule or flow that no test cites. */
  uncovered: string[];
  /** Clauses of kind type or observation that no test cites. */
  uncoveredOther: string[];
  /** Clause ids cited by tests but absent from the catalogue. */
  unknownClauses: string[];
  endpoints: { endpoint: string; counts: Counts }[];
  tests: ReportedTest[];
  /** Each kind of skip in this run: what it means and what to set to run those tests. Added later: optional. */
  skipKinds?: Partial<Record<SkipKind, { title: string; toRun: string }>>;
  /** This run against an earlier one (BASELINE); absent without a baseline. Added later: readers must not need it. */
  comparison?: Comparison;
  /** The labels of statuses and of the clause grid (harness/record/verdict.ts), for index.html. */
  vocabulary?: typeof VOCABULARY;
  /** What the network did to the run: the tests' tallies summed, and how many tests it touched. Added later: optional. */
  network?: NetworkTally & { tests: number };
}

/** A test in a comparison: its identity (the name), where it is, and its status now and in the baseline. */
export interface TestRef {
  name: string;
  file: string;
  clauses: string[];
  /** Status in this run (absent for a test removed since the baseline). */
  status?: Status;
  /** Status in the baseline (absent for a test added since). */
  was?: Status;
}

/** What changed since the baseline run (reporters/compare.ts). Test names are the identity. */
export interface Comparison {
  /** BASELINE as given, and what the baseline run was. */
  baseline: { source: string; startedAt: string; targetUrl?: string; suiteVersion: string; line: Summary['line'] };
  /** FAIL_ON of this run: `new` = only a failure that is not in the baseline (or an ERROR) fails the run. */
  failOn: 'any' | 'new';
  /** FAIL or ERROR now, and not failing (FAIL, ERROR, expected failure) in the baseline, or not in it at all. */
  newFailures: TestRef[];
  /** Failing in the baseline, passing (PASS, WARN, expected failure passed) now. */
  fixed: TestRef[];
  /** Failing now and in the baseline: known, and not counted by FAIL_ON=new. */
  stillFailing: TestRef[];
  /** SKIP or not run now, ran in the baseline. */
  newlySkipped: TestRef[];
  /** Clauses whose status (PASS, FAIL, …, not covered) differs; `(absent)` for a clause in one catalogue only. */
  clauseChanges: { id: string; from: string; to: string }[];
  added: TestRef[];
  removed: TestRef[];
}

export function zeroCounts(): Counts {
  return { pass: 0, fail: 0, warn: 0, skip: 0, expectedFailure: 0, expectedFailurePassed: 0, notRun: 0, error: 0 };
}

/** Reads spec/clauses.yaml (a YAML list of {id, section, kind, text}); a problem becomes a note, not a crash. */
export function loadCatalogue(path: string): { clauses: Clause[]; note?: string } {
  if (!existsSync(path)) return { clauses: [], note: `clause catalogue ${path} not found: coverage is not computed` };
  try {
    const list: unknown = parse(readFileSync(path, 'utf8'));
    if (!Array.isArray(list)) return { clauses: [], note: `clause catalogue ${path} is not a YAML list` };
    const clauses = list
      .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && typeof c.id === 'string')
      .map((c) => ({ id: String(c.id), section: String(c.section ?? ''), kind: String(c.kind ?? ''), text: String(c.text ?? '').trim() }));
    return { clauses };
  } catch (err) {
    return { clauses: [], note: `clause catalogue ${path} cannot be read: ${(err as Error).message}` };
  }
}

/** `info.version` of the OpenAPI document, or `version` of package.json ('unknown' when unreadable). */
export function versionOf(path: string, key: 'info' | 'package'): string {
  try {
    const doc = parse(readFileSync(path, 'utf8')) as { version?: unknown; info?: { version?: unknown } };
    const version = key === 'info' ? doc.info?.version : doc.version;
    return typeof version === 'string' && version !== '' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * A clause's status: the worst (CLAUSE_ORDER) of what its tests' outcomes give it (CLAUSE_STATUS_OF), both the
 * verdict's (harness/record/verdict.ts): a failure hides a pass of the same clause; an ERROR is no failure of the
 * target, but the clause's verdict is incomplete.
 */
function clauseStatus(counts: Counts): ClauseRow['status'] {
  return CLAUSE_ORDER.find((label) => STATUSES.some((s) => counts[s] > 0 && CLAUSE_STATUS_OF[s] === label)) ?? 'not run';
}

/** The sum of a group's counts (harness/record/verdict.ts STATUS_GROUPS). */
const countOf = (counts: Counts, group: StatusGroup): number => STATUS_GROUPS[group].reduce((n, s) => n + counts[s], 0);

/**
 * The outcome of each clause a test touches (one fault, one finding). A failed test fails only the clauses
 * its failing check cites; the others it cites it did not judge (it stopped there): `notRun` for them. Without check
 * evidence (an `expect` of a suite) every cited clause fails. An ERROR is the test's outcome for its clauses, never a
 * FAIL. Observed clauses WARN.
 */
export function clauseOutcomes(t: ReportedTest): Map<string, Status> {
  const out = new Map<string, Status>();
  const failedOn = (t.status === 'fail' || t.status === 'expectedFailure') && t.failure ? new Set(t.failure.clauses) : undefined;
  for (const c of t.clauses) out.set(c, failedOn && !failedOn.has(c) ? 'notRun' : t.status === 'warn' ? 'pass' : t.status);
  for (const c of failedOn ?? []) out.set(c, t.status);
  for (const o of t.observations) if (!out.has(o.clause) || ['pass', 'notRun'].includes(out.get(o.clause)!)) out.set(o.clause, 'warn');
  return out;
}

export function summarize(run: RunInfo, records: ReportedTest[], catalogue: Clause[]): Summary {
  const tests = [...records].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const totals = zeroCounts();
  const perClause = new Map<string, Counts>();
  const perEndpoint = new Map<string, Counts>();
  for (const t of tests) {
    totals[t.status]++;
    for (const [clause, status] of clauseOutcomes(t)) {
      const counts = perClause.get(clause) ?? zeroCounts();
      counts[status]++;
      perClause.set(clause, counts);
    }
    if (t.file === '') continue;
    const endpoint = t.endpoint || '(none)';
    const counts = perEndpoint.get(endpoint) ?? zeroCounts();
    counts[t.status]++;
    perEndpoint.set(endpoint, counts);
  }
  const known = new Set(catalogue.map((c) => c.id));
  const clauses = catalogue.map((c): ClauseRow => {
    const counts = perClause.get(c.id);
    const status = counts ? clauseStatus(counts) : 'not covered';
    return { ...c, covered: counts !== undefined, status, counts: counts ?? zeroCounts() };
  });
  const uncovered = (ruleOrFlow: boolean) =>
    clauses.filter((c) => !c.covered && ['rule', 'flow'].includes(c.kind) === ruleOrFlow).map((c) => c.id);
  return {
    format: 'conformance-summary/1',
    run,
    totals,
    line: {
      passed: countOf(totals, 'passing'),
      failed: countOf(totals, 'failed'),
      // An expected failure is shown as skipped (as JUnit and pytest's xfail show it), with what was not judged.
      skipped: countOf(totals, 'notJudged') + totals.expectedFailure,
    },
    clauses,
    uncovered: uncovered(true),
    uncoveredOther: uncovered(false),
    unknownClauses: [...perClause.keys()].filter((id) => !known.has(id)).sort(),
    endpoints: [...perEndpoint].sort(([a], [b]) => (a < b ? -1 : 1)).map(([endpoint, counts]) => ({ endpoint, counts })),
    tests,
    skipKinds: Object.fromEntries(tests.flatMap((t) => (t.status === 'skip' && t.skipKind ? [[t.skipKind, SKIP_KINDS[t.skipKind]]] : []))),
    vocabulary: VOCABULARY,
    ...networkOf(tests),
  };
}

/** The run's network tally (only when the network did anything). */
function networkOf(tests: readonly ReportedTest[]): { network?: NetworkTally & { tests: number } } {
  const touched = tests.filter((t) => t.network !== undefined);
  const sum = sumTallies(touched.map((t) => t.network));
  return eventful(sum) ? { network: { ...sum, tests: touched.length } } : {};
}

/** A failed (or expectedly failed) test as one line and as the full text: check, expected/actual, exchange, curl. */
export function describeFailure(t: ReportedTest): { message: string; text: string } {
  const f = t.failure;
  if (!f || t.status === 'error') {
    const text = t.error ?? 'failed without an error message';
    const message = t.status === 'error' ? `not judged (the suite's own failure): ${firstLine(text)}` : firstLine(text);
    return { message: firstLine(message), text };
  }
  const block = (e: CheckEvidence): string[] => [
    `check: ${e.check}`,
    `clauses: ${e.clauses.join(', ')}`,
    `expected: ${e.expected}`,
    `actual: ${e.actual}`,
    ...(e.exchange ? ['', 'exchange:', e.exchange] : []),
    ...(e.curl ? ['', 'reproduce:', e.curl] : []),
  ];
  const all = t.failures ?? [];
  if (all.length > 1) {
    const text = all.map((e, i) => [`(${i + 1} of ${all.length})`, ...block(e)].join('\n')).join('\n\n');
    return {
      message: firstLine(
        `${all.length} independent checks failed (${all.map((e) => e.clauses.join(' ')).join('; ')}): ${f.check}: ` +
          `expected ${f.expected}; actual ${f.actual}`,
      ),
      text,
    };
  }
  return { message: firstLine(`${f.check}: expected ${f.expected}; actual ${f.actual}`), text: block(f).join('\n') };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** A transcript as plain text (JUnit system-out, summary.md): one line per step, its detail indented, the failing one marked. */
export function transcriptText(t: Transcript): string {
  const lines: string[] = [];
  for (const s of t.steps) {
    if (s.kind === 'gap') {
      lines.push(`   ${s.title}`);
      continue;
    }
    lines.push(
      `${s.failing ? '>>' : '  '} ${(s.at / 1000).toFixed(2).padStart(7)} s  ${s.kind.padEnd(8)} ` +
        `${s.title}${s.failing ? '   <<< failing step' : ''}`,
    );
    if (s.detail) lines.push(...s.detail.split('\n').map((l) => `             ${l}`));
  }
  return lines.join('\n');
}
