/**
 * `npm run reports:merge -- <shard dir> <shard dir> … --out <dir>`: one junit.xml + summary.json + summary.md +
 * index.html from the REPORT_DIRs of sharded runs (see docs/ci.md, "Sharding"); BASELINE and FAIL_ON (environment)
 * as for a single run. Exit 0 when nothing failed (FAIL_ON=new: nothing new failed, no ERROR), 1 when something
 * did, 2 on bad input.
 */
import { readReportSettings, SettingError, verdict } from '../reporters/compare.ts';
import { MergeError, mergeReports } from '../reporters/merge.ts';
import { renderConsole } from '../reporters/summary.ts';

const USAGE = 'usage: npm run reports:merge -- <shard report dir> <shard report dir> … --out <merged report dir>';

const dirs: string[] = [];
let out: string | undefined;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string;
  if (arg === '--out') out = args[++i];
  else if (arg.startsWith('--out=')) out = arg.slice('--out='.length);
  else if (arg.startsWith('-')) fail(`unknown option ${arg}`);
  else dirs.push(arg);
}
if (!out) fail('--out <dir> is missing: name the directory for the merged reports');
if (dirs.length === 0) fail('no shard report directory given');

try {
  const settings = readReportSettings((name) => process.env[name]);
  const summary = mergeReports(dirs, out, settings);
  for (const line of renderConsole(summary, out)) console.log(line);
  process.exitCode = verdict(summary).failed ? 1 : 0;
} catch (err) {
  if (err instanceof SettingError) {
    console.error(`configuration error: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof MergeError) fail(err.message);
  throw err;
}

function fail(message: string): never {
  console.error(`reports:merge: ${message}\n${USAGE}`);
  process.exit(2);
}
