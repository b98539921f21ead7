/**
 * docs/configuration.md is generated from the table of variables (npm run docs:config): it must match what the table
 * says today; .env.example, annotated by hand, must list every variable a user sets with its default or example.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentedVariables, envExampleProblems, renderConfiguration } from '../../scripts/configuration-doc.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from harness/setup/variables.ts', () => {
    expect(read('docs/configuration.md'), 'docs/configuration.md is stale: run `npm run docs:config`').toBe(renderConfiguration());
  });

  it('documents every variable of .env.example', () => {
    const inExample = [...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    const documented = new Set(documentedVariables());
    expect(inExample.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('.env.example lists every variable of the table a user sets, each with its default or example', () => {
    expect(envExampleProblems(read('.env.example'))).toEqual([]);
    expect(envExampleProblems('# HTTP_TIMEOUT_MS=15000\n# HTTP_RETRIES=4\n# NOT_A_SETTING=1\n')).toEqual(
      expect.arrayContaining([
        'API_BASE_URL is not in .env.example',
        'HTTP_RETRIES=4 in .env.example is neither a default nor the example of harness/setup/variables.ts',
        'NOT_A_SETTING in .env.example is no variable of harness/setup/variables.ts',
      ]),
    );
  });

  it('gives every variable a meaning', () => {
    const doc = read('docs/configuration.md');
    const rows = doc.split('\n').filter((line) => /^\| `[A-Z]/.test(line));
    for (const row of rows) expect(row.split('|').at(-2)?.trim(), row).not.toBe('');
  });
});

describe('the sandbox CLI', () => {
  // The sandbox imports nothing of the judge (principle 7), so its CLI reads its variables itself: each must be a row
  // of the variables table, documented as every other.
  it('reads only variables of the table', async () => {
    const { VARIABLE_NAMES } = await import('../../harness/setup/variables.ts');
    const read = [...readFileSync('sandbox/cli.ts', 'utf8').matchAll(/process\.env\.([A-Z_]+)/g)].map((m) => m[1]!);
    expect(read.length).toBeGreaterThan(0);
    expect(read.filter((name) => !(VARIABLE_NAMES as readonly string[]).includes(name))).toEqual([]);
  });
});
