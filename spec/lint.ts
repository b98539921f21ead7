/**
 * Lint of the contract (openapi.yaml, as parsed, before dereferencing) and the clause catalogue (clauses.yaml).
 * `lintSpec` returns one line per problem, "where: what"; `npm run spec:check` prints them and fails on any.
 *
 * What it enforces:
 * - every API operation has an operationId, an `x-clause`, and a `2XX` response with an application/json schema;
 * - every owner of a rule keyword (bounds, lengths, pattern, enum, const, anyOf/oneOf/not, and `required` inside a
 *   combinator, i.e. a cross-field rule) carries `x-clause`. A branch of anyOf/oneOf/not counts as owned by the
 *   schema holding the combinator; allOf branches are owners of their own (allOf is how a second rule gets its own
 *   clause). `anyOf: [X, {type: 'null'}]` is a nullable type, not a rule;
 * - every `x-clause` id exists in clauses.yaml, and one of kind `description` (a format the spec only describes,
 *   observed, never failed) sits on a schema with a `format` or `pattern`, the only keywords it covers;
 * - clauses have id/section/text/kind, unique well-formed ids whose prefix is the section, a known kind, a section
 *   that exists in the spec document, and a `text` that occurs in it (ignoring markdown, table pipes and
 *   whitespace; fragments may be joined with "…"). Kind `security` (tenant isolation, which the spec does not
 *   state) is exempt from the section and quote checks: its id is `security-<slug>`, its section `security`, and its
 *   text cites OWASP API1:2023.
 */
import { CLAUSE_KINDS } from './clauses.ts';

export interface LintInput {
  /** openapi.yaml as parsed (with its $refs). */
  document: unknown;
  /** clauses.yaml as parsed. */
  clauses: unknown;
  /** The spec's markdown; when absent, section and quote checks are skipped. */
  specText?: string;
}

