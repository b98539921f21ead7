/**
 * The checks of free content and of urlRedirect's own query (textAsSent, pairsAsSent, queryKept), on hand-built
 * values: what passes, what fails, and that the failure says where the value differs.
 */
import { describe, expect, it } from 'vitest';
import { CheckFailure, type JudgedEvidence, pairsAsSent, queryKept, textAsSent } from '../../harness/judge/checks.ts';

function failure(run: () => unknown): JudgedEvidence {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(CheckFailure);
    return (err as CheckFailure).evidence;
  }
  throw new Error('expected a CheckFailure');
}

describe('textAsSent: free text byte for byte', () => {
  it('passes on the same string, empty included', () => {
    expect(() => textAsSent('Pedido "ñandú" <b>&amp;</b>', 'Pedido "ñandú" <b>&amp;</b>', 'idExterno', 'c')).not.toThrow();
    expect(() => textAsSent('', '', 'nombreProducto', 'c')).not.toThrow();
  });
  it('fails on a number for digits, naming the type', () => {
    const e = failure(() => textAsSent(123, '00123', 'idExterno', '2.2-idexterno-echo'));
    expect(e).toMatchObject({ check: 'text-as-sent', clauses: ['2.2-idexterno-echo'] });
    expect(e.actual).toBe('idExterno = the number 123');
  });
  it('fails on null for an empty string', () => {
    expect(failure(() => textAsSent(null, '', 'v', 'c')).actual).toBe('v = null');
  });
  it('names the first differing code point (trimmed, decomposed, escaped)', () => {
    expect(failure(() => textAsSent('abc', ' abc', 'f', 'c')).actual).toMatch(/character 1: sent U\+0020 " ", came back U\+0061 "a"/);
    expect(failure(() => textAsSent('n\u0303', '\u00f1', 'f', 'c')).actual).toMatch(/sent U\+00F1 "ñ", came back U\+006E "n"/);
    expect(failure(() => textAsSent('&lt;b&gt;', '<b>', 'f', 'c')).actual).toMatch(/3 characters sent, 9 came back/);
  });
});

describe('pairsAsSent: string keys to string values', () => {
  const sent = { pedido: '00123', monto: '10.50', vacio: '', nota: 'a "b" <c>' };
  it('passes when every pair comes back the same string, other keys beside them', () => {
    expect(() => pairsAsSent({ ...sent, otro: 1 }, sent, 'datosAdicionales', 'c')).not.toThrow();
    expect(() => pairsAsSent(null, {}, 'datosAdicionales', 'c')).not.toThrow();
  });
  it('fails on numbers for numeric text, listing each pair and how it came back', () => {
    const e = failure(() =>
      pairsAsSent({ ...sent, pedido: 123, monto: 10.5 }, sent, 'datosAdicionales (lookup)', '2.2-datos-adicionales-echo'),
    );
    expect(e.check).toBe('pairs-as-sent');
    expect(e.actual).toContain('2 pair(s) differ');
    expect(e.actual).toContain('"pedido": sent the string "00123", came back the number 123');
    expect(e.actual).toContain('"monto": sent the string "10.50", came back the number 10.5');
  });
  it('fails on an empty value dropped or nulled', () => {
    const { vacio: _, ...sinVacio } = sent;
    expect(failure(() => pairsAsSent(sinVacio, sent, 'd', 'c')).actual).toContain('"vacio": sent the string "", came back no such key');
    expect(failure(() => pairsAsSent({ ...sent, vacio: null }, sent, 'd', 'c')).actual).toContain('came back null');
  });
  it('fails on no dictionary at all', () => {
    expect(failure(() => pairsAsSent(undefined, sent, 'd', 'c')).actual).toBe('d = nothing (absent)');
  });
});

describe("queryKept: urlRedirect's own query on the landing URL", () => {
  it('passes with the outcome added beside it', () => {
    expect(() => queryKept({ pedido: 'A-17', idTransaccion: 'x', esAprobada: 'true' }, { pedido: 'A-17' }, 'c')).not.toThrow();
  });
  it('fails when a parameter is dropped or changed, naming the landing URL', () => {
    const e = failure(() =>
      queryKept({ idTransaccion: 'x' }, { pedido: 'A-17', nota: 'ñ' }, ['4.1-url-redirect'], 'https://shop/gracias?idTransaccion=x'),
    );
    expect(e).toMatchObject({ check: 'query-kept', clauses: ['4.1-url-redirect'] });
    expect(e.actual).toBe('pedido missing, nota missing (landed at https://shop/gracias?idTransaccion=x)');
    expect(failure(() => queryKept({ pedido: 'a-17' }, { pedido: 'A-17' }, 'c')).actual).toMatch(/^pedido=a-17/);
  });
});
