/**
 * Redaction: the secret registry, and redacted copies of exchanges, URLs, bodies and messages.
 *
 *   secrets.add(clientSecret, 'client-secret');        // the token module registers every issued token itself
 *   redactExchange(exchange);                           // what the recorder stores (harness/record/transcript.ts)
 *
 * Registered secrets → `[REDACTED:<kind>]` anywhere (the test card number → masked); `authorization` →
 * `Bearer [REDACTED]`; fields client_secret / clientSecret / password / access_token … → `[REDACTED:<kind>]`;
 * numeroTarjeta and any 13–19 digit run passing Luhn → first 6 + `******` + last 4; cvv fields and query
 * parameters keep only their shape (`[REDACTED:cvv, a number of 3 digits]`); `value` of HTML inputs named cvv /
 * numeroTarjeta (or the screen's own names for them, `secrets.addField`) blanked. URLs in messages go through `redactUrlsIn`.
 */
import type { Exchange } from './exchange.ts';

/** Shell variable a curl line uses for a secret of each kind. */
export const variableOfKind: Record<string, string> = {
  'access-token': 'ACCESS_TOKEN',
  'account-token': 'ACCOUNT_TOKEN',
  'client-secret': 'CLIENT_SECRET',
  'second-client-secret': 'SECOND_CLIENT_SECRET',
  'account-password': 'ACCOUNT_PASSWORD',
  'deletion-password': 'DELETION_ACCOUNT_PASSWORD',
  'redirect-hash-key': 'REDIRECT_HASH_KEY',
  'card-number': 'CARD_NUMBER',
  cvv: 'CVV',
};

/** Kinds a later, more specific registration may replace (http registers every issued token before tokens.ts knows whose it is). */
const GENERIC_KINDS = new Set(['access-token']);

/**
 * Kinds matched as whole values only (a form field, a JSON string, a query parameter), never inside text: a
 * 3-digit cvv would otherwise blank every "123" of every report. Their fields are removed by name anyway.
 */
const WHOLE_VALUE_ONLY = new Set(['cvv']);

/** Field names (JSON keys, form or query parameters) whose values are secrets whatever their value. */
const secretFields: Record<string, string> = {
  access_token: 'access-token',
  refresh_token: 'access-token',
  id_token: 'access-token',
  client_secret: 'client-secret',
  clientsecret: 'client-secret',
  password: 'account-password',
};

export class SecretRegistry {
  // value (and its encoded forms) → kind
  readonly #kinds = new Map<string, string>();
  #sorted: string[] = [];
  // lower-case field name (JSON key, form or query parameter, HTML input) → 'cvv' | 'card-number'
  readonly #fields = new Map<string, 'cvv' | 'card-number'>([
    ['cvv', 'cvv'],
    ['numerotarjeta', 'card-number'],
  ]);

  /** Register a secret; undefined or empty values are ignored. A generic kind gives way to a specific one. */
  add(value: string | undefined, kind: string): void {
    if (!value) return;
    const forms = [
      value,
      encodeURIComponent(value),
      new URLSearchParams({ v: value }).toString().slice(2),
      JSON.stringify(value).slice(1, -1),
      Buffer.from(value).toString('base64'),
    ];
    for (const form of forms) {
      const known = this.#kinds.get(form);
      if (form.length > 0 && (known === undefined || (GENERIC_KINDS.has(known) && !GENERIC_KINDS.has(kind)))) this.#kinds.set(form, kind);
    }
    this.#sorted = [...this.#kinds.keys()].filter((v) => !WHOLE_VALUE_ONLY.has(this.#kinds.get(v)!)).sort((a, b) => b.length - a.length);
  }

  /** Another name for the card number or cvv field (a vendor's hosted screen: SCREEN_FIELD_NAMES). */
  addField(name: string, kind: 'cvv' | 'card-number'): void {
    this.#fields.set(name.toLowerCase(), kind);
  }

  /** 'cvv' or 'card-number' when a field of that name carries one. */
  fieldKind(name: string): 'cvv' | 'card-number' | undefined {
    return this.#fields.get(name.toLowerCase());
  }

  /** The kind a value was registered with (exact value only). */
  kindOf(value: string): string | undefined {
    return this.#kinds.get(value);
  }

  /** Registered secrets → `[REDACTED:<kind>]` (the card number masked), then card-number runs masked. */
  redactText(text: string): string {
    let out = text;
    for (const value of this.#sorted) {
      if (!out.includes(value)) continue;
      const kind = this.#kinds.get(value);
      out = out.split(value).join(kind === 'card-number' && /^\d+$/.test(value) ? maskCardNumber(value) : `[REDACTED:${kind}]`);
    }
    return maskCardRuns(out);
  }
}

