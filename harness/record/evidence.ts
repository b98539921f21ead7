/**
 * Evidence: the secret registry, redaction of exchanges, curl lines, and the recorder.
 *
 *   secrets.add(clientSecret, 'client-secret');        // the token module registers every issued token itself
 *   const recorder = new Recorder();                    // pass it to createHttp
 *   await withScope('4.1 monto-min', () => ...);        // exchanges made inside are attributed to that scope
 *   currentScopeExchanges();                            // redacted, each with a `curl` line
 *
 * Redaction: registered secrets → `[REDACTED:<kind>]` anywhere (the test card number → masked); `authorization` →
 * `Bearer [REDACTED]`; fields client_secret / clientSecret / password / access_token … → `[REDACTED:<kind>]`;
 * numeroTarjeta and any 13–19 digit run passing Luhn → first 6 + `******` + last 4; cvv fields and query
 * parameters keep only their shape (`[REDACTED:cvv, a number of 3 digits]`); `value` of HTML inputs named cvv /
 * numeroTarjeta (or the screen's own names for them, `secrets.addField`) blanked. URLs in messages go through `redactUrlsIn`.
 * curl lines name secrets as shell variables ($ACCESS_TOKEN, $CLIENT_SECRET, $CARD_NUMBER, $CVV …), never values.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Exchange } from './exchange.ts';
import type { Transcript, TranscriptStep } from './meta.ts';

/** Shell variable a curl line uses for a secret of each kind. */
const variableOfKind: Record<string, string> = {
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

function redactHeaders<T extends string | string[]>(
  headers: Record<string, T>,
  registry: SecretRegistry,
): Record<string, T> {
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
  const digits = (text: string) => (/^\d+$/.test(text) ? `${text.length} digit${text.length === 1 ? '' : 's'}` : `${[...text].length} characters, not all digits`);
  const shape =
    typeof value === 'number' ? `a number of ${digits(String(Math.abs(Math.trunc(value))))}${Number.isInteger(value) ? '' : ' with a fraction'}`
    : typeof value === 'string' ? `a string of ${digits(value)}`
    : value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
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
      .replace(new RegExp(String.raw`"cvv"${value}`, 'gi'), '"cvv":"[REDACTED:cvv]"')
      .replace(new RegExp(String.raw`"numeroTarjeta"${value}`, 'gi'), (_m, v: string) => {
        return `"numeroTarjeta":"${maskCardNumber(v.replace(/^"|"$/g, ''))}"`;
      })
      .replace(
        new RegExp(String.raw`"(access_token|refresh_token|id_token|client_secret|clientSecret|password)"${value}`, 'gi'),
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

// --- curl ---------------------------------------------------------------------------------------------------

const sentinel = (variable: string) => `@@CURLVAR_${variable}@@`;

/** Single-quotes for the shell; sentinels become `'"$VAR"'` so variables expand inside the quoted text. */
function shellQuote(text: string): string {
  if (text === '') return "''";
  const quoted = `'${text.replace(/'/g, `'\\''`)}'`;
  return quoted.replace(/@@CURLVAR_([A-Z0-9_]+)@@/g, `'"$$$1"'`).replace(/^''|''$/g, '');
}

/** Variable for a secret value, by its registered kind (or because it was already redacted). */
function variableFor(value: string, registry: SecretRegistry, fallback: string | undefined): string | undefined {
  const kind = registry.kindOf(value);
  if (kind) return variableOfKind[kind] ?? `SECRET_${kind.toUpperCase()}`;
  return value.includes('[REDACTED') ? fallback : undefined;
}

/**
 * A one-line curl reproducing the request, with secrets as shell variables. Best from the raw exchange (the
 * recorder stores it on each recorded copy); from a redacted copy, removed cvv fields cannot be reproduced.
 */
export function toCurl(exchange: Exchange, registry: SecretRegistry = secrets): string {
  const { method, url, headers, bodyText } = exchange.request;
  const parts = ['curl', '-sS', '-X', method, shellQuote(curlUrl(url, registry))];
  const contentType = headers['content-type'] ?? '';
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'content-length' || name === 'host') continue;
    if (name === 'authorization') parts.push(...curlAuthorization(value, registry));
    else parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (bodyText !== '') {
    if (/x-www-form-urlencoded/i.test(contentType)) parts.push(...curlForm(bodyText, registry));
    else parts.push('--data-raw', shellQuote(curlBodyText(bodyText, registry)));
  }
  // Safety net: nothing registered survives, whatever path produced it.
  return registry.redactText(parts.join(' '));
}

/** The URL with the card number and cvv parameters as $CARD_NUMBER / $CVV (hosted screens submitted by GET). */
function curlUrl(url: string, registry: SecretRegistry): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const [query = '', hash] = url.slice(at + 1).split('#', 2);
  const params = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    const name = pair.slice(0, eq);
    const value = safeDecode(pair.slice(eq + 1));
    const field = registry.fieldKind(safeDecode(name));
    const variable = field ? variableOfKind[field] : variableFor(value, registry, undefined);
    return variable ? `${name}=${sentinel(variable)}` : pair;
  });
  return `${url.slice(0, at)}?${params.join('&')}${hash === undefined ? '' : `#${hash}`}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function curlAuthorization(value: string, registry: SecretRegistry): string[] {
  const [scheme = '', credential = ''] = value.trim().split(/\s+/, 2);
  if (/^bearer$/i.test(scheme)) {
    const variable = variableFor(credential, registry, 'ACCESS_TOKEN');
    if (variable) return ['-H', `"authorization: Bearer $${variable}"`];
  } else if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(credential, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const kind = credential.includes('[REDACTED') ? 'account-password' : colon >= 0 ? registry.kindOf(decoded.slice(colon + 1)) : undefined;
    if (kind === 'deletion-password') return ['-u', '"$DELETION_ACCOUNT_USER:$DELETION_ACCOUNT_PASSWORD"'];
    if (kind) return ['-u', '"$ACCOUNT_USER:$ACCOUNT_PASSWORD"'];
  }
  // Not a registered credential (a negative test's made-up value): reproduce it literally.
  return ['-H', shellQuote(`authorization: ${value}`)];
}

function curlForm(text: string, registry: SecretRegistry): string[] {
  const params = new URLSearchParams(text);
  const secretKind = registry.kindOf(params.get('client_secret') ?? '');
  const clientVariable =
    secretKind === 'client-secret' ? 'CLIENT_ID' : secretKind === 'second-client-secret' ? 'SECOND_CLIENT_ID' : undefined;
  const passwordKind = registry.kindOf(params.get('password') ?? '');
  const userVariable =
    passwordKind === 'account-password' ? 'ACCOUNT_USER' : passwordKind === 'deletion-password' ? 'DELETION_ACCOUNT_USER' : undefined;
  const parts: string[] = [];
  for (const [name, value] of params) {
    let variable: string | undefined;
    if (name === 'client_id') variable = clientVariable;
    else if (name === 'username') variable = userVariable;
    else if (registry.fieldKind(name)) variable = variableOfKind[registry.fieldKind(name)!];
    else variable = variableFor(value, registry, undefined);
    parts.push('--data-urlencode', variable ? `"${name}=$${variable}"` : shellQuote(`${name}=${value}`));
  }
  return parts;
}

function curlBodyText(text: string, registry: SecretRegistry): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  let substituted = false;
  const use = (variable: string) => {
    substituted = true;
    return sentinel(variable);
  };
  const substitute = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const variable = variableFor(v, registry, undefined);
      return variable ? use(variable) : v;
    }
    if (Array.isArray(v)) return v.map(substitute);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(v)) {
      const kind = registry.fieldKind(key);
      out[key] = kind ? use(variableOfKind[kind]!) : substitute(field);
    }
    return out;
  };
  const json = JSON.stringify(substitute(value));
  // Re-serialise only when needed: the sent text (e.g. 10.00 vs 10) is what reproduces the request.
  return substituted ? json : text;
}

