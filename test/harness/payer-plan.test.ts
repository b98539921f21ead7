/**
 * plan() on hand-built pages, no payer and no network: what a person enters on each page of a checkout and which
 * control they press — strict on a payment screen, lenient on a 3DS, quick-pay or next-step page — for the quirks
 * both payers meet (steps, a one-time code, radio groups, billing details, card fields in a frame, consent).
 */
import { describe, expect, it } from 'vitest';
import { mapPage } from '../../harness/payer/field-mapping.ts';
import { paymentValues, pageValues } from '../../harness/payer/fields.ts';
import { readHtml } from '../../harness/payer/form.ts';
import { answers, challengeAnswer, plan, type PlannedPage } from '../../harness/payer/plan.ts';
import { defaultFieldNames, type CardPayment } from '../../harness/payer/types.ts';

const url = 'https://pay.example/checkout';
const payment: CardPayment = {
  numeroTarjeta: '4111111111111111',
  cvv: '987',
  mesVencimiento: 3,
  anioVencimiento: 2030,
  formaPago: 0,
  redirectPrefix: 'https://shop.example/back',
};

/** A page as a payer reads it: its form and the mapping of its fields by meaning. */
function page(html: string): PlannedPage {
  const mapping = mapPage(html, {});
  const screen = readHtml(200, url, html, mapping.names);
  if (!screen.form) throw new Error('fixture without a form');
  return { url, html, form: screen.form, mapping };
}

const cardScreen = `<h1>Paga tu compra</h1><form method="post" action="/checkout">
  <fieldset><legend>Forma de pago</legend>
    <label><input type="radio" name="medio" value="TC"> Tarjeta de crédito o débito</label>
    <label><input type="radio" name="medio" value="PTS"> Puntos</label>
  </fieldset>
  <label for="n">Número de tarjeta</label><input id="n" name="pan" autocomplete="cc-number">
  <label for="c">CVV</label><input id="c" name="sec" autocomplete="cc-csc">
  <label for="m">Mes</label><select id="m" name="mm"><option value="">Mes</option>${[...Array(12)].map((_, i) => `<option value="${String(i + 1).padStart(2, '0')}">${i + 1}</option>`).join('')}</select>
  <label for="y">Año</label><select id="y" name="yy"><option value="">Año</option><option value="29">2029</option><option value="30">2030</option></select>
  <input type="hidden" name="csrf" value="tok">
  <button type="submit" name="accion" value="cancelar">Cancelar</button>
  <button type="submit" name="accion" value="seguir">Continuar</button>
</form>`;

describe('plan: a payment screen (strict)', () => {
  it('enters every field of the payment by meaning: a radio group and selects by their options, hidden fields kept, the go-on button pressed', () => {
    const p = plan(page(cardScreen), { values: paymentValues(payment) }, 'strict');
    expect(p.problems).toEqual([]);
    expect(p.fields).toMatchObject({
      medio: 'TC',
      pan: payment.numeroTarjeta,
      sec: '987',
      mm: '03',
      yy: '30',
      csrf: 'tok',
      accion: 'seguir',
    });
    expect(p.press).toBe('Continuar');
    expect(p.entries.map((e) => e.field)).toEqual(['formaPago', 'numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento']);
  });

  it('names every field the page cannot take, and enters nothing', () => {
    const p = plan(page(cardScreen.replace(/<label for="c">CVV<\/label><input[^>]+>/, '')), { values: paymentValues(payment) }, 'strict');
    expect(p.problems).toHaveLength(1);
    expect(p.problems[0]).toMatch(/could not find cvv/);
    expect(p.entries).toEqual([]);
  });

  it('an option that means none of the values is a problem, not a guess', () => {
    const p = plan(page(cardScreen), { values: paymentValues({ ...payment, anioVencimiento: 2040 }) }, 'strict');
    expect(p.problems[0]).toMatch(/no option of anioVencimiento \(yy\) means "2040"/);
  });

  it('forged fields are set whether or not the page shows them', () => {
    const p = plan(page(cardScreen), { values: paymentValues(payment), forged: { monto: '1.00' } }, 'strict');
    expect(p.fields['monto']).toBe('1.00');
  });
});

