/**
 * `npm run docs:config`: writes docs/configuration.md from the configuration reader's descriptions
 * (scripts/configuration-doc.ts). `-- --check`: exit 1 when the file is stale, writing nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderConfiguration } from './configuration-doc.ts';

const file = new URL('../docs/configuration.md', import.meta.url);
const fresh = renderConfiguration();
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
  console.log('docs:config OK: docs/configuration.md matches harness/setup/config.ts');
} else {
  writeFileSync(file, fresh);
  console.log('wrote docs/configuration.md');
}
