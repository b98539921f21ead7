/**
 * The test's record (TestRecord): what one test did and found, kept in async-context storage so every request, page
 * and webhook made for a test is attributed to it, whatever awaits lie between; and the waits and shared work it
 * takes part in. Its transcript is rendered by transcript.ts; the request cap's queue order is api/queue-order.ts.
 *
 *   await withRecord('4.1 monto-min', () => ...);        // exchanges made inside are attributed to that record
 *   currentRecordExchanges();                            // redacted, each with a `curl` line
 */
import type { SkipKind } from './skips.ts';
import type { Verdict } from './verdict.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Exchange } from './exchange.ts';
import type { CheckEvidence, ConformanceMeta, Observation, Transcript, TranscriptStep } from './meta.ts';
import { emptyTally, eventful, type AmbiguousAnswer, type NetworkTally } from './network.ts';

/** One step of a test's transcript, kept in the order it happened. */
export interface Step {
  at: number;
  kind: TranscriptStep['kind'];
  title: string;
  detail?: string;
  /** The recorded exchange's id (a failed check names it: the failing step). */
  exchangeId?: string;
}

/**
 * The test's single record: what one test did — its exchanges, every step of its transcript (exchanges, pages a
 * browser loaded, redirects caught, webhooks received), the time it spent waiting for what other tests hold (the
 * request cap, the test lock, a browser page), which its own budget does not count (harness/run/conformance.ts) —
 * and what it found: the clauses it cites, its observations, its failed checks (soft ones first), its replay seed.
 * `toMeta()` is what the reporters get (harness/record/meta.ts), written once when the test ends.
 */
