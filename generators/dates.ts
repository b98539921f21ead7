/**
 * Card expiry months and years. 4.7 states mesVencimiento 1 to 12; anioVencimiento is "validated by an
 * MPOS-specific rule" that is not shown, so the year arbitraries serve observations and a body that must be valid
 * always carries a year a few years ahead (four digits), which any sensible rule accepts.
 */
import fc from 'fast-check';

/** 4.7: 1 to 12, often the ends. */
export const validMonth: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(1, 12), fc.integer({ min: 1, max: 12 }));

/** 2 to 11: a month away from the edges, for bodies whose rule under test is about another field. */
export const ordinaryMonth: fc.Arbitrary<number> = fc.integer({ min: 2, max: 11 });

/** Integers outside 1..12: 0, 13, negatives, large. */
export const outOfRangeMonth: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, 13, -1, 99),
  fc.integer({ min: -1_000_000, max: 0 }),
  fc.integer({ min: 13, max: 1_000_000 }),
);

/**
 * Never a month 1..12 however a server reads it: out of range, fractional (1.5, 12.5), or no number at all ("",
 * null, true, [12]). Numeric strings are left to NUMERIC_STRING_MONTHS.
 */
export const invalidMonth: fc.Arbitrary<unknown> = fc.oneof(
  outOfRangeMonth,
  fc.constantFrom(0.5, 1.5, 11.9, 12.5),
  fc.integer({ min: 1, max: 11 }).map((m) => m + 0.5),
  fc.constantFrom<unknown>('', null, true, [12]),
);

/**
 * Months written as JSON strings. The spec types mesVencimiento as an int, but ASP.NET Core's web defaults read
 * numbers from strings, so "12" is month 12 there: the suite observes them, never fails on them.
 */
export const NUMERIC_STRING_MONTHS = ['12', '1', '01'] as const;

const yearOf = (now: Date) => now.getUTCFullYear();

/** A year before the current one (four digits). */
export const pastYear = (now = new Date()) => fc.integer({ min: yearOf(now) - 30, max: yearOf(now) - 1 });

/** The current year. */
export const currentYear = (now = new Date()) => fc.constant(yearOf(now));

/** One to ten years ahead (four digits): what a card in use carries. */
export const futureYear = (now = new Date()) => fc.integer({ min: yearOf(now) + 1, max: yearOf(now) + 10 });

/** Decades ahead, up to 9999. */
export const farFutureYear = (now = new Date()) => fc.integer({ min: yearOf(now) + 30, max: 9999 });

/** Two-digit years (YY), as printed on cards: 00..99. */
export const twoDigitYear = fc.integer({ min: 0, max: 99 });

/** Four-digit years, any. */
export const fourDigitYear = fc.integer({ min: 1000, max: 9999 });
