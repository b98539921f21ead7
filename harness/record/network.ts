/**
 * What the network did to a test (principle 3: anything the harness recovers from is recorded): requests sent again
 * after a 429 or 503 ("not now"), after a dropped connection or a gateway's 502/504 to an idempotent request; the time
 * paced, waited out (Retry-After, backoff); and the ambiguous answers (a non-idempotent request whose processing an
 * answer may hide) with how each was settled. Kept on the test's record, written in its meta; the reporters sum it.
 * What a test's tally is added to lives with the record (test-record.ts `tallyNetwork`): this file only knows tallies.
 */
export interface AmbiguousAnswer {
  /** `POST /EnlacePago` (redacted). */
  request: string;
  /** What came back instead of an answer: `502`, `no response within 15 s`, `connection dropped`. */
  answer: string;
  /** How the suite found out (the lookup that showed it), or why it could not (then the test is undecidable). */
  settled?: string;
}

export interface NetworkTally {
  /** Attempts sent again, whatever the reason. */
  retries: number;
  /** Answers 429 (rate limited) met, each re-sent or given up on. */
  tooMany: number;
  /** Answers 503 (unavailable) met. */
  unavailable: number;
  /** 502/504 from a gateway met. */
  gateway: number;
  /** Connections the network dropped under a request. */
  dropped: number;
  /** Requests given up after every retry answered "not now". */
  gaveUp: number;
  /** Milliseconds held back by rate pacing (summed over tests, which wait side by side: not the run's duration). */
  pacedMs: number;
  /** Milliseconds waited out before re-sending (Retry-After, backoff). */
  backoffMs: number;
  ambiguous: AmbiguousAnswer[];
}

export function emptyTally(): NetworkTally {
  return { retries: 0, tooMany: 0, unavailable: 0, gateway: 0, dropped: 0, gaveUp: 0, pacedMs: 0, backoffMs: 0, ambiguous: [] };
}

/** Did anything happen (a tally of nothing is not written)? */
export function eventful(t: NetworkTally): boolean {
  return t.retries + t.tooMany + t.unavailable + t.gateway + t.dropped + t.gaveUp + t.ambiguous.length > 0 || t.pacedMs >= 1000;
}

/** The sum of tallies (the run's, in the summary). */
export function sumTallies(tallies: readonly (NetworkTally | undefined)[]): NetworkTally {
  const sum = emptyTally();
  for (const t of tallies) {
    if (!t) continue;
    for (const key of Object.keys(sum) as (keyof NetworkTally)[]) {
      if (key === 'ambiguous') sum.ambiguous.push(...t.ambiguous);
      else sum[key] += t[key];
    }
  }
  return sum;
}

const seconds = (ms: number): string => (ms >= 100_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);

/** One line: "3 retries · 2 × 429 · 1 × 503 · paced 4.2 s · 1 ambiguous answer (1 settled)". */
export function describeTally(t: NetworkTally): string {
  const parts: string[] = [];
  if (t.retries > 0) parts.push(`${t.retries} ${t.retries === 1 ? 'retry' : 'retries'}`);
  if (t.tooMany > 0) parts.push(`${t.tooMany} × 429`);
  if (t.unavailable > 0) parts.push(`${t.unavailable} × 503`);
  if (t.gateway > 0) parts.push(`${t.gateway} × 502/504`);
  if (t.dropped > 0) parts.push(`${t.dropped} dropped connection${t.dropped === 1 ? '' : 's'}`);
  if (t.gaveUp > 0) parts.push(`${t.gaveUp} given up`);
  if (t.pacedMs >= 100) parts.push(`paced ${seconds(t.pacedMs)}`);
  if (t.backoffMs >= 100) parts.push(`backed off ${seconds(t.backoffMs)}`);
  if (t.ambiguous.length > 0) {
    const settled = t.ambiguous.filter((a) => a.settled !== undefined && !a.settled.startsWith('not settled')).length;
    parts.push(`${t.ambiguous.length} ambiguous answer${t.ambiguous.length === 1 ? '' : 's'} (${settled} settled)`);
  }
  return parts.length > 0 ? parts.join(' · ') : 'nothing';
}
