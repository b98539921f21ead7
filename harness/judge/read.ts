/**
 * Tolerant reading (one fault, one finding): what a behaviour test needs from a response, a webhook or a redirect,
 * read in any encoding a real service is known to use (an enum as 0 or "PagoNormal", an int as 1 or "1", a bool as
 * true or "True", a field as monto or Monto). The encoding itself is judged once, by the contract testcases of its
 * type clause; a behaviour test fails here only when the value is unusable, and its message points at that
 * finding instead of repeating it.
 *
 *   const idEnlace = readInt(body, 'idEnlace', '4.1-response-fields', ex);     // 7 or "7" → 7; missing → fails
 *   asEnum(tx.formaPago, 'formaPago') === FORMA_PAGO.PagoNormal                // 0, "0", "PagoNormal" → 0
 *   asBool(record.usable)                                                      // true, "True", 1 → true
 */
import { fail } from './failure.ts';
import type { Exchange } from '../api/http.ts';
import type { Contract } from '../api/contract.ts';

type Clauses = string | string[];

/** Spec 2.2 and 4.7: the enum names of the integers the spec fixes. */
export const ENUMS = {
  formaPago: { PagoNormal: 0, Puntos: 1, Cuotas: 2, Bitcoin: 3, QuickPay: 4 },
  resultadoTransaccion: { ExitosaAprobada: 0, ExitosaDeclinada: 1, Fallida: 2 },
  tipoTransaccion: { MPosChip: 4, MPosContactless: 5 },
} as const satisfies Record<string, Record<string, number>>;
export type EnumName = keyof typeof ENUMS;

export const FORMA_PAGO = ENUMS.formaPago;
export const RESULTADO = ENUMS.resultadoTransaccion;

const squash = (s: string): string => s.replace(/[\s_-]/g, '').toLowerCase();

/** An int sent as a number or a numeric string; undefined when it is neither. */
export function asInt(value: unknown): number | undefined {
  const n = asNumber(value);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}

/** A number sent as a number or a numeric string ("10.00"); undefined when it is neither. */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

/** A bool sent as true/false, "true"/"True"/"FALSE", or 1/0; undefined when it is none of them. */
export function asBool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
  }
  return undefined;
}

/**
 * An enum of the spec as its integer, sent as the integer, a numeric string or its name (any case); undefined for
 * anything else, an integer outside the enum included (7 is no formaPago: the contract testcase reports it).
 */
export function asEnum(value: unknown, name: EnumName): number | undefined {
  const n = asInt(value);
  if (n !== undefined) return (Object.values(ENUMS[name]) as number[]).includes(n) ? n : undefined;
  if (typeof value !== 'string') return undefined;
  const entry = Object.entries(ENUMS[name]).find(([label]) => squash(label) === squash(value));
  return entry?.[1];
}

/** A string, or a number written as one (an id sent as 7 where "7" was due); undefined otherwise. */
export function asString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The one case-folding lookup of the harness: the key of `record` that is `name` — exactly, or (`insensitive`, the
 * default) in any letter case when no key is exactly it (PascalCase payloads, keys a lookup re-cased).
 */
export function keyOf(
  record: Record<string, unknown>,
  name: string,
  fieldCase: 'exact' | 'insensitive' = 'insensitive',
): string | undefined {
  if (name in record) return name;
  if (fieldCase === 'exact') return undefined;
  const lower = name.toLowerCase();
  return Object.keys(record).find((k) => k.toLowerCase() === lower);
}

/** A field of an object by its spec name, or by the same name in another case (PascalCase payloads). */
export function field(body: unknown, name: string, fieldCase: 'exact' | 'insensitive' = 'insensitive'): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const key = keyOf(record, name, fieldCase);
  return key === undefined ? undefined : record[key];
}

/** Describes a value without quoting strings (a response may carry a secret where a number was due). */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return `a string of ${[...value].length} characters`;
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  return value !== null && typeof value === 'object' ? 'an object' : JSON.stringify(value);
}

