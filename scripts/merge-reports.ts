/**
 * `npm run reports:merge -- <shard dir> <shard dir> … --out <dir> [--partial]`: one junit.xml + summary.json +
 * summary.md + index.html from the REPORT_DIRs of the shards of one run (see docs/ci.md, "Sharding"); BASELINE and
 * FAIL_ON (environment) as for a single run. Every shard of the run, each once, of one run (their run id), unless
 * --partial. Exit codes as a run's (reporters/exit-codes.ts): 0 nothing failed (FAIL_ON=new: nothing new), 1 a
 * test failed, 3 an ERROR; 2 on bad input (a shard missing, twice or of another run), written nothing.
 */
import { readReportSettings, SettingError } from '../reporters/compare.ts';
import { MergeError, mergeReports } from '../reporters/merge.ts';
import { renderConsole } from '../reporters/summary.ts';
import { EXIT, exitCodeOf } from '../reporters/exit-codes.ts';
import { command, installed } from '../harness/record/command.ts';

const USAGE = `usage: ${command('merge', '<shard report dir> <shard report dir> … --out <merged report dir> [--partial]')}`;

const dirs: string[] = [];
let out: string | undefined;
let partial = false;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string;
  if (arg === '--out') out = args[++i];
  else if (arg.startsWith('--out=')) out = arg.slice('--out='.length);
  else if (arg === '--partial') partial = true;
  else if (arg.startsWith('-')) fail(`unknown option ${arg}`);
  else dirs.push(arg);
}
if (!out) fail('--out <dir> is missing: name the directory for the merged reports');
if (dirs.length === 0) fail('no shard report directory given');

try {
  const settings = readReportSettings((name) => process.env[name]);
  const summary = mergeReports(dirs, out, { ...settings, partial });
  for (const line of renderConsole(summary, out)) console.log(line);
  process.exitCode = exitCodeOf(summary);
} catch (err) {
  if (err instanceof SettingError) {
    console.error(`configuration error: ${err.message}`);
    process.exit(EXIT.setup);
  }
  if (err instanceof MergeError) fail(err.message);
  throw err;
}

function fail(message: string): never {
  // Named as the user runs it: `payment-conformance merge` installed, the npm script in a clone.
  console.error(`${installed() ? 'payment-conformance merge' : 'reports:merge'}: ${message}\n${USAGE}`);
  process.exit(EXIT.setup);
}