export class TestRecord {
  /** When its budget started: at its body, past its run and tenant (clauseTest sets it). */
  startedAt = Date.now();
  /** Clause ids the test cites: its name's, then any learnt while running (`t.cite`). */
  clauses: string[] = [];
  endpoint = '';
  /** What was observed where the spec is silent (WARN). */
  readonly observations: Observation[] = [];
  /** Notes of the run learnt while it ran (meta.ts `runNotes`): not the test's, never a WARN. */
  readonly runNotes: string[] = [];
  /** Failed checks in the order they failed: soft ones (`t.soft`), then the one that stopped the test, if any. */
  readonly failures: CheckEvidence[] = [];
  seed: number | undefined;
  replay: string | undefined;
  /** Listed in EXPECTED_FAILURES_FILE: how it went. */
  expectedOutcome: 'failed' | 'passed' | undefined;
  /** Set when the test failed or errored: every step to its end. */
  transcript: Transcript | undefined;
  /** Why it was not judged, by kind (harness/record/skips.ts), when it skipped. */
  skipKind: SkipKind | undefined;
  /** The reason it gave when it skipped. */
  skipReason: string | undefined;
  /** Set when the run stopped under it (the target refusing every request "not now"): it did not run. */
  stopped: string | undefined;
  /** The failure that ended it was the target's (harness/run/outcome.ts `judged`). */
  judged = false;
  /** Its verdict, decided once when it ends (harness/record/verdict.ts). */
  verdict: Verdict | undefined;
  readonly exchanges: Exchange[] = [];
  /** What the network did to it: retries, 429s, 503s, time paced, ambiguous answers (harness/record/network.ts). */
  readonly network = emptyTally();
  readonly steps: Step[] = [];
  /** Steps dropped from the middle to bound memory (the first and the last ones are kept). */
  dropped = 0;
  /** Set when the test has ended (`end`): late deliveries (a webhook after the test) are no longer noted. */
  closed = false;
  readonly #atEnd: (() => void)[] = [];
  /** Runs `release` when the test ends (at once if it has): what a test holds (a screen kept open) lives no longer. */
  atEnd(release: () => void): void {
    if (this.closed) release();
    else this.#atEnd.push(release);
  }
  /** The test has ended: what it held is released. */
  end(): void {
    this.closed = true;
    for (const release of this.#atEnd.splice(0)) release();
  }
  /** Requests made for the test before its scope began (its test-control tenant): part of its chain at the request cap. */
  madeBefore = 0;
  /** How many requests the test made in the last run (harness/run/chains.ts), when known: its chain's length. */
  expected: number | undefined;
  /**
   * While the test acts before a deadline the target stated (epoch ms on our clock; harness/run/waits.ts
   * beforeDeadline): its work goes first at the payer's turns and the request cap (api/queue-order.ts).
   */
  deadlineAt: number | undefined;
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

  /** Adds clause ids, each once. */
  cite(more: readonly string[]): void {
    this.clauses = [...new Set([...this.clauses, ...more])];
  }

  /**
   * What the reporters read of this test (harness/record/meta.ts): `failure` is the first failed check, `failures`
   * all of them when several.
   */
  toMeta(): Partial<ConformanceMeta> {
    const [failure] = this.failures;
    return {
      clauses: this.clauses,
      endpoint: this.endpoint,
      ...(this.seed !== undefined ? { seed: this.seed } : {}),
      ...(this.replay !== undefined ? { replay: this.replay } : {}),
      ...(failure ? { failure } : {}),
      ...(this.failures.length > 1 ? { failures: [...this.failures] } : {}),
      ...(this.transcript ? { transcript: this.transcript } : {}),
      ...(this.observations.length > 0 ? { observations: [...this.observations] } : {}),
      ...(this.expectedOutcome ? { expected: this.expectedOutcome } : {}),
      ...(this.skipKind ? { skipKind: this.skipKind } : {}),
      ...(this.verdict ? { verdict: this.verdict } : {}),
      ...(this.runNotes.length > 0 ? { runNotes: [...this.runNotes] } : {}),
      requests: this.madeBefore + this.exchanges.length,
      ...(eventful(this.network) ? { network: { ...this.network, ambiguous: [...this.network.ambiguous] } } : {}),
    };
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
/** Steps kept from a test's start when its middle is dropped (the transcript keeps them too). */
export const FIRST_STEPS_KEPT = 40;

export const recordStorage = new AsyncLocalStorage<TestRecord>();
/** Exchanges a record keeps (the oldest dropped first). */
export const maxPerRecord = 500;
const sharedStorage = new AsyncLocalStorage<boolean>();

/** Whether the code running now is work other tests wait for (`sharedWork`): its requests go first at the cap. */
export function forOtherTests(): boolean {
  return sharedStorage.getStore() === true;
}

/** Runs fn with a test's record (a new one named `name`, or the one given): exchanges made inside (across awaits) are also listed on it. */
export function withRecord<T>(record: string | TestRecord, fn: () => T): T {
  return recordStorage.run(typeof record === 'string' ? new TestRecord(record) : record, fn);
}

/** The record of the test whose code runs now (undefined outside any test). */
export function currentRecord(): TestRecord | undefined {
  return recordStorage.getStore();
}

/** Redacted exchanges on the current test's record so far (empty outside any test). */
export function currentRecordExchanges(): Exchange[] {
  return [...(recordStorage.getStore()?.exchanges ?? [])];
}

/**
 * Awaits `promise` as time spent waiting for something shared (`what`: "the request cap", "a browser page"): the
 * current test's budget does not count it. Outside a test, just awaits it.
 */
export async function waitingFor<T>(what: string, promise: Promise<T> | (() => Promise<T>)): Promise<T> {
  const end = recordStorage.getStore()?.beginWait(what);
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
  let work: { promise: Promise<T>; by: TestRecord | undefined } | undefined;
  return (build) => {
    if (!work) {
      work = { promise: sharedStorage.run(true, build), by: currentRecord() };
      return work.promise;
    }
    return currentRecord() === work.by ? work.promise : waitingFor('work another test started for both', work.promise);
  };
}

/** Runs `fn` as work in flight of the current test (`what` names it when the test's budget runs out meanwhile). */
export async function doing<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const end = recordStorage.getStore()?.beginDoing(what);
  try {
    return await fn();
  } finally {
    end?.();
  }
}

/** A counter of the network tally (network.ts). */
type Counter = Exclude<keyof NetworkTally, 'ambiguous'>;

/** Adds to the current test's tally (nothing outside a test). */
export function tallyNetwork(counter: Counter, by = 1): void {
  const scope = currentRecord();
  if (scope && !scope.closed) scope.network[counter] += by;
}

/** Notes an ambiguous answer on the current test; returns it, so its settling can be written on it. */
export function noteAmbiguous(answer: AmbiguousAnswer): AmbiguousAnswer {
  const scope = currentRecord();
  if (scope && !scope.closed) scope.network.ambiguous.push(answer);
  return answer;
}
