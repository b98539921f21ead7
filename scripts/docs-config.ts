/**
 * `npm run docs:config`: writes docs/configuration.md from the table of variables (harness/setup/variables.ts,
 * rendered by scripts/configuration-doc.ts). `-- --check`: exit 1 when the file is stale, writing nothing. Either way,
 * exit 1 when .env.example, annotated by hand, disagrees with the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { envExampleProblems, renderConfiguration } from './configuration-doc.ts';

const file = new URL('../docs/configuration.md', import.meta.url);
const fresh = renderConfiguration();
const example = envExampleProblems(readFileSync(new URL('../.env.example', import.meta.url), 'utf8'));
for (const problem of example) console.error(`.env.example: ${problem}`);
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // Missing counts as stale.
  }
  if (current !== fresh) {
    console.error('docs/configuration.md is stale: run `npm run docs:config`');
    process.exit(1);
  }
  if (example.length > 0) process.exit(1);
  console.log('docs:config OK: docs/configuration.md and .env.example match harness/setup/variables.ts');
} else {
  writeFileSync(file, fresh);
  console.log('wrote docs/configuration.md');
  if (example.length > 0) process.exit(1);
}
