/**
 * Field discovery on hand-built hosted pages (harness/payer/field-mapping.ts): autofill tokens, labels in Spanish and
 * English, type and inputmode, and the reason a page that lacks a field gives.
 */
import { describe, expect, it } from 'vitest';
import type { FieldName } from '../../harness/payer/types.ts';
import {
  describeMapping,
  discoverFields,
  FieldMappings,
  isDiscovered,
  joinExpiry,
  mapPage,
  notFoundMessage,
} from '../../harness/payer/field-mapping.ts';

const page = (body: string) =>
  `<html><body><form method="post" action="/pagar">${body}<button type="submit">Pagar</button></form></body></html>`;

describe('field discovery on hosted pages', () => {
  it('finds card inputs by their autofill tokens, whatever their names', () => {
    const m = discoverFields(
      page(`
      <input name="a" autocomplete="cc-number"><input name="b" autocomplete="cc-csc">
      <input name="c" autocomplete="cc-exp-month"><input name="d" autocomplete="billing cc-exp-year">
      <input name="e" autocomplete="cc-name"><input name="g" autocomplete="email"><input name="h" autocomplete="one-time-code">`),
    );
    expect(m.names).toMatchObject({
      numeroTarjeta: 'a',
      cvv: 'b',
      mesVencimiento: 'c',
      anioVencimiento: 'd',
      nombreTitular: 'e',
      email: 'g',
      codigoDesafio: 'h',
    });
    expect(m.found.cvv).toEqual({ target: 'b', by: 'autocomplete' });
    expect(isDiscovered(m)).toBe(true);
  });

  it('finds them by Spanish labels (label for, wrapping label) and the payment form, instalments, quantity, amount', () => {
    const m = discoverFields(
      page(`
      <label for="x1">Número de tarjeta</label><input id="x1" name="f1">
      <label>Mes de vencimiento <input name="f2"></label>
      <label for="x3">Año</label><input id="x3" name="f3">
      <label for="x4">Código de seguridad</label><input id="x4" name="f4">
      <label for="x5">Nombre del titular</label><input id="x5" name="f5">
      <label for="x6">Correo electrónico</label><input id="x6" name="f6">
      <label for="s1">Forma de pago</label><select id="s1" name="s1"><option value="0">Tarjeta</option><option value="1">Puntos</option></select>
      <label for="s2">Cuotas</label><select id="s2" name="s2"><option value="3">3 meses</option></select>
      <label for="q">Cantidad</label><input id="q" name="q" type="number">
      <label for="m">Monto a pagar</label><input id="m" name="m" type="number">`),
    );
    expect(m.names).toMatchObject({
      numeroTarjeta: 'f1',
      mesVencimiento: 'f2',
      anioVencimiento: 'f3',
      cvv: 'f4',
      nombreTitular: 'f5',
      email: 'f6',
      formaPago: 's1',
      cuotas: 's2',
      cantidad: 'q',
      monto: 'm',
    });
    expect(m.found.numeroTarjeta?.by).toBe('label');
  });

  it('finds them by English aria-labels and placeholders', () => {
    const m = discoverFields(
      page(`
      <input name="p1" aria-label="Card number"><input name="p2" placeholder="CVC">
      <input name="p3" aria-label="Month"><input name="p4" aria-label="Year">
      <input name="p5" placeholder="Name on card"><input name="p6" aria-label="Email">`),
    );
    expect(m.names).toMatchObject({
      numeroTarjeta: 'p1',
      cvv: 'p2',
      mesVencimiento: 'p3',
      anioVencimiento: 'p4',
      nombreTitular: 'p5',
      email: 'p6',
    });
    expect(describeMapping(m)).toContain('numeroTarjeta → p1 (label)');
  });

  it('falls back to input type and inputmode', () => {
    const m = discoverFields(page('<input name="n" inputmode="numeric"><input name="s" type="password"><input name="e" type="email">'));
    expect(m.names).toMatchObject({ numeroTarjeta: 'n', cvv: 's', email: 'e' });
    expect(m.found.cvv?.by).toBe('type');
  });

  it('lets SCREEN_FIELD_NAMES override, and keeps the default names where nothing else is found', () => {
    const m = discoverFields(page('<input name="pan" autocomplete="cc-csc"><input name="numeroTarjeta">'), { cvv: 'pan' });
    expect(m.names.cvv).toBe('pan');
    expect(m.found.cvv?.by).toBe('configured');
    expect(m.names.numeroTarjeta).toBe('numeroTarjeta');
    expect(
      isDiscovered(discoverFields(page('<input name="numeroTarjeta" autocomplete="cc-number"><input name="cvv" autocomplete="cc-csc">'))),
    ).toBe(false);
  });

  it('a mapping discovery found is a note of the run, once per kind of page; the default names are none', () => {
    const mappings = new FieldMappings();
    mappings.record('link screen', discoverFields(page('<input name="a" autocomplete="cc-number"><input name="b" autocomplete="cc-csc">')));
    mappings.record('link screen', discoverFields(page('<input name="z" autocomplete="cc-number">')));
    mappings.record('3DS page', discoverFields(page('<input name="numeroTarjeta" autocomplete="cc-number">')));
    expect(mappings.newNotes()).toEqual([
      'link screen fields discovered (4.1-url-enlace-leads-to-screen): numeroTarjeta → a (autocomplete), cvv → b (autocomplete); ' +
        '`npm run discover` writes them as SCREEN_FIELD_NAMES',
    ]);
    mappings.record('quick-pay page', discoverFields(page('<input name="q" autocomplete="cc-number">')));
    expect(mappings.newNotes()).toEqual([expect.stringMatching(/^quick-pay page fields discovered \(4\.6-url-qr\): numeroTarjeta → q/)]);
    expect(mappings.newNotes()).toEqual([]);
  });

  it('a page without a cvv input: the reason names the cvv and lists the inputs seen', () => {
    const m = mapPage(
      page(
        '<label for="a">Número de tarjeta</label><input id="a" name="a"><label for="b">Mes</label><input id="b" ' +
          'name="b"><input name="zz" placeholder="Referencia">',
      ),
      undefined,
    );
    expect(m.found.cvv).toBeUndefined();
    const reason = notFoundMessage('the payment screen at http://x/p', ['cvv'], m);
    expect(reason).toContain('could not find cvv (looked for autocomplete=cc-csc');
    expect(reason).toContain('a "Número de tarjeta" (text)');
    expect(reason).toContain('zz "Referencia" (text)');
  });

  describe('one input for the whole expiry ("MM/AA")', () => {
    const card: [FieldName, string][] = [
      ['numeroTarjeta', '4111111111111111'],
      ['mesVencimiento', '1'],
      ['anioVencimiento', '2029'],
      ['cvv', '123'],
    ];
    const joined = (body: string) => {
      const m = discoverFields(page(`<input name="pan" autocomplete="cc-number">${body}<input name="cvc" autocomplete="cc-csc">`));
      return { m, values: Object.fromEntries(joinExpiry(card, m)) };
    };

    it('found by autocomplete=cc-exp: month and year entered there as MM/YY, the year not on its own', () => {
      const { m, values } = joined('<input name="exp" autocomplete="cc-exp">');
      expect(m.found.mesVencimiento).toEqual({ target: 'exp', by: 'autocomplete' });
      expect(m.names.anioVencimiento).toBe('exp');
      expect(values).toEqual({ numeroTarjeta: '4111111111111111', mesVencimiento: '01/29', cvv: '123' });
    });

    it('found by its label or placeholder, Spanish or English; four digits where it asks them', () => {
      expect(joined('<label for="v">Vencimiento</label><input id="v" name="v" placeholder="MM/AA">').values.mesVencimiento).toBe('01/29');
      expect(joined('<input name="v" aria-label="Expiry date">').values.mesVencimiento).toBe('01/29');
      expect(joined('<input name="v" placeholder="MM / AAAA">').values.mesVencimiento).toBe('01/2029');
      expect(joined('<label>Fecha de caducidad <input name="v"></label>').m.found.anioVencimiento?.by).toBe('label');
    });

    it('separate month and year inputs stay separate, whatever their labels say of the expiry', () => {
      for (const body of [
        '<label for="a">Mes de vencimiento</label><input id="a" name="a"><label for="b">Año de vencimiento</label><input id="b" name="b">',
        '<label for="a">Fecha de vencimiento</label><input id="a" name="a" placeholder="MM"><input name="b" placeholder="AA" aria-label="Año">',
        '<input name="a" aria-label="Expiry month"><input name="b" aria-label="Expiry year">',
        '<label for="a">Vencimiento</label><select id="a" name="a"><option>01</option></select><select name="b"><option>2030</option></select>',
      ]) {
        const { m, values } = joined(body);
        expect(m.names.mesVencimiento, body).not.toBe(m.names.anioVencimiento);
        expect(values, body).toMatchObject({ mesVencimiento: '1', anioVencimiento: '2029' });
      }
    });
  });
});