/** Where the encoding of an unusable value is reported: the contract testcase of the operation that sent it. */
function contractFindingOf(ex?: Exchange): string {
  const label = ex?.label;
  return label ? `the contract testcase of ${label} responses reports its type` : 'the contract testcases report its type';
}

function need<V>(value: V | undefined, raw: unknown, name: string, as: string, clauses: Clauses, ex?: Exchange): V {
  if (value === undefined) {
    fail(
      'usable-field',
      clauses,
      `${name} readable as ${as} (in any common encoding) to judge this behaviour`,
      `${name} is ${shown(raw)}: unusable; ${contractFindingOf(ex)}`,
      ex,
    );
  }
  return value;
}

/** The field as an int, or the test fails naming the contract finding (not a second copy of it). */
export function readInt(body: unknown, name: string, clauses: Clauses, ex?: Exchange): number {
  const raw = field(body, name);
  return need(asInt(raw), raw, name, 'an int', clauses, ex);
}

export function readBool(body: unknown, name: string, clauses: Clauses, ex?: Exchange): boolean {
  const raw = field(body, name);
  return need(asBool(raw), raw, name, 'a bool', clauses, ex);
}

export function readString(body: unknown, name: string, clauses: Clauses, ex?: Exchange): string {
  const raw = field(body, name);
  return need(asString(raw), raw, name, 'a string', clauses, ex);
}

type Schema = Readonly<Record<string, unknown>>;
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A body read the way the contract types it, in any encoding recognised above: each field the schema types as a
 * boolean, int, number or 2.2 enum is converted when readable (left as sent when not), fields are found in any case
 * (PascalCase), other fields are kept. Behaviour tests judge what comes out; the encoding as sent is the contract
 * testcases' finding.
 *
 *   const tx = readAsContract(t.run.contract.successSchema('getTransaction'), ex.response?.json);
 */
export function readAsContract(schema: Schema | undefined, value: unknown, name = ''): unknown {
  if (!schema || value === undefined) return value;
  if (Array.isArray(schema.allOf)) {
    let out: unknown = value;
    for (const branch of schema.allOf) if (isRecord(branch)) out = readAsContract(branch, out, name);
    const { allOf: _allOf, ...rest } = schema;
    return rest.type === undefined && rest.properties === undefined ? out : readAsContract(rest, out, name);
  }
  const alternatives = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined)?.filter(
    isRecord,
  );
  if (alternatives) {
    if (value === null) return null;
    for (const branch of alternatives.filter((b) => b.type !== 'null')) {
      const read = readAsContract(branch, value, name);
      if (read !== value || typeMatches(branch, value)) return read;
    }
    return value;
  }
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t !== 'null' && t !== undefined);
  if (value === null && (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null')))) return null;
  const type = types.length === 1 ? types[0] : isRecord(schema.properties) ? 'object' : undefined;
  switch (type) {
    case 'boolean':
      return asBool(value) ?? value;
    case 'integer':
      return (name in ENUMS ? asEnum(value, name as EnumName) : asInt(value)) ?? value;
    case 'number':
      return asNumber(value) ?? value;
    case 'array':
      return Array.isArray(value) && isRecord(schema.items) ? value.map((v) => readAsContract(schema.items as Schema, v)) : value;
    case 'object': {
      if (!isRecord(value) || !isRecord(schema.properties)) return value;
      const out: Record<string, unknown> = { ...value };
      for (const [prop, sub] of Object.entries(schema.properties)) {
        const raw = field(value, prop);
        if (raw !== undefined && isRecord(sub)) out[prop] = readAsContract(sub, raw, prop);
      }
      return out;
    }
    default:
      return value;
  }
}

function typeMatches(schema: Schema, value: unknown): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return types.some(
    (t) =>
      t === actual ||
      (t === 'integer' && Number.isInteger(value)) ||
      (t === undefined && isRecord(schema.properties) && actual === 'object'),
  );
}

/** The success body of an operation read as the contract types it (readAsContract), as a record. */
export function readResponse(contract: Contract, operationId: string, ex: Exchange): Record<string, unknown> {
  const body = readAsContract(contract.successSchema(operationId), ex.response?.json);
  return isRecord(body) ? body : {};
}
