/**
 * curl lines: a request reproduced as one shell line, secrets named as shell variables ($ACCESS_TOKEN,
 * $CLIENT_SECRET, $CARD_NUMBER, $CVV …), never values; and the preamble that exports them.
 */
import type { Exchange } from './exchange.ts';
import { secrets, variableOfKind, type SecretRegistry } from './redact.ts';

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
export function curlPreamble(config: {
  authUrl?: string | undefined;
  accountAuth?: 'basic' | 'password-grant';
  audience?: string;
}): string[] {
  const audience = shellQuote(`audience=${config.audience ?? 'service_api'}`);
  const tokenUrl = config.authUrl ? shellQuote(`${config.authUrl.replace(/\/+$/, '')}/connect/token`) : '"$AUTH_URL/connect/token"';
  const readToken = `node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token'`;
  const lines = [
    '# export CLIENT_ID, CLIENT_SECRET, ACCOUNT_USER, ACCOUNT_PASSWORD, CARD_NUMBER and CVV first (values are not in this report)',
    `export ACCESS_TOKEN="$(curl -sS -X POST ${tokenUrl} --data-urlencode 'grant_type=client_credentials' ` +
      `--data-urlencode ${audience} --data-urlencode "client_id=$CLIENT_ID" --data-urlencode ` +
      `"client_secret=$CLIENT_SECRET" | ${readToken})"`,
  ];
  if (config.accountAuth === 'password-grant') {
    lines.push(
      `export ACCOUNT_TOKEN="$(curl -sS -X POST ${tokenUrl} --data-urlencode 'grant_type=password' --data-urlencode ` +
        `${audience} --data-urlencode "client_id=$CLIENT_ID" --data-urlencode "client_secret=$CLIENT_SECRET" ` +
        `--data-urlencode "username=$ACCOUNT_USER" --data-urlencode "password=$ACCOUNT_PASSWORD" | ${readToken})"`,
    );
  }
  return lines;
}
