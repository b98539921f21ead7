/**
 * The summary for people (`REPORT_DIR/summary.md`), for tools (`REPORT_DIR/summary.json`, the `Summary` of
 * records.ts) and for the console (a few lines ending with `N passed, N failed, N skipped`, which CI reads):
 * PASS / FAIL / WARN / SKIP / ERROR (+ expected failures, not run) per clause and per endpoint, every clause of the
 * catalogue with its status, the uncovered ones, and the run's metadata. Failures (the target's) and errors (the
 * suite's own: not judged) are listed apart, each with its transcript, folded.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { ConformanceReporter } from './collect.ts';
import { failOnGate } from './compare.ts';
import { writeHtml } from './html.ts';
import {
  LABELS,
  STATUSES,
  describeFailure,
  transcriptText,
  type Comparison,
  type Counts,
  type Status,
  type Summary,
  type ReportedTest,
  type TestRef,
} from './records.ts';
import { command } from '../harness/record/command.ts';
import { describeTally } from '../harness/record/network.ts';
import { isIn } from '../harness/record/verdict.ts';
import { rerunLines } from './selection.ts';

// Default export: vitest loads a reporter given by path (`reporters: ['./reporters/summary.ts']`) from it.
export default class SummaryReporter extends ConformanceReporter {
  protected write(summary: Summary, dir: string, log: (line: string) => void): void {
    writeSummary(summary, dir);
    for (const line of renderConsole(summary, dir)) log(line);
  }
}

export function writeSummary(summary: Summary, dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(dir, 'summary.md'), renderMarkdown(summary));
  writeHtml(summary, dir);
}

const MAX_LISTED = 20;

/**
 * The lines printed at the end of the run (a calm console: no line per passing test): the counts, each failure once
 * with its clauses and one line of expected and actual, the skips by kind with what to set, where the reports are;
 * the last one is the plain `N passed, N failed, N skipped`.
 */
export function renderConsole(summary: Summary, dir: string): string[] {
  const { run, totals, line } = summary;
  const target = run.targetUrl ? ` against ${run.targetUrl} (${[run.targetKind, run.mode].filter(Boolean).join(', ')})` : '';
  const oneShard = run.shards?.length === 1;
  const shard = oneShard ? ` [shard ${run.shards![0]}]` : '';
  const lines = [...consoleComparison(summary), `Conformance${target}${shard}: ${countsText(totals)}`];
  // The run stopped (the set-up, the interlock, a target refusing every request, a signal): one line each, said as such.
  const stops = summary.tests.filter((t) => t.status === 'error' && t.file === '' && t.name === 'run stopped');
  for (const t of stops) lines.push(`  stopped: ${clip(t.error ?? '', 300)}`);
  const failed = summary.tests.filter((t) => isIn('failed', t.status) && !stops.includes(t));
  for (const t of failed.slice(0, MAX_LISTED)) lines.push(...consoleFailure(t));
  if (failed.length > MAX_LISTED) lines.push(`  … and ${failed.length - MAX_LISTED} more (see summary.md)`);
  lines.push(...rerunLines(summary));
  const own = totals.error - stops.length;
  if (own > 0)
    lines.push(
      `  ${own} ERROR: the suite's own failures (a timeout, a harness exception, a payer or browser crash), ` +
        `not the target's: nothing was judged, and the run fails`,
    );
  for (const t of summary.tests.filter((t) => t.status === 'expectedFailurePassed')) {
    lines.push(`  expected failure passed (remove it from EXPECTED_FAILURES_FILE): ${testTitle(t)}`);
  }
  // When tests were stopped, a `run stopped` ERROR above already says why.
  if (run.abort && totals.notRun === 0) lines.push(`  stopped: ${run.abort}`);
  for (const note of run.notes) lines.push(`  note: ${note}`);
  if (summary.network)
    lines.push(`Network: ${describeTally(summary.network)}, in ${summary.network.tests} tests (times summed over tests; summary.md)`);
  lines.push(...consoleSkips(summary));
  const observations = summary.tests.reduce((n, t) => n + t.observations.length, 0);
  if (observations > 0)
    lines.push(
      `Observations (WARN, not failures): ${observations} in ` +
        `${summary.tests.filter((t) => t.observations.length > 0).length} tests (summary.md)`,
    );
  // Coverage means something only for the whole suite: not for a shard, a -t filter or chosen suite files.
  if (summary.clauses.length > 0 && !oneShard && !filtered(summary)) {
    const ids = summary.uncovered.slice(0, 10).join(', ') + (summary.uncovered.length > 10 ? ', …' : '');
    lines.push(`Uncovered rule/flow clauses: ${summary.uncovered.length}${ids ? ` (${ids})` : ''}`);
  }
  const shown = shownPath(dir);
  const files = ['summary.md', 'summary.json', 'junit.xml', 'configuration.txt'].filter(
    (f) => f === 'summary.md' || f === 'summary.json' || existsSync(join(dir, f)),
  );
  lines.push(`Reports: ${join(shown, 'index.html')} (also ${files.join(', ')})`);
  if (oneShard)
    lines.push(
      `One shard of ${run.shards![0]!.split('/')[1]}: merge the shards' report folders with ` +
        `${command('merge', '<shard report dirs…> --out <dir>')}`,
    );
  if (summary.comparison?.failOn === 'new') lines.push(failOnGate(summary).line);
  lines.push(`${line.passed} passed, ${line.failed} failed, ${line.skipped} skipped`);
  return lines;
}

