/**
 * The contract validator: spec/openapi.yaml compiled with ajv (JSON Schema 2020-12, strict) into one validator per
 * request body, response and webhook.
 *
 *   const contract = await loadContract();            // parsed, dereferenced and compiled once per process
 *   contract.validateResponse('createPaymentLink', 200, body)   // → Violation[] ([] = conforms)
 *   contract.validateRequest('purchaseQuickPay', body)
 *   contract.validateWebhook(body)
 *   contract.operations.getTransaction                  // { method, path, server, security, clauses }
 *
 * Each violation names the JSON pointer of the offending value, the failing keyword, a message that never quotes
 * a string value (responses carry secrets), and the clause ids of the nearest `x-clause` above the failing keyword.
 * Its severity follows those clauses' kinds (spec/clauses.yaml): `observe` when every one is a description or an
 * observation (a format the spec only describes), else `fail`.
 * Responses the contract marks `x-unspecified` (error bodies: the spec does not show them) accept anything.
 * A required response field that accepts null and is left out (a serializer that ignores nulls) is not a missing
 * field: the spec types it nullable but does not say a null is written out. Every such field of a body is one
 * observation under NULLABLE_OMITTED (docs/decisions.md, "Null and absent"); any other missing field still fails.
 */
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { OpenAPI } from 'openapi-types';
import type { OperationId } from '../../spec/types.ts';
import { loadClauses, OBSERVED_KINDS } from '../../spec/clauses.ts';

export type { OperationId };

export interface Violation {
  /** JSON pointer of the offending value ('' = the whole body); for a missing field, where it should be. */
  path: string;
  message: string;
  /** The JSON Schema keyword that failed (type, required, minimum, format, anyOf, …). */
  keyword: string;
  /** Clause ids of spec/clauses.yaml. */
  clause: string[];
  /** `observe`: every clause named is a description or an observation; the suite records it, never fails on it. */
  severity: 'fail' | 'observe';
}

export type AuthKind = 'bearer' | 'account';

export interface OperationMeta {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH';
  /** Path template relative to its server, e.g. `/EnlacePago/{id}/activar`. */
  path: string;
  /** `base` = {base_url}, `auth` = {auth_url}. */
  server: 'base' | 'auth';
  /** Alternatives, each a list of schemes used together; [] = no API auth (the token endpoint). */
  security: AuthKind[][];
  clauses: string[];
  /** The type clause of its success body (the 2XX schema's x-clause, e.g. 4.1-response-fields); else `clauses`. */
  typeClauses: string[];
}

/** An operation id of the contract; any other string is accepted by the types and refused at run time. */
export type OperationName = OperationId | (string & {});

export interface Contract {
  readonly operations: Readonly<Record<OperationId, OperationMeta>> & Readonly<Record<string, OperationMeta>>;
  /** Throws on an unknown operationId (a bug in the caller, not a finding). */
  validateResponse(operationId: OperationName, status: number, body: unknown): Violation[];
  validateRequest(operationId: OperationName, body: unknown): Violation[];
  validateWebhook(body: unknown): Violation[];
  /** The dereferenced schema of an operation's success (2XX) body, or undefined (tolerant reading follows it). */
  successSchema(operationId: OperationName): Readonly<Record<string, unknown>> | undefined;
  /** The dereferenced schema of the webhook body. */
  readonly webhookSchema: Readonly<Record<string, unknown>>;
  /** The type clause of the webhook body (6.1-webhook-transaction-data). */
  readonly webhookTypeClauses: string[];
  /** The dereferenced document (read-only use: examples, descriptions). */
  readonly document: OpenAPI.Document;
}

export const OPENAPI_PATH = new URL('../../spec/openapi.yaml', import.meta.url);

/** OpenAPI keywords and our extensions that may appear in a schema; registered so strict mode accepts them. */
const SCHEMA_ANNOTATIONS = ['example', 'discriminator', 'xml', 'externalDocs', 'x-clause', 'x-spec-conflict', 'x-unspecified'];