/**
 * Shell lines to run before the curl lines of a report: what to export, and ACCESS_TOKEN fetched from the token
 * endpoint with $CLIENT_ID / $CLIENT_SECRET (parsed with node, no jq needed).
 */
export function curlPreamble(config: { authUrl?: string | undefined; accountAuth?: 'basic' | 'password-grant'; audience?: string }): string[] {
  const audience = shellQuote(`audience=${config.audience ?? 'service_api'}`);
  const tokenUrl = config.authUrl ? shellQuote(`${config.authUrl.replace(/\/+$/, '')}/connect/token`) : '"$AUTH_URL/connect/token"';
  const readToken = `node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token'`;
  const lines = [
    '# export CLIENT_ID, CLIENT_SECRET, ACCOUNT_USER, ACCOUNT_PASSWORD, CARD_NUMBER and CVV first (values are not in this report)',
    `export ACCESS_TOKEN="$(curl -sS -X POST ${tokenUrl} --data-urlencode 'grant_type=client_credentials' --data-urlencode ${audience} --data-urlencode "client_id=$CLIENT_ID" --data-urlencode "client_secret=$CLIENT_SECRET" | ${readToken})"`,
  ];
  if (config.accountAuth === 'password-grant') {
    lines.push(
      `export ACCOUNT_TOKEN="$(curl -sS -X POST ${tokenUrl} --data-urlencode 'grant_type=password' --data-urlencode ${audience} --data-urlencode "client_id=$CLIENT_ID" --data-urlencode "client_secret=$CLIENT_SECRET" --data-urlencode "username=$ACCOUNT_USER" --data-urlencode "password=$ACCOUNT_PASSWORD" | ${readToken})"`,
    );
  }
  return lines;
}

