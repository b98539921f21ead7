/** Each arbitrary of generators/ makes what its name says. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  integerAmount,
  invalidLinkAmount,
  LINK_MONTO_MIN,
  moreThanTwoDecimals,
  nonPositiveAmount,
  notANumber,
  NUMERIC_STRING_AMOUNTS,
  positiveAmount,
  validLinkAmount,
  veryLargeAmount,
} from '../../generators/amounts.ts';
import {
  cardNumberWithLetters,
  cardNumberWithSpaces,
  invalidCvv,
  passesLuhn,
  spacedCardNumber,
  TEST_CARD_NUMBERS,
  testCardNumber,
  validCvv,
  validCvvFor,
} from '../../generators/cards.ts';
import {
  currentYear,
  farFutureYear,
  fourDigitYear,
  futureYear,
  invalidMonth,
  NUMERIC_STRING_MONTHS,
  outOfRangeMonth,
  pastYear,
  twoDigitYear,
  validMonth,
} from '../../generators/dates.ts';
import {
  allFalseFormaPago,
  CUOTAS,
  FORMA_PAGO_FIELDS,
  invalidCuotas,
  NEAR_MISS_CUOTAS,
  onlyFlag,
  partialFormaPago,
  supportedFormaPago,
  validCuotas,
  validFormaPago,
} from '../../generators/enums.ts';
import {
  dictionary,
  emailList,
  invalidCountry,
  invalidDictionary,
  invalidEmail,
  invalidRegion,
  nearMissCountry,
  validCountry,
  validCountryRegion,
  validEmail,
  validRegion,
} from '../../generators/formats.ts';
import {
  astralChar,
  characters,
  LENGTHS,
  longText,
  multiByteChar,
  sampleText,
  textLongerThan,
  textOfLength,
  textWithin,
} from '../../generators/strings.ts';

const RUNS = { numRuns: 200, seed: 42 };
const always = <T>(arb: fc.Arbitrary<T>, predicate: (v: T) => boolean) => fc.assert(fc.property(arb, predicate), RUNS);
const utf16 = (s: string) => s.length;
const hasTwoDecimalsAtMost = (n: number) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
/** The number a lenient server (ASP.NET Core's web defaults) reads: a JSON number, or a string holding one. */
const lenientNumber = (v: unknown): number | undefined =>
  isNumber(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;

describe('strings', () => {
  it.each(LENGTHS)('textOfLength(%i) has exactly that many characters, none of them whitespace', (n) => {
    always(textOfLength(n), (s) => characters(s) === n && !/\s/.test(s));
    always(textOfLength(n, { astral: true }), (s) => characters(s) === n);
  });

  it('valid texts are BMP only, so code points, UTF-16 units and graphemes agree', () => {
    always(textWithin(1, 500), (s) => characters(s) === utf16(s) && characters(s) >= 1 && characters(s) <= 500);
  });

  it('textWithin reaches the boundary itself', () => {
    const lengths = fc.sample(textWithin(1, 50), { numRuns: 200, seed: 1 }).map(characters);
    expect(lengths).toContain(50);
    expect(lengths).toContain(49);
  });

  it('textLongerThan(max) always exceeds max characters (hence max UTF-16 units and bytes too)', () => {
    always(textLongerThan(500), (s) => characters(s) > 500 && utf16(s) > 500 && Buffer.byteLength(s) > 500);
    always(textLongerThan(50, 90), (s) => characters(s) > 50 && characters(s) <= 90);
    expect(fc.sample(textLongerThan(50), { numRuns: 200, seed: 3 }).map(characters)).toContain(51);
  });

  it('multi-byte characters take several UTF-8 bytes but one UTF-16 unit; astral ones take two units', () => {
    always(multiByteChar, (c) => characters(c) === 1 && utf16(c) === 1 && Buffer.byteLength(c) >= 2);
    always(astralChar, (c) => characters(c) === 1 && utf16(c) === 2 && Buffer.byteLength(c) === 4);
  });

  it('sampleText(n) is a fixed multi-byte string of n characters', () => {
    for (const n of [1, 50, 51, 500, 501]) {
      expect(characters(sampleText(n))).toBe(n);
      expect(sampleText(n)).toBe(sampleText(n));
    }
    expect(Buffer.byteLength(sampleText(500))).toBeGreaterThan(500);
  });

  it('longText is thousands of characters long', () => {
    always(longText, (s) => characters(s) >= 1_000 && characters(s) <= 20_000);
  });
});

describe('amounts', () => {
  it('validLinkAmount is at least 0.01, with two decimals at most, and often the minimum itself', () => {
    always(validLinkAmount, (n) => n >= LINK_MONTO_MIN && hasTwoDecimalsAtMost(n));
    expect(fc.sample(validLinkAmount, { numRuns: 100, seed: 5 })).toContain(0.01);
  });

  it('invalidLinkAmount is always below 0.01', () => {
    always(invalidLinkAmount, (n) => isNumber(n) && n < LINK_MONTO_MIN);
    expect(fc.sample(invalidLinkAmount, { numRuns: 300, seed: 6 })).toEqual(expect.arrayContaining([0, 0.009]));
  });

  it('positiveAmount is greater than 0; nonPositiveAmount never is', () => {
    always(positiveAmount, (n) => n > 0 && hasTwoDecimalsAtMost(n));
    always(nonPositiveAmount, (n) => isNumber(n) && n <= 0);
  });

  it('notANumber is no number even read leniently; the numeric strings are, and are left to observations', () => {
    always(notANumber, (v) => lenientNumber(v) === undefined);
    expect(fc.sample(notANumber, { numRuns: 100, seed: 7 })).toEqual(expect.arrayContaining(['diez', null, true]));
    for (const m of NUMERIC_STRING_AMOUNTS) expect(lenientNumber(m), m).toBeGreaterThanOrEqual(LINK_MONTO_MIN);
  });

  it('the other amount families are what they say', () => {
    always(moreThanTwoDecimals, (n) => n > 0 && !hasTwoDecimalsAtMost(n));
    always(veryLargeAmount, (n) => n >= 1e6);
    always(integerAmount, (n) => Number.isInteger(n) && n > 0);
  });
});

describe('months and years', () => {
  it('validMonth is 1..12 and includes both ends', () => {
    always(validMonth, (m) => Number.isInteger(m) && m >= 1 && m <= 12);
    expect(fc.sample(validMonth, { numRuns: 100, seed: 8 })).toEqual(expect.arrayContaining([1, 12]));
  });

  it('invalidMonth never yields a month 1..12, even read leniently; the numeric strings do', () => {
    const isMonth = (m: unknown) => {
      const n = lenientNumber(m);
      return n !== undefined && Number.isInteger(n) && n >= 1 && n <= 12;
    };
    always(invalidMonth, (m) => !isMonth(m));
    for (const m of NUMERIC_STRING_MONTHS) expect(isMonth(m), m).toBe(true);
    always(outOfRangeMonth, (m) => Number.isInteger(m) && (m < 1 || m > 12));
    expect(fc.sample(invalidMonth, { numRuns: 300, seed: 9 })).toEqual(expect.arrayContaining([0, 13]));
  });

  it('years are past, current, future, far future, two and four digits', () => {
    const now = new Date('2026-05-01T00:00:00Z');
    always(pastYear(now), (y) => y < 2026 && y >= 1000);
    always(currentYear(now), (y) => y === 2026);
    always(futureYear(now), (y) => y > 2026 && y <= 2036);
    always(farFutureYear(now), (y) => y >= 2056 && y <= 9999);
    always(twoDigitYear, (y) => y >= 0 && y <= 99);
    always(fourDigitYear, (y) => String(y).length === 4);
  });
});

describe('enums and flags', () => {
  it('validCuotas is one of Tres, Seis, Nueve, Doce; invalidCuotas never is', () => {
    always(validCuotas, (c) => (CUOTAS as readonly string[]).includes(c));
    // wrong however read: no number or numeric string (an enum's integer value), no name in any case or spacing, no list
    const lenient = (c: unknown) =>
      typeof c === 'string' &&
      (lenientNumber(c) !== undefined || c.includes(',') || CUOTAS.some((n) => n.toLowerCase() === c.trim().toLowerCase()));
    always(invalidCuotas, (c) => c !== null && typeof c !== 'number' && !lenient(c));
    expect(fc.sample(invalidCuotas, { numRuns: 300, seed: 10 })).toEqual(expect.arrayContaining(['Quince', true]));
    for (const c of NEAR_MISS_CUOTAS) expect(CUOTAS as readonly unknown[]).not.toContain(c);
    expect(NEAR_MISS_CUOTAS).toEqual(expect.arrayContaining([3, '3', 'tres', 'Tres,Seis']));
  });

  it('validFormaPago has the five fields and at least one true; all-false has none', () => {
    always(validFormaPago, (f) => FORMA_PAGO_FIELDS.every((k) => typeof f[k] === 'boolean') && Object.values(f).includes(true));
    expect(Object.values(allFalseFormaPago)).toEqual([false, false, false, false, false]);
    expect(new Set(fc.sample(validFormaPago, { numRuns: 2000, seed: 11 }).map((f) => JSON.stringify(f))).size).toBe(31);
  });

  it('supportedFormaPago always allows card credit/debit and varies the other four flags', () => {
    always(supportedFormaPago, (f) => FORMA_PAGO_FIELDS.every((k) => typeof f[k] === 'boolean') && f.permitirTarjetaCreditoDebido);
    expect(new Set(fc.sample(supportedFormaPago, { numRuns: 500, seed: 12 }).map((f) => JSON.stringify(f))).size).toBe(16);
  });

  it('partialFormaPago lacks one to four fields and has a true flag among those sent', () => {
    always(partialFormaPago, (f) => {
      const n = Object.keys(f).length;
      return n >= 1 && n <= 4 && Object.values(f).includes(true);
    });
  });

  it('onlyFlag sets exactly one flag', () => {
    for (const field of FORMA_PAGO_FIELDS) expect(Object.entries(onlyFlag(field)).filter(([, v]) => v)).toEqual([[field, true]]);
  });
});

describe('formats', () => {
  const alpha2 = /^[A-Z]{2}$/;
  const region = /^[A-Z]{2}-[A-Z0-9]{1,3}$/;

  it('country codes: valid ones are alpha-2, invalid ones never are, near-misses differ only in case', () => {
    always(validCountry, (c) => alpha2.test(c));
    always(invalidCountry, (c) => !alpha2.test(c) && !alpha2.test(c.toUpperCase()));
    always(nearMissCountry, (c) => !alpha2.test(c) && alpha2.test(c.toUpperCase()));
  });

  it('region codes: valid ones are ISO 3166-2 and match their country; invalid ones never are codes', () => {
    always(validRegion, (r) => region.test(r));
    always(validCountryRegion, ({ idPais, idRegion }) => alpha2.test(idPais) && idRegion.startsWith(`${idPais}-`));
    always(invalidRegion, (r) => !region.test(r));
  });

  it('e-mails: valid ones have one @ and a dotted domain; invalid ones do not', () => {
    const email = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
    always(validEmail, (e) => email.test(e));
    always(emailList, (l) => l.split(',').every((e) => email.test(e)));
    always(invalidEmail, (e) => !email.test(e));
  });

  it('dictionaries map strings to strings; invalid ones do not', () => {
    always(dictionary, (d) => Object.values(d).every((v) => typeof v === 'string'));
    always(
      invalidDictionary,
      (d) => typeof d !== 'object' || d === null || Array.isArray(d) || Object.values(d).some((v) => typeof v !== 'string'),
    );
  });
});

describe('cards', () => {
  it('test numbers pass Luhn; with spaces or letters they no longer are plain digits', () => {
    for (const n of TEST_CARD_NUMBERS) expect(passesLuhn(n)).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    always(testCardNumber, passesLuhn);
    always(cardNumberWithSpaces, (n) => / /.test(n) && passesLuhn(n.replace(/ /g, '')));
    always(spacedCardNumber('4111111111111111'), (n) => n.includes(' ') && n.replace(/ /g, '') === '4111111111111111');
    always(cardNumberWithLetters, (n) => /[A-Za-z]/.test(n) && !passesLuhn(n));
  });

  it('valid cvvs are 3 or 4 digits (4 for Amex), invalid ones are not strings of digits', () => {
    always(validCvv, (c) => /^\d{3,4}$/.test(c));
    always(validCvvFor('4111111111111111'), (c) => /^\d{3}$/.test(c));
    always(validCvvFor('378282246310005'), (c) => /^\d{4}$/.test(c));
    always(invalidCvv, (c) => typeof c !== 'string' || !/^\d+$/.test(c));
    expect(fc.sample(validCvv, { numRuns: 100, seed: 12 })).toContain('111');
  });
});
