/**
 * The one HTTP client of the harness (undici, keep-alive). Every request becomes an `Exchange` that is handed to
 * the recorder (which stores it redacted). Redirects are never followed here; the payer follows them itself.
 *
 *   const http = createHttp({ timeoutMs: 15000, retries: 3, maxResponseBytes: 1 << 20, recorder });
 *   const ex = await http.request({ method: 'POST', url, json: body, label: 'createPaymentLink' });
 *
 * Retries happen ONLY for idempotent requests (GET/HEAD by default, or `idempotent: true`, which the token cache
 * passes): on connection errors, 429 and 503, with capped exponential backoff honouring Retry-After, never past
 * the run deadline. A non-idempotent request is sent exactly once, whatever happens.
 * Transport failures throw `HttpError` (one line naming the behaviour and the request); HTTP statuses never throw.
 *
 * With `maxConcurrency` (MAX_CONCURRENCY; the run has one client, so the cap is run-wide) at most that many requests
 * are in flight; a 429 or 503, to any request, halves the cap, which then grows back by one per cap's worth of other
 * answers (AIMD, as TCP), and its Retry-After (up to maxBackoffMs, when at least as much time remains after it
 * before the run deadline) pauses every new request of the run. A slot is held per attempt, never across a backoff
 * wait; waiters are served first come, first served.
 */
import { Agent, request as undiciRequest } from 'undici';
import { HttpError, StaleRequestError } from './errors.ts';
import { doing, waitingFor } from '../record/test-record.ts';
import { nextInLine, priorityNow } from './queue-order.ts';
import { redactUrl, secrets } from '../record/redact.ts';
import { pending } from '../record/progress.ts';

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON with content-type application/json (unless a content-type header is given). */
  json?: unknown;
  /** Sent form-encoded (application/x-www-form-urlencoded). */
  form?: Record<string, string>;
  /** Sent as is (for malformed-body tests); set the content-type header yourself. */
  body?: string | Buffer;
  /** May this request be sent more than once? Default: true for GET and HEAD, false for everything else. */
  idempotent?: boolean;
  label?: string;
  /**
   * Checked once the request holds its slot (a clock move waits for the slots to drain and ages the tokens before
   * it lets any request go, so nothing moves the clock between this check and the send): false → the request is not
   * sent and `StaleRequestError` is thrown, for the caller to prepare it again (a token taken before a clock move).
   */
  stillValid?: () => boolean;
}

export type { Exchange, ExchangeResponse } from '../record/exchange.ts';
import type { Exchange, ExchangeResponse } from '../record/exchange.ts';

/** What http needs of the evidence recorder: store the exchange (redacted) and return the stored copy. */
export interface ExchangeSink {
  record(exchange: Exchange): Exchange;
}

export interface HttpOptions {
  timeoutMs: number;
  /** Extra attempts allowed for idempotent requests. */
  retries: number;
  maxResponseBytes: number;
  /** Epoch ms after which nothing more is sent (the whole-run bound). */
  deadline?: number;
  /** Length of the whole-run bound in seconds, for messages ("the whole-run bound of 900 s …"). */
  runTimeoutS?: number;
  recorder: ExchangeSink;
  /** Longest single backoff wait (ms); Retry-After is honoured up to this. */
  maxBackoffMs?: number;
  /** Requests in flight at most (MAX_CONCURRENCY); unset = no cap and no run-wide pause. */
  maxConcurrency?: number;
}

export interface Http {
  request(req: HttpRequest): Promise<Exchange>;
  close(): Promise<void>;
  /** The concurrency limiter's state, when the client has one (for tests and the bench). */
  readonly limiter?: RequestLimiter;
}

/**
 * The cap on requests in flight (a semaphore whose size moves: AIMD) and the run-wide pause after a 429/503.
 * Waiters are served first come, first served.
 */
