/**
 * The command Stryker's command runner runs for each mutant (scripts/mutation-stryker.ts), in Stryker's copy of the
 * repo: one conformance run against the embedded sandbox, which vitest's global setup starts in this process tree,
 * so the active mutant (__STRYKER_ACTIVE_MUTANT__ in the environment) reaches it. Stops at the first failing test.
 *
 * Without an active mutant (Stryker's dry run) it is the clean baseline, two runs: their FAILs, ERRORs and
 * observations are written to STRYKER_WORK/baseline.json. Every run has one fast-check seed (FC_SEED). With one, the mutant is killed (exit 1) by any finding the clean run does not
 * have: a FAIL, or an observation (security findings are observations too), compared as `npm run mutation` does.
 * A hang is detected too, as Stryker counts a mutant that times out: a request the embedded sandbox (no network between)
 * held without answering (an ambiguous answer "no response within …") in two runs in a row. The suite's verdict on
 * such a test stays SKIP undecidable (principle 2: on a real target it cannot tell a hang from the internet).
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
import { type Baseline, findings, type Run, runOf } from './findings.ts';
import { embeddedOnlyEnv } from '../../harness/setup/config.ts';
import { conformanceArgs, vitestCli } from '../../harness/run/vitest-cli.ts';

export interface Verdict {
  id: string;
  verdict: 'killed' | 'survived' | 'error';
  /** What killed it: `FAIL <test>`, `observed <test :: message>`, `hang <test :: request answer>` or `abort: …`. */
  findings: string[];
  errored: string[];
  runs: number;
  seconds: number;
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
        resolve(runOf(JSON.parse(readFileSync(join(reportDir, 'summary.json'), 'utf8')) as Summary));
      } catch {
        // No summary: the run itself broke (vitest or the global setup threw).
        resolve({
          failed: [],
          errored: [],
          observations: [],
          hangs: [],
          abort: `no summary: ${stderr.trim().split('\n').slice(-2).join(' ')}`,
        });
      }
    });
  });
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
      hangs: [...new Set([...run.hangs, ...again.hangs])],
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
  // At most two runs: the second only when the first ended ERROR, aborted, or only held requests without a finding.
  // A hang counts when the next run holds the same request too: load may stretch an answer past the client's bound
  // once; a mutant that never answers does it every time.
  const isHang = (f: string) => f.startsWith('hang ');
  let held: string[] = [];
  while (runs < 2) {
    runs++;
    const run = await conformanceRun(reportDir, true);
    const now = findings(run, baseline);
    found = [...now.filter((f) => !isHang(f)), ...now.filter((f) => isHang(f) && held.includes(f))];
    held = now.filter(isHang);
    errored = run.errored.filter((t) => !baseline.errored.includes(t));
    if (run.abort) {
      aborts++;
      abort = run.abort;
    }
    if (found.length > 0 || (!run.abort && errored.length === 0 && held.length === 0)) break;
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
