/**
 * `npm run mutation`: proves the suite catches faults. Runs the conformance suite against the clean embedded
 * sandbox and against each fault of the sandbox's catalogue (sandbox/faults.ts), two runs at a time, and prints
 * fault → killed/survived → the tests that killed it, and the score. Exit non-zero if the clean run fails or any
 * fault survives. `npm run mutation -- <fault-id|variant-id> …` runs only those faults and variants.
 *
 * The other half: every variant of sandbox/variants.ts (spec-valid choices where the spec is silent) and `all` of
 * them at once, each with the suite settings a vendor would give with it. A variant with any FAIL or ERROR is a false
 * positive of the suite and fails the score too (`variants` in reports/mutation.json, a line per variant).
 *
 * It also measures localisation (one fault, one finding): per fault the number of failing tests and the clauses
 * they cite, and their distribution (median, 90th percentile, max) over the catalogue, written with every verdict
 * to reports/mutation.json (REPORT_DIR). Faults marked `prerequisite` (they remove what nearly every test needs)
 * are listed apart and not held to the bound of 10. The fault breaking two independent clauses of one test
 * (link-record-two-fields) must have both reported by that test, or the run fails.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { conformanceArgs, vitestCli } from '../harness/run/vitest-cli.ts';
import { FAULTS } from '../sandbox/faults.ts';
import { VARIANTS, variantSettings } from '../sandbox/variants.ts';
import { embeddedOnlyEnv } from '../harness/setup/config.ts';
import { reportDirSetting } from '../harness/setup/report-settings.ts';

interface RunResult {
  fault: string;
  /** Tests that FAILed: the target judged wrong. */
  failed: string[];
  /** What each failing test saw (its first failure's actual), for a variant that fails: the evidence in the log. */
  why: string[];
  /** Tests that ended ERROR: the suite could not judge (never a kill; always a defect of the run). */
  errored: string[];
  /** Clause ids cited by the failing tests (their metadata), most cited first. */
  clauses: string[];
  passed: number;
  /** Observations (WARN) as `test :: message`, ids and figures masked so runs compare. */
  observations: Set<string>;
  /** The most independent failures (soft checks) one failing test reported. */
  independent: number;
  crashed?: string;
  seconds: number;
}

interface SummaryTest {
  name: string;
  status: string;
  clauses: string[];
  observations: { clause: string; message: string }[];
  failures?: { clauses: string[] }[];
  failure?: { actual?: string };
}

const work = mkdtempSync(join(tmpdir(), 'mutation-'));
// Masks what differs from run to run (ids, timings, counters) but keeps status codes, which observations are about.
const mask = (text: string): string =>
  text
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '<id>')
    .replace(/\d+(\.\d+)? ?(ms|s)\b/g, '<t>')
    .replace(/\d{4,}/g, '<n>');

/**
 * One conformance run against the embedded sandbox with `fault` or `variant` (or neither), read from the summary
 * reporter. A variant's run gets the settings a vendor would give with it (over anything `.env` says).
 */
function runSuite(fault: string | undefined, variant?: string): Promise<RunResult> {
  const name = variant === undefined ? (fault ?? 'clean') : `variant-${variant}`;
  const reportDir = join(work, name);
  // Webhook waits are bounded by WEBHOOK_TIMEOUT_S; locally they arrive in milliseconds, so a short bound keeps
  // faults that suppress webhooks from costing 10 s per test. A variant keeps the default: it may send them late.
  // Always the embedded sandbox: a remote target in `.env` must not be driven through every fault.
  const env: NodeJS.ProcessEnv =
    variant === undefined
      ? { ...embeddedOnlyEnv(process.env), REPORT_DIR: reportDir, SANDBOX_FAULT: fault ?? '', SANDBOX_VARIANT: '', WEBHOOK_TIMEOUT_S: '2' }
      : {
          ...embeddedOnlyEnv(process.env),
          REPORT_DIR: reportDir,
          SANDBOX_FAULT: '',
          SANDBOX_VARIANT: variant,
          ...variantSettings(variant),
        };
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitestCli, ...conformanceArgs], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('exit', () => {
      const seconds = (Date.now() - started) / 1000;
      try {
        const tests = (JSON.parse(readFileSync(join(reportDir, 'summary.json'), 'utf8')) as { tests: SummaryTest[] }).tests;
        // Only a FAIL kills a fault: an ERROR is the suite's own failure (it judged nothing), reported apart.
        const failing = tests.filter((t) => t.status === 'fail');
        const cited = new Map<string, number>();
        for (const t of failing) for (const c of t.clauses ?? []) cited.set(c, (cited.get(c) ?? 0) + 1);
        resolve({
          fault: name,
          failed: failing.map((t) => t.name),
          why: failing.map((t) => `${t.name}: ${(t.failure?.actual ?? '').slice(0, 400)}`),
          errored: tests.filter((t) => t.status === 'error').map((t) => t.name),
          clauses: [...cited].sort((a, b) => b[1] - a[1]).map(([c]) => c),
          passed: tests.filter((t) => t.status === 'pass' || t.status === 'warn').length,
          observations: new Set(tests.flatMap((t) => t.observations.map((o) => `${t.name} :: ${mask(o.message)}`))),
          independent: Math.max(0, ...failing.map((t) => t.failures?.length ?? 1)),
          seconds,
        });
      } catch {
        resolve({
          fault: name,
          failed: [],
          why: [],
          errored: [],
          clauses: [],
          passed: 0,
          observations: new Set(),
          independent: 0,
          crashed: stderr.trim().split('\n').slice(-3).join(' ') || 'no report',
          seconds,
        });
      }
    });
  });
}

