/**
 * Checks of a value the target gives back: a field equal to what was sent or what the spec fixes, one of the values
 * allowed, free text byte for byte, dictionaries pair by pair. A failure says where the value differs, by code point
 * where it is text (accents and look-alikes are what differ).
 */
import type { Exchange } from '../api/http.ts';
import { type Clauses, fail } from './failure.ts';

/** A field of the response equals what was sent or what the spec fixes. */
export function fieldEquals(actual: unknown, expected: unknown, field: string, clauses: Clauses, ex?: Exchange): void {
  if (!sameValue(actual, expected))
    fail('field-equals', clauses, `${field} = ${JSON.stringify(expected)}`, `${field} = ${JSON.stringify(actual)}`, ex);
}

/** Equal values: numbers to 1e-9, objects key by key whatever their order (a server may order keys as it likes), arrays item by item. */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) < 1e-9;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

/** A boolean as JSON or as redirect text ("true"/"false", any case) equals `expected`. */
export function flagEquals(actual: unknown, expected: boolean, field: string, clauses: Clauses, ex?: Exchange): void {
  const text = typeof actual === 'string' ? actual.trim().toLowerCase() : actual;
  if (text !== expected && text !== String(expected))
    fail('flag-equals', clauses, `${field} = ${expected}`, `${field} = ${JSON.stringify(actual)}`, ex);
}

/** A field holds one of the values the spec allows. */
export function fieldIn(actual: unknown, allowed: readonly unknown[], field: string, clauses: Clauses, ex?: Exchange): void {
  if (!allowed.some((a) => sameValue(actual, a)))
    fail(
      'field-in',
      clauses,
      `${field} one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
      `${field} = ${JSON.stringify(actual)}`,
      ex,
    );
}

/** Every key/value pair that was sent comes back unchanged (datosAdicionales echoed: spec 2.2, 6.1). */
export function containsPairs(actual: unknown, sent: Record<string, string>, field: string, clauses: Clauses, ex?: Exchange): void {
  const got = actual !== null && typeof actual === 'object' && !Array.isArray(actual) ? (actual as Record<string, unknown>) : undefined;
  const missing = Object.entries(sent)
    .filter(([k, v]) => got?.[k] !== v)
    .map(([k]) => k);
  if (missing.length > 0) {
    fail(
      'contains-pairs',
      clauses,
      `${field} holds the pairs sent (${Object.keys(sent).join(', ')})`,
      got ? `${field} differs at ${missing.join(', ')}: ${JSON.stringify(got)}` : `${field} = ${JSON.stringify(actual)}`,
      ex,
    );
  }
}

/** A value as a reader sees it in a failure: its JSON type named where it is not a string. */
function asWritten(v: unknown): string {
  if (typeof v === 'string')
    return [...v].length > 80
      ? `the string ${JSON.stringify(v.slice(0, 40))}… (${[...v].length} characters)`
      : `the string ${JSON.stringify(v)}`;
  if (v === undefined) return 'nothing (absent)';
  if (v === null) return 'null';
  return `${Array.isArray(v) ? 'an array' : `the ${typeof v}`} ${JSON.stringify(v)}`;
}

/** Where two texts first differ, by code point: its index and the code points either side (U+XXXX), for accents and look-alikes. */
function firstDifference(got: string, sent: string): string {
  const a = [...got];
  const b = [...sent];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const cp = (c: string | undefined) =>
    c === undefined ? 'the end' : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(c)}`;
  return `${b.length} characters sent, ${a.length} came back; first difference at character ${i + 1}: sent ${cp(b[i])}, came back ${cp(a[i])}`;
}

/**
 * Free text comes back byte for byte (2: free content; 2.2 idExterno, 2.1 nombreProducto, 2.4 descripcionProducto):
 * the same string, not trimmed, re-cased, normalised nor turned into another type. The failure says where it differs.
 */
export function textAsSent(actual: unknown, sent: string, field: string, clauses: Clauses, ex?: Exchange): void {
  if (actual === sent) return;
  fail(
    'text-as-sent',
    clauses,
    `${field} = ${asWritten(sent)}, exactly as sent`,
    typeof actual === 'string' ? `${field} = ${asWritten(actual)}: ${firstDifference(actual, sent)}` : `${field} = ${asWritten(actual)}`,
    ex,
  );
}

/**
 * A dictionary's pairs come back as sent (2: "string keys to string values"): every key sent, its value the same
 * string — "00123" is not 123, "" is not null. Other keys beside them are allowed. The failure lists each pair that
 * differs and how.
 */
export function pairsAsSent(actual: unknown, sent: Record<string, string>, field: string, clauses: Clauses, ex?: Exchange): void {
  const got = actual !== null && typeof actual === 'object' && !Array.isArray(actual) ? (actual as Record<string, unknown>) : undefined;
  if (got === undefined) {
    if (Object.keys(sent).length === 0) return;
    fail('pairs-as-sent', clauses, `${field} holds the ${Object.keys(sent).length} pairs sent`, `${field} = ${asWritten(actual)}`, ex);
  }
  const differ = Object.entries(sent)
    .filter(([k, v]) => got[k] !== v)
    .map(([k, v]) => `${JSON.stringify(k)}: sent ${asWritten(v)}, came back ${k in got ? asWritten(got[k]) : 'no such key'}`);
  if (differ.length > 0)
    fail(
      'pairs-as-sent',
      clauses,
      `${field} holds the ${Object.keys(sent).length} pairs sent, each value the string sent`,
      `${differ.length} pair(s) differ: ${differ.slice(0, 4).join('; ')}${differ.length > 4 ? '; …' : ''}`,
      ex,
    );
}

/**
 * What was sent comes back: each field of `sent` equals the same field of `shown`, objects compared key by key
 * (a server may order keys differently), numbers to 1e-9.
 */
export function echoed(shown: unknown, sent: unknown, field: string, clauses: Clauses, ex?: Exchange): void {
  if (sent !== null && typeof sent === 'object' && !Array.isArray(sent)) {
    const got = shown !== null && typeof shown === 'object' && !Array.isArray(shown) ? (shown as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(sent)) echoed(got[key], value, `${field}.${key}`, clauses, ex);
    return;
  }
  const describe = (v: unknown) =>
    typeof v === 'string' && v.length > 80
      ? `a string of ${[...v].length} characters starting ${JSON.stringify(v.slice(0, 40))}`
      : JSON.stringify(v);
  if (!sameValue(shown, sent)) fail('echoed', clauses, `${field} = ${describe(sent)} (as sent)`, `${field} = ${describe(shown)}`, ex);
}
