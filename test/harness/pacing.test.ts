/**
 * The adaptive rate pacing (harness/api/pacing.ts): starts modest, grows while the target answers and the rate is what
 * holds requests back, slows by THROTTLE_FACTOR on a 429 (one burst of 429s counts once), never past MAX_RPS. On a
 * hand-driven clock, so no test depends on timing.
 */
import { describe, expect, it } from 'vitest';
import { Pacer, THROTTLE_FACTOR } from '../../harness/api/pacing.ts';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('rate pacing', () => {
  it('starts at 10 requests/s: after a quarter second of tokens, requests are spaced 100 ms apart', () => {
    const c = clock();
    const pacer = new Pacer({ maxRps: 100, now: c.now });
    expect(pacer.rate).toBe(10);
    // The bucket holds a quarter second (2 whole tokens at 10/s) after a quiet spell; then one every 100 ms.
    expect([pacer.take(), pacer.take(), pacer.take()]).toEqual([0, 0, 50]);
    // Asking again books nothing: the wait is the same until the clock moves.
    expect(pacer.take()).toBe(50);
    c.advance(50);
    expect([pacer.take(), pacer.take()]).toEqual([0, 100]);
  });

  it('a rate that grows applies to the requests already waiting (nothing is booked ahead)', () => {
    const c = clock();
    const pacer = new Pacer({ maxRps: 1000, now: c.now });
    while (pacer.take() === 0);
    expect(pacer.take()).toBeGreaterThan(0);
    // Slow start: a quarter second's worth of answers (here 3) while requests were held back doubles the rate.
    for (let i = 0; i < 3; i++) pacer.answered('ok');
    expect(pacer.rate).toBe(20);
    const wait = pacer.take();
    c.advance(wait);
    expect(pacer.take()).toBe(0);
    expect(pacer.take()).toBe(50);
  });

  it('doubles while the target answers and the rate holds requests back (slow start), up to MAX_RPS', () => {
    const c = clock();
    const pacer = new Pacer({ maxRps: 50, now: c.now });
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 2 * pacer.rate; i++) pacer.take();
      for (let i = 0; i < 60; i++) pacer.answered('ok');
    }
    expect(pacer.rate).toBe(50);
  });

  it('does not grow when nothing was held back', () => {
    const c = clock();
    const pacer = new Pacer({ maxRps: 50, now: c.now });
    for (let i = 0; i < 100; i++) {
      c.advance(1000);
      pacer.take();
      pacer.answered('ok');
    }
    expect(pacer.rate).toBe(10);
  });

  it('slows by 0.7 on a 429, once per burst, and grows back slowly after it', () => {
    const c = clock();
    const pacer = new Pacer({ maxRps: 100, startRps: 20, now: c.now });
    pacer.answered('throttled');
    expect(pacer.rate).toBeCloseTo(20 * THROTTLE_FACTOR);
    // The rest of the burst (requests already on their way) is the same signal.
    for (let i = 0; i < 5; i++) pacer.answered('throttled');
    expect(pacer.rate).toBeCloseTo(14);
    expect(pacer.throttles).toBe(1);
    c.advance(1500);
    pacer.answered('throttled');
    expect(pacer.rate).toBeCloseTo(14 * THROTTLE_FACTOR);
    const slowed = pacer.rate;
    // After a 429 it grows halfway back towards the rate the 429 met (14) per rate's worth of answers where the rate
    // held requests back, then carefully past it.
    for (let i = 0; i < 30; i++) pacer.take();
    for (let i = 0; i < 10; i++) pacer.answered('ok');
    expect(pacer.rate).toBeCloseTo((slowed + 14) / 2);
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 30; i++) pacer.take();
      for (let i = 0; i < 20; i++) pacer.answered('ok');
    }
    expect(pacer.rate).toBeGreaterThan(14);
    expect(pacer.rate).toBeLessThan(14 * 1.5);
  });

  it('the next request after a 429 waits the new spacing (tokens banked at the old rate are void)', () => {
    const c = clock();
    const pacer = new Pacer({ maxRps: 100, startRps: 10, now: c.now });
    pacer.answered('throttled');
    expect(pacer.take()).toBeGreaterThan(100);
  });

  it('never goes below its floor nor above MAX_RPS', () => {
    const c = clock();
    const pacer = new Pacer({ maxRps: 5, startRps: 50, now: c.now });
    expect(pacer.rate).toBe(5);
    for (let i = 0; i < 50; i++) {
      c.advance(5000);
      pacer.answered('throttled');
    }
    expect(pacer.rate).toBe(0.5);
    expect(() => new Pacer({ maxRps: 0 })).toThrow(/maxRps must be a positive number/);
  });
});
