/**
 * Progress of a run. While a test waits in real time, one line says what it waits for and how long is
 * left: a live line on a terminal (CONFORMANCE_PROGRESS=live, set by scripts/conformance.ts when its stderr is one),
 * else a line when the waiting starts and every 30 s. At the end, where the time went: the wall time during which a
 * real-time wait, a request, a browser page was pending (they overlap, so they need not add up to the run's time).
 * Once a run's tests start (runStarted), a progress line: tests done of those declared, the time waited in real time
 * and the longest wait ahead — kept up to date on a terminal, else every PROGRESS_EVERY_S (default 20 s; the first one
 * after 10 s, so a fast run prints none or one).
 *
 *   const end = pending('wait', 'a payment 90 s after the screen was shown', 90);
 *   try { await sleep(90_000); } finally { end(); }
 *   process.stderr.write(`${whereTheTimeWent()}\n`);
 */
export type Activity = 'wait' | 'request' | 'browser';

interface Pending {
  kind: Activity;
  what: string;
  endsAt?: number;
}

const LINE_EVERY_MS = 30_000;
const LIVE_EVERY_MS = 1_000;
/** The first progress line of a run without a terminal: a run done sooner prints none. */
const FIRST_LINE_MS = 10_000;

const startedAt = Date.now();
const active = new Set<Pending>();
/** Per kind: how many are pending, since when the kind has been busy, and the busy time so far. */
const busy: Record<Activity, { count: number; since: number; totalMs: number }> = {
  wait: { count: 0, since: 0, totalMs: 0 },
  request: { count: 0, since: 0, totalMs: 0 },
  browser: { count: 0, since: 0, totalMs: 0 },
};
let waits = 0;
let longestWaitS = 0;
let ticker: NodeJS.Timeout | undefined;
let liveShown = false;
/** The tests of the run: declared (clauseTest), started, finished. */
const tests = { declared: 0, done: 0 };
let runTicker: NodeJS.Timeout | undefined;
let runStartedAt = 0;

/** The period of CI's progress lines: PROGRESS_EVERY_S (5 to 300), else 20 s. */
export function progressEveryMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env['PROGRESS_EVERY_S']?.trim() || 20);
  return Number.isInteger(s) && s >= 5 && s <= 300 ? s * 1000 : 20_000;
}

/** A test declared (clauseTest): the total the progress line counts towards. */
export function testDeclared(): void {
  tests.declared++;
}

/** A test finished, whatever its verdict. */
export function testDone(): void {
  tests.done++;
}

/** The run's tests have started: the progress line from now on (once). */
export function runStarted(): void {
  if (runTicker || quiet()) return;
  runStartedAt = Date.now();
  // The first line sooner than the period: the run's start (vitest, the global setup) has already taken a while.
  const every = live() ? LIVE_EVERY_MS : progressEveryMs();
  const tick = (after: number): void => {
    runTicker = setTimeout(() => {
      showProgress();
      tick(every);
    }, after);
    runTicker.unref();
  };
  tick(Math.min(every, FIRST_LINE_MS));
}

/** The run's tests have ended: the live line cleared. */
export function runEnded(): void {
  if (runTicker) clearTimeout(runTicker);
  runTicker = undefined;
  if (liveShown) process.stderr.write('\r\x1b[2K');
  liveShown = false;
}

/** `progress: 120 of 296 tests done in 64 s; waited in real time 30 s; longest wait ahead 85 s (what)` */
export function progressLine(now = Date.now()): string {
  const b = busy.wait;
  const waited = Math.round((b.totalMs + (b.count > 0 ? now - b.since : 0)) / 1000);
  const waitsNow = [...active].filter((a) => a.kind === 'wait' && a.endsAt !== undefined);
  const longest = waitsNow.reduce<Pending | undefined>((a, x) => (a && (a.endsAt ?? 0) >= (x.endsAt ?? 0) ? a : x), undefined);
  const ahead = longest
    ? `longest wait ahead ${Math.max(0, Math.ceil(((longest.endsAt ?? now) - now) / 1000))} s (${longest.what})`
    : 'no wait ahead';
  const elapsed = Math.round((now - (runStartedAt || startedAt)) / 1000);
  return `progress: ${tests.done} of ${tests.declared} tests done in ${elapsed} s; waited in real time ${waited} s; ${ahead}`;
}