describe('plan: the next step, a 3DS or quick-pay page (lenient)', () => {
  it('a review page: nothing to fill, its hidden fields kept, "Confirmar y pagar" pressed rather than "Editar"', () => {
    const review = `<h1>Revisa tu pago</h1><form method="post" action="/checkout"><input type="hidden" name="csrf" value="t2">
      <button name="accion" value="editar">Editar</button><button name="accion" value="confirmar">Confirmar y pagar</button></form>`;
    const p = plan(page(review), { values: paymentValues(payment) }, 'lenient');
    expect(p.entries).toEqual([]);
    expect(p.fields).toEqual({ csrf: 't2', accion: 'confirmar' });
    expect(p.press).toBe('Confirmar y pagar');
  });

  it('enters what the page shows of the card and leaves the rest; a field it does not show is no problem', () => {
    const p = plan(
      page(`<form method="post" action="/3ds"><label>CVV <input name="cvc" autocomplete="cc-csc"></label><button>Pagar</button></form>`),
      { values: pageValues({ numeroTarjeta: payment.numeroTarjeta, cvv: '987' }) },
      'lenient',
    );
    expect(p.problems).toEqual([]);
    expect(p.fields['cvc']).toBe('987');
    expect(p.entries.map((e) => e.says)).toEqual(['cvv']);
  });

  it('a one-time code the page shows is typed into the one empty input, and said so', () => {
    const otp = `<h1>Verificación</h1><p>Código de prueba: <b>482913</b></p>
      <form method="post" action="/otp"><label>Ingrese el código <input name="clave"></label><button>Verificar</button></form>`;
    const p = plan(page(otp), { values: [] }, 'lenient');
    expect(p.fields['clave']).toBe('482913');
    expect(p.entries.map((e) => e.says)).toEqual(['clave (the code the page shows)']);
    expect(p.press).toBe('Verificar');
  });

  it('the code configured wins over the one shown; shown-in reads the element the selector names', () => {
    const otp = `<p id="c">111222</p><p>Código: 333444</p><form method="post" action="/otp"><input name="clave"><button>OK</button></form>`;
    expect(plan(page(otp), { values: [], challenge: { code: '999000' } }, 'lenient').fields['clave']).toBe('999000');
    expect(plan(page(otp), { values: [], challenge: { shownIn: '#c' } }, 'lenient').fields['clave']).toBe('111222');
    expect(challengeAnswer(undefined, undefined, ['<p>nada</p>', '<p>Código: 5566</p>'])).toBe('5566');
  });

  it('never a code the page does not show', () => {
    const p = plan(
      page(`<form method="post" action="/otp"><label>Código <input name="clave"></label><button>OK</button></form>`),
      { values: [] },
      'lenient',
    );
    expect(p.fields['clave']).toBe('');
    expect(p.entries).toEqual([]);
  });

  it('a question the payment says nothing of: the one agreeing radio button checked, an agreeing checkbox ticked', () => {
    const ask = `<form method="post" action="/q"><p>¿Autoriza este pago?</p>
      <label><input type="radio" name="autoriza" value="s"> Sí, autorizo el pago</label>
      <label><input type="radio" name="autoriza" value="n"> No autorizo</label>
      <label><input type="checkbox" name="terminos" value="1"> Acepto los términos y condiciones</label>
      <label><input type="checkbox" name="boletin" value="1"> Recibir novedades</label>
      <button>Continuar</button></form>`;
    const p = plan(page(ask), { values: [] }, 'lenient');
    expect(p.fields).toMatchObject({ autoriza: 's', terminos: '1' });
    expect(p.fields['boletin']).toBeUndefined();
    expect(p.entries.map((e) => e.says)).toEqual(['autoriza (agreed)', 'terminos (agreed)']);
  });

  it('billing details a person types: by what each input asks, never into an input asking for a code', () => {
    const billing = `<form method="post" action="/billing">
      <label for="a">Apellido</label><input id="a" name="ap">
      <label for="t">Teléfono</label><input id="t" name="tel">
      <label for="d">Dirección</label><input id="d" name="dir">
      <label for="k">Código de seguridad enviado</label><input id="k" name="k1">
      <label for="k2">Clave</label><input id="k2" name="k2">
      <button>Continuar</button></form>`;
    const p = plan(page(billing), { values: [] }, 'lenient');
    expect(p.fields).toMatchObject({ ap: 'Pérez', tel: '70000000', dir: 'Calle 1, Casa 2', k1: '', k2: '' });
  });

  it("card fields in a frame: the frame's document is planned as a page of its own, the card placed by its autofill tokens", () => {
    const frame = `<form><input name="f1" autocomplete="cc-number"><input name="f2" autocomplete="cc-csc"></form>`;
    const shell = `<h1>Paga</h1><form method="post" action="/pay"><iframe src="https://vault.example/card"></iframe><button>Pagar</button></form>`;
    const values = pageValues({ numeroTarjeta: payment.numeroTarjeta, cvv: '987' });
    expect(plan(page(frame), { values }, 'lenient').fields).toMatchObject({ f1: payment.numeroTarjeta, f2: '987' });
    const top = plan(page(shell), { values }, 'lenient');
    expect(top.entries).toEqual([]);
    expect(top.press).toBe('Pagar');
  });

  it('is pure: the page read is left as it was', () => {
    const p0 = page(cardScreen);
    const before = JSON.stringify(p0);
    plan(p0, { values: paymentValues(payment) }, 'strict');
    plan(p0, { values: paymentValues(payment) }, 'lenient');
    expect(JSON.stringify(p0)).toBe(before);
    expect(defaultFieldNames.numeroTarjeta).toBe('numeroTarjeta');
  });
});

