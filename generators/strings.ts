/**
 * Strings measured in the spec's "characters" (8: "max 500 characters"). A character here is a Unicode code point,
 * as JSON Schema's maxLength counts it (see generators/README.md). Every character these arbitraries make is one
 * code point that is also one grapheme and never whitespace, so the other readings a server may use agree:
 * - strings meant to be VALID use only BMP characters (one UTF-16 unit each), so a server counting UTF-16 units
 *   (.NET, Java, JavaScript `length`) sees the same length; multi-byte UTF-8 characters catch byte counters;
 * - strings meant to be TOO LONG exceed the limit in code points, hence also in UTF-16 units and in bytes.
 * No leading/trailing whitespace, so a server that trims sees the same string.
 */
import fc from 'fast-check';

/** The lengths worth trying around the spec's limits (50 for idExterno, 500 for names). */
export const LENGTHS = [0, 1, 49, 50, 51, 499, 500, 501] as const;

/** Length in characters (code points), the unit of every limit in the spec. */
export function characters(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));

// Characters are drawn from fixed pools by index: one integer per character keeps long strings cheap to make.
const ASCII = range(0x21, 0x7e); // printable, no space
/** Two or three UTF-8 bytes, one UTF-16 unit: Spanish letters, Greek, Cyrillic, CJK. */
const MULTI_BYTE = [...'ñÑáéíóúüÁÉÍÓÚÜ¿¡€', ...range(0x03b1, 0x03c9), ...range(0x0430, 0x044f), ...range(0x4e00, 0x4e7f)];
/** Four UTF-8 bytes, two UTF-16 units, one grapheme each: emoji faces. */
const ASTRAL = range(0x1f600, 0x1f64f);
const BMP = [...ASCII, ...ASCII, ...MULTI_BYTE]; // ASCII twice as likely
const ANY = [...BMP, ...ASTRAL];

const from = (pool: string[]) =>
  fc.integer({ min: 0, max: pool.length - 1 }).map(
    (i) => pool[i]!,
    (c) => pool.indexOf(c as string),
  );

export const asciiChar = from(ASCII);
export const multiByteChar = from(MULTI_BYTE);
export const astralChar = from(ASTRAL);
/** One character that counts as one under every reading (code point, UTF-16 unit, grapheme). */
export const bmpChar = from(BMP);
/** Any character these generators use, astral included. */
export const anyChar = from(ANY);

/** A string of exactly `n` characters (BMP only unless `astral`). */
export function textOfLength(n: number, options: { astral?: boolean } = {}): fc.Arbitrary<string> {
  return fc.string({ unit: options.astral ? anyChar : bmpChar, minLength: n, maxLength: n });
}

// BMP characters only, so that slicing by UTF-16 units cuts whole characters
const SAMPLE = 'Producto-ñandú-€-中文-Ωж-';

/** A fixed string of exactly `n` characters mixing ASCII and multi-byte BMP characters: the canonical examples. */
export function sampleText(n: number): string {
  return SAMPLE.repeat(Math.ceil(n / SAMPLE.length)).slice(0, n);
}

/** A valid string of `min`..`max` characters, often exactly `max` or `max - 1` (the boundary). BMP only. */
export function textWithin(min: number, max: number): fc.Arbitrary<string> {
  return fc.oneof(
    textOfLength(max),
    textOfLength(Math.max(min, max - 1)),
    fc.integer({ min, max }).chain((n) => textOfLength(n)),
  );
}

/** A string over `max` characters (often exactly `max + 1`), astral characters included. */
export function textLongerThan(max: number, upTo = max + 40): fc.Arbitrary<string> {
  return fc.oneof(
    textOfLength(max + 1, { astral: true }),
    fc.integer({ min: max + 1, max: upTo }).chain((n) => textOfLength(n, { astral: true })),
  );
}

/**
 * A long text (1 000 to 20 000 characters) for fields the spec leaves unbounded (2.4 descripcionProducto): a
 * generated chunk repeated, so that making it stays cheap.
 */
export const longText = fc.tuple(textOfLength(50), fc.integer({ min: 20, max: 400 })).map(([chunk, times]) => chunk.repeat(times));
