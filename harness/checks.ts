/**
 * Named checks, one small function per rule, reused by every suite (as Schemathesis's checks are).
 * A check returns nothing when the rule holds and throws a CheckFailure otherwise; the failure carries the clause
 * ids, what was expected, what happened, and the redacted exchange with a curl line that replays it.
 * Checks only fail on what the spec states; where it is silent, suites record an observation instead.
 */
import { createHmac, createHash } from 'node:crypto';
import type { Exchange } from './http.ts';
import { redactExchange, toCurl } from './evidence.ts';
import type { CheckEvidence } from './meta.ts';
import type { Contract } from './contract.ts';

export class CheckFailure extends Error {
  constructor(readonly evidence: CheckEvidence) {
    super(formatEvidence(evidence));
    this.name = 'CheckFailure';
  }
}

type Clauses = string | string[];
const list = (c: Clauses): string[] => (Array.isArray(c) ? c : [c]);

const MAX_BODY_SHOWN = 2000;
function clip(text: string): string {
  return text.length > MAX_BODY_SHOWN ? `${text.slice(0, MAX_BODY_SHOWN)}… (${text.length} characters)` : text;
}

/** The exchange as a reader wants it in a report: request line, headers that matter, bodies; secrets redacted. */
export function describeExchange(exchange: Exchange): string {
  const ex = redactExchange(exchange);
  const lines = [`> ${ex.request.method} ${ex.request.url}`];
  for (const [k, v] of Object.entries(ex.request.headers ?? {})) lines.push(`> ${k}: ${String(v)}`);
  if (ex.request.bodyText) lines.push(clip(ex.request.bodyText));
  if (ex.response) {
    lines.push(`< ${ex.response.status} ${ex.response.contentType ?? ''}`.trimEnd());
    if (ex.response.bodyText) lines.push(clip(ex.response.bodyText));
    if (ex.response.truncated) lines.push('< (body truncated at the response size bound)');
  } else {
    lines.push('< (no response)');
  }
  return lines.join('\n');
}

export function formatEvidence(e: CheckEvidence): string {
  const parts = [
    `[${e.check}] clause ${e.clauses.join(', ')}`,
    `expected: ${e.expected}`,
    `actual:   ${e.actual}`,
  ];
  if (e.exchange) parts.push('--- exchange (secrets redacted)', e.exchange);
  if (e.curl) parts.push('--- reproduce', e.curl);
  return parts.join('\n');
}

export function fail(check: string, clauses: Clauses, expected: string, actual: string, exchange?: Exchange): never {
  throw new CheckFailure({
    check,
    clauses: list(clauses),
    expected,
    actual,
    ...(exchange ? { exchange: describeExchange(exchange), curl: toCurl(exchange) } : {}),
  });
}

const statusOf = (ex: Exchange): string => (ex.response ? String(ex.response.status) : 'no response');

/** The response matches the contract of spec/openapi.yaml for its operation and status. Every response passes here. */
export function conformsToContract(contract: Contract, operationId: string, ex: Exchange): void {
  if (!ex.response) return;
  const { status, json, jsonError, contentType } = ex.response;
  if (status >= 200 && status < 300) {
    if (jsonError !== undefined || json === undefined) {
      fail('json-body', contract.operations[operationId]?.clauses ?? [], 'a JSON response body (spec 4: "Request bodies and responses are JSON")',
        `${contentType ?? 'no content type'}${jsonError ? `; ${jsonError}` : ''}`, ex);
    }
  }
  const violations = contract.validateResponse(operationId, status, json);
  if (violations.length > 0) {
    const clauses = [...new Set(violations.flatMap((v) => v.clause))];
    fail('contract', clauses, `a ${status} response of ${operationId} that matches the contract`,
      violations.map((v) => `${v.path || '/'} ${v.message}`).join('; '), ex);
  }
}

/** The request succeeded: a 2xx (the spec lists no success status codes, so any 2xx is success). */
export function succeeded(ex: Exchange, clauses: Clauses, what = 'the request'): void {
  const s = ex.response?.status;
  if (s === undefined || s < 200 || s > 299) fail('success', clauses, `${what} succeeds (2xx)`, statusOf(ex), ex);
}

/** A stated validation rule was enforced: a 4xx (the spec says violations are rejected; never a 2xx or a 5xx). */
export function rejected(ex: Exchange, clauses: Clauses, rule: string): void {
  const s = ex.response?.status;
  if (s === undefined || s < 400 || s > 499) fail('rejected', clauses, `rejected with a client error (4xx): ${rule}`, statusOf(ex), ex);
}