/** The clause (kind description) of a nullable response field left out, observed once per body. */
export const NULLABLE_OMITTED = '2-nullable-omitted';

const SCHEMES: Record<string, AuthKind> = { bearerToken: 'bearer', accountCredentials: 'account' };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Compiled {
  schema: Obj;
  validate: ValidateFunction;
  fallback: string[];
  /** The clause is of an observed kind (description, observation). */
  observed: (id: string) => boolean;
}

interface CompiledOperation {
  meta: OperationMeta;
  request?: Compiled;
  /** By response key ('2XX', 'default', '404', …); undefined = anything goes. */
  responses: Map<string, Compiled | undefined>;
}

let cached: Promise<Contract> | undefined;

/**
 * The contract of spec/openapi.yaml, built on first use and shared by every caller in the process. Its schemas are
 * compiled when first used: a run's first tests start sooner, and the rest compile while tests wait on the network
 * (`npm run spec:check` compiles every one).
 */
export function loadContract(): Promise<Contract> {
  cached ??= createContract(undefined, { lazy: true }).catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

/**
 * Builds a fresh contract (new ajv instance) from a parsed document, or from spec/openapi.yaml; `lazy`: each schema
 * compiled on first use.
 */
export async function createContract(document?: unknown, options: { lazy?: boolean } = {}): Promise<Contract> {
  // from the file, swagger-parser's own YAML reader is several times faster than the yaml package; dereference
  // mutates its input and keeps shared sub-schemas shared (no copies)
  const source = document === undefined ? fileURLToPath(OPENAPI_PATH) : (structuredClone(document) as OpenAPI.Document);
  const doc = (await SwaggerParser.dereference(source)) as unknown as Obj;

  // strict: unknown keywords and formats are errors (the OpenAPI ones are registered below). strictRequired is off
  // because a rule's allOf branch lists required fields without repeating their properties. Skipping ajv's code
  // optimisation halves the cold compile time for ~0.1 µs more per validation.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { optimize: false } });
  addFormatsPlugin.default(ajv);
  // 4.4 types fechaTransaccion as a .NET DateTime: ISO 8601 whose offset may be missing
  ajv.addFormat('date-time-optional-offset', fullFormats['iso-date-time']);
  ajv.addVocabulary(SCHEMA_ANNOTATIONS);

  const kinds = new Map(loadClauses().map((c) => [c.id, c.kind]));
  const observed = (id: string): boolean => OBSERVED_KINDS.includes(kinds.get(id)!);
  const compile = (schema: unknown, fallback: string[]): Compiled | undefined => {
    if (!isObj(schema)) return undefined;
    if (!options.lazy) return { schema, validate: ajv.compile(schema), fallback, observed };
    let validate: ValidateFunction | undefined;
    return {
      schema,
      get validate() {
        return (validate ??= ajv.compile(schema));
      },
      fallback,
      observed,
    };
  };

  const operations = new Map<string, CompiledOperation>();
  let webhook: Compiled | undefined;
  const collect = (items: unknown, isWebhook: boolean) => {
    if (!isObj(items)) return;
    for (const [path, item] of Object.entries(items)) {
      if (!isObj(item)) continue;
      for (const [method, op] of Object.entries(item)) {
        if (!isObj(op) || typeof op.operationId !== 'string' || !isObj(op.responses)) continue;
        const clauses = clauseList(op['x-clause']);
        const request = compile(mediaSchema(op.requestBody), clauses);
        if (isWebhook) {
          webhook = request;
          continue;
        }
        const responses = new Map<string, Compiled | undefined>();
        for (const [key, response] of Object.entries(op.responses)) {
          responses.set(key, isObj(response) && response['x-unspecified'] !== true ? compile(mediaSchema(response), clauses) : undefined);
        }
        const success = [...responses].find(([key]) => key.startsWith('2'))?.[1];
        const typeClauses = success ? clauseList(success.schema['x-clause']) : [];
        const servers = Array.isArray(item.servers) ? item.servers : [];
        const security = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [];
        operations.set(op.operationId, {
          meta: {
            method: method.toUpperCase() as OperationMeta['method'],
            path,
            server: servers.some((s) => isObj(s) && String(s.url).includes('{auth_url}')) ? 'auth' : 'base',
            security: security.filter(isObj).map((alternative) => Object.keys(alternative).map((name) => schemeKind(name))),
            clauses,
            typeClauses: typeClauses.length > 0 ? typeClauses : clauses,
          },
          request,
          responses,
        });
      }
    }
  };
  collect(doc.paths, false);
  collect(doc.webhooks, true);
  if (!webhook) throw new Error('spec/openapi.yaml has no webhook request body schema (webhooks.transactionSucceeded)');
  const webhookValidator = webhook;

  const operation = (operationId: string): CompiledOperation => {
    const op = operations.get(operationId);
    if (!op) throw new Error(`unknown operationId "${operationId}"; the contract has ${[...operations.keys()].join(', ')}`);
    return op;
  };

  return {
    operations: Object.freeze(
      Object.fromEntries([...operations].map(([id, op]) => [id, Object.freeze(op.meta)])),
    ) as Contract['operations'],
    document: doc as unknown as OpenAPI.Document,
    validateRequest(operationId, body) {
      const { request } = operation(operationId);
      return request ? run(request, body) : [];
    },
    validateResponse(operationId, status, body) {
      const op = operation(operationId);
      const key = [String(status), `${Math.floor(status / 100)}XX`, 'default'].find((k) => op.responses.has(k));
      if (key === undefined) {
        return [
          {
            path: '',
            message: `status ${status} is not a response of ${operationId}`,
            keyword: 'status',
            clause: op.meta.clauses,
            severity: 'fail',
          },
        ];
      }
      const compiled = op.responses.get(key);
      return compiled ? run(compiled, body, { nullableOmitted: true }) : [];
    },
    validateWebhook(body) {
      return run(webhookValidator, body);
    },
    webhookTypeClauses: clauseList(webhookValidator.schema['x-clause']),
    successSchema(operationId) {
      return [...operation(operationId).responses].find(([key]) => key.startsWith('2'))?.[1]?.schema;
    },
    webhookSchema: webhookValidator.schema,
  };
}

function schemeKind(name: string): AuthKind {
  const kind = SCHEMES[name];
  if (!kind) throw new Error(`spec/openapi.yaml uses security scheme "${name}", which the contract does not know`);
  return kind;
}

function clauseList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function mediaSchema(holder: unknown): unknown {
  if (!isObj(holder) || !isObj(holder.content)) return undefined;
  const media = Object.values(holder.content)[0];
  return isObj(media) ? media.schema : undefined;
}

function run(compiled: Compiled, data: unknown, read: { nullableOmitted?: boolean } = {}): Violation[] {
  if (compiled.validate(data)) return [];
  const errors = relevantErrors(compiled.validate.errors ?? [], compiled.schema, data);
  const omitted = read.nullableOmitted ? errors.filter((e) => e.keyword === 'required' && nullableProperty(compiled.schema, e)) : [];
  const violations = errors.filter((e) => !omitted.includes(e)).map((error) => toViolation(error, compiled, data));
  return omitted.length > 0 ? [...violations, nullablesOmitted(omitted, compiled)] : violations;
}

/**
 * The required fields a body leaves out whose schema accepts null, as one observation: the first one's pointer, and
 * every field named once (array indices folded to `*`, at most five shown).
 */
function nullablesOmitted(errors: ErrorObject[], compiled: Compiled): Violation {
  const paths = errors.map((e) => `${e.instancePath}/${escapePointer(String(e.params.missingProperty))}`);
  const fields = [...new Set(paths.map((p) => p.replace(/\/\d+(?=\/)/g, '/*')))];
  const shown = fields.length > 5 ? `${fields.slice(0, 5).join(', ')}, …` : fields.join(', ');
  const clause = [NULLABLE_OMITTED];
  return {
    path: paths[0]!,
    message: `left out: a nullable field, read as null${paths.length > 1 ? ` (${paths.length} in this body: ${shown})` : ''}`,
    keyword: 'required',
    clause,
    severity: clause.every(compiled.observed) ? 'observe' : 'fail',
  };
}

/** The missing property of a `required` error is typed nullable where its object (or an enclosing one) declares it. */
function nullableProperty(root: Obj, error: ErrorObject): boolean {
  const name = String(error.params.missingProperty);
  const segments = error.schemaPath.replace(/^#\/?/, '').split('/').slice(0, -1);
  // the object holding `required`, then each enclosing schema: a rule's allOf branch lists fields its object declares
  for (let n = segments.length; n >= 0; n--) {
    const owner = at(root, segments.slice(0, n).join('/'));
    const property = isObj(owner) && isObj(owner.properties) ? owner.properties[name] : undefined;
    if (property !== undefined) return acceptsNull(property);
    if (isObj(owner) && owner.type !== undefined && n < segments.length) return false;
  }
  return false;
}

/** The schema accepts null: `null` among its types or enum values, or a branch of its anyOf/oneOf that does. */
function acceptsNull(schema: unknown): boolean {
  if (!isObj(schema)) return false;
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (schema.const === null) return true;
  const branches = [...(Array.isArray(schema.anyOf) ? schema.anyOf : []), ...(Array.isArray(schema.oneOf) ? schema.oneOf : [])];
  return branches.some(acceptsNull);
}

/**
 * ajv reports a failed anyOf/oneOf with the errors of every branch. When exactly one branch has the value's JSON
 * type (a nullable reference, string-or-int), that branch's errors are the useful ones; otherwise the combinator's
 * own error is (e.g. "at least one payment form must be true"). A missing field is reported once, and a value of
 * the wrong type only for its type.
 */
function relevantErrors(errors: ErrorObject[], root: Obj, data: unknown): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  const combinators = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const combinator of combinators) {
    if (dropped.has(combinator)) continue;
    const branches = at(root, combinator.schemaPath);
    const value = pointerGet(data, combinator.instancePath);
    const matching = Array.isArray(branches) ? branches.flatMap((b, i) => (hasType(b, value) ? [i] : [])) : [];
    const prefix = `${combinator.schemaPath}/`;
    const keep = matching.length === 1 ? `${prefix}${matching[0]}/` : undefined;
    for (const error of errors) {
      if (error.schemaPath.startsWith(prefix) && !(keep && error.schemaPath.startsWith(keep))) dropped.add(error);
    }
    if (keep) dropped.add(combinator);
  }
  // a value of the wrong type also fails its schema's enum/const: the type error says it all
  const mistyped = new Set(
    errors.filter((e) => e.keyword === 'type').map((e) => `${e.instancePath}|${e.schemaPath.replace(/\/type$/, '')}`),
  );
  for (const error of errors) {
    if (error.keyword !== 'type' && mistyped.has(`${error.instancePath}|${error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/'))}`))
      dropped.add(error);
  }
  // a field required both by its object and by a rule's allOf branch: keep the branch's (deeper) error
  const required = new Map<string, ErrorObject>();
  for (const error of errors) {
    if (error.keyword !== 'required' || dropped.has(error)) continue;
    const key = `${error.instancePath}/${String(error.params.missingProperty)}`;
    const seen = required.get(key);
    if (seen) dropped.add(seen.schemaPath.length < error.schemaPath.length ? seen : error);
    if (!seen || seen.schemaPath.length < error.schemaPath.length) required.set(key, error);
  }
  return errors.filter((e) => !dropped.has(e));
}

