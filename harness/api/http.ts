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
import { Agent } from 'undici';
import { AmbiguousAnswerError, HttpError, NotNowError, StaleRequestError, TargetRefusingError } from './errors.ts';
import { doing, noteAmbiguous, tallyNetwork, waitingFor } from '../record/test-record.ts';
import { noteStep } from '../record/transcript.ts';
import { Pacer } from './pacing.ts';
import { priorityNow } from './queue-order.ts';
import { adaptiveTimeout, LatencyWindow, RequestLimiter } from './limiter.ts';
import {
  describe,
  describeFailure,
  encodeBody,
  header,
  hostOf,
  parseRetryAfter,
  registerBasicCredential,
  registerIssuedToken,
  runBound,
  send,
  sleep,
  type Failure,
} from './transport.ts';
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
// The pace and one attempt on the wire live beside the client; they are found here, where they always were.
export { adaptiveTimeout, LatencyWindow, RequestLimiter } from './limiter.ts';
export { header } from './transport.ts';
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

let nextId = 1;

/** Attempts a request answered "not now" (429, 503) gets at least, whatever HTTP_RETRIES says. */
export const NOT_NOW_RETRIES = 6;
/** Requests in a row given up after every "not now" retry, after which the run stops (exit 2). */
export const REFUSED_IN_A_ROW = 8;

/** What the network did to the run, run-wide (the per-test tallies are in each test's record). */
export interface NetworkStats {
  retries: number;
  tooMany: number;
  unavailable: number;
  gaveUp: number;
  ambiguous: number;
  dropped: number;
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
          ambiguous(`${failure.message}, after the request was sent`, failure.short, failure.cause, failure.kind === 'timeout');
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
    function ambiguous(message: string, answer: string, cause?: unknown, silent = false): never {
      exchange.durationMs = Date.now() - started;
      network.ambiguous++;
      const noted = noteAmbiguous({ request: what, answer });
      throw new AmbiguousAnswerError(
        `${message}: it is never sent again (it may have been processed); whether it was is found out where the spec gives a way, else not judged`,
        recorder.record(exchange),
        answer,
        { ...(cause === undefined ? {} : { cause }), noted, silent },
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