/** A FAIL or ERROR once: its title, then one line of expected and actual (the rest is in summary.md), and its replay. */
function consoleFailure(t: ReportedTest): string[] {
  const f = t.failure;
  // An ERROR judged nothing: its one line says why.
  if (t.status === 'error') return [`  ${LABELS[t.status]} ${testTitle(t)}: ${clip(describeFailure(t).message, 220)}`];
  const lines = [`  ${LABELS[t.status]} ${testTitle(t)}`];
  // The first line, and what a line ending in ':' introduces (never a line ending mid-sentence).
  const first = (text: string) => {
    const lines = text.split('\n').map((l) => l.trim());
    let shown = lines[0] ?? '';
    for (let i = 1; shown.endsWith(':') && i < lines.length; i++) shown = `${shown} ${lines[i]}`;
    return clip(shown, 110);
  };
  if (!f) lines.push(`      ${clip(describeFailure(t).message, 220)}`);
  else {
    const more = (t.failures?.length ?? 1) > 1 ? ` (+${t.failures!.length - 1} more checks: summary.md)` : '';
    const own = f.clauses.every((c) => t.clauses.includes(c)) ? '' : `[${f.clauses.join(' ')}] `;
    lines.push(`      ${own}expected ${first(f.expected)} · actual ${first(f.actual)}${more}`);
  }
  if (t.replay) lines.push(`      replay: ${t.replay}`);
  return lines;
}