function showProgress(): void {
  if (live()) {
    process.stderr.write(`\r\x1b[2K${progressLine().slice(0, (process.stderr.columns || 120) - 1)}`);
    liveShown = true;
  } else process.stderr.write(`${progressLine()}\n`);
}

const live = (): boolean => process.env['CONFORMANCE_PROGRESS'] === 'live';
const quiet = (): boolean => process.env['CONFORMANCE_PROGRESS'] === 'off';

/** Marks one activity pending until the returned function is called (once). `seconds`: how long it will last. */
export function pending(kind: Activity, what: string, seconds?: number): () => void {
  const item: Pending = { kind, what, ...(seconds === undefined ? {} : { endsAt: Date.now() + seconds * 1000 }) };
  const b = busy[kind];
  if (b.count++ === 0) b.since = Date.now();
  active.add(item);
  if (kind === 'wait') {
    waits++;
    longestWaitS = Math.max(longestWaitS, seconds ?? 0);
    if (busy.wait.count === 1) startTicker();
  }
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    active.delete(item);
    if (--b.count === 0) b.totalMs += Date.now() - b.since;
    if (kind === 'wait' && busy.wait.count === 0) stopTicker();
  };
}

/** What the run is waiting for now, or undefined when no real-time wait is pending. */
export function waitingLine(now = Date.now()): string | undefined {
  const items = [...active].filter((a) => a.kind === 'wait');
  if (items.length === 0) return undefined;
  const longest = items.reduce((a, b) => ((b.endsAt ?? 0) > (a.endsAt ?? 0) ? b : a));
  const left = Math.max(0, Math.ceil(((longest.endsAt ?? now) - now) / 1000));
  const others = items.length > 1 ? ` (and ${items.length - 1} shorter wait${items.length > 2 ? 's' : ''})` : '';
  return `waiting in real time: ${left} s left for ${longest.what}${others}`;
}

/** One line: the run's time so far, and the wall time each kind of activity was pending. */
export function whereTheTimeWent(now = Date.now()): string {
  const seconds = (kind: Activity) => {
    const b = busy[kind];
    return ((b.totalMs + (b.count > 0 ? now - b.since : 0)) / 1000).toFixed(1);
  };
  const waited = waits === 0 ? 'no real-time waits' : `real-time waits ${seconds('wait')} s (${waits}, the longest ${longestWaitS} s)`;
  // The browser payer reports the pages it drives with pending('browser', …) (harness/payer/browser.ts).
  const browser = busy.browser.totalMs > 0 || busy.browser.count > 0 ? `; browser pages ${seconds('browser')} s` : '';
  return (
    `where the time went: ${((now - startedAt) / 1000).toFixed(1)} s in all; ${waited}; requests in flight ` +
    `${seconds('request')} s${browser} (wall time with at least one pending; they overlap)`
  );
}

function startTicker(): void {
  // On a terminal the run's progress line says the waits too: one live line, not two.
  if (quiet() || ticker || (live() && runTicker)) return;
  if (!live()) show();
  ticker = setInterval(show, live() ? LIVE_EVERY_MS : LINE_EVERY_MS);
  ticker.unref();
}

function stopTicker(): void {
  if (ticker) clearInterval(ticker);
  ticker = undefined;
  if (liveShown) process.stderr.write('\r\x1b[2K');
  liveShown = false;
}

function show(): void {
  const line = waitingLine();
  if (line === undefined) return;
  if (live()) {
    process.stderr.write(`\r\x1b[2K${line.slice(0, (process.stderr.columns || 120) - 1)}`);
    liveShown = true;
  } else process.stderr.write(`${line}\n`);
}
