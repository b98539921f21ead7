/**
 * A test's transcript: every step it made, in order (the exchanges the recorder stores, redacted with their curl line;
 * pages a browser loaded, redirects caught, webhooks received), and the one way an exchange is rendered, clipped
 * by one bound, for the transcript and for a failed check's evidence.
 */
import type { Exchange } from './exchange.ts';
import type { Transcript, TranscriptStep } from './meta.ts';
import { redactExchange, redactUrlsIn, secrets, type SecretRegistry } from './redact.ts';
import { toCurl } from './curl.ts';
import { currentRecord, FIRST_STEPS_KEPT, maxPerRecord, recordStorage, type TestRecord } from './test-record.ts';

/** The one bound of a body or a step's detail shown in a report (the recorder keeps more: Recorder maxBodyChars). */
const MAX_DETAIL_CHARS = 2000;
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

/**
 * An exchange as the reports show it (the transcript, a failed check's evidence): the request line, headers (a few
 * that matter, or `all`), bodies clipped by the one bound; redacted by the caller (the recorder's copies are).
 */
export function renderExchange(ex: Exchange, headers: 'shown' | 'all' = 'shown'): string {
  const shown = (k: string) => headers === 'all' || SHOWN_HEADERS.has(k);
  const lines = [`> ${ex.request.method} ${ex.request.url}`];
  for (const [k, v] of Object.entries(ex.request.headers ?? {})) if (shown(k)) lines.push(`> ${k}: ${String(v)}`);
  if (ex.request.bodyText) lines.push(clipDetail(ex.request.bodyText));
  if (ex.response) {
    lines.push(`< ${ex.response.status} ${ex.response.contentType ?? ''}`.trimEnd());
    for (const [k, v] of Object.entries(ex.response.headers))
      if (SHOWN_HEADERS.has(k) && k !== 'content-type') lines.push(`< ${k}: ${String(v)}`);
    if (ex.response.bodyText) lines.push(clipDetail(ex.response.bodyText));
    if (ex.response.truncated) lines.push('< (body truncated at the response size bound)');
  } else {
    lines.push('< (no response)');
  }
  if (ex.attempts > 1) lines.push(`(${ex.attempts} attempts)`);
  for (const [i, t] of (ex.tries ?? []).entries())
    lines.push(`(attempt ${i + 1}: ${t.status ?? t.error ?? 'no answer'}; sent again after ${(t.waitedMs / 1000).toFixed(1)} s)`);
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
function noteExchange(scope: TestRecord, ex: Exchange): void {
  const answer = ex.response ? String(ex.response.status) : 'no response';
  const label = ex.label ? ` (${ex.label})` : '';
  scope.note({
    kind: exchangeKind(ex),
    title: `${ex.request.method} ${pathOf(ex.request.url)}${label} → ${answer} in ${ex.durationMs} ms`,
    detail: renderExchange(ex),
    exchangeId: ex.id,
  });
}

/**
 * Notes a step that did not go through the harness's HTTP client (a page the browser loaded, a redirect the payer
 * caught, a webhook the receiver got) in `scope` (default: the current one). Title and detail are redacted here.
 */
export function noteStep(
  step: { kind: TranscriptStep['kind']; title: string; detail?: string },
  scope: TestRecord | undefined = currentRecord(),
): void {
  scope?.note({
    kind: step.kind,
    title: redactUrlsIn(step.title),
    ...(step.detail === undefined ? {} : { detail: clipDetail(redactUrlsIn(step.detail)) }),
  });
}

/**
 * The test's transcript for the reports: every step in order, size-bounded (the first and the last steps kept,
 * details clipped), the failing one marked — the step of `failingExchangeId`, else the last one — and `end` last.
 */
export function transcriptOf(scope: TestRecord, options: { failingExchangeId?: string | undefined; end?: string } = {}): Transcript {
  let steps: (TranscriptStep & { exchangeId?: string })[] = scope.steps.map((s) => ({
    at: s.at,
    kind: s.kind,
    title: s.title,
    ...(s.detail === undefined ? {} : { detail: s.detail }),
    ...(s.exchangeId ? { exchangeId: s.exchangeId } : {}),
  }));
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
    steps.push({
      at: Date.now() - scope.startedAt,
      kind: 'end',
      title: redactUrlsIn(options.end).split('\n')[0]!,
      ...(failing < 0 ? { failing: true as const } : {}),
    });
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
 * limit 0: only each test's scope keeps its exchanges (`currentRecordExchanges`); `drain` serves harness tests.
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
    const scope = recordStorage.getStore();
    if (scope && !scope.closed) {
      scope.exchanges.push(copy);
      if (scope.exchanges.length > maxPerRecord) scope.exchanges.shift();
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