/** The request was not accepted (not 2xx). For statements the spec makes without implying a client error. */
export function notAccepted(ex: Exchange, clauses: Clauses, what: string): void {
  const s = ex.response?.status;
  if (s !== undefined && s >= 200 && s < 300) fail('not-accepted', clauses, `not accepted: ${what}`, statusOf(ex), ex);
}

/** A field of the response equals what was sent or what the spec fixes. */
export function fieldEquals(actual: unknown, expected: unknown, field: string, clauses: Clauses, ex?: Exchange): void {
  if (!sameValue(actual, expected)) fail('field-equals', clauses, `${field} = ${JSON.stringify(expected)}`, `${field} = ${JSON.stringify(actual)}`, ex);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) < 1e-9;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The response's JSON body as a record, or a failure when it is not one. */
export function bodyOf(ex: Exchange, clauses: Clauses): Record<string, unknown> {
  const json = ex.response?.json;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail('json-object', clauses, 'a JSON object body', typeof json, ex);
  return json as Record<string, unknown>;
}

/** An absolute http(s) URL, as a field that a browser is sent to must be. */
export function absoluteUrl(value: unknown, field: string, clauses: Clauses, ex?: Exchange): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    fail('absolute-url', clauses, `${field} is an absolute http(s) URL`, JSON.stringify(value), ex);
  }
  return url;
}

/** A date-time that lies after `after` (e.g. an expiry in the future). */
export function dateAfter(value: unknown, after: Date, field: string, clauses: Clauses, ex?: Exchange): Date {
  const d = typeof value === 'string' ? new Date(value) : undefined;
  if (!d || Number.isNaN(d.getTime()) || d.getTime() <= after.getTime()) {
    fail('date-after', clauses, `${field} after ${after.toISOString()}`, JSON.stringify(value), ex);
  }
  return d;
}

export interface HashSettings {
  algorithm: 'hmac-sha256' | 'hmac-sha512' | 'sha256' | 'sha512';
  key: string;
  encoding: 'hex' | 'base64';
  order: 'spec' | 'link';
}

/** The fields the redirect hash is computed over, in order (spec 6.3; `link` is the order public link integrations use). */
export const HASH_FIELDS = {
  spec: ['idTransaccion', 'monto', 'esReal', 'formaPago', 'esAprobada', 'codigoAutorizacion', 'mensaje'],
  link: ['identificadorEnlaceComercio', 'idTransaccion', 'idEnlace', 'monto'],
} as const;

export function computeHash(params: Record<string, string>, s: HashSettings): string {
  const message = HASH_FIELDS[s.order].map((f) => params[f] ?? '').join('');
  const [kind, algo] = s.algorithm.startsWith('hmac-') ? ['hmac', s.algorithm.slice(5)] : ['plain', s.algorithm];
  const digest = kind === 'hmac' ? createHmac(algo!, s.key).update(message) : createHash(algo!).update(message + s.key);
  return digest.digest(s.encoding);
}

/** The redirect carries a hash that matches the outcome parameters (spec 6.3), with the configured algorithm and key. */
export function hashVerifies(params: Record<string, string>, s: HashSettings, clauses: Clauses): void {
  const got = params['hash'] ?? '';
  const want = computeHash(params, s);
  if (got.toLowerCase() !== want.toLowerCase()) {
    fail('hash-verifies', clauses, `hash = ${s.algorithm}(${HASH_FIELDS[s.order].join(' + ')}) — ${s.encoding}`, got === '' ? 'no hash parameter' : `a hash that does not verify (${got.slice(0, 12)}…)`);
  }
}

/** A PNG image: the status is 2xx and the bytes start with the PNG signature. */
export function isPng(image: { status: number; contentType?: string; isPng: boolean }, url: string, clauses: Clauses): void {
  if (image.status < 200 || image.status > 299 || !image.isPng) {
    fail('png', clauses, `${url} serves a PNG image`, `${image.status} ${image.contentType ?? ''}${image.isPng ? '' : ' (not PNG bytes)'}`);
  }
}

/** A plain condition with its evidence: for the few rules no other check expresses. */
export function holds(condition: boolean, check: string, clauses: Clauses, expected: string, actual: string, ex?: Exchange): asserts condition {
  if (!condition) fail(check, clauses, expected, actual, ex);
}
