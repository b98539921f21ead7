/**
 * Free content as a merchant sends it (2: "dictionary (string keys to string values, free content)"; 2.2 idExterno,
 * 4.1 nombreProducto, 2.4 descripcionProducto, 4.1 urlRedirect's own query): the texts a serializer, a collation or a
 * template is tempted to change — digits with leading zeros, numbers written as strings, accents and other scripts,
 * quotes and markup, the maximum length, the empty string. Every value keeps to what the spec allows (8: 500 and 50
 * characters) and to what every sensible reading agrees on (generators/README.md: no leading or trailing
 * whitespace, one code point per character, precomposed accents), so only a service that changes the text fails.
 */
import fc from 'fast-check';
import { bmpChar, multiByteChar, sampleText } from './strings.ts';

/** Texts that read as numbers: a server guessing types writes them as JSON numbers ("00123" → 123). */
export const NUMERIC_TEXTS = ['00123', '0', '007', '10.50', '-3', '1e3', '12.0', '0.10', '9007199254740993'] as const;
/** Quotes, markup, separators and escapes: what a template or a hand-written serializer mangles. */
export const MARKUP_TEXTS = [
  '"comillas" y \'simples\'',
  '<b>negrita</b> & <i>cursiva</i>',
  '<script>alert("x")</script>',
  'a=b&c=d?e#f',
  'barra \\ inversa y /',
  '{"json": [1, "dos"]}',
  '%20 y %C3%B1',
  'línea\nsiguiente\ttab',
] as const;
/** Accents and other scripts, precomposed (one code point each). */
export const ACCENTED_TEXTS = ['Pedido-Ñandú', 'Ação São João', 'Größe Äpfel', '注文番号-42', 'Заказ №7', 'ΑΒΓ-δε'] as const;

/** A text of 1..max characters with no whitespace at either end. */
const inner = (max: number): fc.Arbitrary<string> =>
  fc
    .string({ unit: fc.oneof(bmpChar, multiByteChar, fc.constant(' ')), minLength: 1, maxLength: Math.min(max, 40) })
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/**
 * One free text of at most `max` characters (code points): numbers as text, markup, accents, a drawn mix, and the
 * maximum length itself; the empty string only where `empty` (a dictionary's value).
 */
export function freeText(max: number, options: { empty?: boolean } = {}): fc.Arbitrary<string> {
  const fits = (s: string) => [...s].length <= max;
  const fixed = [...NUMERIC_TEXTS, ...MARKUP_TEXTS, ...ACCENTED_TEXTS].filter(fits);
  return fc.oneof(
    { arbitrary: fc.constantFrom(...fixed), weight: 3 },
    {
      arbitrary: fc
        .nat({ max: 99_999 })
        .chain((n) => fc.nat({ max: 4 }).map((z) => `${'0'.repeat(z + 1)}${n}`))
        .filter(fits),
      weight: 2,
    },
    { arbitrary: inner(max), weight: 2 },
    { arbitrary: fc.constant(sampleText(max)), weight: 1 },
    ...(options.empty ? [{ arbitrary: fc.constant(''), weight: 1 }] : []),
  );
}

/** Keys a serializer could re-case, re-encode or read as numbers. */
const KEYS = ['pedido', 'Pedido', 'CANAL', 'clave_2', 'clave-guion', 'clave.punto', 'ñandú', '注文', '00123', '10.5', 'a b'] as const;

/**
 * Pairs every run sends, whatever the seed: each kind of value a fault of this class changes (the leading zeros, a
 * decimal, the empty string, markup, accents), and one plain text so the pairs are found where they travel.
 */
export const EDGE_PAIRS: Readonly<Record<string, string>> = {
  ceros: '00123',
  decimal: '10.50',
  vacio: '',
  marcado: '<b>"A-17"</b> & más',
  acentos: 'Ñandú São',
  texto: 'pedido de prueba',
};

/** datosAdicionales: the edge pairs and up to four drawn ones (keys of every kind, values of every kind, empty included). */
export const freePairs: fc.Arbitrary<Record<string, string>> = fc
  .dictionary(fc.constantFrom(...KEYS), freeText(200, { empty: true }), { minKeys: 1, maxKeys: 4 })
  .map((drawn) => ({ ...drawn, ...EDGE_PAIRS }));

/** An idExterno within the 50 characters section 8 allows a quick-pay's (the wallet's states no bound): never empty. */
export const freeIdExterno: fc.Arbitrary<string> = freeText(50);

/** A nombreProducto within its 500 characters (4.1, 8), up to exactly 500. */
export const freeNombreProducto: fc.Arbitrary<string> = freeText(500);

/** A descripcionProducto (2.4: unbounded length): the drawn texts, or thousands of characters of markup and accents. */
export const freeDescripcion: fc.Arbitrary<string> = fc.oneof(freeText(2000), fc.constant(`<p>${sampleText(4000)}</p> "fin" & <br/>`));

/** urlRedirect's own query (4.1, 6.3): the merchant's order reference and drawn values, names the outcome does not use. */
export const freeQuery: fc.Arbitrary<Record<string, string>> = fc
  .record({ nota: freeText(60), ref: freeText(20) })
  .map((drawn) => ({ pedido: 'A-17', ...drawn }));

/** `count` values of `arbitrary` drawn with `seed` (the same seed, the same values), the edges first. */
export function draw<T>(arbitrary: fc.Arbitrary<T>, seed: number, count: number): T[] {
  return fc.sample(arbitrary, { seed, numRuns: count });
}