/** The process-wide registry: config, token cache and client register here; the recorder redacts with it. */
export const secrets = new SecretRegistry();

/** 4111111111111111 → 411111******1111; short values are masked whole. */
function maskCardNumber(value: string): string {
  return value.length >= 13 ? `${value.slice(0, 6)}******${value.slice(-4)}` : '******';
}

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Any run of 13–19 digits (not part of a longer run) that passes Luhn → masked. */
export function maskCardRuns(text: string): string {
  return text.replace(/(?<!\d)\d{13,19}(?!\d)/g, (run) => (passesLuhn(run) ? maskCardNumber(run) : run));
}

// --- redaction of exchanges ---------------------------------------------------------------------------------

/** A redacted deep copy of an exchange (response bytes dropped). */
export function redactExchange(exchange: Exchange, registry: SecretRegistry = secrets): Exchange {
  const { request, response } = exchange;
  const out: Exchange = {
    ...exchange,
    ...(exchange.label === undefined ? {} : { label: registry.redactText(exchange.label) }),
    request: {
      method: request.method,
      url: redactUrl(request.url, registry),
      headers: redactHeaders(request.headers, registry) as Record<string, string>,
      bodyText: redactBody(request.bodyText, request.headers['content-type'] ?? '', registry),
    },
  };
  if (response) {
    const { bytes: _bytes, json, ...rest } = response;
    out.response = {
      ...rest,
      headers: redactHeaders(response.headers, registry),
      bodyText: redactBody(response.bodyText, response.contentType, registry),
      ...(json === undefined ? {} : { json: redactValue(json, registry) }),
    };
  }
  return out;
}

function redactHeaders<T extends string | string[]>(headers: Record<string, T>, registry: SecretRegistry): Record<string, T> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      const scheme = String(value).trim().split(/\s+/)[0] ?? '';
      out[name] = String(value).trim().includes(' ') ? `${scheme} [REDACTED]` : '[REDACTED]';
    } else {
      out[name] = Array.isArray(value) ? value.map((v) => registry.redactText(v)) : registry.redactText(value);
    }
  }
  return out as Record<string, T>;
}

/**
 * What a cvv looked like, never its value: `[REDACTED:cvv, a number of 3 digits]`. A failure caused by the cvv's
 * type or length (a JSON number where the spec says a string of digits) then still shows its cause.
 */
export function cvvShape(value: unknown): string {
  const digits = (text: string) =>
    /^\d+$/.test(text) ? `${text.length} digit${text.length === 1 ? '' : 's'}` : `${[...text].length} characters, not all digits`;
  const shape =
    typeof value === 'number'
      ? `a number of ${digits(String(Math.abs(Math.trunc(value))))}${Number.isInteger(value) ? '' : ' with a fraction'}`
      : typeof value === 'string'
        ? `a string of ${digits(value)}`
        : value === null
          ? 'null'
          : Array.isArray(value)
            ? 'an array'
            : `a ${typeof value}`;
  return `[REDACTED:cvv, ${shape}]`;
}

/** Redacts one form/query parameter (a cvv keeps only its shape). */
function redactParam(name: string, value: string, registry: SecretRegistry): string | undefined {
  const lower = name.toLowerCase();
  const field = registry.fieldKind(lower);
  if (field === 'cvv') return `[REDACTED:cvv-${/^\d+$/.test(value) ? `${value.length}-digits` : `${[...value].length}-characters`}]`;
  if (field === 'card-number') return maskCardNumber(value);
  const kind = secretFields[lower] ?? wholeValueKind(value, registry);
  if (kind) return `[REDACTED:${registry.kindOf(value) ?? kind}]`;
  return registry.redactText(value);
}

/** The kind of a value registered as whole-value-only (the cvv), wherever it stands alone. */
function wholeValueKind(value: string, registry: SecretRegistry): string | undefined {
  const kind = registry.kindOf(value);
  return kind !== undefined && WHOLE_VALUE_ONLY.has(kind) ? kind : undefined;
}

function redactForm(text: string, registry: SecretRegistry): string {
  const parts: string[] = [];
  for (const [name, value] of new URLSearchParams(text)) {
    const redacted = redactParam(name, value, registry);
    if (redacted === undefined) continue;
    const shown = redacted.startsWith('[REDACTED:') ? redacted : encodeURIComponent(redacted);
    parts.push(`${encodeURIComponent(registry.redactText(name))}=${shown}`);
  }
  return parts.join('&');
}

/** A URL for showing: password, cvv parameters removed, card numbers masked, registered secrets redacted. */
export function redactUrl(url: string, registry: SecretRegistry = secrets): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return registry.redactText(url);
  }
  if (u.password) u.password = 'REDACTED';
  const query = u.search ? `?${redactForm(u.search.slice(1), registry)}` : '';
  const hash = u.hash;
  u.search = '';
  u.hash = '';
  return registry.redactText(u.toString()) + query + registry.redactText(hash);
}

