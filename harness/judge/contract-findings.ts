/**
 * What of a response or a webhook body breaks the contract of spec/openapi.yaml: each finding with the clauses it
 * breaks, failed where the spec states the type and observed (WARN) where it only describes it. Every response passes
 * here (harness/run/contract-observer.ts); the tolerant reads a client in the wild makes (a byte-order mark, numbers as
 * strings, long fractions) are observed once, never failed. Never throws on the target's input.
 */
import type { Exchange } from '../api/http.ts';
import type { Contract } from '../api/contract.ts';
import { webhookTransaction } from './webhook.ts';

/** One way a response or webhook breaks the contract: the clauses it breaks and what was wrong. */
export interface ContractFinding {
  clauses: string[];
  expected: string;
  actual: string;
  /** `observe`: a format the spec only describes (clauses of kind description): recorded as a WARN, never failed. */
  severity: 'fail' | 'observe';
}

/**
 * What of a response breaks the contract of spec/openapi.yaml for its operation and status: a success body that is
 * not JSON or not labelled JSON (4-json-bodies), and each schema violation under the type clause it breaks. Every
 * response passes here (harness/run/contract-observer.ts); [] = it conforms. Never throws on the target's input.
 */
export function contractFindings(contract: Contract, operationId: string, ex: Exchange): ContractFinding[] {
  if (!ex.response) return [];
  const { status, json, jsonError, jsonUnlabelled, contentType } = ex.response;
  const findings: ContractFinding[] = [];
  const success = status >= 200 && status < 300;
  if (success && (jsonError !== undefined || json === undefined)) {
    findings.push({
      clauses: ['4-json-bodies'],
      expected: 'a JSON response body (spec 4: "Request bodies and responses are JSON")',
      actual: `not a JSON response body: ${contentType || 'no content type'}${jsonError ? `; ${jsonError}` : ''}`,
      severity: 'fail',
    });
  } else if (success && jsonUnlabelled) {
    findings.push({
      clauses: ['4-json-bodies'],
      expected: 'a JSON body labelled as JSON (content-type application/json)',
      actual: `JSON labelled ${contentType || 'with no content type'}`,
      severity: 'fail',
    });
  }
  if (success && json === undefined) return findings;
  findings.push(...fractionFindings(json));
  const asked = operationId === 'issueToken' ? audienceAsked(ex) : undefined;
  for (const v of contract.validateResponse(operationId, status, json)) {
    // 5.2's scope is the audience asked for: a scope equal to a TOKEN_AUDIENCE of the service's own follows from
    // that audience (one finding: the audience, 5.1), not a second deviation of the response.
    if (asked !== undefined && v.path === '/scope' && scopeHolds(json, asked)) continue;
    findings.push({
      clauses: v.clause,
      expected: `a ${status} response of ${operationId} that matches the contract`,
      actual: `${v.path || '/'} ${v.message}`,
      severity: v.severity,
    });
  }
  return findings;
}

/** The audience a token request sent (its form body), when it was not the spec's service_api. */
function audienceAsked(ex: Exchange): string | undefined {
  const audience = new URLSearchParams(ex.request.bodyText ?? '').get('audience') ?? undefined;
  return audience === undefined || audience === 'service_api' ? undefined : audience;
}

/** The token response's scope names `audience` (a space-separated list holding it counts). */
function scopeHolds(json: unknown, audience: string): boolean {
  const scope = (json as { scope?: unknown } | null)?.scope;
  return typeof scope === 'string' && scope.split(' ').includes(audience);
}