/** Skips by kind, each with its count and what to set (the variables its reasons name, else the kind's advice). */
function consoleSkips(summary: Summary): string[] {
  const kinds = skipsByKind(summary);
  if (kinds.size === 0) return [];
  const lines = [`Skipped ${summary.totals.skip}, by kind (what runs them):`];
  for (const [kind, group] of kinds) {
    const about = summary.skipKinds?.[kind as keyof NonNullable<Summary['skipKinds']>];
    const names = [...new Set(group.flatMap((t) => [...(t.reason ?? '').matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((m) => m[0])))];
    const toRun = names.length > 0 && kind === 'credential-missing' ? `set ${names.join(', ')}` : (about?.toRun ?? group[0]?.reason ?? '');
    lines.push(`  ${String(group.length).padStart(3)} ${kind || '(no kind)'}: ${clip(toRun, 150)}`);
  }
  return lines;
}

/** A run of part of the suite: a -t filter, chosen suite files or test names (a shard is told by its summary). */
function filtered(summary: Summary): boolean {
  return (
    Boolean(process.env['CONFORMANCE_FILES']?.trim() || process.env['CONFORMANCE_NAMES']?.trim()) ||
    summary.tests.some((t) => t.reason === 'not selected by the test name filter (-t)')
  );
}

/** A folder as the user would type it: relative to where they are, unless that climbs out of it. */
function shownPath(dir: string): string {
  const rel = relative(process.cwd(), dir);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? dir : rel;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * What the network did: the run's tally, the ambiguous answers with how each was settled, and the tests it touched
 * most. Nothing when the network did nothing worth saying.
 */
function markdownNetwork(summary: Summary): string[] {
  const n = summary.network;
  if (!n) return [];
  const md = ['## What the network did', '', `${describeTally(n)}, in ${n.tests} tests.`, ''];
  md.push(
    '429 (rate limited) and 503 (unavailable) were not processed: the request was sent again after the delay. ' +
      "Time paced and backed off is the run waiting for the target, left out of the tests' budgets.",
    '',
  );
  const ambiguous = summary.tests.flatMap((t) => (t.network?.ambiguous ?? []).map((a) => ({ t, a })));
  if (ambiguous.length > 0) {
    md.push('| Test | Request | Answer | Settled |', '|---|---|---|---|');
    for (const { t, a } of ambiguous)
      md.push(
        `| ${cell(testTitle(t))} | ${cell(a.request)} | ${cell(a.answer)} | ${cell(a.settled ?? 'not settled: the test is not judged (undecidable)')} |`,
      );
    md.push('');
  }
  const touched = summary.tests
    .filter((t) => t.network)
    .sort((a, b) => b.network!.retries - a.network!.retries)
    .slice(0, 10);
  if (touched.length > 0) {
    md.push('| Test (most retries first) | Status | Network |', '|---|---|---|');
    for (const t of touched) md.push(`| ${cell(testTitle(t))} | ${LABELS[t.status]} | ${cell(describeTally(t.network!))} |`);
    md.push('');
  }
  return md;
}

export function renderMarkdown(summary: Summary): string {
  const { run, totals, line } = summary;
  const md: string[] = ['# Conformance report', ''];
  md.push('| | |', '|---|---|');
  const meta: [string, string | number | undefined][] = [
    ['Target', run.targetUrl],
    ['Target kind', run.targetKind],
    ['Business mode', run.mode],
    ['Spec document version', run.specVersion],
    ['Suite version', run.suiteVersion],
    ['fast-check seed', run.fcSeed],
    ['Date', run.startedAt],
    ['Duration', `${(run.durationMs / 1000).toFixed(1)} s`],
    ['Outcome', run.outcome],
    ['Shards', run.shards?.join(', ')],
    ['Stopped', run.abort],
  ];
  for (const [key, value] of meta) if (value !== undefined) md.push(`| ${key} | ${cell(String(value))} |`);
  md.push('');
  for (const note of run.notes) md.push(`> Note: ${note}`, '');
  if (summary.comparison) md.push(...markdownComparison(summary, summary.comparison));
  if (run.shards?.length === 1)
    md.push(`> One shard of a sharded run: coverage is partial until the shards are merged (\`${command('merge')}\`).`, '');

  md.push(
    '## Totals',
    '',
    countsHeader('Tests'),
    countsRow('all', totals),
    '',
    `**${line.passed} passed, ${line.failed} failed, ${line.skipped} skipped**`,
    '',
  );

  md.push(...markdownNetwork(summary));

  section(md, 'Failures (FAIL: the target broke the clauses its failing check cites)', byStatus(summary, 'fail'), (t) => [
    `### ${LABELS[t.status]} ${testTitle(t)}`,
    '',
    fence(describeFailure(t).text),
    ...transcriptBlock(t),
    '',
  ]);
  section(md, "Errors (ERROR: the suite's own failure — not judged, not the target's; the run fails)", byStatus(summary, 'error'), (t) => [
    `### ${LABELS[t.status]} ${testTitle(t)}`,
    '',
    fence(describeFailure(t).text),
    ...transcriptBlock(t),
    '',
  ]);
  section(
    md,
    'Expected failures that passed (remove them from EXPECTED_FAILURES_FILE)',
    byStatus(summary, 'expectedFailurePassed'),
    (t) => [`- ${testTitle(t)}`],
  );
  section(md, 'Expected failures', byStatus(summary, 'expectedFailure'), (t) => [`- ${testTitle(t)}: ${describeFailure(t).message}`]);
  // Counted as listed: one bullet per observation (a test may make several).
  const observed = summary.tests.filter((t) => t.observations.length > 0);
  const observations = observed.flatMap((t) => t.observations.map((o) => `- ${o.clause}: ${o.message} — ${testTitle(t)}`));
  if (observations.length > 0)
    md.push(`## Observations (WARN): ${observations.length} in ${observed.length} tests`, '', ...observations, '');
  // The tenant-isolation checks are no spec clauses (the spec states no isolation): their own heading.
  section(
    md,
    'Security (tenant isolation, OWASP API1:2023 — not spec clauses)',
    summary.tests.filter((t) => t.clauses.some((c) => c.startsWith('security-'))),
    (t) => [`- ${LABELS[t.status]} ${testTitle(t)}${t.reason ? ` (${t.reason})` : ''}`],
  );
  byKind(md, summary);
  byReason(md, 'Not run', byStatus(summary, 'notRun'));

  if (summary.clauses.length > 0) {
    md.push(`## Uncovered clauses (rule, flow): ${summary.uncovered.length}`, '');
    md.push(...(summary.uncovered.length > 0 ? summary.uncovered.map((id) => `- ${clauseLine(summary, id)}`) : ['None.']), '');
    md.push(`## Uncovered clauses (type, observation): ${summary.uncoveredOther.length}`, '');
    md.push(...(summary.uncoveredOther.length > 0 ? summary.uncoveredOther.map((id) => `- ${clauseLine(summary, id)}`) : ['None.']), '');
  }
  if (summary.unknownClauses.length > 0) {
    md.push('## Clause ids cited by tests but absent from the catalogue', '', ...summary.unknownClauses.map((id) => `- ${id}`), '');
  }

  md.push('## Clauses', '', `| Clause | Kind | Status | ${STATUS_COLUMNS.map((s) => LABELS[s]).join(' | ')} | Text |`);
  md.push(`|---|---|---|${STATUS_COLUMNS.map(() => '---:').join('|')}|---|`);
  for (const c of summary.clauses) {
    md.push(`| ${c.id} | ${c.kind} | ${c.status} | ${STATUS_COLUMNS.map((s) => c.counts[s]).join(' | ')} | ${cell(c.text)} |`);
  }
  md.push('', '## Endpoints', '', countsHeader('Endpoint'));
  for (const e of summary.endpoints) md.push(countsRow(e.endpoint, e.counts));
  md.push('');
  return md.join('\n');
}

// Per clause: an ERROR counts as its test's outcome for the clauses it cites (never as a FAIL).
const STATUS_COLUMNS = STATUSES;

/** A failed or errored test's transcript, folded (GitHub and most viewers render <details>). */
function transcriptBlock(t: ReportedTest): string[] {
  if (!t.transcript) return [];
  return [
    '',
    `<details><summary>Transcript: ${t.transcript.steps.length} steps, in order (secrets redacted; &gt;&gt; marks the ` +
      `failing step)</summary>`,
    '',
    fence(transcriptText(t.transcript)),
    '',
    '</details>',
  ];
}

function countsHeader(first: string): string {
  return `| ${first} | ${STATUSES.map((s) => LABELS[s]).join(' | ')} |\n|---|${STATUSES.map(() => '---:').join('|')}|`;
}

function countsRow(first: string, counts: Counts): string {
  return `| ${cell(first)} | ${STATUSES.map((s) => counts[s]).join(' | ')} |`;
}

function countsText(counts: Counts): string {
  return STATUSES.filter((s) => counts[s] > 0 || ['pass', 'fail', 'warn', 'skip'].includes(s))
    .map((s) => `${counts[s]} ${LABELS[s]}`)
    .join(', ');
}

function byStatus(summary: Summary, ...statuses: Status[]): ReportedTest[] {
  return summary.tests.filter((t) => statuses.includes(t.status));
}

function section(md: string[], title: string, tests: ReportedTest[], render: (t: ReportedTest) => string[]): void {
  if (tests.length === 0) return;
  md.push(`## ${title}: ${tests.length}`, '', ...tests.flatMap(render), '');
}

/** Skips grouped by kind (what to set to run them), then by reason. */
function byKind(md: string[], summary: Summary): void {
  const kinds = skipsByKind(summary);
  if (kinds.size === 0) return;
  md.push(`## Skipped: ${summary.totals.skip}`, '');
  for (const [kind, group] of kinds) {
    const about = summary.skipKinds?.[kind as keyof NonNullable<Summary['skipKinds']>];
    md.push(
      `### ${kind || '(no kind)'}${about ? `: ${about.title}` : ''} (${group.length})`,
      '',
      ...(about ? [`To run them: ${about.toRun}.`, ''] : []),
    );
    // Within a kind, reasons that differ only by an id (a transaction, a link) are one group; each test keeps its own.
    const reasons = new Map<string, ReportedTest[]>();
    for (const t of group) reasons.set(reasonKey(t.reason), [...(reasons.get(reasonKey(t.reason)) ?? []), t]);
    for (const [key, tests] of reasons) {
      md.push(
        `**${key}** (${tests.length})`,
        '',
        ...tests.map((t) => `- ${testTitle(t)}${t.reason && t.reason !== key ? ` — ${t.reason}` : ''}`),
        '',
      );
    }
  }
}

/** Skips by kind, the largest first. */
function skipsByKind(summary: Summary): Map<string, ReportedTest[]> {
  const kinds = new Map<string, ReportedTest[]>();
  for (const t of byStatus(summary, 'skip')) kinds.set(t.skipKind ?? '', [...(kinds.get(t.skipKind ?? '') ?? []), t]);
  return new Map([...kinds].sort((a, b) => b[1].length - a[1].length));
}

/** A reason without the ids in it (uuids, long numbers, quoted values), to group skips that differ only by them. */
export function reasonKey(reason: string | undefined): string {
  return (reason ?? '')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '…')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi, '…')
    .replace(/\b\d{4,}\b/g, '…')
    .replace(/"[^"\n]{1,80}"/g, '"…"');
}

