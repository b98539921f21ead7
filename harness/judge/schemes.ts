/**
 * Pure discovery of a target's digest conventions: which scheme makes the redirect hash (6.3) or a webhook
 * signature header (6.1) verify, tried over candidate algorithms, keys, encodings, value spellings and field orders.
 * No I/O here: the callers (harness/discovery/run-schemes.ts, scripts/discover.ts) hand in what was received.
 *
 *   const found = findRedirectScheme(params, clientSecret, 'link');  // { scheme?, tried }
 *   redirectHashOf(params, scheme, clientSecret)                    // the hash that scheme expects
 *   const sig = findWebhookSignature(headers, rawBody, clientSecret); // { header?, scheme?, tried }
 */
import { createHash, createHmac } from 'node:crypto';

export type DigestAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha512';
/** `hex` compares in either case; `HEX` is how an upper-case hex was seen. */
export type DigestEncoding = 'hex' | 'base64' | 'base64url';

export interface DigestScheme {
  algorithm: DigestAlgorithm;
  /** HMAC keyed with the key; else a plain digest of the message with the key appended (or nothing, key 'none'). */
  hmac: boolean;
  key: 'client-secret' | 'none';
  encoding: DigestEncoding;
}

export interface RedirectScheme extends DigestScheme {
  /** The values as they appear in the query, or normalised (monto with two decimals, booleans lower case, null as ''). */
  values: 'query' | 'normalised';
  /** spec = the seven values of 6.3; link = identificadorEnlaceComercio, idTransaccion, idEnlace, monto. */
  order: 'spec' | 'link';
}

/** The fields the redirect hash is computed over, in order (spec 6.3; `link` is the order public link integrations use). */
export const HASH_FIELDS = {
  spec: ['idTransaccion', 'monto', 'esReal', 'formaPago', 'esAprobada', 'codigoAutorizacion', 'mensaje'],
  link: ['identificadorEnlaceComercio', 'idTransaccion', 'idEnlace', 'monto'],
} as const;

export const ALGORITHMS: readonly DigestAlgorithm[] = ['md5', 'sha1', 'sha256', 'sha512'];
const ENCODINGS: readonly DigestEncoding[] = ['hex', 'base64', 'base64url'];
const ALGORITHM_NAMES: Record<DigestAlgorithm, string> = { md5: 'MD5', sha1: 'SHA-1', sha256: 'SHA-256', sha512: 'SHA-512' };

/** Every digest scheme tried: HMAC keyed with the client secret; plain with the secret appended, or of the message alone. */
export function digestCandidates(): DigestScheme[] {
  const out: DigestScheme[] = [];
  for (const algorithm of ALGORITHMS) {
    for (const encoding of ENCODINGS) {
      out.push({ algorithm, hmac: true, key: 'client-secret', encoding });
      out.push({ algorithm, hmac: false, key: 'client-secret', encoding });
      out.push({ algorithm, hmac: false, key: 'none', encoding });
    }
  }
  return out;
}

export function digest(message: string | Buffer, s: DigestScheme, secret: string): string {
  const d = s.hmac
    ? createHmac(s.algorithm, s.key === 'none' ? '' : secret).update(message)
    : createHash(s.algorithm)
        .update(message)
        .update(s.key === 'none' ? '' : secret);
  return d.digest(s.encoding);
}

/** A received digest equals the expected one: hex in either case, base64 exactly (padding optional for base64url). */
export function sameDigest(received: string, expected: string, encoding: DigestEncoding): boolean {
  if (encoding === 'hex') return received.toLowerCase() === expected.toLowerCase();
  if (encoding === 'base64url') return received.replace(/=+$/, '') === expected.replace(/=+$/, '');
  return received === expected;
}

/** A value as a normalising implementation would hash it. */
export function normalised(field: string, value: string): string {
  const v = value.trim();
  if (/^(null|undefined|none)$/i.test(v)) return '';
  if (/^(true|false)$/i.test(v)) return v.toLowerCase();
  if (field === 'monto' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v).toFixed(2);
  return v;
}

