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