/** Skips and tests not run, grouped by their reason (often one reason for many tests). */
function byReason(md: string[], title: string, tests: ReportedTest[]): void {
  if (tests.length === 0) return;
  const groups = new Map<string, ReportedTest[]>();
  for (const t of tests) groups.set(t.reason ?? '', [...(groups.get(t.reason ?? '') ?? []), t]);
  if (title) md.push(`## ${title}: ${tests.length}`, '');
  for (const [reason, group] of groups) md.push(`**${reason}** (${group.length})`, '', ...group.map((t) => `- ${testTitle(t)}`), '');
}

/** `[clauses] file > name`; clauseTest names already start with their clause ids. */
function testTitle(t: ReportedTest): string {
  const clauses = t.clauses.length > 0 && !t.clauses.every((c) => t.name.includes(c)) ? `[${t.clauses.join(', ')}] ` : '';
  return `${clauses}${t.file ? `${t.file} > ` : ''}${t.name}`;
}

function clauseLine(summary: Summary, id: string): string {
  const c = summary.clauses.find((x) => x.id === id);
  return c ? `${c.id} (${c.kind}, section ${c.section}): ${c.text}` : id;
}

function cell(text: string): string {
  return text
    .replaceAll('\\', '\\\\')
    .replaceAll('|', '\\|')
    .replace(/\s*\n\s*/g, ' ');
}

