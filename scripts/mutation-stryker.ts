/**
 * `npm run mutation:stryker -- --sample N --seed S [--concurrency C] [--list]`: the suite's power measured by bugs no
 * one here chose. StrykerJS mutates the reference sandbox's behaviour (sandbox/, not the fault and variant catalogues
 * nor cli.ts; plumbing ignored by scripts/stryker/ignorers.ts); a seeded random sample of N mutants (the same seed,
 * the same mutants) is run through the conformance project, `--concurrency` runs at once (default 1: one run per
 * core is `--concurrency 2` on an idle 2-core machine). The judge (scripts/stryker/judge.ts) kills a mutant by any finding the clean
 * run does not have; an ERROR is never a kill.
 *
 * Writes under REPORT_DIR/stryker/: Stryker's mutation.json and mutation.html, and summary.json / summary.md (score;
 * each survivor with file:line, mutator, replacement and the clause its code serves). Exit 0 when every survivor is
 * explained by sandbox/mutation-triage.yaml, the file explains at most a quarter of the sample and none of its entries
 * is stale (at a place where no such mutant is any more); 1 otherwise; 2 for
 * a usage error or a triage entry without a clause and a reason (refused). `--list` prints the sample and runs nothing;
 * `--survivors-of REPORT_DIR/stryker/summary.json` carries an earlier run's kills over and judges the rest of the sample.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { LogLevel, MutantResult } from '@stryker-mutator/api/core';
import { enumerate, MUTATE, mutantKey, OUTSIDE_SAMPLE, SAMPLE_FILE_ENV, seededSample } from './stryker/sample.ts';
import { clauseOf } from './stryker/clauses.ts';
import { loadTriage, matchTriage, staleEntries, TriageError } from './stryker/triage.ts';
import type { Verdict } from './stryker/judge.ts';
import { reportDirSetting } from '../harness/setup/report-settings.ts';

const USAGE = 'usage: npm run mutation:stryker -- --sample N --seed S [--concurrency C] [--list] [--survivors-of SUMMARY]';

function args(argv: string[]): { sample: number; seed: number; concurrency: number; list: boolean; survivorsOf?: string } {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const int = (name: string, fallback: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} takes a whole number (got "${raw}")`);
    return n;
  };
  const known = new Set(['--sample', '--seed', '--concurrency', '--list', '--survivors-of']);
  const unknown = argv.filter((a, i) => a.startsWith('--') && !known.has(a) && !known.has(argv[i - 1] ?? ''));
  if (unknown.length > 0) throw new Error(`unknown option ${unknown[0]}`);
  const sample = int('--sample', 0);
  if (sample < 1) throw new Error('--sample N is required (N ≥ 1)');
  const survivorsOf = value('--survivors-of');
  if (argv.includes('--survivors-of') && (survivorsOf === undefined || survivorsOf.startsWith('--')))
    throw new Error('--survivors-of takes the path of an earlier summary.json');
  return {
    sample,
    seed: int('--seed', 1),
    concurrency: Math.max(1, int('--concurrency', 1)),
    list: argv.includes('--list'),
    ...(survivorsOf === undefined ? {} : { survivorsOf }),
  };
}

let options: ReturnType<typeof args>;
try {
  options = args(process.argv.slice(2));
} catch (err) {
  console.error(`mutation:stryker: ${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}

const root = process.cwd();
const triagePath = join(root, 'sandbox', 'mutation-triage.yaml');
let triage: ReturnType<typeof loadTriage>;
try {
  triage = loadTriage(triagePath);
} catch (err) {
  if (!(err instanceof TriageError)) throw err;
  console.error(`mutation:stryker: ${err.message}`);
  process.exit(2);
}

const sandboxFiles = readdirSync(join(root, 'sandbox'), { recursive: true, encoding: 'utf8' })
  .map((f) => join('sandbox', f).replaceAll('\\', '/'))
  .filter((f) => f.endsWith('.ts') && !MUTATE.filter((m) => m.startsWith('!')).some((m) => m.slice(1) === f))
  .sort();
const all = await enumerate(sandboxFiles.map((f) => resolve(root, f)));
const ignoredTotal = Object.values(all.ignored).reduce((a, b) => a + b, 0);
const keys = all.mutants.map((m) => mutantKey(m, root));
const sample = seededSample(keys, options.sample, options.seed);
console.log(
  `${all.mutants.length + ignoredTotal} mutants in ${all.files} files; ${ignoredTotal} ignored by construction (plumbing, wording); ` +
    `${all.mutants.length} behaviour mutants; sample of ${sample.length} (seed ${options.seed})`,
);
for (const [reason, n] of Object.entries(all.ignored)) console.log(`  ignored ${String(n).padStart(5)}  ${reason}`);
// The instrumenter counts lines and columns from 0; a triage entry's place, as the summary prints it, from 1.
const stale = staleEntries(
  triage,
  all.mutants.map((m) => ({
    where: `${relative(root, m.fileName).replaceAll('\\', '/')}:${m.location.start.line + 1}:${m.location.start.column + 1}`,
    mutator: m.mutatorName,
    replacement: m.replacement ?? '',
  })),
);
for (const e of stale)
  console.log(
    `stale triage entry ${e.where} ${e.mutator}: no behaviour mutant there any more (the code moved, or its mutant is now out by construction): move it with its code or delete it`,
  );
/**
 * `--survivors-of`: an earlier run's kills of mutants still in this sample (the same place, mutator and replacement:
 * the code they mutate is unchanged) are carried over and counted as such; everything else in the sample is judged —
 * its survivors again, and mutants it did not draw (after the sources or the ignorer changed). A sharper suite is
 * re-measured in the time its survivors take. The earlier summary must be of the same seed and size.
 */
