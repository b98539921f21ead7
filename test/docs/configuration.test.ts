/**
 * docs/configuration.md is generated from the configuration reader (npm run docs:config): it must match what the
 * reader says today, and document every variable of .env.example.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentedVariables, renderConfiguration } from '../../scripts/configuration-doc.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from harness/setup/config.ts', () => {
    expect(read('docs/configuration.md'), 'docs/configuration.md is stale: run `npm run docs:config`').toBe(renderConfiguration());
  });

  it('documents every variable of .env.example', () => {
    const inExample = [...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    const documented = new Set(documentedVariables());
    expect(inExample.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('gives every variable a meaning', () => {
    const doc = read('docs/configuration.md');
    const rows = doc.split('\n').filter((line) => /^\| `[A-Z]/.test(line));
    for (const row of rows) expect(row.split('|').at(-2)?.trim(), row).not.toBe('');
  });
});