export interface LintResult {
  problems: string[];
  counts: { operations: number; webhooks: number; schemas: number; clauseRefs: number; clauses: number; quotesVerified: number };
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const RULE_KEYWORDS = [
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'not',
  'dependentRequired',
];

const CLAUSE_ID = /^(\d+(?:\.\d+)*)-[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SECURITY_ID = /^security-[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Markdown → comparable text: no backticks/emphasis/heading marks/table pipes, single spaces. */
export function normalizeSpecText(text: string): string {
  return text
    .replace(/`|\*\*|__/g, '')
    .replace(/^#+\s*/gm, '')
    .replace(/\|/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Section ids of the spec: headings (`## 4. …` → 4, `### 4.1 …` → 4.1) and the numbered items of a `##` section
 * that has no `###` subsections (section 5's "1. Token request" → 5.1, section 6's "3. Redirect" → 6.3).
 */
export function specSections(specText: string): Set<string> {
  const sections = new Set<string>();
  let current: string | undefined;
  let items: string[] = [];
  let hasSub = false;
  const flush = () => {
    if (current && !hasSub) for (const n of items) sections.add(`${current}.${n}`);
  };
  for (const line of specText.split('\n')) {
    const top = /^##\s+(\d+)\.?\s/.exec(line);
    const sub = /^###\s+(\d+(?:\.\d+)+)\.?\s/.exec(line);
    const item = /^(\d+)\.\s/.exec(line);
    if (top?.[1]) {
      flush();
      current = top[1];
      items = [];
      hasSub = false;
      sections.add(current);
    } else if (sub?.[1]) {
      hasSub = true;
      sections.add(sub[1]);
    } else if (item?.[1] && current) {
      items.push(item[1]);
    }
  }
  flush();
  return sections;
}

export function lintSpec({ document, clauses, specText }: LintInput): LintResult {
  const problems: string[] = [];
  const counts = { operations: 0, webhooks: 0, schemas: 0, clauseRefs: 0, clauses: 0, quotesVerified: 0 };
  const ids = lintClauses(clauses, specText, problems, counts);

  if (!isObj(document)) {
    problems.push('openapi.yaml: not a YAML mapping');
    return { problems, counts };
  }
  const resolve = (v: unknown): unknown => {
    // local refs only ('#/components/…'); enough for responses and request bodies
    if (isObj(v) && typeof v.$ref === 'string' && v.$ref.startsWith('#/')) {
      let node: unknown = document;
      for (const seg of v.$ref.slice(2).split('/')) node = isObj(node) ? node[seg.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
      return node;
    }
    return v;
  };

  const operationIds = new Set<string>();
  const lintOperations = (items: unknown, base: string, isWebhook: boolean) => {
    if (!isObj(items)) return;
    for (const [name, rawItem] of Object.entries(items)) {
      const item = resolve(rawItem);
      if (!isObj(item)) continue;
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!isObj(op)) continue;
        const where = `${base}.${name}.${method}`;
        if (isWebhook) counts.webhooks++;
        else counts.operations++;
        if (typeof op.operationId !== 'string') problems.push(`${where}: no operationId`);
        else if (operationIds.has(op.operationId)) problems.push(`${where}: duplicate operationId ${op.operationId}`);
        else operationIds.add(op.operationId);
        if (op['x-clause'] === undefined) problems.push(`${where}: operation without x-clause`);
        if (isWebhook) {
          if (!jsonSchemaOf(resolve(op.requestBody))) problems.push(`${where}: webhook without an application/json request body schema`);
        } else {
          const responses = isObj(op.responses) ? op.responses : {};
          if (!jsonSchemaOf(resolve(responses['2XX']))) problems.push(`${where}: no '2XX' response with an application/json schema`);
        }
        for (const [i, param] of (Array.isArray(op.parameters) ? op.parameters : []).entries()) {
          const p = resolve(param);
          if (isObj(p)) lintSchema(p.schema, `${where}.parameters[${i}].schema`, problems);
        }
        const body = resolve(op.requestBody);
        forEachMediaSchema(body, `${where}.requestBody`, (schema, at) => lintSchema(schema, at, problems));
        if (isObj(op.responses)) {
          for (const [status, response] of Object.entries(op.responses)) {
            forEachMediaSchema(resolve(response), `${where}.responses.${status}`, (schema, at) => lintSchema(schema, at, problems));
          }
        }
      }
    }
  };
  lintOperations(document.paths, 'paths', false);
  lintOperations(document.webhooks, 'webhooks', true);

  const components = isObj(document.components) ? document.components : {};
  if (isObj(components.schemas)) {
    for (const [name, schema] of Object.entries(components.schemas)) {
      counts.schemas++;
      lintSchema(schema, `components.schemas.${name}`, problems);
    }
  }
  if (isObj(components.responses)) {
    for (const [name, response] of Object.entries(components.responses)) {
      forEachMediaSchema(response, `components.responses.${name}`, (schema, at) => lintSchema(schema, at, problems));
    }
  }

  const described = new Set(
    Array.isArray(clauses) ? clauses.filter((c) => isObj(c) && c.kind === 'description').map((c) => (c as Obj).id) : [],
  );
  forEachClauseRef(document, '', (value, where, holder) => {
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || list.length === 0 || !list.every((v) => typeof v === 'string')) {
      problems.push(`${where}: x-clause must be a clause id or a non-empty list of ids`);
      return;
    }
    for (const id of list as string[]) {
      counts.clauseRefs++;
      if (!ids.has(id)) problems.push(`${where}: x-clause names "${id}", which is not in clauses.yaml`);
      else if (described.has(id) && !('format' in holder) && !('pattern' in holder)) {
        problems.push(`${where}: x-clause names the description "${id}", which covers only a format or pattern, on a schema with neither`);
      }
    }
  });
  return { problems, counts };
}

function lintClauses(clauses: unknown, specText: string | undefined, problems: string[], counts: LintResult['counts']): Set<string> {
  const ids = new Set<string>();
  if (!Array.isArray(clauses)) {
    problems.push('clauses.yaml: must be a YAML list of {id, section, text, kind}');
    return ids;
  }
  const sections = specText === undefined ? undefined : specSections(specText);
  const spec = specText === undefined ? undefined : normalizeSpecText(specText);
  for (const [i, entry] of clauses.entries()) {
    const where = `clauses.yaml[${i}]${isObj(entry) && typeof entry.id === 'string' ? ` (${entry.id})` : ''}`;
    if (!isObj(entry)) {
      problems.push(`${where}: not a mapping`);
      continue;
    }
    counts.clauses++;
    const fields = ['id', 'section', 'text', 'kind'] as const;
    for (const field of fields) {
      if (typeof entry[field] !== 'string' || (entry[field] as string).trim() === '') problems.push(`${where}: missing ${field}`);
    }
    for (const key of Object.keys(entry)) {
      if (!(fields as readonly string[]).includes(key)) problems.push(`${where}: unknown field ${key}`);
    }
    const { id, section, text, kind } = entry;
    // Security checks are not spec clauses (the spec states no tenant isolation): their own id form, section and source.
    if (kind === 'security') {
      if (typeof id === 'string' && ids.has(id)) problems.push(`${where}: duplicate id`);
      if (typeof id === 'string') ids.add(id);
      if (typeof id !== 'string' || !SECURITY_ID.test(id))
        problems.push(`${where}: a security check's id must be security-<slug> in lowercase, e.g. security-tenant-transaction-read`);
      if (section !== 'security') problems.push(`${where}: a security check's section must be "security" (it is no section of the spec)`);
      if (typeof text !== 'string' || !text.includes('OWASP API1:2023'))
        problems.push(`${where}: a security check's text must cite its source, OWASP API1:2023 (Broken Object Level Authorization)`);
      continue;
    }
    if (typeof id === 'string') {
      if (ids.has(id)) problems.push(`${where}: duplicate id`);
      ids.add(id);
      const match = CLAUSE_ID.exec(id);
      if (!match) problems.push(`${where}: id must be <section>-<slug> in lowercase, e.g. 4.1-monto-min`);
      else if (typeof section === 'string' && match[1] !== section)
        problems.push(`${where}: id does not start with its section ${section}`);
    }
    if (typeof kind === 'string' && !(CLAUSE_KINDS as readonly string[]).includes(kind)) {
      problems.push(`${where}: unknown kind "${kind}" (one of ${CLAUSE_KINDS.join(', ')})`);
    }
    if (sections && typeof section === 'string' && section !== '' && !sections.has(section)) {
      problems.push(`${where}: section ${section} does not exist in the spec`);
    }
    if (spec !== undefined && typeof text === 'string' && text.trim() !== '') {
      const missing = text
        .split('…')
        .map(normalizeSpecText)
        .filter((fragment) => !spec.includes(fragment));
      if (missing.length > 0) problems.push(`${where}: text not found in the spec: "${missing[0]}"`);
      else counts.quotesVerified++;
    }
  }
  return ids;
}

function jsonSchemaOf(responseOrBody: unknown): unknown {
  if (!isObj(responseOrBody) || !isObj(responseOrBody.content)) return undefined;
  const media = responseOrBody.content['application/json'];
  return isObj(media) ? media.schema : undefined;
}

function forEachMediaSchema(holder: unknown, where: string, visit: (schema: unknown, where: string) => void): void {
  if (!isObj(holder) || !isObj(holder.content)) return;
  for (const [type, media] of Object.entries(holder.content)) {
    if (isObj(media)) visit(media.schema, `${where}.content.${type}.schema`);
  }
}

/** A nullable type written as `anyOf: [X, {type: 'null'}]` — a type, not a rule. */
function isNullableWrapper(branches: unknown): boolean {
  if (!Array.isArray(branches)) return false;
  const nullBranches = branches.filter((b) => isObj(b) && b.type === 'null' && Object.keys(b).length === 1);
  return branches.length >= 2 && nullBranches.length === branches.length - 1;
}

/**
 * anchored: this schema's rules belong to an owner above it (it is inside an anyOf/oneOf/not branch).
 * inCombinator: inside a branch, where `required` is a cross-field rule and property edges do not start a new owner.
 */
function lintSchema(schema: unknown, where: string, problems: string[], anchored = false, inCombinator = false): void {
  if (!isObj(schema)) return;
  const covered = anchored || schema['x-clause'] !== undefined;
  for (const keyword of RULE_KEYWORDS) {
    if (!(keyword in schema) || covered) continue;
    if ((keyword === 'anyOf' || keyword === 'oneOf') && isNullableWrapper(schema[keyword])) continue;
    problems.push(`${where}: ${keyword} without x-clause`);
  }
  if (inCombinator && 'required' in schema && !covered) problems.push(`${where}: required (a cross-field rule) without x-clause`);

  const child = (value: unknown, at: string, childAnchored: boolean, childInCombinator: boolean) =>
    lintSchema(value, at, problems, childAnchored, childInCombinator);
  // A property of a plain object schema is a new owner; inside a combinator branch it stays part of the rule.
  const nested = inCombinator && covered;
  for (const key of ['properties', 'patternProperties', 'dependentSchemas', '$defs']) {
    const map = schema[key];
    if (isObj(map)) for (const [name, sub] of Object.entries(map)) child(sub, `${where}.${key}.${name}`, nested, inCombinator);
  }
  for (const key of ['items', 'additionalProperties', 'contains', 'propertyNames', 'unevaluatedProperties']) {
    child(schema[key], `${where}.${key}`, nested, inCombinator);
  }
  if (Array.isArray(schema.prefixItems))
    schema.prefixItems.forEach((sub, i) => child(sub, `${where}.prefixItems[${i}]`, nested, inCombinator));
  // the branches belong to the rule of the schema holding the combinator, which is reported above if unclaused
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) branches.forEach((sub, i) => child(sub, `${where}.${key}[${i}]`, true, true));
  }
  for (const key of ['not', 'if', 'then', 'else']) child(schema[key], `${where}.${key}`, true, true);
  if (Array.isArray(schema.allOf)) schema.allOf.forEach((sub, i) => child(sub, `${where}.allOf[${i}]`, false, true));
}

function forEachClauseRef(node: unknown, where: string, visit: (value: unknown, where: string, holder: Obj) => void): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => forEachClauseRef(item, `${where}[${i}]`, visit));
  } else if (isObj(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'x-clause') visit(value, where || '(root)', node);
      else if (key !== 'examples' && key !== 'example') forEachClauseRef(value, where ? `${where}.${key}` : key, visit);
    }
  }
}
