#!/usr/bin/env -S node --
/**
 * `payment-conformance <command> [options]`: the installed command. Plain JavaScript so Node runs it from
 * any node_modules; each command is one of the project's TypeScript scripts, run in this process (bin/ts-hooks.js
 * compiles it), in the CURRENT folder: `.env` is read there and reports are written under `./reports` there, while
 * the suites, the spec and the sandbox come from this package's own folder. The npm scripts run the same scripts.
 * The `--` of the first line stops Node 20 reading `--env-file` among this command's own arguments (it would stop on a
 * missing file with its own line, exit 9): the option is this command's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { register } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import dotenv from 'dotenv';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** The commands: the script each runs, what it does, and the common options it takes. */
const COMMANDS = {
  run: {
    script: 'scripts/conformance.ts',
    summary: 'run the conformance suite against the target of .env (the embedded sandbox when API_BASE_URL is unset)',
    usage: 'payment-conformance run [options] [suite files…] [-t <test name pattern>] [--name <test name>] [--failed] [--verbose]',
    options: ['env-file', 'report-dir', 'baseline', 'fail-on', 'payer', 'shard'],
    npm: 'npm run conformance',
  },
  discover: {
    script: 'scripts/discover.ts',
    summary: "learn a remote target's conventions from four credentials; writes <report dir>/discovered.env",
    usage: 'payment-conformance discover [options]',
    options: ['env-file', 'report-dir', 'payer'],
    npm: 'npm run discover',
  },
  sandbox: {
    script: 'sandbox/cli.ts',
    summary: 'start the reference sandbox; prints its URLs and seeded credentials',
    usage:
      'payment-conformance sandbox [--port 4010] [--host 127.0.0.1] [--mode development|production] [--fault ID] ' +
      '[--variant ID[,ID…]|all|deployed] [--screen html|js|steps|challenge|frame] [--no-control] [--pid-file PATH]',
    options: [],
    npm: 'npm run sandbox',
  },
  mutation: {
    script: 'scripts/mutation.ts',
    summary: "self-check: the suite against every fault (each must fail) and variant (each must pass) of the sandbox's catalogues",
    usage: 'payment-conformance mutation [options] [fault or variant ids…]',
    options: ['report-dir', 'payer'],
    npm: 'npm run mutation',
  },
  merge: {
    script: 'scripts/merge-reports.ts',
    summary: 'merge the report folders of every shard of one run into one report (--partial: only some of them)',
    usage: 'payment-conformance merge [options] <shard report dir> <shard report dir> … --out <merged report dir> [--partial]',
    options: ['baseline', 'fail-on'],
    npm: 'npm run reports:merge',
  },
};

/** The common options: each sets the variable of the same meaning (docs/configuration.md) for the command. */
const OPTIONS = {
  'env-file': { variable: undefined, value: '<file>', help: 'read settings from this file, above ./.env (the environment still wins)' },
  'report-dir': { variable: 'REPORT_DIR', value: '<dir>', help: 'where reports are written (default ./reports)' },
  baseline: { variable: 'BASELINE', value: '<dir|summary.json>', help: 'an earlier run to compare with' },
  'fail-on': { variable: 'FAIL_ON', value: 'any|new', help: 'what fails the run: any failure, or only one not in the baseline' },
  payer: { variable: 'PAYER', value: 'http|browser|auto', help: 'how hosted screens are paid' },
  shard: { variable: undefined, value: '<i/n>', help: 'run the i-th of n shards, split by test count (merge the shards with `merge`)' },
};

function usage() {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'usage: payment-conformance <command> [options]',
    '',
    'commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    "`payment-conformance <command> --help` shows a command's options. Settings come from the environment, then",
    './.env of the current folder (docs/configuration.md); reports go to ./reports of the current folder.',
  ].join('\n');
}

function commandHelp(name) {
  const c = COMMANDS[name];
  const lines = [`usage: ${c.usage}`, '', c.summary, `(the same as \`${c.npm}\` in the suite's repository)`];
  if (c.options.length > 0) {
    lines.push('', 'options:');
    for (const o of c.options) lines.push(`  --${o} ${OPTIONS[o].value}`.padEnd(34) + OPTIONS[o].help);
  }
  lines.push('  --help'.padEnd(34) + 'this help');
  if (name === 'run' || name === 'merge') lines.push('', ...EXIT_CODES);
  return lines.join('\n');
}

function fail(message) {
  console.error(`payment-conformance: ${message}\n${usage()}`);
  process.exit(2);
}

/** A mistake in a command's options: one line, exit 2 (the set-up's). */
function slip(message) {
  console.error(`payment-conformance: ${message} (payment-conformance ${name} --help)`);
  process.exit(2);
}

/** What a run and a merge exit with (reporters/exit-codes.ts says the same). */
const EXIT_CODES = [
  'exit codes:',
  '  0  conformant: nothing failed (FAIL_ON=new: nothing new)',
  '  1  the target failed a test',
  '  2  the set-up: configuration, credentials, reachability (nothing was judged)',
  "  3  the suite's own error (an ERROR verdict, a crash): not the target's",
];

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
  console.log(usage());
  process.exit(name === undefined ? 2 : 0);
}
if (name === '--version') {
  console.log(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  process.exit(0);
}
if (!Object.hasOwn(COMMANDS, name)) fail(`unknown command "${name}"`);
const command = COMMANDS[name];

/** The common options become variables (the environment given by the user wins over --env-file, as over .env). */
const env = { ...process.env };
const passed = [];
for (let i = 0; i < rest.length; i++) {
  const arg = rest[i];
  if (arg === '--help' || arg === '-h') {
    // The sandbox's own usage line is the authority on its options.
    console.log(commandHelp(name));
    process.exit(0);
  }
  const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
  const option = match && command.options.includes(match[1]) ? match[1] : undefined;
  if (option === undefined) {
    passed.push(arg);
    continue;
  }
  const value = match[2] ?? rest[++i];
  if (value === undefined || value === '') slip(`--${option} needs a value: ${OPTIONS[option].value}`);
  if (option === 'shard') passed.push(`--shard=${value}`);
  else if (option === 'env-file') {
    const file = resolve(value);
    if (!existsSync(file))
      slip(`--env-file ${value}: no such file (looked for ${file}); give the path of a file of settings, as .env.example`);
    // As real variables: above ./.env, below the variables the user set in the environment.
    for (const [key, v] of Object.entries(dotenv.parse(readFileSync(file)))) if (env[key] === undefined || env[key] === '') env[key] = v;
  } else env[OPTIONS[option].variable] = value;
}

// In this process (no child to orphan), the TypeScript loaded by bin/ts-hooks.js: a signal reaches the script's own
// handlers (the sandbox closes its port, a run stops vitest).
register('./ts-hooks.js', import.meta.url);
process.setSourceMapsEnabled(true);
Object.assign(process.env, env);
// What the scripts print names this command (harness/record/command.ts), not the clone's npm scripts.
process.env.PAYMENT_CONFORMANCE_COMMAND ||= 'npx payment-conformance';
if (process.env.npm_command === 'exec') stopWithParent();
process.argv = [process.argv[0], join(ROOT, command.script), ...passed];
await import(pathToFileURL(join(ROOT, command.script)).href);

/**
 * `npx payment-conformance sandbox &` then `kill $!` signals npm, which passes the signal to the `sh -c` it runs this
 * command in, and sh exits without passing it on: this process is left with a new parent. Seen, it stops as if signalled.
 */
function stopWithParent() {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 250).unref();
}
