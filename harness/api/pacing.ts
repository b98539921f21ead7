/**
 * Rate pacing: a client-side token bucket whose rate adapts to the target (as the AWS SDKs' "adaptive" retry mode),
 * so a run does not keep sending faster than the target accepts. It starts modest, doubles while the target answers
 * and it is the one holding requests back (slow start), multiplies by 0.7 on a 429 (at most once per window, so one
 * burst of 429s slows it once), then grows back halfway towards the rate the 429 met, then a little at a time past it;
 * MAX_RPS caps it. The request cap (RequestLimiter,
 * http.ts) bounds requests in flight; this bounds requests per second.
 *
 *   const pacer = new Pacer({ maxRps: 50 });
 *   for (let w = pacer.take(); w > 0; w = pacer.take()) await sleep(w);   // 0 = a token taken, go
 *   pacer.answered('throttled');         // a 429: slower; 'ok': may grow
 */

export interface PacerOptions {
  /** The cap (MAX_RPS). */
  maxRps: number;
  /** Where the rate starts (default min(10, maxRps)). */
  startRps?: number;
  /** Slowest it goes, whatever the target says (requests per second). */
  minRps?: number;
  /** Clock (ms), for tests. */
  now?: () => number;
}

/** How much a 429 slows the rate. */
export const THROTTLE_FACTOR = 0.7;

export class Pacer {
  readonly max: number;
  readonly #min: number;
  readonly #now: () => number;
  #rate: number;
  /** When the next token is free (ms): the bucket as the instant its next token becomes available. */
  #nextFree = 0;
  /** Slow start until the first 429: doubling; after it, growth by 5 % per rate's worth of answers. */
  #slowStart = true;
  #good = 0;
  /** The rate the last 429 met. */
  #limit = 0;
  #lastDecrease = Number.NEGATIVE_INFINITY;
  /** Did a request wait for a token since the rate last grew (only then is the rate what holds the run back)? */
  #held = false;
  #throttles = 0;
  #pacedMs = 0;

  constructor(options: PacerOptions) {
    if (!(options.maxRps > 0)) throw new Error(`maxRps must be a positive number (got ${options.maxRps})`);
    this.max = options.maxRps;
    this.#min = Math.min(options.minRps ?? 0.5, this.max);
    this.#now = options.now ?? Date.now;
    this.#rate = Math.min(options.startRps ?? 10, this.max);
  }

  /** Requests per second now. */
  get rate(): number {
    return this.#rate;
  }
  /** 429s that slowed the rate. */
  get throttles(): number {
    return this.#throttles;
  }
  /** Milliseconds requests were held back in all, run-wide. */
  get pacedMs(): number {
    return this.#pacedMs;
  }

  /**
   * Takes a token if one is free now (0: send); otherwise the milliseconds until the next one, nothing taken — the
   * caller sleeps and asks again. Nothing is booked ahead, so a rate that grows (or shrinks) applies to every request
   * still waiting, not only to those that arrive after the change. After a quiet spell a quarter second's worth of
   * tokens goes at once; beyond it requests are spaced 1/rate apart.
   */
  take(): number {
    const now = this.#now();
    const spacing = 1000 / this.#rate;
    // Unused time banks at most a quarter second of tokens (the bucket's size): a burst on top of a steady stream
    // would overrun a limiter that counts a sliding second.
    const earliest = Math.max(this.#nextFree, now - Math.max(250, spacing) + spacing);
    if (earliest > now) {
      this.#held = true;
      return earliest - now;
    }
    this.#nextFree = earliest + spacing;
    return 0;
  }

  /** Milliseconds a request was held back, for the run's tally. */
  waited(ms: number): void {
    this.#pacedMs += ms;
  }

  /** The answer to a paced request: 'throttled' (429) slows the rate, 'ok' may grow it. */
  answered(answer: 'ok' | 'throttled' | 'none'): void {
    const now = this.#now();
    if (answer === 'throttled') {
      this.#good = 0;
      // One burst of 429s (the requests already on their way) is one signal: a window of about a second.
      if (now - this.#lastDecrease < Math.max(1000, 2000 / this.#rate)) return;
      this.#lastDecrease = now;
      this.#slowStart = false;
      this.#throttles++;
      this.#limit = this.#rate;
      this.#rate = Math.max(this.#min, this.#rate * THROTTLE_FACTOR);
      // Tokens banked at the old rate are void: the next requests go at the new spacing.
      this.#nextFree = Math.max(this.#nextFree, now + 1000 / this.#rate);
      return;
    }
    if (answer !== 'ok' || this.#rate >= this.max) return;
    // Slow start doubles per quarter second's worth of answers (a local target reaches its pace in about a second),
    // later growth takes a second's worth.
    if (++this.#good < (this.#slowStart ? this.#rate / 4 : this.#rate)) return;
    this.#good = 0;
    // Growth only where the rate held requests back: a quiet run does not earn a rate it never tried.
    if (!this.#held) return;
    this.#held = false;
    // After a 429: halfway back towards the rate that met it while well below it, then carefully past it (as CUBIC).
    const grown = this.#slowStart
      ? this.#rate * 2
      : this.#rate < 0.9 * this.#limit
        ? this.#rate + (this.#limit - this.#rate) / 2
        : this.#rate * 1.05 + 0.5;
    this.#rate = Math.min(this.max, grown);
  }
}
