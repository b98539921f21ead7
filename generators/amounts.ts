/**
 * Amounts (monto). The spec states: a link's monto is at least 0.01 (4.1, 8); quick-pay and MPOS monto are greater
 * than 0 (4.6, 4.7); monto is a number (double / decimal). It states no maximum and no precision, so:
 * - amounts a test expects to be ACCEPTED have at most two decimals and stay moderate (0.01 to 10 000), so no
 *   false failure comes from a currency precision or a business limit the spec does not show;
 * - amounts with more than two decimals, and very large ones, have arbitraries of their own, for observations.
 */
import fc from 'fast-check';

/** 4.1 / 8: the minimum monto of a link. */
export const LINK_MONTO_MIN = 0.01;

const MAX_CENTS = 1_000_000;
/** Whole cents between `min` and 10 000.00, as a JSON number with at most two decimals. */
const cents = (min: number) => fc.integer({ min, max: MAX_CENTS }).map((c) => c / 100);

/** A link monto that satisfies 4.1 (≥ 0.01), often the boundary 0.01 itself. */
export const validLinkAmount: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(0.01, 0.02, 0.1, 1, 10.5), cents(1));

/** Greater than 0 (4.6, 4.7) with two decimals: 0.01 is the smallest amount a currency of cents can charge. */
export const positiveAmount: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(0.01, 0.02, 1, 3.5, 99.99), cents(1));

/** 1.00 to 1 000.00: an amount away from every edge, for bodies whose rule under test is about another field. */
export const ordinaryAmount: fc.Arbitrary<number> = fc.integer({ min: 100, max: 100_000 }).map((c) => c / 100);

/** Zero and negatives: never greater than 0. */
export const nonPositiveAmount: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0.01, -1, -10.5, -1e9),
  fc.double({ max: 0, noNaN: true, noDefaultInfinity: true }),
);

/** Below the link minimum 0.01: zero, fractions of a cent (0.001, 0.009), negatives. */
export const invalidLinkAmount: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, 0.001, 0.009, 0.0099, -0.01, -1, -1e9),
  fc.double({ max: 0.0099, noNaN: true, noDefaultInfinity: true }),
);

/**
 * JSON values that are no number however a server reads them: words, the empty string, null, booleans, containers.
 * Numeric strings are left to NUMERIC_STRING_AMOUNTS.
 */
export const notANumber: fc.Arbitrary<unknown> = fc.constantFrom<unknown>('', 'diez', null, true, false, [], {}, [10]);

/**
 * Amounts written as JSON strings. The spec types monto as a number, but ASP.NET Core's web defaults read numbers
 * from strings, so "10.00" is a valid monto there: the suite observes them, never fails on them.
 */
export const NUMERIC_STRING_AMOUNTS = ['10.00', '0.01', '1'] as const;

/** More than two decimals (valid or not depending on the rule: 0.011 ≥ 0.01, 0.001 > 0 but < 0.01). */
export const moreThanTwoDecimals: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0.001, 0.009, 0.011, 10.555, 1.0001),
  fc
    .integer({ min: 1, max: 9_999_999 })
    .filter((n) => n % 10 !== 0)
    .map((n) => n / 1000),
);

/** Amounts far beyond any everyday purchase; the spec states no maximum. */
export const veryLargeAmount: fc.Arbitrary<number> = fc.constantFrom(1e6, 1e9, 1e12, 1e15, Number.MAX_SAFE_INTEGER);

/** Whole amounts (JSON integers are numbers too). */
export const integerAmount: fc.Arbitrary<number> = fc.integer({ min: 1, max: 10_000 });
