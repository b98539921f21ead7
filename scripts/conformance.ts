/**
 * `npm run conformance [-- suite files… -t <pattern> --shard=i/n]`: checks the arguments, the settings' names and the
 * configuration first, then proves the set-up with the preflight (harness/setup/preflight.ts): a mistake is one line,
 * exit 2, before anything runs. Then prints the target in one line (every setting, secrets as [set], with --verbose and
 * in REPORT_DIR/configuration.txt) and runs the conformance project with the reporters, bounded by RUN_TIMEOUT_S.
 * Exit codes (reporters/exit-codes.ts): 0 conformant, 1 the target failed, 2 the set-up, 3 the suite's own error —
 * read from this run's summary.json (FAIL_ON=new: only a failure not in the BASELINE counts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import type { Summary } from '../reporters/records.ts';
import { conformanceArgs, PACKAGE_ROOT, vitestCli } from '../harness/run/vitest-cli.ts';
import { loadConfig, ConfigError, redactedConfigSummary, type Config } from '../harness/setup/config.ts';
import { preflight, settingSlips } from '../harness/setup/preflight.ts';
import { EXIT, EXIT_CODES_HELP, exitCodeOf } from '../reporters/exit-codes.ts';
import { FAULTS } from '../sandbox/faults.ts';
import { command, installed } from '../harness/record/command.ts';

// The installed command names itself (harness/record/command.ts).
const INSTALLED = installed();
const USAGE = [
  `usage: ${command('run', '[suite files…] [-t <test name pattern>] [--shard=i/n] [--verbose]')}`,
  '  suite files        run only these suites/*.test.ts (a part of the name is enough: links, auth)',
  '  -t <pattern>       run only the tests whose name matches (e.g. -t 4.1-monto-min)',
  `  --shard=i/n        run the i-th of n shards (merge their reports with ${command('merge')})`,
  '  --verbose          print every setting before the run (they are in REPORT_DIR/configuration.txt anyway)',
  ...EXIT_CODES_HELP,
].join('\n');

/** A mistake on the command line: one line, exit 2. */
class UsageError extends Error {}

let selection: ReturnType<typeof suiteSelection>;
try {
  selection = suiteSelection(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`${INSTALLED ? 'payment-conformance' : 'conformance'}: ${err.message} (${command('run', '--help')})`);
  process.exit(EXIT.setup);
}

// Names that look like a setting but are none (ACOUNT_USER): said first, since they explain what follows.
const dotenvNames = existsSync('.env') ? Object.keys(parseDotenv(readFileSync('.env'))) : [];
for (const line of settingSlips([...Object.keys(process.env), ...dotenvNames], new Set(dotenvNames))) console.error(line);

let config: Config;
try {
  config = loadConfig();
  const fault = config.sandbox.fault;
  if (fault !== undefined && !FAULTS.some((f) => f.id === fault)) {
    throw new ConfigError(
      `SANDBOX_FAULT must be the id of a fault of sandbox/faults.ts, or unset (got "${fault}"); example: ` +
        `SANDBOX_FAULT=${FAULTS[0]?.id ?? ''}`,
      'SANDBOX_FAULT',
    );
  }
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
    process.exit(EXIT.setup);
  }
  throw err;
}

// A set-up the run cannot work with is no verdict: one line, nothing run, no report written.
const checked = await preflight(config);
if (checked.problem) {
  console.error(checked.problem);
  process.exit(EXIT.setup);
}

// One line on the console; every setting with --verbose, and always in the report folder.
const settings = redactedConfigSummary(config)
  .split('\n')
  .filter((line) => config.target.kind === 'embedded' || !line.startsWith('SANDBOX_'));
mkdirSync(config.reportDir, { recursive: true });
writeFileSync(join(config.reportDir, 'configuration.txt'), `${settings.join('\n')}\n`);
if (selection.verbose) console.log(`configuration:\n${settings.map((line) => `  ${line}`).join('\n')}\n`);
else console.log(settingsLine(settings));
for (const line of checked.warnings) console.error(line);

