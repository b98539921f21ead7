/**
 * The clause catalogue (spec/clauses.yaml): the spec's testable statements, each with a stable id that suites cite,
 * `x-clause` in openapi.yaml names, and reports count coverage against. `npm run spec:check` verifies the file;
 * this loader only parses it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const CLAUSE_KINDS = ['rule', 'flow', 'type', 'observation', 'security'] as const;
export type ClauseKind = (typeof CLAUSE_KINDS)[number];

export interface Clause {
  /** `<section>-<slug>`, e.g. `4.1-monto-min`. */
  id: string;
  /** The spec section, e.g. `4.1`, `6.3`, `7`. */
  section: string;
  /** The spec's words, quoted verbatim. */
  text: string;
  /**
   * observation = the spec says "not shown": record, never fail. security = not a spec clause: a tenant-isolation
   * check (OWASP API1:2023), reported under its own heading and switchable to observation (SECURITY_CHECKS=observe).
   */
  kind: ClauseKind;
}

export const CLAUSES_PATH = fileURLToPath(new URL('./clauses.yaml', import.meta.url));

export function loadClauses(path: string = CLAUSES_PATH): Clause[] {
  const parsed: unknown = parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(parsed)) throw new Error(`${path} must be a YAML list of clauses`);
  return parsed as Clause[];
}
