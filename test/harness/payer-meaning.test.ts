/**
 * Forms read by meaning (harness/payer/fields.ts chooseOption, discovery.ts labels and elimination) and pages read
 * as refusals by their words (form.ts refusalWords), as the deployed service's screens need.
 */
import { describe, expect, it } from 'vitest';
import { chooseOption, type Option } from '../../harness/payer/fields.ts';
import { discoverFields, placeByElimination } from '../../harness/payer/field-mapping.ts';
import { outcomeOf, PayableOrigins, readHtml, refusalWords } from '../../harness/payer/form.ts';
import { defaultFieldNames } from '../../harness/payer/types.ts';

const opts = (...pairs: [string, string][]): Option[] => pairs.map(([value, text]) => ({ value, text }));
const same = (...values: string[]): Option[] => values.map((v) => ({ value: v, text: v }));
const months = Array.from({ length: 12 }, (_, i) => String(i + 1).padStart(2, '0'));
const names = ['Enero', 'Febrero', 'Marzo', 'Abril', 'Mayo', 'Junio', 'Julio', 'Agosto', 'Septiembre', 'Octubre', 'Noviembre', 'Diciembre'];

describe('chooseOption', () => {
  it('months: 1 and 01 alike, by value or text, names in Spanish or English, "01 - Enero"', () => {
    expect(chooseOption('mesVencimiento', '1', same(...months))).toBe('01');
    expect(chooseOption('mesVencimiento', '12', same(...months))).toBe('12');
    expect(chooseOption('mesVencimiento', '01', same(...months.map(String).map(Number).map(String)))).toBe('1');
    expect(chooseOption('mesVencimiento', '3', opts(...names.map((n, i): [string, string] => [`m${i}`, n])))).toBe('m2');
    expect(chooseOption('mesVencimiento', '2', same('January', 'February', 'March'))).toBe('February');
    expect(chooseOption('mesVencimiento', '2', same('Jan', 'Feb', 'Mar'))).toBe('Feb');
    expect(chooseOption('mesVencimiento', '1', same('ene', 'feb'))).toBe('ene');
    expect(
      chooseOption(
        'mesVencimiento',
        '5',
        opts(...names.map((n, i): [string, string] => [String(i + 1), `${String(i + 1).padStart(2, '0')} - ${n}`])),
      ),
    ).toBe('5');
    // A 0-based value behind the month's name: the name says it.
    expect(chooseOption('mesVencimiento', '2', opts(['0', 'Enero'], ['1', 'Febrero']))).toBe('1');
    expect(chooseOption('mesVencimiento', 'Enero', same(...months))).toBe('01');
    expect(chooseOption('mesVencimiento', '13', same(...months))).toBeUndefined();
  });

  it('years of two or four digits either way', () => {
    expect(chooseOption('anioVencimiento', '2031', same('2030', '2031'))).toBe('2031');
    expect(chooseOption('anioVencimiento', '2031', same('30', '31'))).toBe('31');
    expect(chooseOption('anioVencimiento', '31', same('2030', '2031'))).toBe('2031');
    expect(chooseOption('anioVencimiento', '2040', same('2030', '2031'))).toBeUndefined();
  });

  it("payment forms by the spec's number, by name or by label in Spanish or English", () => {
    const deployed = opts(['PagoNormal', 'Tarjeta de crédito o débito'], ['Puntos', 'Puntos Partner']);
    expect(chooseOption('formaPago', '0', deployed)).toBe('PagoNormal');
    expect(chooseOption('formaPago', '1', deployed)).toBe('Puntos');
    expect(chooseOption('formaPago', '2', deployed)).toBeUndefined();
    const english = opts(
      ['card', 'Credit or debit card'],
      ['pts', 'Points'],
      ['inst', 'Instalments'],
      ['btc', 'Bitcoin'],
      ['qp', 'QuickPay'],
    );
    expect(['0', '1', '2', '3', '4'].map((v) => chooseOption('formaPago', v, english))).toEqual(['card', 'pts', 'inst', 'btc', 'qp']);
    // Labels only (the values the vendor's own codes): "Cuotas con tarjeta" is instalments, not the card.
    const coded = opts(['A', 'Tarjeta de crédito o débito'], ['B', 'Cuotas con tarjeta'], ['C', 'Puntos']);
    expect(['0', '2', '1'].map((v) => chooseOption('formaPago', v, coded))).toEqual(['A', 'B', 'C']);
    // Numbers as values, as the sandbox: exact.
    expect(chooseOption('formaPago', '2', opts(['0', 'Tarjeta'], ['2', 'Cuotas']))).toBe('2');
    // Numbers of the vendor's own under labels: the label says it.
    expect(chooseOption('formaPago', '1', opts(['1', 'Tarjeta'], ['2', 'Puntos']))).toBe('2');
    expect(chooseOption('formaPago', 'PagoNormal', deployed)).toBe('PagoNormal');
  });

  it('instalments by their number of months, in value or text', () => {
    expect(chooseOption('cuotas', '6', opts(['c3', '3 meses'], ['c6', '6 meses']))).toBe('c6');
    expect(chooseOption('cuotas', '3', same('3', '6', '12'))).toBe('3');
    expect(chooseOption('cuotas', '9', same('3', '6'))).toBeUndefined();
  });

  it('SCREEN_OPTION_VALUES first (when the page offers it), then meaning, then the exact value or text', () => {
    expect(chooseOption('formaPago', '0', opts(['TC', 'Visa'], ['PP', 'Otro']), { formaPago: { '0': 'TC' } })).toBe('TC');
    expect(chooseOption('mesVencimiento', '1', same(...months), { mesVencimiento: { '1': 'nope' } })).toBe('01');
    expect(chooseOption('email', 'x', same('x', 'y'))).toBe('x');
    expect(chooseOption('cantidad', '2', opts(['b', '2'], ['a', '1']))).toBe('b');
    expect(chooseOption('monto', '5', same('5.00', '10.00'))).toBe('5.00');
  });
});

