/**
 * Progress of a run: what a real-time wait shows while it lasts, in CI (a
 * line at once, then every 30 s) and on a terminal (one live line, cleared at the end), and where the time went.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  pending,
  progressEveryMs,
  progressLine,
  runEnded,
  runStarted,
  testDeclared,
  testDone,
  waitingLine,
  whereTheTimeWent,
} from '../../harness/record/progress.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  delete process.env['CONFORMANCE_PROGRESS'];
});

describe('progress of real-time waits', () => {
  it('says what the longest wait is for and how long is left, in CI a line at once and every 30 s', () => {
    vi.useFakeTimers({ now: Date.now() });
    process.env['CONFORMANCE_PROGRESS'] = 'lines';
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    expect(waitingLine()).toBeUndefined();
    const long = pending('wait', 'a payment 90 s after the screen was shown', 90);
    const short = pending('wait', "a token's lifetime", 10);
    expect(written).toEqual(['waiting in real time: 90 s left for a payment 90 s after the screen was shown\n']);
    vi.advanceTimersByTime(30_000);
    expect(written.at(-1)).toBe('waiting in real time: 60 s left for a payment 90 s after the screen was shown (and 1 shorter wait)\n');
    short();
    long();
    long(); // ending twice counts once
    expect(waitingLine()).toBeUndefined();
    vi.advanceTimersByTime(60_000);
    expect(written).toHaveLength(2);
    expect(whereTheTimeWent()).toMatch(
      /^where the time went: [\d.]+ s in all; real-time waits 30\.0 s \(2, the longest 90 s\); requests in flight 0\.0 s \(/,
    );
  });

  it('on a terminal keeps one live line, cleared when the waits end', () => {
    vi.useFakeTimers({ now: Date.now() });
    process.env['CONFORMANCE_PROGRESS'] = 'live';
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const end = pending('wait', 'a quick-pay QR to expire', 5);
    vi.advanceTimersByTime(2_000);
    expect(written).toEqual([
      '\r\x1b[2Kwaiting in real time: 4 s left for a quick-pay QR to expire',
      '\r\x1b[2Kwaiting in real time: 3 s left for a quick-pay QR to expire',
    ]);
    end();
    expect(written.at(-1)).toBe('\r\x1b[2K');
  });

  it('counts the wall time requests were in flight, overlapping ones once', () => {
    vi.useFakeTimers({ now: Date.now() });
    const a = pending('request', 'POST /EnlacePago');
    vi.advanceTimersByTime(1_000);
    const b = pending('request', 'GET /TransaccionCompra/1');
    vi.advanceTimersByTime(1_000);
    a();
    b();
    expect(whereTheTimeWent()).toContain('requests in flight 2.0 s');
  });
});

describe('progress of a run', () => {
  it('in CI a line every PROGRESS_EVERY_S (none before), with tests done of the total, time waited and the longest wait ahead', () => {
    vi.useFakeTimers({ now: Date.now() });
    process.env['CONFORMANCE_PROGRESS'] = 'lines';
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    for (let i = 0; i < 4; i++) testDeclared();
    runStarted();
    testDone();
    vi.advanceTimersByTime(9_000);
    expect(written.filter((l) => l.startsWith('progress:'))).toEqual([]); // a fast run: nothing yet
    vi.advanceTimersByTime(1_000);
    expect(written.at(-1)).toMatch(/^progress: 1 of 4 tests done in 10 s; .*no wait ahead\n$/);
    const end = pending('wait', 'a link to expire', 60);
    vi.advanceTimersByTime(20_000);
    expect(written.at(-1)).toMatch(
      /^progress: 1 of 4 tests done in 30 s; waited in real time \d+ s; longest wait ahead 40 s \(a link to expire\)\n$/,
    );
    end();
    vi.advanceTimersByTime(20_000);
    expect(written.at(-1)).toMatch(/^progress: 1 of 4 tests done in 50 s; waited in real time \d+ s; no wait ahead\n$/);
    runEnded();
    const count = written.length;
    vi.advanceTimersByTime(60_000);
    expect(written).toHaveLength(count);
    expect(progressLine()).toMatch(/^progress: 1 of 4/);
  });

  it('PROGRESS_EVERY_S sets the period, within 5 to 300 s', () => {
    expect(progressEveryMs({})).toBe(20_000);
    expect(progressEveryMs({ PROGRESS_EVERY_S: '15' })).toBe(15_000);
    expect(progressEveryMs({ PROGRESS_EVERY_S: '1' })).toBe(20_000);
  });
});
