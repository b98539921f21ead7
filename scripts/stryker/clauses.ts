/**
 * The clause a mutated line of the sandbox serves, for the summary of `npm run mutation:stryker`: the nearest comment
 * above it (or on it) that cites a clause id of spec/clauses.yaml or a section of the spec, else the file's own
 * opening comment. The sandbox's comments cite the spec where the code implements it; a mutant whose nearest citation
 * is wrong names the wrong clause, so the triage file states its clause itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

let known: { ids: Set<string>; sections: Set<string> } | undefined;

/** The clause ids and sections of spec/clauses.yaml. */
export function catalogue(root: string): { ids: Set<string>; sections: Set<string> } {
  if (!known) {
    const entries = parse(readFileSync(join(root, 'spec', 'clauses.yaml'), 'utf8')) as { id: string; section: string }[];
    known = { ids: new Set(entries.map((e) => e.id)), sections: new Set(entries.map((e) => String(e.section))) };
  }
  return known;
}

const files = new Map<string, string[]>();
const COMMENT = /^\s*(\/\/|\/\*\*?|\*)|\/\/|\/\*/;
const ID = /\b([2-8](?:\.\d{1,2})?-[a-z0-9-]+)/g;
const SECTION = /(?<![\d.^])([2-8](?:\.\d{1,2})?)(?![\d%^]|\.\d)/g;

function citation(line: string, root: string): string | undefined {
  const at = line.search(COMMENT);
  if (at === -1) return undefined;
  const text = line.slice(at);
  const { ids, sections } = catalogue(root);
  for (const m of text.matchAll(ID)) if (ids.has(m[1]!)) return m[1];
  for (const m of text.matchAll(SECTION)) if (sections.has(m[1]!)) return m[1];
  return undefined;
}

/** `<clause> (file:line of the comment citing it)` for a mutant key (`file:line:col-… mutator replacement`). */
export function clauseOf(root: string, key: string): string {
  const [file, line] = key.split(':') as [string, string];
  let lines = files.get(file);
  if (!lines) {
    lines = readFileSync(join(root, file), 'utf8').split('\n');
    files.set(file, lines);
  }
  // The key's line counts from 0.
  for (let i = Number(line); i >= 0; i--) {
    const found = citation(lines[i] ?? '', root);
    if (found) return `${found} (${file}:${i + 1})`;
  }
  return 'no clause cited';
}
