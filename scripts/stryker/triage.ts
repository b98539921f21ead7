/**
 * sandbox/mutation-triage.yaml, read by `npm run mutation:stryker`: one entry per surviving mutant that must not be
 * killed, because it is equivalent or because the spec leaves the reading open. Never a parking lot: an entry is
 * refused (exit 2) without `where`, `mutator`, a `clause` of spec/clauses.yaml (id or section) and a `reason` that
 * says which it is — `equivalent: …`, or `open reading: …` with the `variant` of sandbox/variants.ts that proves the
 * other reading passes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { VARIANTS } from '../../sandbox/variants.ts';
import { catalogue } from './clauses.ts';

export interface TriageEntry {
  /** `file:line:column` of the mutant (as the summary prints it). */
  where: string;
  mutator: string;
  /** The replacement, when several mutants of one mutator share the place. */
  replacement?: string;
  clause: string;
  reason: string;
  variant?: string;
}

export class TriageError extends Error {}

export function loadTriage(path: string, root: string = process.cwd()): TriageEntry[] {
  if (!existsSync(path)) return [];
  const raw = (parse(readFileSync(path, 'utf8')) ?? []) as Partial<TriageEntry>[];
  if (!Array.isArray(raw)) throw new TriageError(`${path}: a list of entries is expected`);
  const { ids, sections } = catalogue(root);
  return raw.map((e, i) => {
    const at = `${path} entry ${i + 1}${e?.where ? ` (${e.where})` : ''}`;
    for (const field of ['where', 'mutator', 'clause', 'reason'] as const)
      if (typeof e?.[field] !== 'string' || e[field].trim() === '') throw new TriageError(`${at}: refused, no ${field}`);
    const entry = e as TriageEntry;
    if (!ids.has(entry.clause) && !sections.has(entry.clause))
      throw new TriageError(`${at}: refused, clause "${entry.clause}" is neither an id nor a section of spec/clauses.yaml`);
    if (!/^(equivalent|open reading):\s*\S.{15,}/.test(entry.reason))
      throw new TriageError(`${at}: refused, the reason must be "equivalent: <why>" or "open reading: <which>" (got "${entry.reason}")`);
    if (entry.reason.startsWith('open reading') && !VARIANTS.some((v) => v.id === entry.variant))
      throw new TriageError(
        `${at}: refused, an open reading names the variant of sandbox/variants.ts that proves the other reading passes`,
      );
    return entry;
  });
}

export function matchTriage(
  entries: TriageEntry[],
  survivor: { where: string; mutator: string; replacement: string },
): TriageEntry | undefined {
  return entries.find(
    (e) =>
      e.where === survivor.where &&
      e.mutator === survivor.mutator &&
      (e.replacement === undefined || e.replacement === survivor.replacement),
  );
}

/**
 * Entries that explain no mutant Stryker makes today (no behaviour mutant at that place with that mutator and
 * replacement): the code moved or changed under them. Such an entry explains nothing and would silently explain
 * whatever lands there next, so the command refuses it until it is moved to its mutant's new place or deleted.
 */
export function staleEntries(entries: TriageEntry[], mutants: { where: string; mutator: string; replacement: string }[]): TriageEntry[] {
  return entries.filter((e) => !mutants.some((m) => matchTriage([e], m) !== undefined));
}