// --- recorder and scopes ------------------------------------------------------------------------------------

/** One step of a test's transcript, kept in the order it happened. */
interface Step {
  at: number;
  kind: TranscriptStep['kind'];
  title: string;
  detail?: string;
  /** The recorded exchange's id (a failed check names it: the failing step). */
  exchangeId?: string;
}

/**
 * What one test did: its exchanges, every step of its transcript (exchanges, pages a browser loaded, redirects
 * caught, webhooks received), and the time it spent waiting for what other tests hold (the request cap, the test
 * lock, a browser page) — which its own budget does not count (harness/run/conformance.ts).
 */
export class Scope {
  readonly startedAt = Date.now();
  readonly exchanges: Exchange[] = [];
  readonly steps: Step[] = [];
  /** Steps dropped from the middle to bound memory (the first and the last ones are kept). */
  dropped = 0;
  /** Set when the test has ended: late deliveries (a webhook after the test) are no longer noted. */
  closed = false;
  /** Requests made for the test before its scope began (its test-control tenant): part of its chain at the request cap. */
  madeBefore = 0;
  /** How many requests the test made in the last run (harness/run/chains.ts), when known: its chain's length. */
  expected: number | undefined;
  #waited = 0;
  #waits = new Map<number, string>();
  #waitingSince = 0;
  #nextWait = 0;
  readonly #doing = new Map<number, string>();
  #nextDoing = 0;

  constructor(readonly name: string) {}

  /** Milliseconds spent waiting for something shared, so far (an ongoing wait included). */
  waitedMs(now = Date.now()): number {
    return this.#waited + (this.#waits.size > 0 ? now - this.#waitingSince : 0);
  }

