/**
 * `npm run soak`: flakiness check of the concurrent conformance run (not part of `npm test`). Runs the whole suite
 * 20 times against the embedded sandbox and 5 times against a sandbox 100 ms away behind the loopback latency proxy
 * (bench/latency-proxy.ts), one run at a time, and prints pass/fail per run (failures with their test names).
 * With `--parallel N`: N whole embedded runs at once instead (a machine under load must not turn the
 * suite's own waiting into verdicts), each run's FAIL and ERROR counts printed; `--payer browser` pays the
 * script-built screens (SANDBOX_SCREEN=js) in Chromium. Exit 0 iff every run passed.
 *
 * With `--real-time`: the suite against the STANDALONE sandbox (sandbox/cli.ts, `npm run sandbox`, a
 * process of its own per run, pointed at by the .env block it prints) started with `--no-control` — no test-control
 * API, so every time limit is waited for in real time: QRs payable `--qr-ttl` seconds (default 30, its
 * `--quick-pay-ttl`), the suite's one-minute screens, vigencia, tokens — and, with `--payer browser`, its
 * script-built screens. First an idle reference run alone, then two runs at once, then one run with a busy-loop
 * process on every core (the CPU hog). Each must end 0 FAIL, 0 ERROR and judge every test as the reference did; the
 * table of figures (runs, PASS/FAIL/WARN/SKIP/ERROR, the tests judged otherwise) is printed at the end
 * (bench/soak.ts), each difference named too late (a run left the test unjudged: the suite acted after a deadline),
 * observation (PASS against WARN) or verdict. Every run draws the same fast-check sequences (one FC_SEED, `--seed`,
 * default drawn once and printed). Each run's reports stay in REPORT_DIR/soak/<run>.
 *
 *   npm run soak                          # 20 embedded + 5 proxied
 *   npm run soak -- --embedded 5 --remote 1 --delay 100
 *   npm run soak -- --parallel 2 --payer browser
 *   npm run soak -- --real-time --payer browser [--qr-ttl 30] [--seed N]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { conformanceRun, proxiedRun, type ConformanceRun } from '../bench/remote.ts';
import { differenceKind, type SoakRun, type SummaryLike, soakProblems, soakTable, statusDifferences } from '../bench/soak.ts';
import { embeddedOnlyEnv } from '../harness/setup/config.ts';
import { isIn } from '../harness/record/verdict.ts';
import { reportDirSetting } from '../harness/setup/report-settings.ts';

const { values } = parseArgs({
  options: {
    embedded: { type: 'string', default: '20' },
    remote: { type: 'string', default: '5' },
    delay: { type: 'string', default: '100' },
    parallel: { type: 'string' },
    payer: { type: 'string', default: 'http' },
    'real-time': { type: 'boolean', default: false },
    'qr-ttl': { type: 'string', default: '30' },
    seed: { type: 'string' },
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

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The standalone sandbox of one real-time run: `node sandbox/cli.ts` (what `npm run sandbox` runs), its .env block. */
interface Standalone {
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The environment of this process without what would select or configure the embedded sandbox or another target. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = embeddedOnlyEnv(process.env);
  for (const name of Object.keys(env)) if (/^(SANDBOX_|npm_|API_BASE_URL$|AUTH_URL$|REPORT_DIR$)/.test(name)) delete env[name];
  return env;
}

function startStandalone(args: string[]): Promise<Standalone> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', ...args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((ready, refuse) => {
    const timer = setTimeout(
      () => (child.kill('SIGKILL'), refuse(new Error(`the sandbox printed no .env block in 120 s:\n${out}`))),
      120_000,
    );
    child.once('exit', (code) => (clearTimeout(timer), refuse(new Error(`the sandbox exited (${code}):\n${out}`))));
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (!/^DELETION_ACCOUNT_PASSWORD=.*$/m.test(out)) return;
      clearTimeout(timer);
      const env = Object.fromEntries([...out.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1]!, m[2]!.replace(/^"(.*)"$/, '$1')]));
      const kill = () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      };
      cleanups.add(kill);
      ready({
        env,
        close: async () => {
          kill();
          cleanups.delete(kill);
          await exited;
        },
      });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
  });
}

/** What to stop if the soak itself is stopped (SIGINT, SIGTERM): the hog, the sandboxes. */
const cleanups = new Set<() => void>();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    for (const cleanup of cleanups) cleanup();
    process.exit(130);
  });

/**
 * A busy loop per core, until stopped: the CPU hog. Each loop also ends by itself once this process is gone (its
 * parent changes), so a soak killed outright leaves no loop spinning.
 */
function startHog(): { processes: number; stop(): void } {
  const loop = 'const p = process.ppid; for (;;) { for (let i = 0; i < 5e7; i++); if (process.ppid !== p) process.exit(0); }';
  const children: ChildProcess[] = Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', loop], { stdio: 'ignore' }),
  );
  const stop = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    cleanups.delete(stop);
  };
  cleanups.add(stop);
  return { processes: children.length, stop };
}

