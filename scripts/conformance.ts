/**
 * `npm run conformance [-- vitest args]`: checks the configuration first (one clear line on a mistake, exit 2),
 * prints it (secrets as [set]), then runs the conformance project with the reporters, bounded by RUN_TIMEOUT_S.
 * Exit 0 iff nothing failed (FAIL_ON=any, vitest's own exit code); with FAIL_ON=new and a BASELINE, exit 0 iff no
 * test failed that did not fail in the baseline and there was no ERROR — decided here, from this run's summary.json.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { verdict } from '../reporters/compare.ts';
import type { Summary } from '../reporters/records.ts';
import { conformanceArgs, vitestCli } from './vitest-cli.ts';
import { loadConfig, ConfigError, redactedConfigSummary, type Config } from '../harness/setup/config.ts';
import { FAULTS } from '../sandbox/faults.ts';

let config: Config;
try {
  config = loadConfig();
  const fault = config.sandbox.fault;
  if (fault !== undefined && !FAULTS.some((f) => f.id === fault)) {
    throw new ConfigError(`SANDBOX_FAULT must be the id of a fault of sandbox/faults.ts, or unset (got "${fault}"); example: SANDBOX_FAULT=${FAULTS[0]?.id ?? ''}`, 'SANDBOX_FAULT');
  }
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
    process.exit(2);
  }
  throw err;
}

console.log(`configuration:\n${redactedConfigSummary(config).replace(/^/gm, '  ')}\n`);

const { args, env } = suiteSelection(process.argv.slice(2));
const started = Date.now();
const child = spawn(process.execPath, [vitestCli, ...conformanceArgs, ...args], { stdio: 'inherit', env: { CONFORMANCE_PROGRESS: process.stderr.isTTY ? 'live' : 'lines', ...process.env, ...env } });

// Last resort beyond the harness's own whole-run bound: a hung run still ends, with a reason.
const hardLimitMs = (config.budget.runTimeoutS + 60) * 1000;
const timer = setTimeout(() => {
  console.error(`conformance run exceeded RUN_TIMEOUT_S=${config.budget.runTimeoutS} s (+60 s grace): stopping it`);
  child.kill('SIGINT');
  setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
}, hardLimitMs);
timer.unref();

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(exitCode(code ?? (signal ? 1 : 0))));

/**
 * The conformance project is one test file declaring every suite's tests (suites/all.conformance.ts), so the suite
 * files named on the command line and `--shard=i/n` select within it: CONFORMANCE_FILES and CONFORMANCE_SHARD.
 */
function suiteSelection(argv: string[]): { args: string[]; env: Record<string, string> } {
  const args: string[] = [];
  const files: string[] = [];
  let shard: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if ((arg === '-t' || arg === '--testNamePattern') && argv[i + 1] !== undefined) args.push(arg, argv[++i]!);
    else if (arg.startsWith('--shard=')) shard = arg.slice('--shard='.length);
    else if (arg === '--shard' && argv[i + 1] !== undefined) shard = argv[++i];
    else if (/\.test\.ts$/.test(arg) && !arg.startsWith('-')) files.push(arg);
    else args.push(arg);
  }
  // A shard declares only its share of the tests (harness/run/suite-files.ts), which can leave a describe block empty.
  if (shard !== undefined) args.push('--passWithNoTests');
  return {
    args,
    env: {
      ...(files.length > 0 ? { CONFORMANCE_FILES: files.join(',') } : {}),
      ...(shard !== undefined ? { CONFORMANCE_SHARD: shard } : {}),
    },
  };
}

/** vitest's code, unless FAIL_ON=new and this run's summary (written after `started`) says otherwise. */
function exitCode(vitestCode: number): number {
  if (config.reports.failOn !== 'new' || (vitestCode !== 0 && vitestCode !== 1)) return vitestCode;
  const file = join(config.reportDir, 'summary.json');
  if (!existsSync(file) || statSync(file).mtimeMs < started) {
    console.error(`FAIL_ON=new: ${file} was not written by this run, so the exit code is vitest's (${vitestCode})`);
    return vitestCode;
  }
  try {
    const summary = JSON.parse(readFileSync(file, 'utf8')) as Summary;
    if (!summary.comparison) return vitestCode;
    return verdict(summary).failed ? 1 : 0;
  } catch (err) {
    console.error(`FAIL_ON=new: ${file} cannot be read (${(err as Error).message}), so the exit code is vitest's (${vitestCode})`);
    return vitestCode;
  }
}
