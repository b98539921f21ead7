/**
 * One attempt on the wire, as the client (http.ts) sends it: the body encoded, the response read within one timer and
 * one size bound (JSON parsed, or noted as unlabelled or broken), a transport failure named for the retry logic (whose
 * it is, whether sending again is safe), Retry-After read, and the credentials that pass through registered as
 * secrets. Apart from the retry logic, which decides what to do with each attempt.
 */
import { type Agent, request as undiciRequest } from 'undici';
import type { ExchangeResponse } from '../record/exchange.ts';
import { redactUrl, secrets } from '../record/redact.ts';

/**
 * A target may echo credentials back (in an error body, say), in forms the registry does not know yet: a token
 * obtained by a direct token request rather than the token cache, or `Basic base64(user:password)`, whose base64
 * does not contain the password's own. Both become secrets the moment they pass through here.
 */
export function registerBasicCredential(authorization: string | undefined): void {
  const credential = /^Basic\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!credential || secrets.kindOf(credential)) return;
  const decoded = Buffer.from(credential, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Only a registered password makes the credential secret: a negative test's made-up one stays reproducible.
  const kind = colon >= 0 ? secrets.kindOf(decoded.slice(colon + 1)) : undefined;
  if (kind) secrets.add(credential, kind);
}

export function registerIssuedToken(json: unknown): void {
  const token = (json as { access_token?: unknown } | undefined)?.access_token;
  if (typeof token === 'string' && !secrets.kindOf(token)) secrets.add(token, 'access-token');
}

/** A header of a response as one string (repeated headers joined with ", "). */
export function header(response: ExchangeResponse | undefined, name: string): string | undefined {
  const value = response?.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** What of a request (http.ts HttpRequest) makes its body and headers. */
export interface RequestBody {
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: string | Buffer;
}

export function encodeBody(req: RequestBody): { headers: Record<string, string>; bodyText: string; body?: string | Buffer } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
  if (req.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    const text = JSON.stringify(req.json);
    return { headers, bodyText: text, body: text };
  }
  if (req.form !== undefined) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    const text = new URLSearchParams(req.form).toString();
    return { headers, bodyText: text, body: text };
  }
  if (req.body !== undefined) {
    return { headers, bodyText: typeof req.body === 'string' ? req.body : req.body.toString('utf8'), body: req.body };
  }
  return { headers, bodyText: '' };
}

export async function send(
  agent: Agent,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  budgetMs: number,
  maxResponseBytes: number,
): Promise<ExchangeResponse> {
  // One timer covers headers and body, so a slow trickle cannot outlive the per-request timeout.
  const signal = AbortSignal.timeout(Math.max(budgetMs, 1));
  const res = await undiciRequest(url, {
    dispatcher: agent,
    method: method as 'GET',
    headers,
    ...(body === undefined ? {} : { body }),
    signal,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxResponseBytes) {
      chunks.push(chunk.subarray(0, maxResponseBytes - size));
      size = maxResponseBytes;
      truncated = true;
      // Stop reading: destroying the stream closes the connection instead of buffering the rest.
      res.body.destroy();
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  const bytes = Buffer.concat(chunks, size);
  const responseHeaders: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) responseHeaders[name.toLowerCase()] = value;
  }
  const rawType = responseHeaders['content-type'];
  const contentType = (Array.isArray(rawType) ? rawType[0] : rawType) ?? '';
  const response: ExchangeResponse = {
    status: res.statusCode,
    headers: responseHeaders,
    bodyText: isTextual(contentType) ? bytes.toString('utf8') : `[binary body: ${size} bytes, ${contentType}]`,
    bytes,
    contentType,
    truncated,
  };
  if (/\bjson\b|\+json/i.test(contentType)) {
    if (truncated) response.jsonError = `body truncated at ${maxResponseBytes} bytes; not parsed`;
    else if (size === 0) response.jsonError = 'empty body with a JSON content type';
    else {
      try {
        response.json = JSON.parse(response.bodyText);
      } catch (err) {
        response.jsonError = (err as Error).message;
      }
    }
  } else if (!truncated && isTextual(contentType) && /^\s*[[{]/.test(response.bodyText)) {
    // JSON under another label (text/plain): read it so behaviour is still judged; the label is a contract finding.
    try {
      response.json = JSON.parse(response.bodyText);
      response.jsonUnlabelled = true;
    } catch {
      // not JSON: left as text
    }
  }
  return response;
}

export function isTextual(contentType: string): boolean {
  return contentType === '' || /^text\/|json|xml|javascript|x-www-form-urlencoded/i.test(contentType);
}

/** A transport failure as the retry logic reads it: what kind, whose, and whether sending again is safe for an idempotent request. */
export interface Failure {
  message: string;
  /** A few words for the transcript and the attempt list ("connection dropped"). */
  short: string;
  cause: unknown;
  kind: 'timeout' | 'dropped' | 'not-sent' | 'run-bound' | 'other';
  retryable: boolean;
  byTarget: boolean;
}

export function describeFailure(
  err: unknown,
  what: string,
  host: string,
  budgetMs: number,
  byDeadline: boolean,
  runTimeoutS: number | undefined,
): Failure {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const timedOut =
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_ABORTED';
  const failure = (f: Omit<Failure, 'cause'>): Failure => ({ ...f, cause: err });
  if (timedOut) {
    // HTTP_TIMEOUT_MS is the target's: no answer within it is the target's failure; the run bound is the suite's.
    if (byDeadline)
      return failure({
        message: `the whole-run bound${runBound(runTimeoutS)} was reached during ${what}`,
        short: 'the run bound',
        kind: 'run-bound',
        retryable: false,
        byTarget: false,
      });
    const s = `no response within ${budgetMs / 1000} s`;
    return failure({ message: `${s} from ${what}`, short: s, kind: 'timeout', retryable: true, byTarget: true });
  }
  if (code === 'ECONNREFUSED')
    return failure({
      message: `connection refused by ${host} (${what})`,
      short: 'connection refused',
      kind: 'not-sent',
      retryable: true,
      byTarget: false,
    });
  // A connection closed under a request: on the internet the network's doing as often as the target's, so never a
  // verdict (principle 2); an idempotent request is sent again at once.
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') {
    return failure({
      message: `the connection was dropped during ${what} (${code})`,
      short: 'connection dropped',
      kind: 'dropped',
      retryable: true,
      byTarget: false,
    });
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return failure({
      message: `could not connect to ${host} in time (${what})`,
      short: 'no connection in time',
      kind: 'not-sent',
      retryable: true,
      byTarget: false,
    });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return failure({
      message: `the host ${host} could not be resolved (${what})`,
      short: 'host not resolved',
      kind: 'not-sent',
      retryable: false,
      byTarget: false,
    });
  }
  const detail = secrets.redactText(`${code ? code + ': ' : ''}${e.message ?? String(err)}`);
  return failure({
    message: `request failed (${detail}) during ${what}`,
    short: 'request failed',
    kind: 'other',
    retryable: false,
    byTarget: false,
  });
}

/** "POST /api/EnlacePago", redacted (cvv parameters dropped, card numbers masked), for messages. */
export function describe(method: string, url: string): string {
  const shown = redactUrl(url);
  try {
    const u = new URL(shown);
    return `${method} ${u.pathname}${u.search}`;
  } catch {
    return `${method} ${shown}`;
  }
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the target';
  }
}

export function runBound(runTimeoutS: number | undefined): string {
  return runTimeoutS === undefined ? '' : ` of ${runTimeoutS} s`;
}

/** Retry-After in ms: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at - Date.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