export class RequestLimiter {
  #cap: number;
  #inFlight = 0;
  #peak = 0;
  #good = 0;
  #pausedUntil = 0;
  #lastDecrease = 0;
  /** Waiters for a slot: the one furthest along its own chain of requests first, then first come. */
  readonly #waiting: { priority: number; seq: number; grant: () => void }[] = [];
  #seq = 0;

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`maxConcurrency must be a positive integer (got ${max})`);
    this.#cap = max;
  }

  get cap(): number {
    return this.#cap;
  }
  get inFlight(): number {
    return this.#inFlight;
  }
  /** Most requests ever in flight at once. */
  get peak(): number {
    return this.#peak;
  }
  /** Epoch ms until which no new request starts (0 = none). */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /**
   * Waits for the pause to end and for a slot; `deadline` (epoch ms) bounds the pause, never the slot. `priority`: how
   * many requests the caller's test has made so far — a remote run lasts as long as its longest chain of requests
   * one after another, so the test furthest along its chain is served first (critical path first).
   */
  async acquire(deadline?: number, priority = 0): Promise<void> {
    for (;;) {
      const pause = this.#pausedUntil - Date.now();
      if (pause > 0 && (deadline === undefined || this.#pausedUntil < deadline)) {
        await sleep(pause);
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#waiting.push({ priority, seq: this.#seq++, grant: resolve });
        this.#wake();
      });
      // Woken with a slot reserved for us (see #wake): take it, unless a pause began meanwhile.
      if (this.#pausedUntil <= Date.now()) return;
      this.#inFlight--;
      this.#wake();
    }
  }

  /** Gives the slot back; `throttled` (429/503) halves the cap (at most once a second) and pauses for `pauseMs` (if it fits). */
  release(answer: 'ok' | 'throttled' | 'none', pauseMs = 0, deadline?: number): void {
    this.#inFlight--;
    const now = Date.now();
    if (answer === 'throttled') {
      if (now - this.#lastDecrease >= 1000) {
        this.#cap = Math.max(1, Math.floor(this.#cap / 2));
        this.#lastDecrease = now;
      }
      this.#good = 0;
      const until = now + pauseMs;
      // A pause must leave the run at least as long again: waiting into the run bound would turn every "answered 429"
      // into "the run bound was reached".
      if (pauseMs > 0 && until > this.#pausedUntil && (deadline === undefined || until + pauseMs < deadline)) this.#pausedUntil = until;
    } else if (answer === 'ok' && this.#cap < this.max && ++this.#good >= this.#cap) {
      this.#cap++;
      this.#good = 0;
    }
    this.#wake();
  }

  #take(): void {
    this.#inFlight++;
    this.#peak = Math.max(this.#peak, this.#inFlight);
  }

  /** Hands free slots to waiters in order (reserving each slot before the waiter runs). */
  #wake(): void {
    while (this.#inFlight < this.#cap) {
      if (this.#waiting.length === 0) return;
      const [waiter] = this.#waiting.splice(nextInLine(this.#waiting), 1);
      this.#take();
      waiter!.grant();
    }
  }
}

let nextId = 1;

