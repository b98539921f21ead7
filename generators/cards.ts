/**
 * Card data for the purchase bodies (4.3 tarjetaCreditoDebido, 4.7 numeroTarjeta). Only the card networks' public
 * test numbers are used: a generated Luhn-valid number could be somebody's real card.
 * 4.3 states: numeroTarjeta a string without spaces; cvv a string of digits.
 */
import fc from 'fast-check';

/** Public test numbers of the card networks (Visa, Mastercard, Amex, Discover); all pass Luhn. */
export const TEST_CARD_NUMBERS = [
  '4111111111111111',
  '4012888888881881',
  '5555555555554444',
  '5105105105105100',
  '378282246310005',
  '6011111111111117',
] as const;

/** The Luhn check digit rule that every card number satisfies. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

export const testCardNumber = fc.constantFrom(...TEST_CARD_NUMBERS);

/** The card number with spaces inside (grouped by four as printed, or one anywhere): violates "no spaces". */
export function spacedCardNumber(cardNumber: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(cardNumber.replace(/(\d{4})(?=\d)/g, '$1 ')),
    fc.integer({ min: 1, max: cardNumber.length - 1 }).map((at) => `${cardNumber.slice(0, at)} ${cardNumber.slice(at)}`),
  );
}

/** A test number with spaces inside. */
export const cardNumberWithSpaces = testCardNumber.chain(spacedCardNumber);

/** A test number with a letter in place of a digit: fails Luhn; the spec states no rule it breaks (observation). */
export const cardNumberWithLetters = fc
  .tuple(testCardNumber, fc.integer({ min: 0, max: 14 }), fc.constantFrom('A', 'x', 'O'))
  .map(([n, at, letter]) => `${n.slice(0, at)}${letter}${n.slice(at + 1)}`);

/** 3 or 4 digits (Amex uses 4); "111" included, the spec's test-mode decline value (7), valid under 3DS. */
export const validCvv = fc.oneof(fc.constantFrom('111', '123', '0000'), fc.stringMatching(/^\d{3,4}$/));

/** Not a string of digits: letters, spaces, empty, or a JSON number instead of a string. */
export const invalidCvv: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>('12a', 'abc', '', ' 123', '12 3', '1.5', '-12'),
  fc.tuple(fc.stringMatching(/^\d{2,3}$/), fc.constantFrom('a', 'Z', '-')).map(([d, x]) => `${d}${x}`),
  fc.constantFrom<unknown>(123, 1234),
);

/** A valid cvv for this card's network: four digits for American Express (34, 37), three for the others. */
export function validCvvFor(cardNumber: string): fc.Arbitrary<string> {
  return /^3[47]/.test(cardNumber)
    ? fc.oneof(fc.constant('1234'), fc.stringMatching(/^\d{4}$/))
    : fc.oneof(fc.constant('111'), fc.stringMatching(/^\d{3}$/));
}