export function redirectMessage(params: Record<string, string>, s: Pick<RedirectScheme, 'values' | 'order'>): string {
  return HASH_FIELDS[s.order].map((f) => (s.values === 'normalised' ? normalised(f, params[f] ?? '') : (params[f] ?? ''))).join('');
}

export function redirectHashOf(params: Record<string, string>, s: RedirectScheme, secret: string): string {
  return digest(redirectMessage(params, s), s, secret);
}

export function redirectVerifies(params: Record<string, string>, s: RedirectScheme, secret: string): boolean {
  const got = params['hash'] ?? '';
  return got !== '' && sameDigest(got, redirectHashOf(params, s, secret), s.encoding);
}

/** What kind of payment a redirect closes: a link's carries idEnlace (its hash may follow the link order). */
export type RedirectKind = 'link' | 'api';
export const redirectKind = (params: Record<string, string>): RedirectKind => (params['idEnlace'] ? 'link' : 'api');

export function redirectCandidates(kind: RedirectKind): RedirectScheme[] {
  const orders: RedirectScheme['order'][] = kind === 'link' ? ['spec', 'link'] : ['spec'];
  return orders.flatMap((order) =>
    (['query', 'normalised'] as const).flatMap((values) => digestCandidates().map((d) => ({ ...d, values, order }))),
  );
}

export interface Found<S> {
  scheme?: S;
  /**
   * Every candidate that verified (the first is `scheme`): one redirect may not tell them apart (a monto already
   * written with two decimals, a base64 digest without + or /), so a later one is judged against all of them.
   */
  alike?: S[];
  /** What was tried, for a WARN when nothing matched. */
  tried: string;
}

/** The first candidate scheme under which the redirect's hash verifies (spec 6.3's order first). */
export function findRedirectScheme(
  params: Record<string, string>,
  secret: string,
  kind: RedirectKind = redirectKind(params),
): Found<RedirectScheme> {
  const candidates = redirectCandidates(kind);
  const orders =
    kind === 'link'
      ? "6.3's seven values, and the link order identificadorEnlaceComercio, idTransaccion, idEnlace, monto"
      : "6.3's seven values";
  const tried = `${candidates.length} schemes: ${triedDigests()}; values as in the query or normalised; orders: ${orders}`;
  if (!params['hash']) return { tried: `nothing: the redirect has no hash parameter` };
  const alike = candidates.filter((c) => redirectVerifies(params, c, secret));
  return alike.length > 0 ? { scheme: alike[0]!, alike, tried } : { tried };
}

function triedDigests(): string {
  return (
    `${ALGORITHMS.map((a) => ALGORITHM_NAMES[a]).join(', ')}, each as HMAC keyed with the client secret, plain ` +
    `with the client secret appended, plain without a key; encodings hex (either case), base64, base64url`
  );
}

export function describeDigest(s: DigestScheme): string {
  const name = ALGORITHM_NAMES[s.algorithm];
  const how = s.hmac
    ? `HMAC-${name} keyed with the client secret`
    : s.key === 'none'
      ? `${name} without a key`
      : `${name} of the message followed by the client secret`;
  return `${how}, ${s.encoding === 'hex' ? 'hex' : s.encoding}`;
}

export function describeRedirectScheme(s: RedirectScheme): string {
  return (
    `${describeDigest(s)}, over ${HASH_FIELDS[s.order].join(' + ')} ` +
    `(${s.values === 'query' ? 'values as in the query' : 'values normalised'})`
  );
}

/** The variables of .env.example that select a redirect scheme (REDIRECT_HASH_ORDER is the link payments' order). */
export function redirectSchemeSettings(s: RedirectScheme, kind: RedirectKind): Record<string, string> {
  return {
    REDIRECT_HASH: `${s.hmac ? 'hmac-' : ''}${s.algorithm}`,
    ...(s.key === 'none' ? { REDIRECT_HASH_KEY: 'none' } : {}),
    REDIRECT_HASH_ENCODING: s.encoding,
    REDIRECT_HASH_VALUES: s.values,
    // Only a link payment's redirect shows the order of link payments (an API payment's is always 6.3's).
    ...(kind === 'link' ? { REDIRECT_HASH_ORDER: s.order } : {}),
  };
}

