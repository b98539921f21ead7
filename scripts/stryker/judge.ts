/**
 * The command Stryker's command runner runs for each mutant (scripts/mutation-stryker.ts), in Stryker's copy of the
 * repo: one conformance run against the embedded sandbox, which vitest's global setup starts in this process tree,
 * so the active mutant (__STRYKER_ACTIVE_MUTANT__ in the environment) reaches it. Stops at the first failing test.
 *
 * Without an active mutant (Stryker's dry run) it is the clean baseline, two runs: their FAILs, ERRORs and
 * observations are written to STRYKER_WORK/baseline.json. Every run has one fast-check seed (FC_SEED). With one, the mutant is killed (exit 1) by any finding the clean run does not
 * have: a FAIL, or an observation (security findings are observations too), compared as `npm run mutation` does.
 * An ERROR of the run is the suite's own failure (a timeout under load), never a kill: the run is made once more,
 * and a mutant that still only causes ERRORs survives, marked `error` for the summary. A run the target makes
 * impossible (the embedded sandbox does not start or answer the probe: the summary's abort), twice, is a kill.
 * Each verdict is written to STRYKER_WORK/verdicts/<id>.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import type { Summary } from '../../reporters/records.ts';
import { embeddedOnlyEnv } from '../../harness/setup/config.ts';
import { conformanceArgs, vitestCli } from '../../harness/run/vitest-cli.ts';

export interface Baseline {
  failed: string[];
  errored: string[];
  observations: string[];
}

export interface Verdict {
  id: string;
  verdict: 'killed' | 'survived' | 'error';
  /** What killed it: `FAIL <test>`, `observed <test :: message>`, or `abort: …`. */
  findings: string[];
  errored: string[];
  runs: number;
  seconds: number;
}

// As scripts/mutation.ts: masks what differs from run to run (ids, timings, counters), keeps status codes.
export const mask = (text: string): string =>
  text
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '<id>')
    .replace(/\d+(\.\d+)? ?(ms|s)\b/g, '<t>')
    .replace(/\d{4,}/g, '<n>');

interface Run {
  failed: string[];
  errored: string[];
  observations: string[];
  abort?: string;
}

function conformanceRun(reportDir: string, bail: boolean): Promise<Run> {
  rmSync(reportDir, { recursive: true, force: true });
  const env: NodeJS.ProcessEnv = {
    ...embeddedOnlyEnv(process.env),
    REPORT_DIR: reportDir,
    SANDBOX_FAULT: '',
    SANDBOX_VARIANT: '',
    // As npm run mutation: webhooks arrive in milliseconds here; a mutant that suppresses them must not cost 10 s a test.
    WEBHOOK_TIMEOUT_S: '2',
    // One fast-check seed for the clean runs and every mutant: the properties draw the same cases, so what they observe
    // compares.
    FC_SEED: process.env.FC_SEED || '424242',
  };
  const args = [...conformanceArgs, ...(bail ? ['--bail=1'] : [])];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitestCli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.on('exit', () => {
      try {
        const summary = JSON.parse(readFileSync(join(reportDir, 'summary.json'), 'utf8')) as Summary;
        const tests = summary.tests;
        resolve({
          failed: tests.filter((t) => t.status === 'fail').map((t) => t.name),
          errored: tests.filter((t) => t.status === 'error').map((t) => t.name),
          observations: tests.flatMap((t) => t.observations.map((o) => `${t.name} :: ${mask(o.message)}`)),
          ...(summary.run.abort ? { abort: summary.run.abort } : {}),
        });
      } catch {
        // No summary: the run itself broke (vitest or the global setup threw).
        resolve({ failed: [], errored: [], observations: [], abort: `no summary: ${stderr.trim().split('\n').slice(-2).join(' ')}` });
      }
    });
  });
}

/** The findings of `run` the baseline does not have. */
function findings(run: Run, baseline: Baseline): string[] {
  const failedBefore = new Set(baseline.failed);
  const seen = new Set(baseline.observations);
  return [
    ...run.failed.filter((t) => !failedBefore.has(t)).map((t) => `FAIL ${t}`),
    ...run.observations.filter((o) => !seen.has(o)).map((o) => `observed ${o}`),
  ];
}

/**
 * One of STRYKER_SLOTS run slots (a directory made atomically): Stryker hands the checker's process slot to a second
 * test runner once checking ends, so `--concurrency 1` would otherwise make two conformance runs at once.
 */
async function slot(work: string): Promise<() => void> {
  const slots = Math.max(1, Number(process.env.STRYKER_SLOTS) || 1);
  for (;;) {
    for (let i = 0; i < slots; i++) {
      const dir = join(work, `slot-${i}`);
      try {
        mkdirSync(dir);
        const release = () => rmdirSync(dir);
        process.once('exit', () => {
          try {
            release();
          } catch {}
        });
        return release;
      } catch {}
    }
    await sleep(500);
  }
}

async function main(): Promise<number> {
  const work = process.env.STRYKER_WORK;
  if (!work) {
    console.error('STRYKER_WORK is not set: this command is run by npm run mutation:stryker');
    return 2;
  }
  const id = process.env.__STRYKER_ACTIVE_MUTANT__;
  if (id === undefined) {
    // Two clean runs: what either observes is the clean run's (a few observations depend on timing under load).
    const run = await conformanceRun(join(work, 'runs', 'baseline'), false);
    const again = await conformanceRun(join(work, 'runs', 'baseline-2'), false);
    const baseline: Baseline = {
      failed: [...new Set([...run.failed, ...again.failed])],
      errored: [...new Set([...run.errored, ...again.errored])],
      observations: [...new Set([...run.observations, ...again.observations])],
    };
    writeFileSync(join(work, 'baseline.json'), JSON.stringify(baseline, null, 2));
    if (run.abort || again.abort || baseline.failed.length > 0) {
      console.error(`the clean sandbox did not pass: ${run.abort ?? again.abort ?? baseline.failed.join('; ')}`);
      return 1;
    }
    return 0;
  }
  const baseline = JSON.parse(readFileSync(join(work, 'baseline.json'), 'utf8')) as Baseline;
  await slot(work);
  const started = Date.now();
  const reportDir = join(work, 'runs', id);
  let runs = 0;
  let found: string[] = [];
  let errored: string[] = [];
  let aborts = 0;
  let abort = '';
  // At most two runs: the second only when the first ended ERROR or aborted without a finding.
  while (runs < 2) {
    runs++;
    const run = await conformanceRun(reportDir, true);
    found = findings(run, baseline);
    errored = run.errored.filter((t) => !baseline.errored.includes(t));
    if (run.abort) {
      aborts++;
      abort = run.abort;
    }
    if (found.length > 0 || (!run.abort && errored.length === 0)) break;
  }
  if (found.length === 0 && aborts === 2) found = [`abort: ${abort}`];
  const verdict: Verdict = {
    id,
    verdict: found.length > 0 ? 'killed' : errored.length > 0 || aborts > 0 ? 'error' : 'survived',
    findings: found.slice(0, 20),
    errored: errored.slice(0, 20),
    runs,
    seconds: (Date.now() - started) / 1000,
  };
  mkdirSync(join(work, 'verdicts'), { recursive: true });
  writeFileSync(join(work, 'verdicts', `${id}.json`), JSON.stringify(verdict, null, 2));
  // Only the mutant's own report folder is kept small: the verdict says what mattered.
  rmSync(reportDir, { recursive: true, force: true });
  return verdict.verdict === 'killed' ? 1 : 0;
}

process.exit(await main());