function fence(text: string): string {
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}\n${text}\n${ticks}`;
}

// --- Comparison with the baseline (BASELINE), shown first ---------------------------------------------------------

const CHANGES: [keyof Pick<Comparison, 'newFailures' | 'fixed' | 'newlySkipped' | 'added' | 'removed' | 'stillFailing'>, string][] = [
  ['newFailures', 'new failures'],
  ['fixed', 'fixed'],
  ['newlySkipped', 'newly skipped'],
  ['added', 'tests added'],
  ['removed', 'tests removed'],
  ['stillFailing', 'still failing (known)'],
];

function comparisonHead(c: Comparison): string {
  const counts = CHANGES.map(([key, label]) => `${c[key].length} ${label}`);
  return `${counts.join(', ')}, ${c.clauseChanges.length} clauses changed status`;
}

function refTitle(t: TestRef): string {
  const change = ` (${t.was ? LABELS[t.was] : 'new test'} → ${t.status ? LABELS[t.status] : 'removed'})`;
  return `${t.file ? `${t.file} > ` : ''}${t.name}${change}`;
}

function consoleComparison(summary: Summary): string[] {
  const c = summary.comparison;
  if (!c) return [];
  const lines = [`Compared with the baseline ${c.baseline.source} (run of ${c.baseline.startedAt}): ${comparisonHead(c)}`];
  // Every new failure up to MAX_LISTED; a few of the rest (a -t filter skips hundreds).
  for (const [key, label, max] of [
    ['newFailures', 'new failure', MAX_LISTED],
    ['fixed', 'fixed', 5],
    ['newlySkipped', 'newly skipped', 5],
  ] as const) {
    for (const t of c[key].slice(0, max)) lines.push(`  ${label}: ${refTitle(t)}`);
    if (c[key].length > max) lines.push(`  … and ${c[key].length - max} more ${label} (see summary.md)`);
  }
  return lines;
}

function markdownComparison(summary: Summary, c: Comparison): string[] {
  const md = ['## Compared with the baseline', ''];
  const b = c.baseline;
  md.push(
    `Baseline \`${cell(b.source)}\`: run of ${b.startedAt}${b.targetUrl ? ` against ${b.targetUrl}` : ''}, suite ` +
      `${b.suiteVersion}: ${b.line.passed} passed, ${b.line.failed} failed, ${b.line.skipped} skipped.`,
    '',
  );
  if (c.failOn === 'new') md.push(`**${failOnGate(summary).line}**`, '');
  md.push(
    '| change | tests |',
    '|---|---:|',
    ...CHANGES.map(([key, label]) => `| ${label} | ${c[key].length} |`),
    `| clauses changed status | ${c.clauseChanges.length} |`,
    '',
  );
  for (const [key, label] of CHANGES.slice(0, 5)) {
    if (c[key].length === 0) continue;
    md.push(`### ${label[0]?.toUpperCase()}${label.slice(1)}: ${c[key].length}`, '', ...c[key].map((t) => `- ${cell(refTitle(t))}`), '');
  }
  if (c.clauseChanges.length > 0) {
    md.push(`### Clauses whose status changed: ${c.clauseChanges.length}`, '', '| Clause | Baseline | Now |', '|---|---|---|');
    md.push(...c.clauseChanges.map((x) => `| ${x.id} | ${x.from} | ${x.to} |`), '');
  }
  return md;
}