// --- webhook signature ----------------------------------------------------------------------------------------

/** Header names that say "signature" in some language or convention (x-signature, x-hub-signature-256, firma, …). */
const SIGNATURE_NAME = /sign|firma|assinatura|hmac|hash|digest|mac\b/i;
/** Headers that are never a signature, whatever their value looks like. */
const ORDINARY = new Set([
  'host',
  'content-type',
  'content-length',
  'user-agent',
  'accept',
  'accept-encoding',
  'connection',
  'date',
  'traceparent',
  'tracestate',
  'x-request-id',
  'x-correlation-id',
  'idempotency-key',
  'transfer-encoding',
  'expect',
]);
/** Digest lengths (hex characters, base64 characters) of MD5, SHA-1, SHA-256 and SHA-512. */
const HEX_LENGTHS = new Set([32, 40, 64, 128]);
const B64_LENGTHS = new Set([22, 24, 27, 28, 43, 44, 86, 88]);

/** The signature inside a header value: without a scheme prefix as `sha256=` (GitHub) or `v1=`. */
export function signatureValue(value: string): string {
  return value.trim().replace(/^(?:sha(?:1|256|512)|md5|v\d+|hmac[-_]?sha\d+)[=:]/i, '');
}

/** The value looks like a digest: hex or base64 of a digest's length. */
export function digestShaped(value: string): boolean {
  const v = signatureValue(value);
  return (/^[0-9a-f]+$/i.test(v) && HEX_LENGTHS.has(v.length)) || (/^[A-Za-z0-9+/_-]+={0,2}$/.test(v) && B64_LENGTHS.has(v.length));
}

/** The headers that may carry a signature: named so first, then any other with a digest-shaped value. */
export function signatureHeaders(headers: Record<string, string | string[] | undefined>): string[] {
  const entries = Object.entries(headers)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .filter(([name]) => !ORDINARY.has(name));
  const named = entries.filter(([name]) => SIGNATURE_NAME.test(name)).map(([name]) => name);
  const shaped = entries.filter(([name, value]) => !named.includes(name) && digestShaped(value)).map(([name]) => name);
  return [...named, ...shaped];
}

export interface WebhookSignature {
  header: string;
  scheme: DigestScheme;
}

/** The header and scheme under which a webhook's signature verifies over its raw body (`preferred` header first). */
export function findWebhookSignature(
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  secret: string,
  preferred?: string,
): Found<WebhookSignature> & { headers: string[] } {
  const found = signatureHeaders(headers);
  const names = preferred && typeof headers[preferred] === 'string' ? [preferred, ...found.filter((n) => n !== preferred)] : found;
  const tried = `headers ${names.length > 0 ? names.join(', ') : '(none named like a signature or shaped like a digest)'} under ${digestCandidates().length} schemes over the raw body: ${triedDigests()}`;
  for (const header of names) {
    const value = signatureValue(String(headers[header]));
    const alike = digestCandidates()
      .filter((c) => sameDigest(value, digest(rawBody, c, secret), c.encoding))
      .map((scheme) => ({ header, scheme }));
    if (alike.length > 0) return { scheme: alike[0]!, alike, tried, headers: names };
  }
  return { tried, headers: names };
}

export function webhookVerifies(
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  s: WebhookSignature,
  secret: string,
): boolean {
  const value = headers[s.header];
  return typeof value === 'string' && sameDigest(signatureValue(value), digest(rawBody, s.scheme, secret), s.scheme.encoding);
}

export function describeWebhookSignature(s: WebhookSignature): string {
  return `header ${s.header}: ${describeDigest(s.scheme)} of the raw body`;
}

export function webhookSignatureSettings(s: WebhookSignature): Record<string, string> {
  return {
    WEBHOOK_SIGNATURE: `${s.scheme.hmac ? 'hmac-' : ''}${s.scheme.algorithm}`,
    WEBHOOK_SIGNATURE_HEADER: s.header,
    ...(s.scheme.key === 'none' ? { WEBHOOK_SIGNATURE_KEY: 'none' } : {}),
    WEBHOOK_SIGNATURE_ENCODING: s.scheme.encoding,
  };
}
