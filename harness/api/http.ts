/**
 * The one HTTP client of the harness (undici, keep-alive). Every request becomes an `Exchange` that is handed to
 * the recorder (which stores it redacted). Redirects are never followed here; the payer follows them itself.
 *
 *   const http = createHttp({ timeoutMs: 15000, retries: 3, maxResponseBytes: 1 << 20, recorder });
 *   const ex = await http.request({ method: 'POST', url, json: body, label: 'createPaymentLink' });
 *
 * "Not now" is not an answer: a 429 or 503 says the request was not processed, so it is sent again, POSTs included,
 * after its Retry-After (seconds or an HTTP date) or a capped exponential backoff with jitter, at most
 * max(HTTP_RETRIES, 6) times and never past the run deadline; then NotNowError (not judged). Many requests in a row
 * given up so stop the run (TargetRefusingError: one line, exit 2). An idempotent request (GET/HEAD, or `idempotent:
 * true`, which the token cache passes) is also sent again after a dropped connection (at once), a timeout or a
 * gateway's 502/504, HTTP_RETRIES times. A non-idempotent one is never sent again after an answer that may hide its
 * processing (a 502/504, a timeout, a dropped connection): AmbiguousAnswerError, for the caller to find out.
 * Every attempt is kept (`tries`) and noted in the test's transcript and network tally (harness/record/network.ts);
 * the waits are the run's, not the test's work (`waitingFor`: its budget leaves them out). The timeout follows the
 * target's observed latency (max(HTTP_TIMEOUT_MS, 5× p99), capped). Other transport failures throw `HttpError` (one
 * line naming the behaviour and the request); other HTTP statuses never throw.
 *
 * With `maxConcurrency` (MAX_CONCURRENCY; the run has one client, so the cap is run-wide) at most that many requests
 * are in flight; a 429 or 503, to any request, halves the cap, which then grows back by one per cap's worth of other
 * answers (AIMD, as TCP), and its Retry-After (up to maxBackoffMs, when at least as much time remains after it
 * before the run deadline) pauses every new request of the run. A slot is held per attempt, never across a backoff
 * wait; waiters are served first come, first served. With `maxRps` (MAX_RPS) the limiter also paces the rate
 * (harness/api/pacing.ts: a token bucket that slows on 429 and grows while the target answers).
 */
import { Agent, request as undiciRequest } from 'undici';
import { AmbiguousAnswerError, HttpError, NotNowError, StaleRequestError, TargetRefusingError } from './errors.ts';
import { doing, noteAmbiguous, tallyNetwork, waitingFor } from '../record/test-record.ts';
import { noteStep } from '../record/transcript.ts';
import { Pacer } from './pacing.ts';
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
  /**
   * A 429/503 is "not now", sent again (default), or the answer itself, returned as any status: a payment a customer
   * submits on a hosted screen, whose 503 page is the screen's refusal (the payer reads it), is never sent twice.
   */
  notNow?: 'resend' | 'answer';
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
  /** Requests per second at most (MAX_RPS): the adaptive pacing's cap (harness/api/pacing.ts); unset = no pacing. */
  maxRps?: number;
  /** Extra attempts after a 429/503, at least HTTP_RETRIES (default NOT_NOW_RETRIES). */
  notNowRetries?: number;
  /** Requests in a row given up on "not now" after which every request throws TargetRefusingError (default REFUSED_IN_A_ROW). */
  refusedInARow?: number;
  /** The adaptive timeout's ceiling (default 4× timeoutMs, at most 120 s). */
  maxTimeoutMs?: number;
}

export interface Http {
  request(req: HttpRequest): Promise<Exchange>;
  close(): Promise<void>;
  /** The concurrency limiter's state, when the client has one (for tests and the bench). */
  readonly limiter?: RequestLimiter;
  /** Set once the target refused so many requests in a row "not now" that the run stops: the one line it ends with. */
  readonly refusing?: string | undefined;
  /** What the network did, run-wide. */
  readonly network?: NetworkStats;
  /** The timeout the next attempt gets (HTTP_TIMEOUT_MS, or longer by the observed latency). */
  timeoutMs?(): number;
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

