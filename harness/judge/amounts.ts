/**
 * Money to the cent: the decimal text an amount is written as, read exactly (no float rounding), the spec's arithmetic
 * at two decimals (4.1: quantity × monto) and the check that an amount the service wrote equals it.
 */
import type { Exchange } from '../api/http.ts';
import { type Clauses, fail } from './failure.ts';

/** A decimal as text: digits, an optional fraction, an optional exponent (what JSON and String(number) write). */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The decimal text an amount is written as: a JSON number as a reader reads it back (its shortest round trip:
 * 0.30000000000000004 stays so, 10.50 reads 10.5), a string as written ("10.50"). Undefined when it is not a number.
 */
export function amountText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return DECIMAL.test(text) && /\d/.test(text) ? text : undefined;
}

/** The exact number of cents a decimal text denotes, or undefined when it is not a whole number of cents (or no number). */
export function centsOf(text: string): bigint | undefined {
  const m = DECIMAL.exec(text.trim());
  if (!m || !/\d/.test(`${m[2]}${m[3] ?? ''}`)) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = m;
  // digits × 10^(shift): the point moved by the exponent, then two places for cents
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  const shift = Number(exponent) - fraction.length + 2;
  let cents: bigint;
  if (shift >= 0) cents = BigInt(digits || '0') * 10n ** BigInt(shift);
  else {
    const cut = -shift;
    const padded = digits.padStart(cut + 1, '0');
    if (/[1-9]/.test(padded.slice(padded.length - cut))) return undefined;
    cents = BigInt(padded.slice(0, padded.length - cut));
  }
  return sign === '-' ? -cents : cents;
}

/** The spec's arithmetic at two decimals (4.1: amount charged = quantity × monto): `monto` in cents times `cantidad`. */
export function amountDue(monto: number, cantidad = 1): { cents: bigint; text: string } {
  const unit = centsOf(String(monto)) ?? BigInt(Math.round(monto * 100));
  const cents = unit * BigInt(cantidad);
  return { cents, text: centsText(cents) };
}

const centsText = (cents: bigint): string => {
  const abs = cents < 0n ? -cents : cents;
  return `${cents < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
};

/**
 * An amount the service wrote equals, to the cent, what the spec's arithmetic gives: its decimal text parsed exactly,
 * never compared within a tolerance (a JSON number 0.30000000000000004 is not 0.30; 0.31 is a cent off). How it is
 * written (10.5, "10.50") is the contract testcase's matter: any decimal text of the same cents passes.
 */
export function amountEquals(
  actual: unknown,
  expected: number | { cents: bigint; text: string },
  field: string,
  clauses: Clauses,
  ex?: Exchange,
): void {
  const due = typeof expected === 'number' ? amountDue(expected) : expected;
  const text = amountText(actual);
  const cents = text === undefined ? undefined : centsOf(text);
  if (cents === due.cents) return;
  const how =
    text === undefined
      ? `not a number: ${JSON.stringify(actual)}`
      : cents === undefined
        ? `${text}, not a whole number of cents (binary floating-point noise, or a fraction of a cent)`
        : `${text}, ${cents > due.cents ? cents - due.cents : due.cents - cents} cent(s) ${cents > due.cents ? 'more' : 'less'}`;
  fail('amount-equals', clauses, `${field} = ${due.text} exactly (to the cent)`, `${field} = ${how}`, ex);
}