/** One whole run against a standalone sandbox of its own (started with `sandboxArgs`), its reports in `dir`. */
async function standaloneRun(label: string, sandboxArgs: string[], payerEnv: Record<string, string>, dir: string): Promise<SoakRun> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = process.hrtime.bigint();
  let sandbox: Standalone;
  try {
    sandbox = await startStandalone(sandboxArgs);
  } catch (err) {
    console.log(`${label}: ${(err as Error).message}`);
    return { label, code: null, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
  }
  try {
    // The sandbox's own hash and signature schemes, as a vendor would hand them over (as the proxied runs do).
    const env = {
      ...cleanEnv(),
      ...sandbox.env,
      ...payerEnv,
      REDIRECT_HASH: 'hmac-sha256',
      WEBHOOK_SIGNATURE: 'hmac-sha256',
      REPORT_DIR: dir,
    };
    const run = await conformanceRun(env, true);
    let summary: SummaryLike | undefined;
    try {
      summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as SummaryLike;
    } catch {
      console.log(`${label}: no summary.json; the run's last lines:\n${run.output.split('\n').slice(-20).join('\n')}`);
    }
    const soakRun: SoakRun = { label, code: run.code, seconds: run.seconds, ...(summary ? { summary } : {}) };
    const t = summary?.totals ?? {};
    console.log(
      `${label}: exit ${run.code}, ${t['pass'] ?? '-'} PASS, ${t['fail'] ?? '-'} FAIL, ${t['warn'] ?? '-'} WARN, ${t['skip'] ?? '-'} SKIP, ` +
        `${t['error'] ?? '-'} ERROR in ${run.seconds.toFixed(0)} s (reports: ${dir})`,
    );
    return soakRun;
  } finally {
    await sandbox.close();
  }
}

/** `--real-time`: the reference run alone, two runs at once, one run under the CPU hog; the table; exit 0 iff all ok. */
async function realTime(): Promise<void> {
  const ttl = count('qr-ttl', values['qr-ttl']);
  if (ttl < 1) throw new Error('--qr-ttl must be at least 1 (seconds)');
  const browser = values.payer !== 'http';
  const sandboxArgs = ['--no-control', '--quick-pay-ttl', String(ttl), ...(browser ? ['--screen', 'js'] : [])];
  // One fast-check seed for every run: the model tests draw the same sequences, so a status differs only by the load.
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : count('seed', values.seed);
  const payerEnv = { PAYER: values.payer, FC_SEED: String(seed) };
  const base = resolve(reportDirSetting(), 'soak');
  const setUp = `npm run sandbox -- ${sandboxArgs.join(' ')}, PAYER=${values.payer}, FC_SEED=${seed}`;
  console.log(`soak --real-time: each run against its own standalone sandbox (${setUp}); reports in ${base}`);
  const wall = process.hrtime.bigint();
  const runs: SoakRun[] = [];
  console.log('1/3 the reference: one run alone');
  const reference = await standaloneRun('reference (idle)', sandboxArgs, payerEnv, join(base, 'reference'));
  runs.push(reference);
  console.log('2/3 two runs at once');
  runs.push(
    ...(await Promise.all([1, 2].map((i) => standaloneRun(`two at once, ${i} of 2`, sandboxArgs, payerEnv, join(base, `parallel-${i}`))))),
  );
  const hog = startHog();
  console.log(`3/3 one run under a CPU hog (${hog.processes} busy-loop processes, one per core)`);
  try {
    runs.push(await standaloneRun(`CPU hog (${hog.processes} busy loops)`, sandboxArgs, payerEnv, join(base, 'hog')));
  } finally {
    hog.stop();
  }
  const minutes = Number(process.hrtime.bigint() - wall) / 60e9;
  console.log(`\nsoak --real-time (${setUp}), ${runs.length} runs in ${minutes.toFixed(1)} min:\n`);
  console.log(soakTable(runs, reference));
  const bad = runs.filter((r) => soakProblems(r, reference).length > 0).length;
  const kinds = new Map<string, number>();
  for (const run of runs.slice(1))
    if (run.summary && reference.summary)
      for (const d of statusDifferences(reference.summary, run.summary))
        kinds.set(differenceKind(d), (kinds.get(differenceKind(d)) ?? 0) + 1);
  if (kinds.size > 0) console.log(`\nstatus differences by kind: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}`);
  console.log(
    `\n${runs.length - bad}/${runs.length} runs passed: ${bad === 0 ? 'every run 0 FAIL, 0 ERROR, every status as the idle reference' : 'see the table'}`,
  );
  process.exitCode = bad === 0 ? 0 : 1;
}

if (values['real-time']) {
  if (values.parallel !== undefined) throw new Error('--real-time and --parallel are two soaks: give one of them');
  await realTime();
} else if (values.parallel !== undefined) {
  await parallel(Math.max(1, count('parallel', values.parallel)));
} else {
  await soak('embedded', embeddedRuns, (env) => conformanceRun(env, true));
  await soak(`proxied ${delayMs} ms`, remoteRuns, (env) => proxiedRun(delayMs, env, true));
  const total = embeddedRuns + remoteRuns;
  console.log(`${total - failed}/${total} runs passed (${embeddedRuns} embedded, ${remoteRuns} through the ${delayMs} ms proxy)`);
  process.exitCode = failed === 0 ? 0 : 1;
}
