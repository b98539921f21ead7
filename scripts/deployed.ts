/**
 * `npm run deployed`: the suite against the service as deployed, played by the embedded sandbox's
 * `deployed` profile (SANDBOX_VARIANT=deployed: every spec-valid behaviour public client code shows) and its
 * `deployed` composite fault (SANDBOX_FAULT=deployed: every real deviation at once). What must hold:
 * - the profile: 0 FAIL, 0 ERROR, and no test skipped for a page, a field or an option it could not drive;
 * - with the deviations: 0 ERROR, at most 14 FAILs, each citing a clause a deviation breaks, every other test judged.
 * `--payer browser` pays the pages in Chromium. Exit 0 iff both hold.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { conformanceRun } from '../bench/remote.ts';
import { embeddedOnlyEnv } from '../harness/setup/config.ts';
import { isIn } from '../harness/record/verdict.ts';

const { values } = parseArgs({ options: { payer: { type: 'string', default: 'http' } } });
if (!['http', 'browser', 'auto'].includes(values.payer)) throw new Error(`--payer must be http, browser or auto (got "${values.payer}")`);

/** The clauses the deployed deviations break (sandbox/faults.ts FALLAS_DESPLEGADO), and nothing else may fail. */
const DEVIATION_CLAUSES = new Set([
  '5.1-audience',
  '6.3-redirect-outcome',
  '4.1-endpoint',
  '4.3-endpoint',
  '2.2-formapago-values',
  '2.2-resultado-values',
]);
const MAX_FAILS = 14;

interface Summary {
  totals: Record<string, number>;
  tests: { name: string; status: string; clauses?: string[]; reason?: string; skipKind?: string; failure?: { clauses?: string[] } }[];
}

async function run(label: string, env: Record<string, string>): Promise<Summary> {
  const dir = mkdtempSync(join(tmpdir(), 'deployed-'));
  const payer = values.payer === 'http' ? {} : { PAYER: values.payer };
  const result = await conformanceRun({ ...embeddedOnlyEnv(process.env), REPORT_DIR: dir, ...payer, ...env }, true);
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
  const t = summary.totals;
  console.log(
    `${label}: ${t.pass ?? 0} PASS, ${t.fail ?? 0} FAIL, ${t.warn ?? 0} WARN, ${t.skip ?? 0} SKIP, ${t.error ?? 0} ` +
      `ERROR (${result.seconds.toFixed(1)} s; reports in ${dir})`,
  );
  return summary;
}

const problems: string[] = [];
/** Skips for a page, field or option not driven; a screen that has nothing to judge (no back control) is not one. */
const JUDGED_ABSENT = new Set(['nothing-to-judge', 'covered-elsewhere']);
const undriven = (s: Summary) =>
  s.tests.filter(
    (x) => x.status === 'skip' && !JUDGED_ABSENT.has(x.skipKind ?? '') && /screen|page|field|option|payer|form/i.test(x.reason ?? ''),
  );

const profile = await run('SANDBOX_VARIANT=deployed', { SANDBOX_VARIANT: 'deployed' });
for (const x of profile.tests.filter((x) => isIn('failed', x.status))) problems.push(`profile: ${x.status.toUpperCase()} ${x.name}`);
for (const x of undriven(profile)) problems.push(`profile: SKIP ${x.name}: ${x.reason}`);

const deviations = await run('SANDBOX_VARIANT=deployed SANDBOX_FAULT=deployed', { SANDBOX_VARIANT: 'deployed', SANDBOX_FAULT: 'deployed' });
const failing = deviations.tests.filter((x) => x.status === 'fail');
for (const x of deviations.tests.filter((x) => x.status === 'error')) problems.push(`deviations: ERROR ${x.name}`);
for (const x of undriven(deviations)) problems.push(`deviations: SKIP ${x.name}: ${x.reason}`);
if (failing.length > MAX_FAILS) problems.push(`deviations: ${failing.length} FAILs, more than ${MAX_FAILS}`);
for (const x of failing) {
  const cited = x.failure?.clauses ?? x.clauses ?? [];
  console.log(`  FAIL ${x.name}  (cites ${cited.join(', ')})`);
  if (!cited.some((c) => DEVIATION_CLAUSES.has(c)))
    problems.push(`deviations: ${x.name} fails under ${cited.join(', ')}, a clause no deployed deviation breaks`);
}
// Each deviation is found: every clause a deviation breaks has its FAIL (one fault, one finding — and not none).
for (const c of DEVIATION_CLAUSES) {
  if (!failing.some((x) => (x.failure?.clauses ?? x.clauses ?? []).includes(c)))
    problems.push(`deviations: no FAIL cites ${c}, a clause a deployed deviation breaks`);
}

if (problems.length > 0) {
  console.error(`deployed: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`deployed: the profile passes, and the ${failing.length} deviation FAILs are each under a deviation's clause`);