  /** What the test is waiting for now (undefined when it is working). */
  get waitingFor(): string | undefined {
    return [...this.#waits.values()][0];
  }

  /** What the test is doing now: its requests and pages in flight, oldest first. */
  get doing(): string[] {
    return [...this.#doing.values()];
  }

  /** Marks a wait for something shared; returns its end. Overlapping waits count once (wall time with any wait). */
  beginWait(what: string): () => void {
    const id = this.#nextWait++;
    if (this.#waits.size === 0) this.#waitingSince = Date.now();
    this.#waits.set(id, what);
    return () => {
      if (!this.#waits.delete(id)) return;
      if (this.#waits.size === 0) this.#waited += Date.now() - this.#waitingSince;
    };
  }

  /** Marks work in flight (a request, a page); returns its end. */
  beginDoing(what: string): () => void {
    const id = this.#nextDoing++;
    this.#doing.set(id, what);
    return () => void this.#doing.delete(id);
  }

  note(step: Omit<Step, 'at'>): void {
    if (this.closed) return;
    this.steps.push({ at: Date.now() - this.startedAt, ...step });
    // Bounded: the first steps (how it started) and the last ones (how it ended) are what a reader needs.
    if (this.steps.length > MAX_STEPS_KEPT) {
      this.steps.splice(FIRST_STEPS_KEPT, 1);
      this.dropped++;
    }
  }
}

const MAX_STEPS_KEPT = 400;
const FIRST_STEPS_KEPT = 40;

const scopeStorage = new AsyncLocalStorage<Scope>();
const maxPerScope = 500;
const sharedStorage = new AsyncLocalStorage<boolean>();

/** Whether the code running now is work other tests wait for (`sharedWork`): its requests go first at the cap. */
export function forOtherTests(): boolean {
  return sharedStorage.getStore() === true;
}

/** Runs fn with a scope (a new one named `name`, or the one given): exchanges recorded inside (across awaits) are also listed for it. */
export function withScope<T>(scope: string | Scope, fn: () => T): T {
  return scopeStorage.run(typeof scope === 'string' ? new Scope(scope) : scope, fn);
}

/** The scope of the code running now (undefined outside any test). */
export function currentScope(): Scope | undefined {
  return scopeStorage.getStore();
}

/** Redacted exchanges recorded in the current scope so far (empty outside any scope). */
export function currentScopeExchanges(): Exchange[] {
  return [...(scopeStorage.getStore()?.exchanges ?? [])];
}

/**
 * Awaits `promise` as time spent waiting for something shared (`what`: "the request cap", "a browser page"): the
 * current test's budget does not count it. Outside a test, just awaits it.
 */
export async function waitingFor<T>(what: string, promise: Promise<T> | (() => Promise<T>)): Promise<T> {
  const end = scopeStorage.getStore()?.beginWait(what);
  try {
    return await (typeof promise === 'function' ? promise() : promise);
  } finally {
    end?.();
  }
}

/**
 * Work done once for every test that asks (a memoised promise): the first asker does it (its steps enter that
 * test's transcript); the others wait for it, time their budget does not count.
 *
 *   const history = sharedWork<History>();
 *   const h = await history(async () => { … });
 */
export function sharedWork<T>(): (build: () => Promise<T>) => Promise<T> {
  let work: { promise: Promise<T>; by: Scope | undefined } | undefined;
  return (build) => {
    if (!work) {
      work = { promise: sharedStorage.run(true, build), by: currentScope() };
      return work.promise;
    }
    return currentScope() === work.by ? work.promise : waitingFor('work another test started for both', work.promise);
  };
}

/** Runs `fn` as work in flight of the current test (`what` names it when the test's budget runs out meanwhile). */
export async function doing<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const end = scopeStorage.getStore()?.beginDoing(what);
  try {
    return await fn();
  } finally {
    end?.();
  }
}

const MAX_DETAIL_CHARS = 1500;
const MAX_TRANSCRIPT_STEPS = 120;
const MAX_TRANSCRIPT_CHARS = 60_000;

function clipDetail(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}… (${text.length} characters)` : text;
}

/** The kind of step an exchange is: a token request, a hosted page the payer loaded or posted, or an API call. */
function exchangeKind(ex: Exchange): TranscriptStep['kind'] {
  if (/\/connect\/token\b/.test(ex.request.url) || ex.label === 'issueToken') return 'token';
  // The labels of the HTTP payer's requests (harness/payer/http.ts): what a customer's browser would send.
  if (/^(hosted screen|QR image|pay link|complete 3DS|pay quick-pay|quick-pay page)/.test(ex.label ?? '')) return 'page';
  return 'api';
}

const SHOWN_HEADERS = new Set(['authorization', 'content-type', 'location', 'cookie', 'set-cookie', 'retry-after']);

/** A redacted exchange as the transcript shows it: request line, a few headers, bodies clipped. */
function exchangeDetail(ex: Exchange): string {
  const lines = [`> ${ex.request.method} ${ex.request.url}`];
  for (const [k, v] of Object.entries(ex.request.headers)) if (SHOWN_HEADERS.has(k)) lines.push(`> ${k}: ${v}`);
  if (ex.request.bodyText) lines.push(clipDetail(ex.request.bodyText));
  if (ex.response) {
    lines.push(`< ${ex.response.status} ${ex.response.contentType}`.trimEnd());
    for (const [k, v] of Object.entries(ex.response.headers)) if (SHOWN_HEADERS.has(k) && k !== 'content-type') lines.push(`< ${k}: ${String(v)}`);
    if (ex.response.bodyText) lines.push(clipDetail(ex.response.bodyText));
  } else {
    lines.push('< (no response)');
  }
  if (ex.attempts > 1) lines.push(`(${ex.attempts} attempts)`);
  return lines.join('\n');
}

/** A URL's path and query, as a transcript shows it (the text itself when it is no URL). */
export function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** Notes a recorded (redacted) exchange as a step of the scope. */
function noteExchange(scope: Scope, ex: Exchange): void {
  const answer = ex.response ? String(ex.response.status) : 'no response';
  const label = ex.label ? ` (${ex.label})` : '';
  scope.note({ kind: exchangeKind(ex), title: `${ex.request.method} ${pathOf(ex.request.url)}${label} → ${answer} in ${ex.durationMs} ms`, detail: exchangeDetail(ex), exchangeId: ex.id });
}

/**
 * Notes a step that did not go through the harness's HTTP client (a page the browser loaded, a redirect the payer
 * caught, a webhook the receiver got) in `scope` (default: the current one). Title and detail are redacted here.
 */
export function noteStep(step: { kind: TranscriptStep['kind']; title: string; detail?: string }, scope: Scope | undefined = currentScope()): void {
  scope?.note({ kind: step.kind, title: redactUrlsIn(step.title), ...(step.detail === undefined ? {} : { detail: clipDetail(redactUrlsIn(step.detail)) }) });
}

/**
 * The test's transcript for the reports: every step in order, size-bounded (the first and the last steps kept,
 * details clipped), the failing one marked — the step of `failingExchangeId`, else the last one — and `end` last.
 */
export function transcriptOf(scope: Scope, options: { failingExchangeId?: string | undefined; end?: string } = {}): Transcript {
  let steps: (TranscriptStep & { exchangeId?: string })[] = scope.steps.map((s) => ({ at: s.at, kind: s.kind, title: s.title, ...(s.detail === undefined ? {} : { detail: s.detail }), ...(s.exchangeId ? { exchangeId: s.exchangeId } : {}) }));
  let omitted = scope.dropped;
  let gapAt = FIRST_STEPS_KEPT;
  if (steps.length > MAX_TRANSCRIPT_STEPS) {
    gapAt = Math.floor(MAX_TRANSCRIPT_STEPS / 6);
    omitted += steps.length - MAX_TRANSCRIPT_STEPS;
    steps = [...steps.slice(0, gapAt), ...steps.slice(steps.length - (MAX_TRANSCRIPT_STEPS - gapAt))];
  }
  const failing = options.failingExchangeId === undefined ? -1 : lastIndexOf(steps, (s) => s.exchangeId === options.failingExchangeId);
  if (failing >= 0) steps[failing]!.failing = true;
  if (options.end !== undefined) {
    steps.push({ at: Date.now() - scope.startedAt, kind: 'end', title: redactUrlsIn(options.end).split('\n')[0]!, ...(failing < 0 ? { failing: true as const } : {}) });
  } else if (failing < 0 && steps.length > 0) steps[steps.length - 1]!.failing = true;
  if (omitted > 0) steps.splice(gapAt, 0, { at: steps[gapAt]?.at ?? 0, kind: 'gap', title: `… ${omitted} step(s) omitted …` });
  // Bounded in characters too: the earliest details go first (never the failing step's).
  let size = steps.reduce((n, s) => n + s.title.length + (s.detail?.length ?? 0), 0);
  for (let i = 0; i < steps.length && size > MAX_TRANSCRIPT_CHARS; i++) {
    const s = steps[i]!;
    if (s.failing || s.detail === undefined) continue;
    size -= s.detail.length;
    delete s.detail;
  }
  for (const s of steps) delete s.exchangeId;
  return { steps, omitted };
}

function lastIndexOf<T>(list: T[], test: (item: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i]!)) return i;
  return -1;
}

/**
 * Keeps the last `limit` exchanges, redacted, each with its curl line; bodies clipped to bound memory. The run uses
 * limit 0: only each test's scope keeps its exchanges (`currentScopeExchanges`); `drain` serves harness tests.
 */
export class Recorder {
  #stored: Exchange[] = [];
  readonly #limit: number;
  readonly #maxBodyChars: number;
  readonly #registry: SecretRegistry;

  constructor(options: { limit?: number; maxBodyChars?: number; registry?: SecretRegistry } = {}) {
    this.#limit = options.limit ?? 2000;
    this.#maxBodyChars = options.maxBodyChars ?? 65_536;
    this.#registry = options.registry ?? secrets;
  }

  /** Stores a redacted copy (with a curl line made from the raw request) and returns it. */
  record(exchange: Exchange): Exchange {
    const copy = redactExchange(exchange, this.#registry);
    copy.curl = toCurl(exchange, this.#registry);
    copy.request.bodyText = this.#clip(copy.request.bodyText);
    if (copy.response) copy.response.bodyText = this.#clip(copy.response.bodyText);
    if (this.#limit > 0) {
      this.#stored.push(copy);
      if (this.#stored.length > this.#limit) this.#stored.splice(0, this.#stored.length - this.#limit);
    }
    const scope = scopeStorage.getStore();
    if (scope && !scope.closed) {
      scope.exchanges.push(copy);
      if (scope.exchanges.length > maxPerScope) scope.exchanges.shift();
      noteExchange(scope, copy);
    }
    return copy;
  }

  /** Takes every stored exchange out, oldest first. */
  drain(): Exchange[] {
    const out = this.#stored;
    this.#stored = [];
    return out;
  }

  get size(): number {
    return this.#stored.length;
  }

  #clip(text: string): string {
    const max = this.#maxBodyChars;
    return text.length > max ? `${text.slice(0, max)}…[${text.length - max} more characters]` : text;
  }
}
