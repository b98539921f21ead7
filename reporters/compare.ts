/**
 * A run against an earlier one (`BASELINE=<report dir or summary.json>`): new failures, fixed, newly skipped,
 * clauses whose status changed, tests added or removed — and the ratchet (`FAIL_ON=new`): only a failure the
 * baseline did not have, or an ERROR, fails the run. Test names are the identity (`[clause ids] title` is stable).
 * Pure functions over `Summary`, shared by the reporters, the shard merge and scripts/conformance.ts.
 */
import type { Comparison, Summary, ReportedTest, TestRef } from './records.ts';
import { isIn } from '../harness/record/verdict.ts';
import { BASELINE_WHAT, readBaselineFile, type FailOn } from '../harness/setup/report-settings.ts';

// The settings live with the rest of the configuration (harness/setup/config.ts validates them at start-up).
export {
  baselineFile,
  readReportSettings,
  SettingError,
  BASELINE_WHAT,
  BASELINE_EXAMPLE,
  type FailOn,
} from '../harness/setup/report-settings.ts';

/** Reads a baseline summary; a problem is one line for `BASELINE must be … (<problem>)`. */
export function readBaseline(value: string): { summary: Summary } | { problem: string } {
  const read = readBaselineFile(value);
  return 'problem' in read ? read : { summary: read.summary as Summary };
}

/** The key of each test: its name, or `file > name` where a name occurs more than once in the run. */
function byIdentity(tests: ReportedTest[]): Map<string, ReportedTest> {
  const count = new Map<string, number>();
  for (const t of tests) count.set(t.name, (count.get(t.name) ?? 0) + 1);
  const out = new Map<string, ReportedTest>();
  for (const t of tests) out.set(count.get(t.name) === 1 ? t.name : `${t.file} > ${t.name}`, t);
  return out;
}

function ref(t: ReportedTest, now: ReportedTest | undefined, was: ReportedTest | undefined): TestRef {
  return { name: t.name, file: t.file, clauses: t.clauses, ...(now ? { status: now.status } : {}), ...(was ? { was: was.status } : {}) };
}

export function compare(current: Summary, baseline: Summary, source: string, failOn: FailOn): Comparison {
  const now = byIdentity(current.tests);
  const before = byIdentity(baseline.tests);
  const c: Comparison = {
    baseline: {
      source,
      startedAt: baseline.run.startedAt,
      ...(baseline.run.targetUrl ? { targetUrl: baseline.run.targetUrl } : {}),
      suiteVersion: baseline.run.suiteVersion,
      line: baseline.line,
    },
    failOn,
    newFailures: [],
    fixed: [],
    stillFailing: [],
    newlySkipped: [],
    clauseChanges: [],
    added: [],
    removed: [],
  };
  for (const [key, t] of now) {
    const was = before.get(key);
    const r = ref(t, t, was);
    if (!was) c.added.push(r);
    const failedBefore = was !== undefined && isIn('failing', was.status);
    if (isIn('failed', t.status)) (failedBefore ? c.stillFailing : c.newFailures).push(r);
    else if (failedBefore && isIn('passing', t.status)) c.fixed.push(r);
    if (was && isIn('notJudged', t.status) && !isIn('notJudged', was.status)) c.newlySkipped.push(r);
  }
  // One shard of several is compared on its own files only: the rest is on other shards, not removed.
  const partial = current.run.shards?.length === 1 && !current.run.shards[0]?.startsWith('1/1');
  const files = new Set(current.tests.map((t) => t.file));
  for (const [key, t] of before) if (!now.has(key) && (!partial || files.has(t.file))) c.removed.push(ref(t, undefined, t));
  if (partial) return c;

  const statusBefore = new Map(baseline.clauses.map((x) => [x.id, x.status]));
  const statusNow = new Map(current.clauses.map((x) => [x.id, x.status]));
  for (const id of new Set([...statusNow.keys(), ...statusBefore.keys()])) {
    const from = statusBefore.get(id) ?? '(absent)';
    const to = statusNow.get(id) ?? '(absent)';
    if (from !== to) c.clauseChanges.push({ id, from, to });
  }
  return c;
}

/**
 * The FAIL_ON gate: whether the run fails, and one line saying why. FAIL_ON=any: anything failed; new: a new failure
 * or an ERROR. (Each test's verdict is the worker's: harness/record/verdict.ts.)
 */
export function failOnGate(summary: Summary): { failed: boolean; line: string } {
  const c = summary.comparison;
  if (!c || c.failOn === 'any') return { failed: summary.line.failed > 0, line: `FAIL_ON=any: ${summary.line.failed} failed` };
  const errors = summary.totals.error;
  const failed = c.newFailures.length > 0 || errors > 0;
  const why = [
    `${c.newFailures.length} new failure${c.newFailures.length === 1 ? '' : 's'}`,
    ...(errors > 0 ? [`${errors} ERROR`] : []),
    `${c.stillFailing.length} known failure${c.stillFailing.length === 1 ? '' : 's'} of the baseline not counted`,
  ].join(', ');
  return { failed, line: `FAIL_ON=new: ${why} → ${failed ? 'the run fails' : 'the run passes'}` };
}

/**
 * The summary with its comparison when BASELINE is set. The configuration check (harness/setup/config.ts) has already
 * refused a bad BASELINE or FAIL_ON; should one reach a report anyway, it becomes a note, not a crash.
 */
export function withBaseline(summary: Summary, baseline: string | undefined, failOnValue: string | undefined): Summary {
  if (!baseline) return summary;
  const read = readBaseline(baseline);
  const failOn: FailOn = failOnValue === 'new' ? 'new' : 'any';
  if ('problem' in read) {
    const note = `BASELINE must be ${BASELINE_WHAT} (${read.problem}): the run is not compared`;
    return { ...summary, run: { ...summary.run, notes: [...summary.run.notes, note] } };
  }
  // Right after the run's metadata, so a person opening summary.json sees it first.
  const { format, run, ...rest } = summary;
  return { format, run, comparison: compare(summary, read.summary, baseline, failOn), ...rest };
}
