/**
 * A run against an earlier one (`BASELINE=<report dir or summary.json>`): new failures, fixed, newly skipped,
 * clauses whose status changed, tests added or removed — and the ratchet (`FAIL_ON=new`): only a failure the
 * baseline did not have, or an ERROR, fails the run. Test names are the identity (`[clause ids] title` is stable).
 * Pure functions over `Summary`, shared by the reporters, the shard merge and scripts/conformance.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Comparison, Status, Summary, TestRecord, TestRef } from './records.ts';

export type FailOn = 'any' | 'new';

const FAILING: Status[] = ['fail', 'error', 'expectedFailure'];
const PASSING: Status[] = ['pass', 'warn', 'expectedFailurePassed'];
const NOT_RUN: Status[] = ['skip', 'notRun'];

/** The summary.json a BASELINE value names: the file itself, or `summary.json` in a report directory. */
export function baselineFile(value: string): string {
  return existsSync(value) && statSync(value).isDirectory() ? join(value, 'summary.json') : value;
}

/** Reads a baseline; a problem is one line for `BASELINE must be … (<problem>)`. */
export function readBaseline(value: string): { summary: Summary } | { problem: string } {
  if (!existsSync(value)) return { problem: `got "${value}", which does not exist` };
  const file = baselineFile(value);
  if (!existsSync(file)) return { problem: `got "${value}", a directory without summary.json` };
  let parsed: Partial<Summary>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Summary>;
  } catch (err) {
    return { problem: `got "${file}", which is not valid JSON: ${(err as Error).message}` };
  }
  if (parsed.format !== 'conformance-summary/1' || !Array.isArray(parsed.tests) || !Array.isArray(parsed.clauses) || !parsed.run) {
    return { problem: `got "${file}", which is not a conformance summary (format conformance-summary/1)` };
  }
  return { summary: parsed as Summary };
}

export const BASELINE_WHAT = 'the REPORT_DIR of an earlier run, or its summary.json';
export const BASELINE_EXAMPLE = 'baseline-reports';

/** A bad BASELINE or FAIL_ON: one line naming the variable (harness/config.ts turns it into a ConfigError). */
export class SettingError extends Error {
  override name = 'SettingError';
  constructor(message: string, readonly variable: 'BASELINE' | 'FAIL_ON') {
    super(message);
  }
}

/** BASELINE and FAIL_ON, validated: the baseline must be readable; FAIL_ON=new needs it. '' is unset. */
export function readReportSettings(get: (name: string) => string | undefined): { baseline?: string; failOn: FailOn } {
  const baseline = get('BASELINE')?.trim() || undefined;
  if (baseline !== undefined) {
    const read = readBaseline(baseline);
    if ('problem' in read) throw new SettingError(`BASELINE must be ${BASELINE_WHAT} (${read.problem}); example: BASELINE=${BASELINE_EXAMPLE}`, 'BASELINE');
  }
  const failOn = get('FAIL_ON')?.trim() || 'any';
  if (failOn !== 'any' && failOn !== 'new') {
    throw new SettingError(`FAIL_ON must be one of any | new (what fails the run: any failure, or only a failure that is not in BASELINE) (got "${failOn}"); example: FAIL_ON=new`, 'FAIL_ON');
  }
  if (failOn === 'new' && baseline === undefined) {
    throw new SettingError(`FAIL_ON=new needs BASELINE, the earlier run whose failures are known (${BASELINE_WHAT}); example: BASELINE=${BASELINE_EXAMPLE} FAIL_ON=new, or unset FAIL_ON`, 'FAIL_ON');
  }
  return { ...(baseline === undefined ? {} : { baseline }), failOn };
}

/** The key of each test: its name, or `file > name` where a name occurs more than once in the run. */
function byIdentity(tests: TestRecord[]): Map<string, TestRecord> {
  const count = new Map<string, number>();
  for (const t of tests) count.set(t.name, (count.get(t.name) ?? 0) + 1);
  const out = new Map<string, TestRecord>();
  for (const t of tests) out.set(count.get(t.name) === 1 ? t.name : `${t.file} > ${t.name}`, t);
  return out;
}

function ref(t: TestRecord, now: TestRecord | undefined, was: TestRecord | undefined): TestRef {
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
    const failedBefore = was !== undefined && FAILING.includes(was.status);
    if (t.status === 'fail' || t.status === 'error') (failedBefore ? c.stillFailing : c.newFailures).push(r);
    else if (failedBefore && PASSING.includes(t.status)) c.fixed.push(r);
    if (was && NOT_RUN.includes(t.status) && !NOT_RUN.includes(was.status)) c.newlySkipped.push(r);
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

/** Whether the run fails, and one line saying why. FAIL_ON=any: anything failed; new: a new failure or an ERROR. */
export function verdict(summary: Summary): { failed: boolean; line: string } {
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
 * The summary with its comparison when BASELINE is set. The configuration check (harness/config.ts) has already
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
