/**
 * The per-test scope: what one test did (its exchanges and transcript steps, its waits for what other tests hold),
 * kept in async-context storage so every request, page and webhook made for a test is attributed to it; and the
 * recorder, which stores each exchange redacted, with its curl line, in the scope of the code that made it.
 *
 *   const recorder = new Recorder();                    // pass it to createHttp
 *   await withScope('4.1 monto-min', () => ...);        // exchanges made inside are attributed to that scope
 *   currentScopeExchanges();                            // redacted, each with a `curl` line
 */
import type { SkipKind } from './skips.ts';
import type { Verdict } from './verdict.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Exchange } from './exchange.ts';
import type { CheckEvidence, ConformanceMeta, Observation, Transcript, TranscriptStep } from './meta.ts';
import { redactExchange, redactUrlsIn, secrets, type SecretRegistry } from './redact.ts';
import { toCurl } from './curl.ts';

/** One step of a test's transcript, kept in the order it happened. */
interface Step {
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
export class Scope {
  /** When its budget started: at its body, past its run and tenant (clauseTest sets it). */
  startedAt = Date.now();
  /** Clause ids the test cites: its name's, then any learnt while running (`t.cite`). */
  clauses: string[] = [];
  endpoint = '';
  /** What was observed where the spec is silent (WARN). */
  readonly observations: Observation[] = [];
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
  /** The failure that ended it was the target's (harness/run/outcome.ts `judged`). */
  judged = false;
  /** Its verdict, decided once when it ends (harness/record/verdict.ts). */
  verdict: Verdict | undefined;
  readonly exchanges: Exchange[] = [];
  readonly steps: Step[] = [];
  /** Steps dropped from the middle to bound memory (the first and the last ones are kept). */
  dropped = 0;
  /** Set when the test has ended: late deliveries (a webhook after the test) are no longer noted. */
  closed = false;
  /** Requests made for the test before its scope began (its test-control tenant): part of its chain at the request cap. */
  madeBefore = 0;
  /** How many requests the test made in the last run (harness/run/chains.ts), when known: its chain's length. */
  expected: number | undefined;
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

