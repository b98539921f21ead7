/**
 * Module hooks that run the package's TypeScript files (.ts) in Node 20: each is compiled by rolldown's transformer
 * (oxc) as it is loaded. Used by the installed command instead of tsx, whose esbuild needs an install script: a
 * merchant's `npm install` then warns about nothing. The type annotations are removed; nothing is type-checked.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'rolldown/utils';

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !/\.m?ts$/.test(url) || url.endsWith('.d.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code, map, errors } = transformSync(path, await readFile(path, 'utf8'), { sourcemap: true, target: 'es2022' });
  if (errors.length > 0) throw new SyntaxError(`${path}: ${errors.map((e) => e.message).join('; ')}`);
  const inline = map ? `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}` : '';
  return { format: 'module', source: code + inline, shortCircuit: true };
}