async function pool<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!);
      }
    }),
  );
  return results;
}

const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const isVariant = (id: string): boolean => id === 'all' || VARIANTS.some((v) => v.id === id);
const unknown = only.filter((id) => !FAULTS.some((f) => f.id === id) && !isVariant(id));
if (unknown.length > 0) {
  console.error(`unknown fault or variant id(s): ${unknown.join(', ')}; see sandbox/faults.ts and sandbox/variants.ts (or all)`);
  process.exit(2);
}
// A composite fault (several deviations at once) runs only when named.
/** The fault breaking two independent clauses of one test (sandbox/faults.ts): both must be reported (soft checks). */
const TWO_CLAUSE_FAULT = 'link-record-two-fields';
const faults = FAULTS.filter((f) => (only.length === 0 && !('composite' in f)) || only.includes(f.id));
/** The variants to run: every one and `all` (every one that composes) by default, else those named. */
const variants: { id: string; description: string }[] = [
  ...VARIANTS.filter((v) => only.length === 0 || only.includes(v.id)),
  ...(only.length === 0 || only.includes('all')
    ? [{ id: 'all', description: 'every variant that composes with the others, at once' }]
    : []),
];
const width = Math.max(1, Math.min(2, availableParallelism()));

const clean = await runSuite(undefined);
console.log(
  `clean sandbox: ${clean.passed} passed, ${clean.failed.length} failed, ${clean.errored.length} errored (${clean.seconds.toFixed(1)} s)`,
);
for (const f of clean.why) console.log(`  FAILED ON THE CLEAN SANDBOX: ${f}`);
for (const f of clean.errored) console.log(`  ERROR ON THE CLEAN SANDBOX: ${f}`);
if (clean.crashed) console.log(`  the clean run crashed: ${clean.crashed}`);

type Verdict = 'killed' | 'observed' | 'SURVIVED' | 'CRASHED';
function verdictOf(fault: (typeof FAULTS)[number], r: RunResult): Verdict {
  if (r.crashed) return 'CRASHED';
  if (r.failed.length > 0) return 'killed';
  const silent = 'silent' in fault && fault.silent;
  const newObservations = [...r.observations].filter((o) => !clean.observations.has(o));
  return silent && newObservations.length > 0 ? 'observed' : 'SURVIVED';
}

const results = await pool(faults, width, async (f) => {
  const r = await runSuite(f.id);
  console.log(
    `${verdictOf(f, r).padEnd(8)} ${f.id.padEnd(42)} ${r.failed.length} failing ` +
      `test(s)${r.errored.length > 0 ? `, ${r.errored.length} ERROR` : ''} (${r.seconds.toFixed(1)} ` +
      `s)${r.clauses.length > 0 ? ` citing ${r.clauses.slice(0, 4).join(', ')}${r.clauses.length > 4 ? ', …' : ''}` : ''}`,
  );
  return r;
});

// The other half: a variant is a correct implementation, so any FAIL or ERROR against it is the suite's false positive.
const variantResults = await pool(variants, width, async (v) => {
  const r = await runSuite(undefined, v.id);
  const passed = !r.crashed && r.failed.length === 0 && r.errored.length === 0;
  const verdict = r.crashed ? 'CRASHED' : passed ? 'passed' : 'FALSE+';
  console.log(
    `${verdict.padEnd(8)} variant ${v.id.padEnd(34)} ${r.failed.length} failing test(s), ${r.errored.length} ERROR ` +
      `(${r.seconds.toFixed(1)} s)${r.crashed ? `: ${r.crashed}` : ''}`,
  );
  const wrong = [...r.why, ...r.errored.map((t) => `ERROR ${t}`)];
  for (const t of wrong.slice(0, 5)) console.log(`    ${t}`);
  if (wrong.length > 5) console.log(`    … and ${wrong.length - 5} more`);
  return { id: v.id, description: v.description, passed, failing: wrong, ...(r.crashed ? { crashed: r.crashed } : {}) };
});
const falsePositives = variantResults.filter((v) => !v.passed);

