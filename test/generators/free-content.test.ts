/**
 * The free-content arbitraries keep to what the spec allows (500 and 50 characters), never start or end with
 * whitespace (a server that trims sees the same text), always carry the edge pairs, and draw the same values for the
 * same seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  draw,
  EDGE_PAIRS,
  freeDescripcion,
  freeIdExterno,
  freeNombreProducto,
  freePairs,
  freeQuery,
  freeText,
} from '../../generators/free-content.ts';
import { characters } from '../../generators/strings.ts';

describe('free content', () => {
  it('keeps idExterno within 50 and nombreProducto within 500 characters, never empty, never padded', () => {
    fc.assert(
      fc.property(freeIdExterno, freeNombreProducto, (id, nombre) => {
        expect(characters(id)).toBeGreaterThan(0);
        expect(characters(id)).toBeLessThanOrEqual(50);
        expect(characters(nombre)).toBeLessThanOrEqual(500);
        for (const s of [id, nombre]) expect(s.trim()).toBe(s);
      }),
    );
  });
  it('reaches the maximum length and numbers as text', () => {
    const values = fc.sample(freeText(500), { seed: 1, numRuns: 300 });
    expect(values.some((v) => characters(v) === 500)).toBe(true);
    expect(values.some((v) => /^0\d+$/.test(v))).toBe(true);
  });
  it('always sends the edge pairs (leading zeros, a decimal, the empty string, markup)', () => {
    fc.assert(
      fc.property(freePairs, (pairs) => {
        expect(pairs).toMatchObject(EDGE_PAIRS);
      }),
    );
    expect(EDGE_PAIRS).toMatchObject({ ceros: '00123', vacio: '' });
  });
  it("keeps the merchant's pedido=A-17 in urlRedirect's query", () => {
    fc.assert(
      fc.property(freeQuery, (q) => {
        expect(q['pedido']).toBe('A-17');
      }),
    );
  });
  it('draws the same values for the same seed', () => {
    expect(draw(freeDescripcion, 42, 3)).toEqual(draw(freeDescripcion, 42, 3));
  });
});
