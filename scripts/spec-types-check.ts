/**
 * npm run spec:types:check — regenerates the types of spec/openapi.yaml into a temporary file with the same
 * openapi-typescript CLI as `npm run spec:types`, and fails if spec/types.gen.ts differs (stale or hand-edited).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const committed = join(root, 'spec/types.gen.ts');
const cli = join(createRequire(import.meta.url).resolve('openapi-typescript/package.json'), '../bin/cli.js');

function regenerate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spec-types-'));
  try {
    const fresh = join(dir, 'types.gen.ts');
    // same arguments as package.json's spec:types, run from the repo root so the output is byte-identical
    execFileSync(process.execPath, [cli, 'spec/openapi.yaml', '-o', fresh], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    return readFileSync(fresh, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const expected = regenerate();
const actual = existsSync(committed) ? readFileSync(committed, 'utf8') : undefined;
if (actual === undefined) {
  console.error('spec/types.gen.ts is missing: run `npm run spec:types`');
  process.exitCode = 1;
} else if (actual !== expected) {
  const a = actual.split('\n');
  const line = expected.split('\n').findIndex((text, i) => text !== a[i]);
  console.error(`spec/types.gen.ts is stale (first difference at line ${line < 0 ? a.length : line + 1}): run \`npm run spec:types\``);
  process.exitCode = 1;
} else {
  console.log('spec:types:check OK: spec/types.gen.ts matches spec/openapi.yaml');
}