describe('answers: what a person answers beyond the payment (both payers ask plan.ts)', () => {
  const confirm = `<form method="post" action="/checkout">
    <label for="n">Número de tarjeta</label><input id="n" name="pan" autocomplete="cc-number">
    <label for="c">CVV</label><input id="c" name="sec" autocomplete="cc-csc">
    <label for="m">Mes</label><input id="m" name="mm" placeholder="MM">
    <label for="y">Año</label><input id="y" name="yy" placeholder="AAAA">
    <label for="e">Correo electrónico</label><input id="e" name="correo" type="email" autocomplete="email">
    <label for="e2">Confirme su correo electrónico</label><input id="e2" name="correo2" type="email" autocomplete="off">
    <label for="t">Teléfono de contacto</label><input id="t" name="tel" type="tel">
    <label><input type="checkbox" name="terminos" value="1"> Acepto los términos</label>
    <button type="submit">Pagar</button>
  </form>`;

  const { formaPago: _, ...card } = payment;

  it("an e-mail asked again is the same e-mail; consent and a person's details as before, each said in the transcript", () => {
    const p = plan(page(confirm), { values: paymentValues({ ...card, email: 'ana@example.com' }) }, 'strict');
    expect(p.problems.join()).toBe('');
    expect(p.fields).toMatchObject({ correo: 'ana@example.com', correo2: 'ana@example.com', tel: '70000000', terminos: '1' });
    expect(p.entries.slice(-3).map((e) => e.says)).toEqual([
      'terminos (agreed)',
      'tel ("Teléfono de contacto", as a person would)',
      'correo2 ("Confirme su correo electrónico", the same again)',
    ]);
  });

  it('nothing confirmed that the payment did not enter: without an e-mail the confirmation stays empty', () => {
    const p = plan(page(confirm), { values: paymentValues(card) }, 'strict');
    expect(p.fields['correo2']).toBe('');
  });

  it('answers() gives the browser how to enter each answer: a box ticked, a detail typed', () => {
    const form = page(confirm).form;
    const got = answers(form, { ...form.fields }, new Set(['correo']), { email: 'ana@example.com' });
    expect(got.map((a) => [a.name, a.how])).toEqual([
      ['terminos', 'tick'],
      ['tel', 'type'],
      ['correo2', 'type'],
    ]);
  });
});