describe('refusalWords', () => {
  it('finds a refusal in Spanish, English or Portuguese, accents and case folded', () => {
    expect(refusalWords('Este enlace de pago NO ESTÁ DISPONIBLE')).toBe('no esta disponible');
    expect(refusalWords('This payment link is not available')).toBe('not available');
    expect(refusalWords('Link unavailable')).toBe('unavailable');
    expect(refusalWords('El enlace ha expirado')).toBe('ha expirado');
    expect(refusalWords('This link has expired')).toBe('expired');
    expect(refusalWords('Enlace vencido')).toBe('vencido');
    expect(refusalWords('Enlace inactivo')).toBe('inactivo');
    expect(refusalWords('El enlace ya no se puede usar')).toBe('ya no');
    expect(refusalWords('This link can no longer be used')).toBe('can no longer');
    expect(refusalWords('Enlace caducado')).toBe('caducado');
    expect(refusalWords('Producto agotado')).toBe('agotado');
    expect(refusalWords('Se alcanzó el límite de pagos')).toBe('limite');
    expect(refusalWords('No se puede pagar este enlace')).toBe('no se puede');
    expect(refusalWords('This link cannot be paid')).toBe('cannot be paid');
    expect(refusalWords('Link de pagamento indisponível')).toBe('indisponivel');
  });

  it("finds none in a payable screen's words or a success page", () => {
    expect(refusalWords('Número de tarjeta Mes de vencimiento Año Fecha límite: 12/2030 Pagar')).toBeUndefined();
    expect(refusalWords('Pago aprobado. ¡Gracias por su compra!')).toBeUndefined();
    expect(refusalWords('')).toBeUndefined();
  });
});