console.log('\nfault → verdict → failing tests (clauses cited) → tests that detected it');
const isPrerequisite = (f: (typeof FAULTS)[number]): boolean => 'prerequisite' in f && f.prerequisite === true;
for (const [i, r] of results.entries()) {
  const f = faults[i]!;
  const verdict = verdictOf(f, r);
  const counted = verdict === 'killed' ? ` → ${r.failed.length} failing (${r.clauses.join(', ')})` : '';
  console.log(`- ${f.id} [${f.area}] → ${verdict === 'CRASHED' ? `crashed (${r.crashed})` : verdict}${counted}`);
  if (isPrerequisite(f) && r.failed.length > 10)
    console.log(`    prerequisite fault: it removes what nearly every test needs, so ${r.failed.length} tests fail by nature`);
  const evidence =
    verdict === 'observed' ? [...r.observations].filter((o) => !clean.observations.has(o)).map((o) => `WARN ${o}`) : r.failed;
  for (const t of evidence.slice(0, 3)) console.log(`    ${t}`);
  if (evidence.length > 3) console.log(`    … and ${evidence.length - 3} more`);
}
const detected = results.filter((r, i) => ['killed', 'observed'].includes(verdictOf(faults[i]!, r))).length;
const score = faults.length === 0 ? 100 : (100 * detected) / faults.length;
const cleanGreen = clean.failed.length === 0 && clean.errored.length === 0 && !clean.crashed;
const withErrors = results.filter((r) => r.errored.length > 0);
// In a fault's run an ERROR is reported, not scored: the interlock stopping payments at a sign of production
// ("run stopped", faults esreal-true-in-development and webhook-esproductiva-true) is the suite doing its duty.
if (withErrors.length > 0)
  console.log(
    `\nERRORs in fault runs (not judged there; never counted as a kill): ` +
      `${withErrors.map((r) => `${r.fault} (${r.errored.join(', ')})`).join('; ')}`,
  );

/** Localisation: failing tests per fault (observed faults count 0; prerequisite faults apart). */
const counts = results
  .filter((_, i) => !isPrerequisite(faults[i]!))
  .map((r) => r.failed.length)
  .sort((a, b) => a - b);
const quantile = (q: number): number => (counts.length === 0 ? 0 : counts[Math.min(counts.length - 1, Math.ceil(q * counts.length) - 1)]!);
const distribution = {
  faults: counts.length,
  median: quantile(0.5),
  p90: quantile(0.9),
  max: counts.at(-1) ?? 0,
  atMost3: counts.filter((n) => n <= 3).length,
};
const overTen = results.filter((r, i) => !isPrerequisite(faults[i]!) && r.failed.length > 10).map((r) => r.fault);
console.log(
  `\nlocalisation (failing tests per fault, ${distribution.faults} faults, prerequisite faults apart): median ` +
    `${distribution.median}, 90th percentile ${distribution.p90}, max ${distribution.max}; ` +
    `${distribution.atMost3}/${distribution.faults} at ≤3${overTen.length > 0 ? `; above 10: ${overTen.join(', ')}` : ''}`,
);
for (const [i, r] of results.entries()) {
  if (isPrerequisite(faults[i]!))
    console.log(`prerequisite fault ${r.fault}: ${r.failed.length} failing tests (it removes what nearly every test needs)`);
}

// Soft checks: the fault that breaks two independent clauses of one test must have both reported by it.
const twoClauses = faults.findIndex((f) => f.id === TWO_CLAUSE_FAULT);
const bothReported = twoClauses < 0 || results[twoClauses]!.independent >= 2;
if (!bothReported)
  console.log(
    `\n${TWO_CLAUSE_FAULT}: no failing test reported both of the independent clauses it breaks ` +
      `(${results[twoClauses]!.independent} failure(s) at most)`,
  );

const reportDir = reportDirSetting();
mkdirSync(reportDir, { recursive: true });
writeFileSync(
  join(reportDir, 'mutation.json'),
  `${JSON.stringify(
    {
      format: 'mutation/1',
      clean: { passed: clean.passed, failed: clean.failed, errored: clean.errored, ...(clean.crashed ? { crashed: clean.crashed } : {}) },
      score: {
        detected,
        faults: faults.length,
        percent: Number(score.toFixed(1)),
        variantsPassed: variantResults.length - falsePositives.length,
        variants: variantResults.length,
      },
      distribution,
      faults: results.map((r, i) => ({
        id: r.fault,
        area: faults[i]!.area,
        verdict: verdictOf(faults[i]!, r),
        ...(isPrerequisite(faults[i]!) ? { prerequisite: true } : {}),
        failing: r.failed.length,
        clauses: r.clauses,
        tests: r.failed,
        ...(r.errored.length > 0 ? { errored: r.errored } : {}),
        ...(r.crashed ? { crashed: r.crashed } : {}),
      })),
      variants: variantResults,
    },
    null,
    2,
  )}\n`,
);
console.log(
  `\nmutation score: ${detected}/${faults.length} faults detected (${score.toFixed(1)}%; "observed" = a spec-silent ` +
    `fault seen as a WARN, never failed); clean run: ${cleanGreen ? 'green' : 'RED'}`,
);
console.log(
  `variants: ${variantResults.length - falsePositives.length}/${variantResults.length} ` +
    `passed${falsePositives.length > 0 ? `; FALSE POSITIVES against ${falsePositives.map((v) => v.id).join(', ')}` : ''}`,
);
console.log(`written: ${join(reportDir, 'mutation.json')}`);
rmSync(work, { recursive: true, force: true });
process.exit(cleanGreen && detected === faults.length && falsePositives.length === 0 && bothReported ? 0 : 1);
