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
import { lastFailures, SELECTED_DIR } from '../reporters/selection.ts';
import { areaLine, requiredLine, uncheckedAreas } from '../harness/setup/areas.ts';

// The installed command names itself (harness/record/command.ts).
const INSTALLED = installed();
const USAGE = [
  `usage: ${command('run', '[suite files…] [-t <test name pattern>] [--name <test name>] [--failed] [--shard=i/n] [--verbose]')}`,
  '  suite files        run only these suites/*.test.ts (a part of the name is enough: links, auth)',
  '  -t <pattern>       run only the tests whose name matches (e.g. -t 4.1-monto-min); a test name pasted as printed',
  '                     selects that test, its [ ] ( ) + taken as they are',
  '  --name <name>      run only the test of this exact name (repeatable)',
  '  --failed           run again the FAIL and ERROR tests of the last whole run (REPORT_DIR/summary.json)',
  "  (a run of part of the suite writes its reports to REPORT_DIR/selected, beside the whole run's)",
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

// The areas these settings leave unchecked, one line each with its fix; one REQUIRE names stops the run here.
const unchecked = await uncheckedAreas(config);
for (const u of unchecked) console.error(areaLine(u));
const required = requiredLine(unchecked, config.require);
if (required) {
  console.error(required);
  process.exit(EXIT.setup);
}

// --failed: the FAIL and ERROR tests of the last whole run, by name.
const names = [...selection.names];
if (selection.failed) {
  const last = lastFailures(config.reportDir);
  if ('none' in last) {
    console.error(`${INSTALLED ? 'payment-conformance' : 'conformance'}: --failed: ${last.none}; nothing to run`);
    process.exit(EXIT.setup);
  }
  // A contract testcase judges every response of the run (suites/contract.test.ts): alone it has none to judge, so
  // the whole suite runs again (its reports still beside the whole run's).
  if (last.files.some((f) => f.endsWith('contract.test.ts')))
    console.error('--failed: a contract testcase failed, which judges every response of a run: the whole suite runs again');
  else names.push(...last.names);
}
// A run of part of the suite writes its reports beside the whole run's (REPORT_DIR/selected), never over them.
const reportDir = selection.partial ? join(config.reportDir, SELECTED_DIR) : config.reportDir;

// One line on the console; every setting with --verbose, and always in the report folder.
const settings = redactedConfigSummary(config)
  .split('\n')
  .filter((line) => config.target.kind === 'embedded' || !line.startsWith('SANDBOX_'));
mkdirSync(reportDir, { recursive: true });
writeFileSync(join(reportDir, 'configuration.txt'), `${settings.join('\n')}\n`);
if (selection.verbose) console.log(`configuration:\n${settings.map((line) => `  ${line}`).join('\n')}\n`);
else console.log(settingsLine(settings));
for (const line of checked.warnings) console.error(line);

const { args, env } = selection;
// The global setup takes the preflight's findings instead of probing again.
const preflightDone = JSON.stringify({ ...(checked.accountRefused ? { accountRefused: checked.accountRefused } : {}) });
const started = Date.now();
const child = spawn(process.execPath, [vitestCli, ...conformanceArgs, ...args], {
  stdio: 'inherit',
  env: {
    CONFORMANCE_PROGRESS: process.stderr.isTTY ? 'live' : 'lines',
    ...process.env,
    ...env,
    ...(names.length > 0 ? { CONFORMANCE_NAMES: JSON.stringify(names) } : {}),
    CONFORMANCE_PREFLIGHT: preflightDone,
  },
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
function suiteSelection(argv: string[]): {
  args: string[];
  env: Record<string, string>;
  verbose: boolean;
  failed: boolean;
  names: string[];
  partial: boolean;
} {
  const args: string[] = [];
  const files: string[] = [];
  const patterns: string[] = [];
  const names: string[] = [];
  let failed = false;
  let shard: string | undefined;
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(EXIT.conformant);
    }
    if (arg === '-t' || arg === '--testNamePattern' || /^(-t|--testNamePattern)=./.test(arg)) {
      const pattern = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (pattern === undefined || pattern === '') throw new UsageError(`${arg} needs a test name pattern, e.g. ${arg} 4.1-monto-min`);
      // A pasted test name is no pattern of itself (its [ ] ( ) + are regular-expression syntax): taken as the name.
      if (matchesItself(pattern)) patterns.push(pattern);
      else names.push(pattern);
    } else if (arg === '--name') {
      const name = argv[++i];
      if (name === undefined || name.trim() === '') throw new UsageError(`--name needs a test's name, as a FAIL line prints it`);
      names.push(name);
    } else if (arg.startsWith('--name=')) names.push(arg.slice('--name='.length));
    else if (arg === '--failed' || arg === '--last-failed') failed = true;
    else if (arg.startsWith('--shard=')) shard = arg.slice('--shard='.length);
    else if (arg === '--shard') {
      shard = argv[++i];
      if (shard === undefined) throw new UsageError('--shard needs i/n, e.g. --shard=1/3');
    } else if (arg === '--verbose') verbose = true;
    else if (arg.startsWith('-'))
      throw new UsageError(
        `unknown option ${arg}: the run takes suite files, -t <test name pattern>, --name <test name>, --failed, --shard=i/n and --verbose`,
      );
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
  if (patterns.length > 0 && names.length > 0)
    throw new UsageError('-t takes a pattern or a pasted test name, not both in one run: give names with --name');
  if (patterns.length > 1) throw new UsageError('-t is given once: join patterns as one, e.g. -t "4.1-monto|4.2-activar"');
  for (const pattern of patterns) args.push('-t', pattern);
  // Tests declared by name only: a describe block may be left empty.
  if ((names.length > 0 || failed) && shard === undefined) args.push('--passWithNoTests');
  const partial = files.length > 0 || patterns.length > 0 || names.length > 0 || failed;
  return {
    args,
    verbose,
    failed,
    names,
    partial,
    env: {
      ...(files.length > 0 ? { CONFORMANCE_FILES: files.join(',') } : {}),
      ...(shard !== undefined ? { CONFORMANCE_SHARD: shard.trim() } : {}),
      ...(partial ? { CONFORMANCE_REPORT_SUBDIR: SELECTED_DIR } : {}),
    },
  };
}

/** Whether a -t pattern is a regular expression its own text matches (else it is a test name pasted as printed). */
function matchesItself(pattern: string): boolean {
  try {
    return new RegExp(pattern).test(pattern);
  } catch {
    return false;
  }
}

/** The target and payer in one line, from the redacted settings (a URL's password is never shown). */
function settingsLine(lines: string[]): string {
  const value = (name: string) => lines.find((l) => l.startsWith(`${name}=`))?.slice(name.length + 1);
  const target = config.target.kind === 'remote' ? `${value('API_BASE_URL')} (remote)` : 'the embedded sandbox';
  const rel = relative(process.cwd(), reportDir);
  const shown = rel === '' ? '.' : rel.startsWith('..') ? reportDir : rel;
  return `Target: ${target} · payer ${config.payer.kind} · every setting: --verbose, or ${join(shown, 'configuration.txt')}`;
}

/** The run's exit code from this run's summary.json (one written before `started` is another run's). */
function exitCode(vitestCode: number): number {
  const file = join(reportDir, 'summary.json');
  let summary: Summary | undefined;
  if (existsSync(file) && statSync(file).mtimeMs >= started) {
    try {
      summary = JSON.parse(readFileSync(file, 'utf8')) as Summary;
    } catch (err) {
      console.error(`${file} cannot be read (${(err as Error).message}): the suite's own error`);
    }
  } else if (vitestCode !== 0)
    console.error(`the run ended (vitest exit code ${vitestCode}) without writing ${file}: the suite's own error`);
  // A selection that selected no test judged nothing: not a green run.
  if (summary && selection.partial && selectedCount(summary) === 0) {
    console.error(`${INSTALLED ? 'payment-conformance' : 'conformance'}: no test was selected by ${describeSelection()}: nothing ran`);
    return EXIT.setup;
  }
  return exitCodeOf(summary, vitestCode);
}

/** The tests a selection took: not those a -t filter left out, nor the run's own problems. */
function selectedCount(summary: Summary): number {
  return summary.tests.filter((t) => t.file !== '' && t.reason !== 'not selected by the test name filter (-t)').length;
}

function describeSelection(): string {
  const argv = process.argv.slice(2);
  return argv.length > 0 ? argv.map((a) => (/^[\w./:=,-]+$/.test(a) ? a : `'${a}'`)).join(' ') : 'the arguments';
}
