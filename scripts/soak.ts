/**
 * `npm run soak`: flakiness check of the concurrent conformance run (not part of `npm test`). Runs the whole suite
 * 20 times against the embedded sandbox and 5 times against a sandbox 100 ms away behind the loopback latency proxy
 * (bench/latency-proxy.ts), one run at a time, and prints pass/fail per run (failures with their test names).
 * With `--parallel N`: N whole embedded runs at once instead (a machine under load must not turn the
 * suite's own waiting into verdicts), each run's FAIL and ERROR counts printed; `--payer browser` pays the
 * script-built screens (SANDBOX_SCREEN=js) in Chromium. Exit 0 iff every run passed.
 *
 *   npm run soak                          # 20 embedded + 5 proxied
 *   npm run soak -- --embedded 5 --remote 1 --delay 100
 *   npm run soak -- --parallel 2 --payer browser
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { conformanceRun, proxiedRun, type ConformanceRun } from '../bench/remote.ts';
import { embeddedOnlyEnv } from '../harness/setup/config.ts';
import { isIn } from '../harness/record/verdict.ts';

const { values } = parseArgs({
  options: {
    embedded: { type: 'string', default: '20' },
    remote: { type: 'string', default: '5' },
    delay: { type: 'string', default: '100' },
    parallel: { type: 'string' },
    payer: { type: 'string', default: 'http' },
  },
});
const count = (name: string, v: string) => {
  if (!/^\d+$/.test(v)) throw new Error(`--${name} must be a non-negative whole number (got "${v}")`);
  return Number(v);
};
const embeddedRuns = count('embedded', values.embedded);
const remoteRuns = count('remote', values.remote);
const delayMs = count('delay', values.delay);

if (!['http', 'browser', 'auto'].includes(values.payer)) throw new Error(`--payer must be http, browser or auto (got "${values.payer}")`);

/** FAIL and ERROR counts of a run's summary.json (undefined: no summary). */
function counts(dir: string): { fail: number; error: number; pass: number; tests: number } | undefined {
  try {
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { totals: Record<string, number>; tests: unknown[] };
    return {
      fail: summary.totals.fail ?? 0,
      error: summary.totals.error ?? 0,
      pass: (summary.totals.pass ?? 0) + (summary.totals.warn ?? 0),
      tests: summary.tests.length,
    };
  } catch {
    return undefined;
  }
}

/** `--parallel N`: N whole embedded runs at once; per run its FAIL and ERROR counts. */
async function parallel(n: number): Promise<void> {
  const payerEnv = values.payer === 'http' ? {} : { PAYER: values.payer, SANDBOX_SCREEN: 'js' };
  const label = `${n} runs at once${values.payer === 'http' ? '' : ` (PAYER=${values.payer}, SANDBOX_SCREEN=js)`}`;
  console.log(`soak: ${label}`);
  const dirs = Array.from({ length: n }, () => mkdtempSync(join(tmpdir(), 'soak-')));
  const runs = await Promise.all(
    dirs.map((dir) => conformanceRun({ ...embeddedOnlyEnv(process.env), REPORT_DIR: dir, ...payerEnv }, true)),
  );
  let bad = 0;
  runs.forEach((run, i) => {
    const c = counts(dirs[i]!);
    const ok = run.code === 0 && c !== undefined && c.fail === 0 && c.error === 0;
    if (!ok) bad++;
    const figures = c ? `${c.fail} FAIL, ${c.error} ERROR, ${c.pass} passed of ${c.tests}` : 'no summary.json';
    console.log(`run ${i + 1}/${n}: ${ok ? 'PASS' : `FAIL (exit ${run.code})`}: ${figures} in ${run.seconds.toFixed(1)} s`);
    if (!ok) for (const f of failures(dirs[i]!).slice(0, 15)) console.log(`    ${f.split('\n')[0]}`);
    rmSync(dirs[i]!, { recursive: true, force: true });
  });
  console.log(`${n - bad}/${n} runs passed (${label})`);
  process.exitCode = bad === 0 ? 0 : 1;
}

/** The tests a run's summary.json reports failed (or why there is no summary). */
function failures(dir: string): string[] {
  try {
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
      tests: { name: string; status: string; reason?: string; error?: string; failure?: { check: string; actual: string } }[];
    };
    const why = (t: (typeof summary.tests)[number]) => t.reason ?? (t.failure ? `${t.failure.check}: ${t.failure.actual}` : t.error);
    return summary.tests
      .filter((t) => isIn('failed', t.status))
      .map((t) => `${t.status.toUpperCase()} ${t.name}${why(t) ? `: ${why(t)!.split('\n')[0]}` : ''}`);
  } catch (err) {
    return [`no summary.json (${(err as Error).message})`];
  }
}

let failed = 0;
async function soak(
  label: string,
  runs: number,
  once: (env: NodeJS.ProcessEnv) => Promise<ConformanceRun & { peak?: number }>,
): Promise<void> {
  for (let i = 1; i <= runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'soak-'));
    const run = await once({ ...embeddedOnlyEnv(process.env), REPORT_DIR: dir });
    const ok = run.code === 0;
    if (!ok) failed++;
    const peak = run.peak === undefined ? '' : `, peak ${run.peak} in flight`;
    console.log(`${label} run ${i}/${runs}: ${ok ? 'PASS' : `FAIL (exit ${run.code})`} in ${run.seconds.toFixed(1)} s${peak}`);
    if (!ok) {
      for (const f of failures(dir)) console.log(`    ${f.split('\n')[0]}`);
      console.log(
        run.output
          .split('\n')
          .slice(-15)
          .map((l) => `    | ${l}`)
          .join('\n'),
      );
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.parallel !== undefined) {
  await parallel(Math.max(1, count('parallel', values.parallel)));
} else {
  await soak('embedded', embeddedRuns, (env) => conformanceRun(env, true));
  await soak(`proxied ${delayMs} ms`, remoteRuns, (env) => proxiedRun(delayMs, env, true));
  const total = embeddedRuns + remoteRuns;
  console.log(`${total - failed}/${total} runs passed (${embeddedRuns} embedded, ${remoteRuns} through the ${delayMs} ms proxy)`);
  process.exitCode = failed === 0 ? 0 : 1;
}
