/**
 * The run's pace at the HTTP client: the cap on requests in flight (a semaphore whose size moves, AIMD, with a run-wide
 * pause after a 429/503) and the timeout that follows the target's observed latency. Apart from the client (http.ts)
 * so that the retry logic reads as one piece there; the bench and the tests drive these directly.
 */
import type { Pacer } from './pacing.ts';
import { nextInLine } from './queue-order.ts';

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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