  /** What the reporters read of this test (harness/record/meta.ts): `failure` is the first failed check, `failures` all of them when several. */
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
      requests: this.madeBefore + this.exchanges.length,
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
const FIRST_STEPS_KEPT = 40;

const scopeStorage = new AsyncLocalStorage<Scope>();
const maxPerScope = 500;
const sharedStorage = new AsyncLocalStorage<boolean>();

/** Whether the code running now is work other tests wait for (`sharedWork`): its requests go first at the cap. */
export function forOtherTests(): boolean {
  return sharedStorage.getStore() === true;
}

/** Runs fn with a scope (a new one named `name`, or the one given): exchanges recorded inside (across awaits) are also listed for it. */
export function withScope<T>(scope: string | Scope, fn: () => T): T {
  return scopeStorage.run(typeof scope === 'string' ? new Scope(scope) : scope, fn);
}

/** The scope of the code running now (undefined outside any test). */
export function currentScope(): Scope | undefined {
  return scopeStorage.getStore();
}

/** Redacted exchanges recorded in the current scope so far (empty outside any scope). */
export function currentScopeExchanges(): Exchange[] {
  return [...(scopeStorage.getStore()?.exchanges ?? [])];
}

/**
 * Awaits `promise` as time spent waiting for something shared (`what`: "the request cap", "a browser page"): the
 * current test's budget does not count it. Outside a test, just awaits it.
 */
export async function waitingFor<T>(what: string, promise: Promise<T> | (() => Promise<T>)): Promise<T> {
  const end = scopeStorage.getStore()?.beginWait(what);
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
  let work: { promise: Promise<T>; by: Scope | undefined } | undefined;
  return (build) => {
    if (!work) {
      work = { promise: sharedStorage.run(true, build), by: currentScope() };
      return work.promise;
    }
    return currentScope() === work.by ? work.promise : waitingFor('work another test started for both', work.promise);
  };
}

/** Runs `fn` as work in flight of the current test (`what` names it when the test's budget runs out meanwhile). */
export async function doing<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const end = scopeStorage.getStore()?.beginDoing(what);
  try {
    return await fn();
  } finally {
    end?.();
  }
}

const MAX_DETAIL_CHARS = 1500;
const MAX_TRANSCRIPT_STEPS = 120;
const MAX_TRANSCRIPT_CHARS = 60_000;

function clipDetail(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}… (${text.length} characters)` : text;
}

/** The kind of step an exchange is: a token request, a hosted page the payer loaded or posted, or an API call. */
function exchangeKind(ex: Exchange): TranscriptStep['kind'] {
  if (/\/connect\/token\b/.test(ex.request.url) || ex.label === 'issueToken') return 'token';
  // The labels of the HTTP payer's requests (harness/payer/http.ts): what a customer's browser would send.
  if (/^(hosted screen|QR image|pay link|complete 3DS|pay quick-pay|quick-pay page)/.test(ex.label ?? '')) return 'page';
  return 'api';
}

const SHOWN_HEADERS = new Set(['authorization', 'content-type', 'location', 'cookie', 'set-cookie', 'retry-after']);

/** A redacted exchange as the transcript shows it: request line, a few headers, bodies clipped. */
function exchangeDetail(ex: Exchange): string {
  const lines = [`> ${ex.request.method} ${ex.request.url}`];
  for (const [k, v] of Object.entries(ex.request.headers)) if (SHOWN_HEADERS.has(k)) lines.push(`> ${k}: ${v}`);
  if (ex.request.bodyText) lines.push(clipDetail(ex.request.bodyText));
  if (ex.response) {
    lines.push(`< ${ex.response.status} ${ex.response.contentType}`.trimEnd());
    for (const [k, v] of Object.entries(ex.response.headers)) if (SHOWN_HEADERS.has(k) && k !== 'content-type') lines.push(`< ${k}: ${String(v)}`);
    if (ex.response.bodyText) lines.push(clipDetail(ex.response.bodyText));
  } else {
    lines.push('< (no response)');
  }
  if (ex.attempts > 1) lines.push(`(${ex.attempts} attempts)`);
  return lines.join('\n');
}

/** A URL's path and query, as a transcript shows it (the text itself when it is no URL). */
export function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** Notes a recorded (redacted) exchange as a step of the scope. */
function noteExchange(scope: Scope, ex: Exchange): void {
  const answer = ex.response ? String(ex.response.status) : 'no response';
  const label = ex.label ? ` (${ex.label})` : '';
  scope.note({ kind: exchangeKind(ex), title: `${ex.request.method} ${pathOf(ex.request.url)}${label} → ${answer} in ${ex.durationMs} ms`, detail: exchangeDetail(ex), exchangeId: ex.id });
}

/**
 * Notes a step that did not go through the harness's HTTP client (a page the browser loaded, a redirect the payer
 * caught, a webhook the receiver got) in `scope` (default: the current one). Title and detail are redacted here.
 */
export function noteStep(step: { kind: TranscriptStep['kind']; title: string; detail?: string }, scope: Scope | undefined = currentScope()): void {
  scope?.note({ kind: step.kind, title: redactUrlsIn(step.title), ...(step.detail === undefined ? {} : { detail: clipDetail(redactUrlsIn(step.detail)) }) });
}

/**
 * The test's transcript for the reports: every step in order, size-bounded (the first and the last steps kept,
 * details clipped), the failing one marked — the step of `failingExchangeId`, else the last one — and `end` last.
 */
export function transcriptOf(scope: Scope, options: { failingExchangeId?: string | undefined; end?: string } = {}): Transcript {
  let steps: (TranscriptStep & { exchangeId?: string })[] = scope.steps.map((s) => ({ at: s.at, kind: s.kind, title: s.title, ...(s.detail === undefined ? {} : { detail: s.detail }), ...(s.exchangeId ? { exchangeId: s.exchangeId } : {}) }));
  let omitted = scope.dropped;
  let gapAt = FIRST_STEPS_KEPT;
  if (steps.length > MAX_TRANSCRIPT_STEPS) {
    gapAt = Math.floor(MAX_TRANSCRIPT_STEPS / 6);
    omitted += steps.length - MAX_TRANSCRIPT_STEPS;
    steps = [...steps.slice(0, gapAt), ...steps.slice(steps.length - (MAX_TRANSCRIPT_STEPS - gapAt))];
  }
  const failing = options.failingExchangeId === undefined ? -1 : lastIndexOf(steps, (s) => s.exchangeId === options.failingExchangeId);
  if (failing >= 0) steps[failing]!.failing = true;
  if (options.end !== undefined) {
    steps.push({ at: Date.now() - scope.startedAt, kind: 'end', title: redactUrlsIn(options.end).split('\n')[0]!, ...(failing < 0 ? { failing: true as const } : {}) });
  } else if (failing < 0 && steps.length > 0) steps[steps.length - 1]!.failing = true;
  if (omitted > 0) steps.splice(gapAt, 0, { at: steps[gapAt]?.at ?? 0, kind: 'gap', title: `… ${omitted} step(s) omitted …` });
  // Bounded in characters too: the earliest details go first (never the failing step's).
  let size = steps.reduce((n, s) => n + s.title.length + (s.detail?.length ?? 0), 0);
  for (let i = 0; i < steps.length && size > MAX_TRANSCRIPT_CHARS; i++) {
    const s = steps[i]!;
    if (s.failing || s.detail === undefined) continue;
    size -= s.detail.length;
    delete s.detail;
  }
  for (const s of steps) delete s.exchangeId;
  return { steps, omitted };
}

function lastIndexOf<T>(list: T[], test: (item: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i]!)) return i;
  return -1;
}

/**
 * Keeps the last `limit` exchanges, redacted, each with its curl line; bodies clipped to bound memory. The run uses
 * limit 0: only each test's scope keeps its exchanges (`currentScopeExchanges`); `drain` serves harness tests.
 */
export class Recorder {
  #stored: Exchange[] = [];
  readonly #limit: number;
  readonly #maxBodyChars: number;
  readonly #registry: SecretRegistry;

  constructor(options: { limit?: number; maxBodyChars?: number; registry?: SecretRegistry } = {}) {
    this.#limit = options.limit ?? 2000;
    this.#maxBodyChars = options.maxBodyChars ?? 65_536;
    this.#registry = options.registry ?? secrets;
  }

  /** Stores a redacted copy (with a curl line made from the raw request) and returns it. */
  record(exchange: Exchange): Exchange {
    const copy = redactExchange(exchange, this.#registry);
    copy.curl = toCurl(exchange, this.#registry);
    copy.request.bodyText = this.#clip(copy.request.bodyText);
    if (copy.response) copy.response.bodyText = this.#clip(copy.response.bodyText);
    if (this.#limit > 0) {
      this.#stored.push(copy);
      if (this.#stored.length > this.#limit) this.#stored.splice(0, this.#stored.length - this.#limit);
    }
    const scope = scopeStorage.getStore();
    if (scope && !scope.closed) {
      scope.exchanges.push(copy);
      if (scope.exchanges.length > maxPerScope) scope.exchanges.shift();
      noteExchange(scope, copy);
    }
    return copy;
  }

  /** Takes every stored exchange out, oldest first. */
  drain(): Exchange[] {
    const out = this.#stored;
    this.#stored = [];
    return out;
  }

  get size(): number {
    return this.#stored.length;
  }

  #clip(text: string): string {
    const max = this.#maxBodyChars;
    return text.length > max ? `${text.slice(0, max)}…[${text.length - max} more characters]` : text;
  }
}

/**
 * A test's place in a queue for shared capacity (the request cap, the browser payer's turns). Work tests wait for
 * goes first (shared work, a test's tenant being created): it is on their path. Then the longest chain of requests still to run, where the last run's report in REPORT_DIR tells each
 * test's length (critical path first, harness/run/chains.ts); without one, the test furthest along its own chain.
 */
export function priorityNow(): number {
  const scope = currentScope();
  if (forOtherTests() || !scope) return 1_000_000;
  const made = scope.madeBefore + scope.exchanges.length;
  if (scope.expected === undefined) return made;
  // A chain longer than last time (a model test draws its commands anew) is still a long one: not last in line.
  return 10_000 + Math.max(scope.expected - made, Math.ceil(made / 2), 1);
}

/** Who is served next in a queue ordered by priorityNow: the highest priority, then the first come (lowest seq). */
export function nextInLine(waiting: readonly { priority: number; seq: number }[]): number {
  let next = 0;
  for (let i = 1; i < waiting.length; i++) {
    const [w, best] = [waiting[i]!, waiting[next]!];
    if (w.priority > best.priority || (w.priority === best.priority && w.seq < best.seq)) next = i;
  }
  return next;
}