/** A request or response body for showing: form fields and JSON keys by name, registered secrets, card runs. */
export function redactBodyText(text: string, contentType: string, registry: SecretRegistry = secrets): string {
  return redactBody(text, contentType, registry);
}

function redactBody(text: string, contentType: string, registry: SecretRegistry): string {
  if (text === '') return text;
  if (/x-www-form-urlencoded/i.test(contentType)) return redactForm(text, registry);
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(text);
      // Keep the exact text (number formatting matters as evidence) unless a field has to go.
      if (hasSensitiveField(value, registry)) return JSON.stringify(redactValue(value, registry));
      return registry.redactText(text);
    } catch {
      // not JSON after all (or truncated): fall through to text rules
    }
  }
  return redactLooseText(text, registry);
}

/** Every absolute URL inside a message (an error naming the page it was on) shown as `redactUrl` shows it. */
export function redactUrlsIn(text: string, registry: SecretRegistry = secrets): string {
  return registry.redactText(text.replace(/\bhttps?:\/\/[^\s"'<>]+/gi, (url) => redactUrl(url, registry)));
}

/** `<input name="cvv" value="123">` → `value=""`: a hosted screen may echo what was typed into it. */
function blankSensitiveInputs(html: string, registry: SecretRegistry): string {
  if (!/<input\b/i.test(html)) return html;
  return html.replace(/<input\b[^>]*>/gi, (tag) => {
    const name = /\bname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(tag);
    const field = name ? (name[1] ?? name[2] ?? name[3] ?? '') : '';
    if (!registry.fieldKind(field)) return tag;
    return tag.replace(/\bvalue\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)/gi, 'value=""');
  });
}

/** Text that may hold broken JSON or HTML: field-name rules by pattern, then secrets and card runs. */
function redactLooseText(text: string, registry: SecretRegistry): string {
  const value = String.raw`\s*:\s*("(?:[^"\\]|\\.)*"|[^,}\]\s]+)`;
  return registry.redactText(
    blankSensitiveInputs(text, registry)
      .replace(new RegExp(`"cvv"${value}`, 'gi'), '"cvv":"[REDACTED:cvv]"')
      .replace(new RegExp(`"numeroTarjeta"${value}`, 'gi'), (_m, v: string) => {
        return `"numeroTarjeta":"${maskCardNumber(v.replace(/^"|"$/g, ''))}"`;
      })
      .replace(
        new RegExp(`"(access_token|refresh_token|id_token|client_secret|clientSecret|password)"${value}`, 'gi'),
        (_m, key: string) => `"${key}":"[REDACTED:${secretFields[key.toLowerCase()]}]"`,
      ),
  );
}

/** A sensitive field written inside a string: a target that echoes the request body as text (`"{\"cvv\":…}"`). */
const SENSITIVE_IN_TEXT = /"(cvv|numeroTarjeta|access_token|refresh_token|id_token|client_secret|clientSecret|password)"\s*:/i;

function hasSensitiveField(value: unknown, registry: SecretRegistry): boolean {
  if (Array.isArray(value)) return value.some((v) => hasSensitiveField(v, registry));
  if (typeof value === 'string') return SENSITIVE_IN_TEXT.test(value) || wholeValueKind(value, registry) !== undefined;
  if (value === null || typeof value !== 'object') return typeof value === 'number' && isCardLikeNumber(value);
  return Object.entries(value).some(([key, v]) => {
    const lower = key.toLowerCase();
    return registry.fieldKind(lower) !== undefined || lower in secretFields || hasSensitiveField(v, registry);
  });
}

function isCardLikeNumber(n: number): boolean {
  const digits = Number.isSafeInteger(n) ? String(n) : '';
  return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
}

/** A redacted deep copy of a JSON value. */
export function redactValue(value: unknown, registry: SecretRegistry = secrets): unknown {
  if (typeof value === 'string') {
    const whole = wholeValueKind(value, registry);
    if (whole) return `[REDACTED:${whole}]`;
    return SENSITIVE_IN_TEXT.test(value) ? redactLooseText(value, registry) : registry.redactText(value);
  }
  if (typeof value === 'number') return isCardLikeNumber(value) ? maskCardNumber(String(value)) : value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, registry));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const lower = key.toLowerCase();
    const field = registry.fieldKind(lower);
    if (field === 'cvv') out[key] = cvvShape(v);
    else if (field === 'card-number') out[key] = maskCardNumber(String(v));
    else if (lower in secretFields) {
      out[key] = `[REDACTED:${(typeof v === 'string' && registry.kindOf(v)) || secretFields[lower]}]`;
    } else out[key] = redactValue(v, registry);
  }
  return out;
}
