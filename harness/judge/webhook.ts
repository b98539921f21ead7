/**
 * The tolerant reader of webhook bodies (6.1: "Full webhook payload fields: not shown"): a field by its spec name in
 * any letter case where asked (WEBHOOK_FIELD_CASE), the transaction a wrapping body carries, where the datosAdicionales
 * pairs travel; and what a test waits for (a transaction's webhook). One case-folding lookup (read.ts `keyOf`).
 */
import type { ReceivedWebhook } from '../api/receiver.ts';
import { field } from './read.ts';

/** The webhook of one transaction, for receiver.waitForWebhook: its idTransaccion read as fieldCase says. */
export function forTransaction(
  idTransaccion: string,
  fieldCase: 'exact' | 'insensitive' = 'exact',
): { test: (w: ReceivedWebhook) => boolean; what: string } {
  return { test: (w) => webhookField(w, 'idTransaccion', fieldCase) === idTransaccion, what: `for idTransaccion ${idTransaccion}` };
}

/** A field of a webhook body, by exact or case-insensitive name (targets in the wild send PascalCase). */
export function webhookField(w: ReceivedWebhook, name: string, fieldCase: 'exact' | 'insensitive' = 'exact'): unknown {
  return webhookBodyField(w.json, name, fieldCase);
}

const asObject = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const fieldOf = (body: Record<string, unknown>, name: string, fieldCase: 'exact' | 'insensitive'): unknown => field(body, name, fieldCase);

/**
 * The transaction data of a webhook body (6.1; the full payload is "not shown"): the body itself when it carries
 * idTransaccion, else the one object inside it that does (a body that wraps the transaction: {"evento":…,"datos":{…}}).
 * The wrapper's own fields are kept beside it (the inner ones win).
 */
export function webhookTransaction(json: unknown, fieldCase: 'exact' | 'insensitive' = 'exact'): Record<string, unknown> | undefined {
  const body = asObject(json);
  if (body === undefined || fieldOf(body, 'idTransaccion', fieldCase) !== undefined) return body;
  const wrapped = Object.entries(body).filter(
    ([, v]) => asObject(v) !== undefined && fieldOf(asObject(v)!, 'idTransaccion', fieldCase) !== undefined,
  );
  if (wrapped.length !== 1) return body;
  const [key, inner] = wrapped[0]!;
  const { [key]: _wrapper, ...around } = body;
  return { ...around, ...asObject(inner) };
}

/**
 * Where a webhook body carries the datosAdicionales pairs that were sent (6.1: "including the key/value pairs sent as
 * datosAdicionales"; the payload is not shown): its datosAdicionales field (any casing), else the body itself (pairs
 * at the top level), else any object inside it (pairs nested under, say, Cliente), up to three levels down. The
 * first place holding every pair exactly wins; else the place holding the most, for the failure to show. The pairs'
 * own keys and values are data: compared exactly.
 */
export function webhookPairs(json: unknown, sent: Record<string, string>): { pairs: Record<string, unknown> | undefined; at: string } {
  const places: [string, Record<string, unknown>][] = [];
  const visit = (value: unknown, at: string, depth: number) => {
    const obj = asObject(value);
    if (!obj || depth > 3) return;
    places.push([at, obj]);
    for (const [k, v] of Object.entries(obj)) visit(v, at === '' ? k : `${at}.${k}`, depth + 1);
  };
  const body = webhookTransaction(json, 'insensitive');
  const named = body ? asObject(fieldOf(body, 'datosAdicionales', 'insensitive')) : undefined;
  if (named) places.push(['datosAdicionales', named]);
  visit(json, '', 0);
  const held = (obj: Record<string, unknown>) => Object.entries(sent).filter(([k, v]) => obj[k] === v).length;
  const all = places.find(([, obj]) => held(obj) === Object.keys(sent).length);
  if (all) return { pairs: all[1], at: all[0] || 'the top level' };
  const best = places.filter(([, obj]) => held(obj) > 0).sort((a, b) => held(b[1]) - held(a[1]))[0];
  return best ? { pairs: best[1], at: best[0] || 'the top level' } : { pairs: named, at: 'datosAdicionales' };
}

/** A field of a webhook body (received or in an outbox) read through webhookTransaction. */
export function webhookBodyField(json: unknown, name: string, fieldCase: 'exact' | 'insensitive' = 'exact'): unknown {
  const body = webhookTransaction(json, fieldCase);
  return body === undefined ? undefined : fieldOf(body, name, fieldCase);
}