const { args, env } = selection;
// The global setup takes the preflight's findings instead of probing again.
const preflightDone = JSON.stringify({ ...(checked.accountRefused ? { accountRefused: checked.accountRefused } : {}) });
const started = Date.now();
const child = spawn(process.execPath, [vitestCli, ...conformanceArgs, ...args], {
  stdio: 'inherit',
  env: { CONFORMANCE_PROGRESS: process.stderr.isTTY ? 'live' : 'lines', ...process.env, ...env, CONFORMANCE_PREFLIGHT: preflightDone },
});

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
 * files named on the command line and `--shard=i/n` select within it: CONFORMANCE_FILES and CONFORMANCE_SHARD. Only
 * what the run takes is accepted: anything else is a UsageError here, before anything runs, not vitest's stack.
 */
function suiteSelection(argv: string[]): { args: string[]; env: Record<string, string>; verbose: boolean } {
  const args: string[] = [];
  const files: string[] = [];
  let shard: string | undefined;
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(EXIT.conformant);
    }
    if (arg === '-t' || arg === '--testNamePattern') {
      const pattern = argv[++i];
      if (pattern === undefined || pattern === '') throw new UsageError(`${arg} needs a test name pattern, e.g. ${arg} 4.1-monto-min`);
      args.push(arg, pattern);
    } else if (/^(-t|--testNamePattern)=./.test(arg)) args.push(arg);
    else if (arg.startsWith('--shard=')) shard = arg.slice('--shard='.length);
    else if (arg === '--shard') {
      shard = argv[++i];
      if (shard === undefined) throw new UsageError('--shard needs i/n, e.g. --shard=1/3');
    } else if (arg === '--verbose') verbose = true;
    else if (arg.startsWith('-'))
      throw new UsageError(`unknown option ${arg}: the run takes suite files, -t <test name pattern>, --shard=i/n and --verbose`);
    else files.push(arg);
  }
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard.trim());
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]))
      throw new UsageError(`--shard ${shard} is not a shard: give i/n with 1 ≤ i ≤ n, e.g. --shard=1/3`);
    // A shard declares only its share of the tests (harness/run/suite-files.ts), which can leave a describe block empty.
    args.push('--passWithNoTests');
  }
  const suites = readdirSync(join(PACKAGE_ROOT, 'suites'))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `suites/${f}`);
  for (const file of files) {
    // The same match as harness/run/suite-files.ts's selectSuites: a part of the path.
    if (!suites.some((s) => s.includes(file.replace(/^\.\//, ''))))
      throw new UsageError(
        `${file} names no suite file; the suite files are ` +
          `suites/{${suites.map((s) => s.slice('suites/'.length, -'.test.ts'.length)).join(',')}}.test.ts`,
      );
  }
  return {
    args,
    verbose,
    env: {
      ...(files.length > 0 ? { CONFORMANCE_FILES: files.join(',') } : {}),
      ...(shard !== undefined ? { CONFORMANCE_SHARD: shard.trim() } : {}),
    },
  };
}

/** The target and payer in one line, from the redacted settings (a URL's password is never shown). */
function settingsLine(lines: string[]): string {
  const value = (name: string) => lines.find((l) => l.startsWith(`${name}=`))?.slice(name.length + 1);
  const target = config.target.kind === 'remote' ? `${value('API_BASE_URL')} (remote)` : 'the embedded sandbox';
  const rel = relative(process.cwd(), config.reportDir);
  const shown = rel === '' ? '.' : rel.startsWith('..') ? config.reportDir : rel;
  return `Target: ${target} · payer ${config.payer.kind} · every setting: --verbose, or ${join(shown, 'configuration.txt')}`;
}

/** The run's exit code from this run's summary.json (one written before `started` is another run's). */
function exitCode(vitestCode: number): number {
  const file = join(config.reportDir, 'summary.json');
  let summary: Summary | undefined;
  if (existsSync(file) && statSync(file).mtimeMs >= started) {
    try {
      summary = JSON.parse(readFileSync(file, 'utf8')) as Summary;
    } catch (err) {
      console.error(`${file} cannot be read (${(err as Error).message}): the suite's own error`);
    }
  } else if (vitestCode !== 0)
    console.error(`the run ended (vitest exit code ${vitestCode}) without writing ${file}: the suite's own error`);
  return exitCodeOf(summary, vitestCode);
}