let carried: string[] = [];
let toRun = sample;
if (options.survivorsOf !== undefined) {
  let earlier: { seed?: number; sample?: number; killedBy?: { key?: string }[] };
  try {
    earlier = JSON.parse(readFileSync(options.survivorsOf, 'utf8'));
  } catch (err) {
    console.error(`mutation:stryker: --survivors-of ${options.survivorsOf}: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const killedBefore = new Set((earlier.killedBy ?? []).map((m) => m.key));
  if (earlier.seed !== options.seed || earlier.sample !== sample.length || killedBefore.has(undefined)) {
    console.error(
      `mutation:stryker: ${options.survivorsOf} is not a summary of a sample of this seed and size (seed ${options.seed}, ` +
        `${sample.length} mutants, its kills named by key): run the whole sample`,
    );
    process.exit(2);
  }
  carried = sample.filter((k) => killedBefore.has(k));
  toRun = sample.filter((k) => !killedBefore.has(k));
  console.log(`judging ${toRun.length} mutant(s) of the sample again; ${carried.length} kill(s) of ${options.survivorsOf} carried over`);
}
if (options.list) {
  for (const k of toRun) console.log(`  ${k}  [${clauseOf(root, k)}]`);
  process.exit(0);
}

const reportDir = resolve(reportDirSetting(), 'stryker');
mkdirSync(reportDir, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'stryker-'));
writeFileSync(join(work, 'sample.json'), JSON.stringify(toRun));
process.env[SAMPLE_FILE_ENV] = join(work, 'sample.json');
process.env.STRYKER_WORK = work;
process.env.STRYKER_SLOTS = String(options.concurrency);

const { Stryker } = await import('@stryker-mutator/core');
// Plugins are TypeScript: Stryker's child processes (checker, test runner) load them through tsx too.
const tsx = ['--import', 'tsx'];
const stryker = new Stryker({
  mutate: MUTATE,
  testRunner: 'command',
  commandRunner: { command: `"${process.execPath}" --import tsx scripts/stryker/judge.ts` },
  plugins: ['@stryker-mutator/*', resolve(root, 'scripts/stryker/ignorers.ts'), resolve(root, 'scripts/stryker/sample.ts')],
  ignorers: ['sandbox-plumbing'],
  checkers: ['sample'],
  checkerNodeArgs: tsx,
  concurrency: options.concurrency,
  // A run is ~10-40 s and the judge may make it twice; Stryker's own timeout is for a mutant that hangs the run.
  timeoutMS: 900_000,
  timeoutFactor: 3,
  // The dry run is the two clean runs (scripts/stryker/judge.ts): minutes under load.
  dryRunTimeoutMinutes: 30,
  reporters: ['json', 'html'],
  jsonReporter: { fileName: join(reportDir, 'mutation.json') },
  htmlReporter: { fileName: join(reportDir, 'mutation.html') },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  incremental: false,
  thresholds: { high: 80, low: 60, break: null },
  logLevel: 'warn' as LogLevel,
  fileLogLevel: 'off' as LogLevel,
});
const results: MutantResult[] = await stryker.runMutationTest();

const verdictOf = (id: string): Verdict | undefined => {
  try {
    return JSON.parse(readFileSync(join(work, 'verdicts', `${id}.json`), 'utf8')) as Verdict;
  } catch {
    return undefined;
  }
};
const tested = results.filter((r) => r.status !== 'Ignored' && !(r.status === 'CompileError' && r.statusReason === OUTSIDE_SAMPLE));
const rows = tested.map((r) => {
  const { start, end } = r.location;
  const key = mutantKey(
    { ...r, location: { start: { line: start.line - 1, column: start.column - 1 }, end: { line: end.line - 1, column: end.column - 1 } } },
    root,
  );
  const verdict = verdictOf(r.id);
  // A result's place counts lines and columns from 1 (the report's schema), as an editor shows it; a mutant's key, as
  // the instrumenter and the checker see it, from 0.
  const where = `${relative(root, r.fileName)}:${r.location.start.line}:${r.location.start.column}`;
  return {
    key,
    where,
    mutator: r.mutatorName,
    replacement: r.replacement ?? '',
    status: r.status,
    clause: clauseOf(root, key),
    ...(verdict ? { findings: verdict.findings, errored: verdict.errored, judge: verdict.verdict, seconds: verdict.seconds } : {}),
  };
});
const detected = rows.filter((r) => r.status === 'Killed' || r.status === 'Timeout');
const survivors = rows.filter((r) => r.status === 'Survived' || r.status === 'NoCoverage');
const other = rows.filter((r) => !detected.includes(r) && !survivors.includes(r));
const explained = survivors.map((s) => ({ ...s, triage: matchTriage(triage, s) }));
const unexplained = explained.filter((s) => !s.triage);
const killed = detected.length + carried.length;
const score = killed + survivors.length === 0 ? 0 : (100 * killed) / (killed + survivors.length);
// The quarter is a rule about the suite, judged on a sample large enough to say it: in a CI sample of 12 one mutant
// is 8 % of the share, so a small sample reports the share and fails only on a survivor without an entry.
const RATIO_JUDGED_FROM = 100;
const overQuarter = explained.length - unexplained.length > sample.length / 4;
const tooMany = overQuarter && sample.length >= RATIO_JUDGED_FROM;
const summary = {
  sample: sample.length,
  seed: options.seed,
  mutants: all.mutants.length + ignoredTotal,
  ignored: all.ignored,
  tested: rows.length + carried.length,
  killed,
  ...(options.survivorsOf === undefined ? {} : { carriedFrom: options.survivorsOf, carried: carried.length }),
  survived: survivors.length,
  other: other.map((o) => ({ key: o.key, where: o.where, status: o.status })),
  score: Number(score.toFixed(1)),
  triaged: explained.length - unexplained.length,
  unexplained: unexplained.length,
  survivors: explained,
  killedBy: [
    ...detected.map((d) => ({ key: d.key, where: d.where, mutator: d.mutator, by: d.findings?.[0] })),
    ...carried.map((key) => ({ key, carried: true })),
  ],
};
writeFileSync(join(reportDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
const lines = [
  `# Stryker sample: ${sample.length} mutants, seed ${options.seed}`,
  '',
  `${summary.mutants} mutants in ${all.files} files, ${ignoredTotal} ignored by construction (plumbing, wording), ${all.mutants.length} behaviour mutants.`,
  `Score: ${summary.score} % (${killed} killed${carried.length ? `, ${carried.length} of them carried over from ${options.survivorsOf}` : ''}, ` +
    `${survivors.length} survived${other.length ? `, ${other.length} other` : ''}); ` +
    `${summary.triaged} survivor(s) explained by sandbox/mutation-triage.yaml, ${unexplained.length} not.`,
  '',
  ...explained.map(
    (s) =>
      `- ${s.triage ? 'triaged' : 'SURVIVED'} ${s.where} ${s.mutator} → \`${s.replacement.replace(/\s+/g, ' ').slice(0, 80)}\` [${s.clause}]` +
      `${s.judge === 'error' ? ` (ERROR only: ${s.errored?.[0] ?? ''})` : ''}${s.triage ? `: ${s.triage.reason}` : ''}`,
  ),
];
writeFileSync(join(reportDir, 'summary.md'), `${lines.join('\n')}\n`);
console.log(lines.slice(2).join('\n'));
console.log(`reports: ${relative(root, reportDir)}/{mutation.html,mutation.json,summary.json,summary.md}`);
if (stale.length > 0)
  console.log(`${stale.length} stale triage entr${stale.length === 1 ? 'y' : 'ies'} (listed above): move or delete them`);
if (unexplained.length > 0)
  console.log(`${unexplained.length} survivor(s) without an entry in sandbox/mutation-triage.yaml: kill them or explain them`);
if (overQuarter)
  console.log(
    `the triage file explains ${summary.triaged} of ${sample.length} sampled mutants: more than a quarter` +
      (tooMany ? '' : ` (not judged on a sample under ${RATIO_JUDGED_FROM} mutants)`),
  );
process.exit(unexplained.length > 0 || stale.length > 0 || tooMany || rows.length !== toRun.length ? 1 : 0);
