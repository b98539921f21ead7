/**
 * `npm run chains:update [-- <report dir or summary.json>]`: writes suites/chain-lengths.json, each test's requests
 * from a run's summary.json (default REPORT_DIR, read as the run reads it: environment, .env, default): the order at the request cap of a run with no report
 * of its own (harness/run/chains.ts). Run it after a clean run when tests are added or change their chains; a stale
 * file only changes that order, never a verdict.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chainLengths, SHIPPED_LENGTHS } from '../harness/run/chains.ts';
import { reportDirSetting } from '../harness/setup/report-settings.ts';

const given = process.argv[2] ?? reportDirSetting();
const path = existsSync(given) && statSync(given).isDirectory() ? join(given, 'summary.json') : given;
if (!existsSync(path)) {
  console.error(`chains:update: no report at ${path}: run \`npm run conformance\` first, or name a report directory or summary.json`);
  process.exit(2);
}
const { byName } = chainLengths(readFileSync(path, 'utf8'));
if (byName.size === 0) {
  console.error(`chains:update: ${path} lists no test with its requests (a report of an older suite?)`);
  process.exit(2);
}
const tests = Object.fromEntries([...byName].sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(
  SHIPPED_LENGTHS,
  `${JSON.stringify({ format: 'conformance-chains/1', from: 'npm run chains:update (harness/run/chains.ts)', tests }, null, 2)}\n`,
);
console.log(`chains:update: ${byName.size} tests' chain lengths written to ${SHIPPED_LENGTHS}`);