/** Keywords a description clause covers: what a string looks like. Any other keyword is judged as a type or rule. */
const DESCRIBED_KEYWORDS = ['format', 'pattern'];

function toViolation(error: ErrorObject, compiled: Compiled, data: unknown): Violation {
  const owner = at(compiled.schema, error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/')));
  const skip = DESCRIBED_KEYWORDS.includes(error.keyword) ? () => false : compiled.observed;
  const clause = nearestClause(compiled.schema, error.schemaPath, skip) ?? compiled.fallback;
  const severity = clause.length > 0 && clause.every(compiled.observed) ? 'observe' : 'fail';
  if (error.keyword === 'required') {
    const missing = String(error.params.missingProperty);
    return {
      path: `${error.instancePath}/${escapePointer(missing)}`,
      message: `required field ${missing} is missing`,
      keyword: 'required',
      clause,
      severity,
    };
  }
  let keyword = error.keyword;
  let message = error.message ?? keyword;
  if (keyword === 'type') message = `must be ${String(error.params.type).split(',').join(' or ')}`;
  if (keyword === 'enum') message = `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (keyword === 'const') message = `must be ${JSON.stringify(error.params.allowedValue)}`;
  if ((keyword === 'anyOf' || keyword === 'oneOf') && isObj(owner)) {
    const branches = Array.isArray(owner[keyword]) ? (owner[keyword] as unknown[]) : [];
    const types = branches.map((b) => (isObj(b) ? b.type : undefined));
    if (types.length > 0 && types.every((t) => typeof t === 'string')) {
      // a nullable reference (X or null) whose value has neither type: a plain type violation
      keyword = 'type';
      message = `must be ${types.join(' or ')}`;
    } else if (typeof owner.description === 'string') {
      message = owner.description.replace(/\.$/, '');
    }
  }
  return {
    path: error.instancePath,
    message: `${message} (got ${describe(pointerGet(data, error.instancePath))})`,
    keyword,
    clause,
    severity,
  };
}

/**
 * The x-clause nearest to the failing keyword on its schema path (the keyword's own schema first), passing over an
 * x-clause whose ids are all `skip`ped (a description clause, for a keyword other than format or pattern).
 */
function nearestClause(root: Obj, schemaPath: string, skip: (id: string) => boolean): string[] | undefined {
  let node: unknown = root;
  const usable = (value: unknown) => {
    const ids = clauseList(value);
    return ids.length > 0 && !ids.every(skip) ? ids : undefined;
  };
  let found = usable(root['x-clause']);
  for (const segment of schemaPath.replace(/^#\/?/, '').split('/')) {
    node = step(node, segment);
    if (isObj(node)) found = usable(node['x-clause']) ?? found;
  }
  return found;
}

function at(root: unknown, schemaPath: string): unknown {
  let node = root;
  for (const segment of schemaPath.replace(/^#\/?/, '').split('/')) if (segment !== '') node = step(node, segment);
  return node;
}

/** One segment of an ajv schemaPath: a JSON pointer segment inside a URI fragment. */
function step(node: unknown, segment: string): unknown {
  return child(node, unescapePointer(decodeURIComponent(segment)));
}

/** The value at a JSON pointer (ajv's instancePath). */
function pointerGet(data: unknown, pointer: string): unknown {
  let node = data;
  for (const segment of pointer.split('/').slice(1)) node = child(node, unescapePointer(segment));
  return node;
}

function child(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return node[Number(key)];
  return isObj(node) ? node[key] : undefined;
}

const unescapePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function hasType(schema: unknown, value: unknown): boolean {
  if (!isObj(schema) || schema.type === undefined) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return types.some((t) => t === actual || (t === 'integer' && Number.isInteger(value)));
}

/** Describes a value without quoting strings: a response may carry a secret where a number was due. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  return 'an object';
}