/** application/json, or a structured +json type (application/vnd.x+json), with parameters or none. */
const JSON_MEDIA_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** What of a webhook body breaks the contract (6.1); PascalCase names are read as camelCase with fieldCase 'insensitive'. */
export function webhookFindings(
  contract: Contract,
  body: unknown,
  fieldCase: 'exact' | 'insensitive' = 'exact',
  read: { bom?: boolean; contentType?: string; userAgent?: string } = {},
): ContractFinding[] {
  const fallback = contract.webhookTypeClauses;
  if (body === undefined)
    return [
      {
        clauses: ['4-json-bodies', ...fallback],
        expected: 'a JSON webhook body (6.1)',
        actual: 'a body that is not JSON',
        severity: 'fail',
      },
    ];
  // A tolerant reader: what a client in the wild strips or coerces is observed once per webhook, and every other
  // field still judged (the payload is not shown by 6.1).
  const tolerated: ContractFinding[] = read.bom
    ? [
        {
          clauses: ['6.1-webhook-payload-not-shown'],
          expected: 'a JSON webhook body',
          actual: 'a UTF-8 byte-order mark before the JSON (read after it; a strict JSON parser would refuse the body)',
          severity: 'observe',
        },
      ]
    : [];
  // A JSON body under another media type (or none): a merchant's framework parses a body by its Content-Type, so its
  // JSON parser skips this one (6.1 shows no payload, so the type is observed; `contentType` as received, '' for none).
  if (read.contentType !== undefined && !JSON_MEDIA_TYPE.test(read.contentType))
    tolerated.push({
      clauses: ['6.1-webhook-payload-not-shown'],
      expected: 'a JSON webhook body sent as Content-Type application/json',
      actual: `a JSON body sent ${read.contentType === '' ? 'without a Content-Type' : `as Content-Type ${read.contentType}`} (a JSON body parser that goes by the type skips it)`,
      severity: 'observe',
    });
  // An empty User-Agent (RFC 9110 10.1.5's grammar asks for at least one product; leaving the header out is allowed):
  // firewalls in front of merchants block such requests (AWS WAF's core rule set), so the webhook may never arrive (6:
  // delivery guarantees not shown; no header is shown either). `userAgent` undefined: the header was not sent.
  if (read.userAgent !== undefined && read.userAgent.trim() === '')
    tolerated.push({
      clauses: ['6.1-webhook-retries-not-shown'],
      expected: 'a webhook sent with a User-Agent naming its sender, or none',
      actual: 'a webhook sent with an empty User-Agent (RFC 9110 names at least one product; a firewall rule against it blocks it)',
      severity: 'observe',
    });
  // The transaction data, unwrapped where the body wraps it (the payload is "not shown": 6.1).
  const data = webhookTransaction(body, fieldCase) ?? body;
  const shown =
    fieldCase === 'insensitive' && data !== null && typeof data === 'object' && !Array.isArray(data)
      ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v]))
      : data;
  return [
    ...tolerated,
    ...fractionFindings(body),
    ...contract.validateWebhook(shown).map((v): ContractFinding => {
      const value = atPointer(shown, v.path);
      if (v.keyword === 'type' && typeof value === 'string' && NUMERIC.test(value.trim())) {
        return {
          clauses: ['6.1-webhook-payload-not-shown'],
          expected: `${v.path} a JSON number (2.2 types it)`,
          actual: `${v.path} a number written as a string (${JSON.stringify(value)}): read as ${Number(value)}`,
          severity: 'observe',
        };
      }
      return {
        clauses: v.clause.length > 0 ? v.clause : fallback,
        expected: 'a webhook body that matches the contract (transactionSucceeded)',
        actual: `${v.path || '/'} ${v.message}`,
        severity: v.severity,
      };
    }),
  ];
}

/**
 * Date-times with more than 3 fractional digits (.NET writes 7): ISO 8601 allows any number, but a reader that parses
 * milliseconds truncates or refuses them — observed once per body, under the type's description (2).
 */
export function fractionFindings(body: unknown): ContractFinding[] {
  const found: { at: string; digits: number }[] = [];
  const walk = (v: unknown, path: string): void => {
    const long = typeof v === 'string' ? LONG_FRACTION.exec(v) : null;
    if (long) found.push({ at: `${path || '/'} ${JSON.stringify(v)}`, digits: long[1]!.length });
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}/${k}`);
  };
  walk(body, '');
  if (found.length === 0) return [];
  const { at, digits } = found[0]!;
  return [
    {
      clauses: ['2-datetime-type'],
      expected: 'date-times a millisecond reader takes (at most 3 fractional digits)',
      actual: `${found.length} date-time(s) with ${digits} fractional digits, e.g. ${at} (valid ISO 8601: read at millisecond precision)`,
      severity: 'observe',
    },
  ];
}

const LONG_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.(\d{4,})(?:Z|[+-]\d{2}:?\d{2})?$/;

/** A decimal as text: what a lenient serializer writes for a number ("29.00", "-1", "1e3"). */
const NUMERIC = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** The value a JSON pointer (RFC 6901) names, or undefined. */
function atPointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let at: unknown = root;
  for (const part of pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}
