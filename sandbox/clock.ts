/**
 * The sandbox clock: an injectable base clock plus an offset that the test-control API moves forward, so token
 * expiry (5), link validity (3), screen attempts and quick-pay expiry can be tested in milliseconds.
 */
export interface Clock {
  now(): Date;
  nowMs(): number;
  /** Moves the clock forward; negative values are refused by the caller (time does not run backwards). */
  advance(seconds: number): void;
  offsetSeconds(): number;
  reset(): void;
}

export function createClock(base: () => Date = () => new Date()): Clock {
  let offsetMs = 0;
  const nowMs = (): number => base().getTime() + offsetMs;
  return {
    now: () => new Date(nowMs()),
    nowMs,
    advance(seconds) {
      offsetMs += seconds * 1000;
    },
    offsetSeconds: () => offsetMs / 1000,
    reset() {
      offsetMs = 0;
    },
  };
}