describe('outcomes of pages without a form', () => {
  const page = (status: number, body: string, url = 'http://t.test/s') =>
    readHtml(status, url, `<html><body>${body}</body></html>`, defaultFieldNames);

  it('words of refusal, no form at all (payableSeen by origin), an error status; after a submission a page without words is a page', () => {
    expect(outcomeOf(page(200, '<h2>Este enlace de pago no está disponible</h2>'))).toMatchObject({
      kind: 'refused',
      by: 'words',
      answered: 'opening',
    });
    expect(outcomeOf(page(200, '<div id="app"></div>'))).toMatchObject({ kind: 'refused', by: 'no-form', payableSeen: false });
    expect(outcomeOf(page(410, '<p>gone</p>'))).toMatchObject({ kind: 'refused', by: 'status' });
    const submitted = { action: 'http://t.test/s', method: 'POST' as const, fields: {}, selects: {}, optionTexts: {} };
    expect(outcomeOf(page(200, '<p id="estado">aprobada</p>'), submitted)).toMatchObject({ kind: 'page' });
    expect(outcomeOf(page(200, '<p>El código expiró: expirado</p>'), submitted)).toMatchObject({
      kind: 'refused',
      by: 'words',
      answered: 'submission',
    });
  });

  it('the registry of payable origins: scheme, host and port; reset forgets', () => {
    const seen = new PayableOrigins();
    seen.add('https://pagos.test/IntentoPago/Pagar?id=1');
    expect(seen.has('https://pagos.test/otra')).toBe(true);
    expect(seen.has('https://pagos.test:8443/otra')).toBe(false);
    expect(seen.has('http://pagos.test/otra')).toBe(false);
    seen.reset();
    expect(seen.has('https://pagos.test/otra')).toBe(false);
  });
});

describe('labels and elimination', () => {
  const form = (body: string) => `<form method="post" action="/p">${body}<button>Pagar</button></form>`;

  it('knows "Unidades", "Método", "Valor a pagar", "Qty", "Units", "Payment method", "Total a pagar"', () => {
    const m = discoverFields(
      form(
        '<label>Método <select name="a"><option>X</option></select></label><label>Unidades <input name="b" ' +
          'type="number"></label><label>Valor a pagar <input name="c"></label>',
      ),
    );
    expect(m.names).toMatchObject({ formaPago: 'a', cantidad: 'b', monto: 'c' });
    const e = discoverFields(
      form(
        '<input name="a" aria-label="Qty"><input name="c" aria-label="Total a pagar"><select name="d" ' +
          'aria-label="Método de pago"><option>X</option></select>',
      ),
    );
    expect(e.names).toMatchObject({ cantidad: 'a', monto: 'c', formaPago: 'd' });
    expect(discoverFields(form('<input name="u" placeholder="Units">')).names.cantidad).toBe('u');
  });

  it('knows a month select of 01…12 and a year select by their options', () => {
    const m = discoverFields(
      form(
        `<select name="m"><option ` +
          `value="">Mes</option>${months.map((v) => `<option value="${v}">${v}</option>`).join('')}</select><select ` +
          `name="y"><option value="">--</option><option>2030</option><option>2031</option></select>`,
      ),
    );
    expect(m.names).toMatchObject({ mesVencimiento: 'm', anioVencimiento: 'y' });
  });

  it('places the quantity (the last number input left), then the amount (the one left), by elimination', () => {
    const html = form('<input name="n1" autocomplete="cc-number"><input name="q" type="number">');
    const present = (t: string) => ['n1', 'q'].includes(t);
    const placed = placeByElimination(discoverFields(html), ['cantidad', 'numeroTarjeta'], present);
    expect(placed.names.cantidad).toBe('q');
    expect(placed.found.cantidad).toEqual({ target: 'q', by: 'elimination' });
    // Not when the payment has no quantity.
    expect(placeByElimination(discoverFields(html), ['numeroTarjeta'], present).names.cantidad).toBe('cantidad');
    // Two number inputs left: the last is the quantity, and the amount the one left after it.
    const two = form('<input name="q" type="number"><input name="r" type="number">');
    expect(placeByElimination(discoverFields(two), ['cantidad', 'monto'], (t) => ['q', 'r'].includes(t)).names).toMatchObject({
      cantidad: 'r',
      monto: 'q',
    });
    // A text input with a numeric keyboard counts; three left for the amount is too many to tell.
    const numeric = form(
      '<input name="n" autocomplete="cc-number"><input name="a" type="number"><input name="b" ' +
        'inputmode="decimal"><input name="c" inputmode="decimal">',
    );
    const three = placeByElimination(discoverFields(numeric), ['cantidad', 'monto'], (t) => ['n', 'a', 'b', 'c'].includes(t));
    expect(three.names.cantidad).toBe('c');
    expect(three.names.monto).toBe('monto');
    // The amount: once the quantity is placed.
    const both = form('<label>Cantidad <input name="q" type="number"></label><input name="m" type="number">');
    expect(placeByElimination(discoverFields(both), ['cantidad', 'monto'], (t) => ['q', 'm'].includes(t)).names.monto).toBe('m');
  });
});