  constructor(
    readonly max: number,
    /** The rate pacing (MAX_RPS), fed the answers this limiter sees. */
    readonly pacer?: Pacer,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`maxConcurrency must be a positive integer (got ${max})`);
    this.#cap = max;
  }

  /** Waits for a rate token (none without pacing): the milliseconds waited. */
  async pace(): Promise<number> {
    if (!this.pacer) return 0;
    let waited = 0;
    for (let wait = this.pacer.take(); wait > 0; wait = this.pacer.take()) {
      await sleep(wait);
      waited += wait;
    }
    this.pacer.waited(waited);
    return waited;
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

  /**
   * Gives the slot back; `throttled` (429/503) halves the cap (at most once a second) and pauses for `pauseMs` (if it
   * fits); `rateLimited` (a 429) slows the rate pacing instead, where there is one.
   */
  release(answer: 'ok' | 'throttled' | 'none', pauseMs = 0, deadline?: number, rateLimited = false): void {
    this.#inFlight--;
    this.pacer?.answered(rateLimited ? 'throttled' : answer === 'ok' ? 'ok' : 'none');
    const now = Date.now();
    // A 429 is about the rate, which the pacing owns: halving the cap too (and pausing the run) would cut the run's
    // throughput to requests-in-flight ÷ latency, far below the rate the target takes.
    if (answer === 'throttled' && !(rateLimited && this.pacer)) {
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

/** Attempts a request answered "not now" (429, 503) gets at least, whatever HTTP_RETRIES says. */
export const NOT_NOW_RETRIES = 6;
/** Requests in a row given up after every "not now" retry, after which the run stops (exit 2). */
export const REFUSED_IN_A_ROW = 8;

/**
 * The observed latency of the target's answers (the last 200), whose 99th percentile sets the timeout: a slow link
 * is not a target that does not answer.
 */
export class LatencyWindow {
  readonly #samples: number[] = [];
  #next = 0;
  constructor(readonly size = 200) {}
  add(ms: number): void {
    if (this.#samples.length < this.size) this.#samples.push(ms);
    else this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % this.size;
  }
  /** The 99th percentile, once 20 answers are in (undefined before). */
  get p99(): number | undefined {
    if (this.#samples.length < 20) return undefined;
    const sorted = [...this.#samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  }
}

/** The timeout of the next attempt: HTTP_TIMEOUT_MS, or 5× the observed p99 when that is longer, up to `capMs`. */
export function adaptiveTimeout(timeoutMs: number, p99: number | undefined, capMs: number): number {
  return p99 === undefined ? timeoutMs : Math.max(timeoutMs, Math.min(capMs, Math.ceil(5 * p99)));
}

export function createHttp(options: HttpOptions): Http {
  const { timeoutMs, retries, maxResponseBytes, deadline, recorder } = options;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const maxTimeoutMs = Math.max(timeoutMs, options.maxTimeoutMs ?? Math.min(4 * timeoutMs, 120_000));
  const notNowRetries = Math.max(retries, options.notNowRetries ?? NOT_NOW_RETRIES);
  const refusedInARow = options.refusedInARow ?? REFUSED_IN_A_ROW;
  // undici's own timers are the outer bound; the per-attempt signal (the adaptive timeout) is the one that fires.
  const agent = new Agent({ keepAliveTimeout: 10_000, headersTimeout: maxTimeoutMs, bodyTimeout: maxTimeoutMs });
  const pacer = options.maxRps === undefined ? undefined : new Pacer({ maxRps: options.maxRps });
  const limiter =
    options.maxConcurrency === undefined && pacer === undefined ? undefined : new RequestLimiter(options.maxConcurrency ?? 64, pacer);
  const latency = new LatencyWindow();
  // Requests in a row the target refused "not now" after every retry; past refusedInARow the run stops.
  let givenUp = 0;
  let refusing: string | undefined;
  const network: NetworkStats = { retries: 0, tooMany: 0, unavailable: 0, gaveUp: 0, ambiguous: 0, dropped: 0 };

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
    let resent = 0;
    let notNow = 0;
    /** Waits `ms` before sending again, as time the test's budget does not count, noted in its transcript. */
    const again = async (why: string, ms: number, tried: { status?: number; error?: string }): Promise<void> => {
      (exchange.tries ??= []).push({ ...tried, waitedMs: Math.round(ms) });
      network.retries++;
      tallyNetwork('retries');
      tallyNetwork('backoffMs', Math.round(ms));
      noteStep({ kind: 'wait', title: `${what}: ${why}; sent again${ms >= 1 ? ` after ${(ms / 1000).toFixed(1)} s` : ' at once'}` });
      if (ms >= 1) await waitingFor(`a wait before sending ${what} again (${why})`, () => sleep(ms));
    };

    for (;;) {
      if (refusing) throw new TargetRefusingError(refusing);
      // Rate pacing and the request cap are waits for the run's turn, not the test's work: its budget does not count them.
      if (limiter?.pacer) {
        const paced = await waitingFor('rate pacing (MAX_RPS)', () => limiter.pace());
        if (paced > 0) tallyNetwork('pacedMs', Math.round(paced));
      }
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
      delete exchange.response; // only the last attempt's answer is kept (the earlier ones in `tries`)
      const timeout = adaptiveTimeout(timeoutMs, latency.p99, maxTimeoutMs);
      const budget = deadline === undefined ? timeout : Math.min(timeout, deadline - Date.now());
      const byDeadline = budget < timeout;
      let response: ExchangeResponse | undefined;
      let failure: Failure | undefined;
      try {
        const end = pending('request', what);
        try {
          exchange.sentAt = Date.now();
          response = await doing(what, () => send(agent, method, req.url, headers, body, budget, maxResponseBytes));
          exchange.answeredAt = Date.now();
          latency.add(exchange.answeredAt - exchange.sentAt);
        } finally {
          end();
        }
      } catch (err) {
        failure = describeFailure(err, what, host, budget, byDeadline, options.runTimeoutS);
      }
      const status = response?.status;
      const isNotNow = status === 429 || status === 503;
      if (limiter) {
        // The run waits out a Retry-After; without one, halving the cap is the back-off.
        const asked = isNotNow ? parseRetryAfter(header(response, 'retry-after')) : undefined;
        const pause = asked === undefined ? 0 : Math.min(Math.max(asked, 0), maxBackoffMs);
        limiter.release(isNotNow ? 'throttled' : response ? 'ok' : 'none', pause, deadline, status === 429);
      }
      if (failure) {
        if (failure.kind === 'dropped') {
          network.dropped++;
          tallyNetwork('dropped');
        }
        // An idempotent request is sent again: at once after a dropped connection, after a backoff otherwise.
        if (idempotent && failure.retryable && resent < retries) {
          const wait = failure.kind === 'dropped' ? 0 : backoff(resent + 1, undefined);
          if (fitsDeadline(wait)) {
            resent++;
            await again(failure.short, wait, { error: failure.short });
            continue;
          }
        }
        // A payment or creation that may have been processed is never sent again: the caller finds out.
        if (!idempotent && (failure.kind === 'timeout' || failure.kind === 'dropped'))
          ambiguous(`${failure.message}, after the request was sent`, failure.short, failure.cause);
        fail(failure.message, failure.cause, failure.byTarget);
      }
      exchange.response = response!;
      registerIssuedToken(response!.json);
      if (isNotNow && req.notNow !== 'answer') {
        network[status === 429 ? 'tooMany' : 'unavailable']++;
        tallyNetwork(status === 429 ? 'tooMany' : 'unavailable');
        // "Not now": not processed (RFC 9110 15.5.20, 15.6.4), so sent again after the delay, POSTs included.
        const retryAfter = header(response, 'retry-after');
        const wait = backoff(notNow + 1, retryAfter);
        if (notNow < notNowRetries && fitsDeadline(wait)) {
          notNow++;
          const why = `answered ${status}${retryAfter === undefined ? '' : ` (Retry-After: ${retryAfter})`}, not processed`;
          await again(why, wait, { status: status! });
          continue;
        }
        giveUp(status!);
      }
      givenUp = 0;
      if (status === 502 || status === 504) {
        tallyNetwork('gateway');
        if (!idempotent)
          ambiguous(`${what} answered ${status}: a gateway's answer, which may hide the request's processing`, String(status));
        if (resent < retries) {
          const wait = backoff(resent + 1, undefined);
          if (fitsDeadline(wait)) {
            resent++;
            await again(`answered ${status} (a gateway)`, wait, { status });
            continue;
          }
        }
      }
      exchange.durationMs = Date.now() - started;
      recorder.record(exchange);
      return exchange;
    }

    /** The request was given up after every "not now": nothing judged; many in a row stop the run. */
    function giveUp(status: number): never {
      exchange.durationMs = Date.now() - started;
      const recorded = recorder.record(exchange);
      network.gaveUp++;
      tallyNetwork('gaveUp');
      givenUp++;
      const secs = (exchange.durationMs / 1000).toFixed(1);
      if (givenUp >= refusedInARow && !refusing) {
        refusing =
          status === 429
            ? `the target refused ${givenUp} requests in a row for rate (429), each sent ${exchange.attempts} times over ${secs} s: ` +
              `set MAX_RPS=${Math.max(1, Math.floor((pacer?.rate ?? 2) / 2))} (or lower) and run again`
            : `the target answered 503 (unavailable) to ${givenUp} requests in a row, each sent ${exchange.attempts} times over ` +
              `${secs} s: run again when it is up`;
      }
      const answered = `the target answered ${status} (${status === 429 ? 'rate limited' : 'unavailable'}) to ${what} ${exchange.attempts} times over ${secs} s`;
      throw new NotNowError(
        `not checked: ${answered}, so it processed nothing; run again with a lower MAX_RPS or when the target is up`,
        recorded,
        status,
        status === 429
          ? `${answered}, each Retry-After waited out: set MAX_RPS=1 (or the rate it takes) and run again, or run when it takes requests`
          : `${answered}, each Retry-After waited out: run again when it is up`,
      );
    }

    /** A non-idempotent request whose processing the answer may hide: not sent again, and the caller finds out. */
    function ambiguous(message: string, answer: string, cause?: unknown): never {
      exchange.durationMs = Date.now() - started;
      network.ambiguous++;
      const noted = noteAmbiguous({ request: what, answer });
      throw new AmbiguousAnswerError(
        `${message}: it is never sent again (it may have been processed); whether it was is found out where the spec gives a way, else not judged`,
        recorder.record(exchange),
        answer,
        { ...(cause === undefined ? {} : { cause }), noted },
      );
    }
  }

  /** Capped exponential backoff with jitter (half to all of it), or the Retry-After asked (up to maxBackoffMs). */
  function backoff(attempt: number, retryAfter: string | undefined): number {
    const asked = parseRetryAfter(retryAfter);
    if (asked !== undefined) return Math.min(Math.max(asked, 0), maxBackoffMs);
    const ceiling = Math.min(maxBackoffMs, 250 * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  function fitsDeadline(wait: number): boolean {
    return deadline === undefined || Date.now() + wait < deadline;
  }

  return {
    request,
    close: () => agent.close(),
    ...(limiter ? { limiter } : {}),
    get refusing() {
      return refusing;
    },
    network,
    timeoutMs: () => adaptiveTimeout(timeoutMs, latency.p99, maxTimeoutMs),
  };
}

/** What the network did to the run, run-wide (the per-test tallies are in each test's record). */
export interface NetworkStats {
  retries: number;
  tooMany: number;
  unavailable: number;
  gaveUp: number;
  ambiguous: number;
  dropped: number;
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

/** A transport failure as the retry logic reads it: what kind, whose, and whether sending again is safe for an idempotent request. */
interface Failure {
  message: string;
  /** A few words for the transcript and the attempt list ("connection dropped"). */
  short: string;
  cause: unknown;
  kind: 'timeout' | 'dropped' | 'not-sent' | 'run-bound' | 'other';
  retryable: boolean;
  byTarget: boolean;
}

function describeFailure(
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
