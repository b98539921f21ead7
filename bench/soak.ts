/**
 * The soak's judgement (`npm run soak -- --real-time`), pure: a run's figures read from its summary.json, the tests
 * whose status differs from the reference run's, whether a run passes the soak (exit 0, 0 FAIL, 0 ERROR, and the
 * reference's status test by test), and the table printed at the end. A test is known by its file and name.
 *
 *   const diffs = statusDifferences(reference.statuses, run.statuses);   // [{ test, reference: 'pass', run: 'skip' }]
 *   console.log(soakTable([reference, ...runs]));
 */

/** The statuses the table counts (a summary's other statuses — expected failures, not run — are summed as "other"). */
export const COLUMNS = ['pass', 'fail', 'warn', 'skip', 'error'] as const;

/** The parts of a summary.json the soak reads. */
export interface SummaryLike {
  totals: Record<string, number>;
  tests: { file?: string; name: string; status: string; reason?: string }[];
}

/** One whole run of the soak, as it ended. */
export interface SoakRun {
  label: string;
  /** The run's exit code (null: killed). */
  code: number | null;
  seconds: number;
  /** Undefined when the run wrote no summary.json. */
  summary?: SummaryLike;
}

export interface StatusDifference {
  /** `name` (with `file ›` in front when the file is known). */
  test: string;
  /** Its status in the reference run; undefined: the reference has no such test. */
  reference?: string;
  /** Its status in this run; undefined: this run has no such test. */
  run?: string;
  /** Why it was skipped or not judged in this run, when it says. */
  reason?: string;
}

/**
 * What a difference is, for whoever reads the table (each one still fails the soak): `too late` — one run left the test
 * unjudged because the suite itself acted after a deadline (its reason says so: a loaded machine), the other judged
 * it; `observation` — PASS in one, WARN in the other (the same verdict, an observation made in one run only);
 * `verdict` — anything else (a verdict that changed, or a test only one run has).
 */
export type DifferenceKind = 'too late' | 'observation' | 'verdict';

const TOO_LATE = /the suite was too late|the suite came too late/;

export function differenceKind(d: StatusDifference): DifferenceKind {
  const statuses = [d.reference, d.run].sort().join(' ');
  if (statuses === 'pass warn') return 'observation';
  if ((d.run === 'skip' || d.reference === 'skip') && TOO_LATE.test(d.reason ?? '')) return 'too late';
  return 'verdict';
}

const keyOf = (t: { file?: string; name: string }) => (t.file ? `${t.file} › ${t.name}` : t.name);

/** Each test's status by its key (file › name). */
export function statusesOf(summary: SummaryLike): Map<string, { status: string; reason?: string }> {
  return new Map(summary.tests.map((t) => [keyOf(t), { status: t.status, ...(t.reason ? { reason: t.reason } : {}) }]));
}

/** The tests whose status differs between the reference and a run, or that only one of them has; sorted by test. */
export function statusDifferences(reference: SummaryLike, run: SummaryLike): StatusDifference[] {
  const was = statusesOf(reference);
  const now = statusesOf(run);
  const diffs: StatusDifference[] = [];
  for (const test of new Set([...was.keys(), ...now.keys()])) {
    const a = was.get(test);
    const b = now.get(test);
    if (a?.status === b?.status) continue;
    // Why it was not judged, in whichever run skipped it (else this run's reason, if any).
    const reason = (b?.status === 'skip' ? b : a?.status === 'skip' ? a : b)?.reason;
    diffs.push({ test, ...(a ? { reference: a.status } : {}), ...(b ? { run: b.status } : {}), ...(reason ? { reason } : {}) });
  }
  return diffs.sort((x, y) => (x.test < y.test ? -1 : x.test > y.test ? 1 : 0));
}

/**
 * What keeps a run from passing the soak: no summary, an exit other than 0, any FAIL or ERROR, and (for a run other
 * than the reference) each status that differs from the reference's. Empty: it passed.
 */
export function soakProblems(run: SoakRun, reference?: SoakRun): string[] {
  if (!run.summary) return [`no summary.json (exit ${run.code})`];
  const problems: string[] = [];
  const fail = run.summary.totals['fail'] ?? 0;
  const error = run.summary.totals['error'] ?? 0;
  if (fail > 0 || error > 0) problems.push(`${fail} FAIL, ${error} ERROR`);
  if (run.code !== 0) problems.push(`exit ${run.code}`);
  if (reference && reference !== run) {
    if (!reference.summary) problems.push('no reference to compare with');
    else {
      const n = statusDifferences(reference.summary, run.summary).length;
      if (n > 0) problems.push(`${n} status${n === 1 ? ' differs' : 'es differ'} from the reference`);
    }
  }
  return problems;
}

/**
 * The soak's figures, one row per run: its counts per status, its tests, how many statuses differ from the reference
 * (the first run, `reference`), its time and verdict; then each differing test with both statuses.
 */
export function soakTable(runs: SoakRun[], reference: SoakRun | undefined = runs[0]): string {
  const head = ['run', 'PASS', 'FAIL', 'WARN', 'SKIP', 'ERROR', 'other', 'tests', 'passed', 'differ', 'time', 'verdict'];
  const rows = runs.map((run) => {
    const t = run.summary?.totals ?? {};
    const counted = COLUMNS.reduce((n, c) => n + (t[c] ?? 0), 0);
    const tests = run.summary?.tests.length;
    const passed = (t['pass'] ?? 0) + (t['warn'] ?? 0);
    const differ =
      run === reference
        ? 'ref'
        : run.summary && reference?.summary
          ? String(statusDifferences(reference.summary, run.summary).length)
          : '?';
    const problems = soakProblems(run, reference);
    return [
      run.label,
      ...COLUMNS.map((c) => (run.summary ? String(t[c] ?? 0) : '-')),
      run.summary ? String(Math.max(0, (tests ?? 0) - counted)) : '-',
      tests === undefined ? '-' : String(tests),
      run.summary ? `${passed}/${tests}` : '-',
      differ,
      `${run.seconds.toFixed(0)} s`,
      problems.length === 0 ? 'ok' : problems.join('; '),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const out = [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
  for (const run of runs) {
    if (run === reference || !run.summary || !reference?.summary) continue;
    const diffs = statusDifferences(reference.summary, run.summary);
    if (diffs.length === 0) continue;
    out.push('', `${run.label}: ${diffs.length} test${diffs.length === 1 ? '' : 's'} judged otherwise than ${reference.label}:`);
    for (const d of diffs)
      out.push(
        `  [${differenceKind(d)}] ${d.reference?.toUpperCase() ?? '(absent)'} → ${d.run?.toUpperCase() ?? '(absent)'}  ${d.test}` +
          `${d.reason ? `: ${d.reason.split('\n')[0]}` : ''}`,
      );
  }
  return out.join('\n');
}