export function createHttp(options: HttpOptions): Http {
  const { timeoutMs, retries, maxResponseBytes, deadline, recorder } = options;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const agent = new Agent({ keepAliveTimeout: 10_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const limiter = options.maxConcurrency === undefined ? undefined : new RequestLimiter(options.maxConcurrency);

  async function request(req: HttpRequest): Promise<Exchange> {
    const method = req.method.toUpperCase();
    const idempotent = req.idempotent ?? (method === 'GET' || method === 'HEAD');
    const { headers, bodyText, body } = encodeBody(req);
    registerBasicCredential(headers['authorization']);
    const exchange: Exchange = {
      id: `ex-${nextId++}`,
      ...(req.label === undefined ? {} : { label: req.label }),
      request: { method, url: req.url, headers, bodyText },
      attempts: 0,
      durationMs: 0,
    };
    const started = Date.now();
    const what = describe(method, req.url);
    const host = hostOf(req.url);
    const fail = (message: string, cause?: unknown, byTarget = false): never => {
      exchange.durationMs = Date.now() - started;
      throw new HttpError(message, recorder.record(exchange), { cause, byTarget });
    };

    for (;;) {
      // Waiting for a slot is time another test's requests hold: the test's own budget does not count it.
      if (limiter) await waitingFor('the request cap (MAX_CONCURRENCY)', limiter.acquire(deadline, priorityNow()));
      if (deadline !== undefined && Date.now() >= deadline) {
        limiter?.release('none');
        fail(`the whole-run bound${runBound(options.runTimeoutS)} was reached before ${what}`);
      }
      if (req.stillValid && !req.stillValid()) {
        limiter?.release('none');
        throw new StaleRequestError(`${what} was prepared with a token that a clock move has expired since; not sent`);
      }
      exchange.attempts++;
      delete exchange.response; // only the last attempt's answer is kept
      const budget = deadline === undefined ? timeoutMs : Math.min(timeoutMs, deadline - Date.now());
      const byDeadline = budget < timeoutMs;
      let response: ExchangeResponse | undefined;
      let failure: { message: string; cause: unknown; retryable: boolean; byTarget: boolean } | undefined;
      try {
        const end = pending('request', what);
        try {
          exchange.sentAt = Date.now();
          response = await doing(what, () => send(agent, method, req.url, headers, body, budget, maxResponseBytes));
          exchange.answeredAt = Date.now();
        } finally {
          end();
        }
      } catch (err) {
        failure = describeFailure(err, what, host, budget, byDeadline, options.runTimeoutS);
      }
      if (limiter) {
        const throttled = response !== undefined && (response.status === 429 || response.status === 503);
        // The run waits out a Retry-After; without one, halving the cap is the back-off.
        const asked = throttled ? parseRetryAfter(header(response, 'retry-after')) : undefined;
        const pause = asked === undefined ? 0 : Math.min(Math.max(asked, 0), maxBackoffMs);
        limiter.release(throttled ? 'throttled' : response ? 'ok' : 'none', pause, deadline);
      }
      const canRetry = idempotent && exchange.attempts <= retries;
      if (failure) {
        const wait = canRetry && failure.retryable ? backoff(exchange.attempts, undefined) : undefined;
        if (wait === undefined || !fitsDeadline(wait)) fail(failure.message, failure.cause, failure.byTarget);
        await sleep(wait!);
        continue;
      }
      exchange.response = response!;
      registerIssuedToken(response!.json);
      if (canRetry && (response!.status === 429 || response!.status === 503)) {
        const wait = backoff(exchange.attempts, header(response!, 'retry-after'));
        if (fitsDeadline(wait)) {
          await sleep(wait);
          continue;
        }
      }
      exchange.durationMs = Date.now() - started;
      recorder.record(exchange);
      return exchange;
    }
  }

  function backoff(attempt: number, retryAfter: string | undefined): number {
    const asked = parseRetryAfter(retryAfter);
    const wait = asked ?? 200 * 2 ** (attempt - 1);
    return Math.min(Math.max(wait, 0), maxBackoffMs);
  }

  function fitsDeadline(wait: number): boolean {
    return deadline === undefined || Date.now() + wait < deadline;
  }

  return {
    request,
    close: () => agent.close(),
    ...(limiter ? { limiter } : {}),
  };
}

/**
 * A target may echo credentials back (in an error body, say), in forms the registry does not know yet: a token
 * obtained by a direct token request rather than the token cache, or `Basic base64(user:password)`, whose base64
 * does not contain the password's own. Both become secrets the moment they pass through here.
 */
function registerBasicCredential(authorization: string | undefined): void {
  const credential = /^Basic\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!credential || secrets.kindOf(credential)) return;
  const decoded = Buffer.from(credential, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Only a registered password makes the credential secret: a negative test's made-up one stays reproducible.
  const kind = colon >= 0 ? secrets.kindOf(decoded.slice(colon + 1)) : undefined;
  if (kind) secrets.add(credential, kind);
}

function registerIssuedToken(json: unknown): void {
  const token = (json as { access_token?: unknown } | undefined)?.access_token;
  if (typeof token === 'string' && !secrets.kindOf(token)) secrets.add(token, 'access-token');
}

/** A header of a response as one string (repeated headers joined with ", "). */
export function header(response: ExchangeResponse | undefined, name: string): string | undefined {
  const value = response?.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function encodeBody(req: HttpRequest): { headers: Record<string, string>; bodyText: string; body?: string | Buffer } {
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

async function send(
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

function isTextual(contentType: string): boolean {
  return contentType === '' || /^text\/|json|xml|javascript|x-www-form-urlencoded/i.test(contentType);
}

function describeFailure(
  err: unknown,
  what: string,
  host: string,
  budgetMs: number,
  byDeadline: boolean,
  runTimeoutS: number | undefined,
): { message: string; cause: unknown; retryable: boolean; byTarget: boolean } {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const timedOut =
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_ABORTED';
  if (timedOut) {
    // HTTP_TIMEOUT_MS is the target's: no answer within it is the target's failure; the run bound is the suite's.
    if (byDeadline)
      return {
        message: `the whole-run bound${runBound(runTimeoutS)} was reached during ${what}`,
        cause: err,
        retryable: false,
        byTarget: false,
      };
    return { message: `no response within ${budgetMs / 1000} s from ${what}`, cause: err, retryable: false, byTarget: true };
  }
  if (code === 'ECONNREFUSED') return { message: `connection refused by ${host} (${what})`, cause: err, retryable: true, byTarget: false };
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') {
    return { message: `connection reset by the target during ${what}`, cause: err, retryable: true, byTarget: true };
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return { message: `could not connect to ${host} in time (${what})`, cause: err, retryable: true, byTarget: false };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { message: `the host ${host} could not be resolved (${what})`, cause: err, retryable: false, byTarget: false };
  }
  const detail = secrets.redactText(`${code ? code + ': ' : ''}${e.message ?? String(err)}`);
  return { message: `request failed (${detail}) during ${what}`, cause: err, retryable: false, byTarget: false };
}

/** "POST /api/EnlacePago", redacted (cvv parameters dropped, card numbers masked), for messages. */
function describe(method: string, url: string): string {
  const shown = redactUrl(url);
  try {
    const u = new URL(shown);
    return `${method} ${u.pathname}${u.search}`;
  } catch {
    return `${method} ${shown}`;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the target';
  }
}

function runBound(runTimeoutS: number | undefined): string {
  return runTimeoutS === undefined ? '' : ` of ${runTimeoutS} s`;
}

/** Retry-After in ms: delta-seconds or an HTTP date. */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at - Date.now();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
