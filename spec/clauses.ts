/**
 * The clause catalogue (spec/clauses.yaml): the spec's testable statements, each with a stable id that suites cite,
 * `x-clause` in openapi.yaml names, and reports count coverage against. `npm run spec:check` verifies the file;
 * this loader only parses it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const CLAUSE_KINDS = ['rule', 'flow', 'type', 'description', 'observation', 'security'] as const;
export type ClauseKind = (typeof CLAUSE_KINDS)[number];

export interface Clause {
  /** `<section>-<slug>`, e.g. `4.1-monto-min`. */
  id: string;
  /** The spec section, e.g. `4.1`, `6.3`, `7`. */
  section: string;
  /** The spec's words, quoted verbatim. */
  text: string;
  /**
   * rule, flow, type = what the spec states: a target that breaks it FAILs. description = a field's description (what
   * a value looks like: an ISO code, an e-mail, a URL) that no stated rule enforces, and observation = the spec says
   * "not shown": both only recorded (WARN), never failed (docs/decisions.md, "Severity"). security = not a spec clause: a tenant-isolation
   * check (OWASP API1:2023), reported under its own heading and switchable to observation (SECURITY_CHECKS=observe).
   */
  kind: ClauseKind;
}

/** Kinds whose violations are only observed (WARN), never failed. */
export const OBSERVED_KINDS: readonly ClauseKind[] = ['description', 'observation'];

export const CLAUSES_PATH = fileURLToPath(new URL('./clauses.yaml', import.meta.url));

export function loadClauses(path: string = CLAUSES_PATH): Clause[] {
  const parsed: unknown = parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(parsed)) throw new Error(`${path} must be a YAML list of clauses`);
  return parsed as Clause[];
}
