/**
 * Checkouts with steps, paid by the HTTP payer as a person would: a card page then a review page posting to the same
 * URL (a CSRF token bound to a session cookie), payment forms as radio buttons, an issuer's test page showing the
 * code to type, a meta refresh, a result page linking back with the outcome, a checkout that never ends. And the
 * readings behind them (harness/payer/steps.ts) on hand-built pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recorder } from '../../harness/record/transcript.ts';
import { TestRecord, withRecord } from '../../harness/record/test-record.ts';
import { SecretRegistry } from '../../harness/record/redact.ts';
import { createHttp, type Http } from '../../harness/api/http.ts';
import { createPayer } from '../../harness/payer/index.ts';
import {
  consent,
  goOnButton,
  meansConsent,
  meansGoOn,
  meansLeave,
  metaRefresh,
  personalDetails,
  newWords,
  sameForm,
  shownCode,
  unanswered,
} from '../../harness/payer/steps.ts';
import { PaymentRefused } from '../../harness/payer/errors.ts';
import { FieldsNotFoundError } from '../../harness/payer/field-mapping.ts';
import { readHtml, outcomeOf } from '../../harness/payer/form.ts';
import { defaultFieldNames, type ScreenForm } from '../../harness/payer/types.ts';
import { startFixture, type Fixture } from './server.ts';

const prefix = 'http://127.0.0.1:9/redirect/steps';

const step1 = `<!doctype html><html><body><h1>Paga tu compra</h1>
<form method="post" action="/checkout">
  <fieldset><legend>Forma de pago</legend>
    <label><input type="radio" name="medio" value="TC"> Tarjeta de crédito o débito</label>
    <label><input type="radio" name="medio" value="PTS"> Puntos</label>
  </fieldset>
  <label for="n">Número de tarjeta</label><input id="n" name="pan" autocomplete="cc-number">
  <label for="c">CVV</label><input id="c" name="sec" type="password">
  <label for="m">Mes</label><input id="m" name="mm">
  <label for="a">Año</label><input id="a" name="aa">
  <button type="submit" name="accion" value="cancelar">Cancelar</button>
  <button type="submit" name="accion" value="seguir">Continuar</button>
</form></body></html>`;

const step2 = (csrf: string) => `<!doctype html><html><body><h1>Paso 2 de 2: confirma tu pago</h1>
<p>Total: $10.00 — tarjeta •••• 1111</p>
<form method="post" action="/checkout"><input type="hidden" name="csrf" value="${csrf}">
  <button type="submit" name="paso" value="confirmar">Confirmar y pagar</button></form></body></html>`;

const otpPage = `<!doctype html><html><body><h1>Banco emisor: verificación</h1>
<p>Código de prueba: <strong id="codigo-prueba">482913</strong></p>
<form method="post" action="/otp"><label for="o">Ingrese el código</label><input id="o" name="otp">
  <button>Verificar</button></form></body></html>`;

/** A card page that also asks the payer's details; `/unknown-*` add one a person's details do not answer. */
const billingPage = (path: string) => `<!doctype html><html><body><h1>Tus datos</h1>
<form method="post" action="${path}">
  <label for="n">Número de tarjeta</label><input id="n" name="numeroTarjeta" autocomplete="cc-number">
  <label for="c">CVV</label><input id="c" name="cvv" type="password">
  <input name="mesVencimiento" autocomplete="cc-exp-month"><input name="anioVencimiento" autocomplete="cc-exp-year">
  <label for="ape">Apellido</label><input id="ape" name="ape" required>
  <label for="tel">Teléfono celular</label><input id="tel" name="tel" type="tel">
  <label>Dirección <input name="dir"></label>
  <label for="cup">Código de descuento</label><input id="cup" name="cupon">
  ${path === '/unknown-required' ? '<label for="ref">Referencia del pedido</label><input id="ref" name="ref" required>' : ''}
  ${path === '/unknown-named' ? '<label for="pas">Número de pasaporte</label><input id="pas" name="pas">' : ''}
  <button>Pagar</button></form></body></html>`;

let fixture: Fixture;
let http: Http;
const received: Record<string, string>[] = [];

beforeAll(async () => {
  fixture = await startFixture((req, res, body) => {
    const cookie = req.headers.cookie ?? '';
    const fields = Object.fromEntries(new URLSearchParams(body.toString()));
    const html = (status: number, content: string, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(content);
    const redirect = (status: number, location: string) => res.writeHead(status, { location }).end();
    switch (`${req.method} ${req.url}`) {
      case 'GET /checkout':
        return html(200, step1, { 'set-cookie': 'sid=abc; Path=/' });
      case 'POST /checkout':
        received.push({ ...fields, cookie });
        if (fields['paso'] === 'confirmar') {
          if (!cookie.includes('sid=abc') || fields['csrf'] !== 'tok-abc') return html(403, '<p id="estado">sesión no válida</p>');
          return redirect(303, `${prefix}?idTransaccion=t-1&esAprobada=true`);
        }
        if (fields['accion'] !== 'seguir' || fields['medio'] !== 'TC' || !fields['pan']) return html(400, step1);
        return html(200, step2('tok-abc'));
      case 'GET /otp':
        return html(200, otpPage);
      case 'POST /otp':
        received.push(fields);
        return fields['otp'] === '482913' ? redirect(303, `${prefix}?idTransaccion=t-2&esAprobada=true`) : html(422, otpPage);
      case 'GET /refresh':
        return html(
          200,
          '<form method="post" action="/refresh"><input name="numeroTarjeta"><input name="cvv"><input ' +
            'name="mesVencimiento"><input name="anioVencimiento"><button>Pagar</button></form>',
        );
      case 'POST /refresh':
        return html(200, `<meta http-equiv="refresh" content="0; url=${prefix}?idTransaccion=t-3&amp;esAprobada=true"><p>Procesando…</p>`);
      case 'GET /thanks':
        return html(
          200,
          '<form method="post" action="/thanks"><input name="numeroTarjeta"><input name="cvv"><input ' +
            'name="mesVencimiento"><input name="anioVencimiento"><button>Pagar</button></form>',
        );
      case 'POST /thanks':
        return html(
          200,
          `<h1>¡Gracias!</h1><a href="https://otro.example/">Inicio</a> <a ` +
            `href="${prefix}?idTransaccion=t-4&amp;esAprobada=true">Volver al comercio</a>`,
        );
      case 'GET /endless':
        return html(
          200,
          '<form method="post" action="/endless"><input name="numeroTarjeta"><input name="cvv"><input ' +
            'name="mesVencimiento"><input name="anioVencimiento"><button>Pagar</button></form>',
        );
      case 'GET /billing':
      case 'GET /unknown-required':
      case 'GET /unknown-named':
        return html(200, billingPage(req.url!));
      case 'POST /billing':
        received.push(fields);
        return fields['ape'] && fields['tel'] && fields['dir'] && !fields['cupon']
          ? redirect(303, `${prefix}?idTransaccion=t-5&esAprobada=true`)
          : html(400, billingPage('/billing'));
      case 'POST /unknown-required':
        received.push(fields);
        return html(400, billingPage('/unknown-required'));
      case 'POST /unknown-named':
        received.push(fields);
        return html(400, `<p id="estado">datos inválidos: ingrese el número de pasaporte</p>${billingPage('/unknown-named')}`);
      default:
        if (req.method === 'POST' && req.url?.startsWith('/endless')) {
          const n = Number(req.url.split('/')[2] ?? 0) + 1;
          return html(200, `<h1>Revisión ${n}</h1><form method="post" action="/endless/${n}"><button>Continuar</button></form>`);
        }
        return html(404, 'no');
    }
  });
  http = createHttp({
    timeoutMs: 2000,
    retries: 0,
    maxResponseBytes: 1 << 20,
    recorder: new Recorder({ registry: new SecretRegistry() }),
    maxBackoffMs: 10,
  });
});

afterAll(async () => {
  await http.close();
  await fixture.close();
});

const plainCard = { numeroTarjeta: '4111111111111111', cvv: '987', mesVencimiento: 12, anioVencimiento: 2030, redirectPrefix: prefix };
const card = { ...plainCard, formaPago: 0 };

describe('the HTTP payer finishes a checkout with steps', () => {
  it('card page (radio buttons, the button that goes on) then a review page on the same URL with a CSRF token bound to the cookie', async () => {
    received.length = 0;
    const scope = new TestRecord('steps');
    const outcome = await withRecord(scope, () =>
      createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/checkout`, payment: card }),
    );
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-1', esAprobada: 'true' } });
    expect(received[0]).toMatchObject({ medio: 'TC', pan: '4111111111111111', accion: 'seguir' });
    expect(received[1]).toMatchObject({ paso: 'confirmar', csrf: 'tok-abc' });
    expect(received[1]!['cookie']).toContain('sid=abc');
    const step = scope.steps.find((s) => s.title.startsWith('checkout step 2'));
    expect(step?.title).toBe('checkout step 2: "Paso 2 de 2: confirma tu pago" — nothing to fill; pressed "Confirmar y pagar"');
    expect(JSON.stringify(scope.steps)).not.toContain('4111111111111111');
  });

  it('an issuer test page: the code it shows is typed into its one empty input, without a setting', async () => {
    const outcome = await createPayer({ http }).pay({
      kind: '3ds',
      url: `${fixture.url}/otp`,
      redirectPrefix: prefix,
      card: { numeroTarjeta: '4111111111111111' },
    });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-2' } });
    expect(received.at(-1)).toEqual({ otp: '482913' });
  });

  it('a meta refresh to urlRedirect is the outcome (not fetched)', async () => {
    const outcome = await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/refresh`, payment: plainCard });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-3', esAprobada: 'true' } });
  });

  it('a result page whose link back to the merchant carries the outcome is followed; a plain link is not an outcome', async () => {
    const outcome = await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/thanks`, payment: plainCard });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-4' } });
  });

  it('a checkout that never ends stops after MAX_STEPS pages: a page, never a verdict of its own', async () => {
    const scope = new TestRecord('endless');
    const outcome = await withRecord(scope, () =>
      createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/endless`, payment: plainCard }),
    );
    expect(outcome.kind).toBe('page');
    expect(fixture.seen.filter((s) => s.startsWith('POST /endless')).length).toBe(6);
    expect(scope.steps.some((s) => /more than 6 steps/.test(s.title))).toBe(true);
  });
});

describe("the HTTP payer answers a checkout's questions of the payer as a person would", () => {
  it('a last name, a phone and an address are typed where the page asks them; a discount code is left empty', async () => {
    received.length = 0;
    const scope = new TestRecord('billing');
    const outcome = await withRecord(scope, () =>
      createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/billing`, payment: plainCard }),
    );
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-5' } });
    expect(received[0]).toMatchObject({ ape: 'Pérez', tel: '70000000', dir: 'Calle 1, Casa 2', cupon: '' });
  });

  it('a required input no detail answers: not sent, the page not driven (a page the payer cannot finish is no verdict)', async () => {
    received.length = 0;
    const paid = createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/unknown-required`, payment: plainCard });
    await expect(paid).rejects.toThrow(FieldsNotFoundError);
    await expect(paid).rejects.toThrow(/"Referencia del pedido" \(ref, required\); nothing was sent/);
    expect(received).toEqual([]);
  });

  it('an input left empty that the refusal names: PaymentRefused (not judged), never a refusal of the payment', async () => {
    const paid = createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/unknown-named`, payment: plainCard });
    await expect(paid).rejects.toThrow(PaymentRefused);
    await expect(paid).rejects.toThrow(/left empty: "Número de pasaporte" \(pas\)/);
  });

  it('personalDetails and unanswered on a hand-built form: never a code field; required, or named by the refusal', () => {
    const form = readHtml(200, 'http://x/p', billingPage('/unknown-required'), defaultFieldNames).form!;
    const otp = readHtml(
      200,
      'http://x/o',
      '<form><label for="o">Código enviado a tu teléfono</label><input id="o" name="o"></form>',
      defaultFieldNames,
    ).form!;
    const fields = { ...form.fields };
    expect(personalDetails(form, fields, new Set(['numeroTarjeta'])).map((a) => a.name)).toEqual(['ape', 'tel', 'dir']);
    expect(personalDetails(otp, { o: '' }, new Set())).toEqual([]);
    const empty = new Set(Object.keys(fields).filter((k) => fields[k] === ''));
    expect(unanswered(form, empty)).toEqual(['"Referencia del pedido" (ref, required)']);
    expect(unanswered(form, empty, 'Ingrese el código de descuento')).toEqual([
      '"Código de descuento" (cupon)',
      '"Referencia del pedido" (ref, required)',
    ]);
    // Named as a word, and never by a name too short to be one.
    const short = readHtml(
      200,
      'http://x/s',
      '<form><input name="r"><label for="d">Día</label><input id="d" name="dd"></form>',
      defaultFieldNames,
    ).form!;
    expect(unanswered(short, new Set(['r', 'dd']), 'error: revise el formulario del dia')).toEqual(['"Día" (dd)']);
    expect(unanswered(short, new Set(['r', 'dd']), 'diario')).toEqual([]);
    // The form shown again names every label: only what the answer adds is the refusal's words.
    const again = `<p id="estado">Revise el apellido</p>${billingPage('/unknown-required')}`;
    expect(newWords(billingPage('/unknown-required'), again)).toBe('Revise el apellido');
  });
});

describe('the HTTP payer follows a control by what its HTML says', () => {
  const screenOf = (html: string) => ({ status: 200, url: 'http://shop.example/pagar/1', html });
  it('the back link leads where its href says; a button driven by script is not found, never a guess', async () => {
    const payer = createPayer({ http });
    expect(
      await payer.follow!(
        screenOf('<a class="x" href="/ayuda">Ayuda</a><a href="https://m.example/volver">← Regresar al comercio</a>'),
        'back',
      ),
    ).toEqual({ url: 'https://m.example/volver', control: '← Regresar al comercio' });
    expect(await payer.follow!(screenOf('<button id="volver" type="button">Volver</button>'), 'back')).toMatchObject({
      notFound: expect.stringContaining('"Volver" lead nowhere the HTML says'),
    });
    expect(await payer.follow!(screenOf('<a href="javascript:history.back()">Volver</a>'), 'back')).toHaveProperty('notFound');
    expect(await payer.follow!(screenOf('<p>nada</p>'), 'back')).toMatchObject({
      notFound: expect.stringContaining('no link or button whose words mean back'),
    });
  });
});

describe('steps.ts: reading a checkout as a person does', () => {
  it('meansGoOn: pay, confirm, continue, next, accept, submit in Spanish, English and Portuguese; never back or cancel', () => {
    for (const w of [
      'Pagar',
      'Confirmar y pagar',
      'Continuar',
      'Siguiente',
      'Aceptar',
      'Pay now',
      'Confirm',
      'Continue',
      'Next →',
      'Submit',
      'Verificar',
      'Finalizar compra',
      'Prosseguir',
    ])
      expect(meansGoOn(w), w).toBe(true);
    for (const w of ['Volver', 'Cancelar pago', 'Regresar al comercio', 'Back', 'Editar datos', '', 'Ayuda'])
      expect(meansGoOn(w), w).toBe(false);
    expect(meansLeave('← Regresar al comercio')).toBe(true);
  });

  it('goOnButton: the button whose words go on, else a lone button that does not leave', () => {
    const form = (...texts: string[]): Pick<ScreenForm, 'buttons'> => ({ buttons: texts.map((text) => ({ value: '', text })) });
    expect(goOnButton(form('Cancelar', 'Continuar'))).toBe(1);
    expect(goOnButton(form('→'))).toBe(0);
    expect(goOnButton(form('Volver'))).toBeUndefined();
    expect(goOnButton(form('Ayuda', 'Más'))).toBeUndefined();
  });

  it('sameForm: the same inputs at the same action is the form again; a review page posting to the same URL is a next step', () => {
    const first = readHtml(200, 'http://x/checkout', step1, defaultFieldNames).form!;
    const review = readHtml(200, 'http://x/checkout', step2('t'), defaultFieldNames).form!;
    expect(sameForm(first, first)).toBe(true);
    expect(sameForm(review, first)).toBe(false);
    expect(outcomeOf(readHtml(200, 'http://x/checkout', step2('t'), defaultFieldNames), first).kind).toBe('page');
    expect(outcomeOf(readHtml(200, 'http://x/checkout', step1, defaultFieldNames), first)).toMatchObject({
      kind: 'refused',
      by: 'form-again',
    });
  });

  it('radio groups are read as selects, each option named by its label', () => {
    const form = readHtml(200, 'http://x/checkout', step1, defaultFieldNames).form!;
    expect(form.selects['medio']).toEqual(['TC', 'PTS']);
    expect(form.optionTexts['medio']).toEqual(['Tarjeta de crédito o débito', 'Puntos']);
    expect(form.radios).toEqual(['medio']);
    expect(form.fields['medio']).toBeUndefined();
  });

  it('shownCode: the code a page shows, with where it is; never one the page does not show', () => {
    expect(shownCode(otpPage)).toEqual({ code: '482913', selector: '#codigo-prueba' });
    expect(shownCode('<p>Your one-time code is 7731</p><input name="x">')).toEqual({ code: '7731' });
    expect(shownCode('<span class="otp">552211</span><input name="x">')).toEqual({ code: '552211' });
    expect(shownCode('<p>Ingrese el código que le enviamos por SMS</p><input name="x" value="">')).toBeUndefined();
    expect(shownCode('<p>Código postal 01000</p>')).toBeUndefined();
    expect(shownCode('<p>Tarjeta •••• 1111, total 10.00</p>')).toBeUndefined();
  });

  it('consent: an unanswered question whose one option agrees is agreed to; a ticked or disagreeing one is left', () => {
    const page = `<form method="post" action="/qp"><fieldset><legend>¿Autoriza este pago?</legend>
      <label><input type="radio" name="autoriza" value="si"> Sí, autorizo el pago</label><label><input type="radio" name="autoriza" value="no"> No</label></fieldset>
      <label><input type="checkbox" name="terminos" value="1"> Acepto los términos y condiciones</label>
      <label><input type="checkbox" name="boletin" value="1"> Quiero recibir ofertas</label><button>Pagar</button></form>`;
    const form = readHtml(200, 'http://x/qp', page, defaultFieldNames).form!;
    const fields = { ...form.fields };
    expect(consent(form, fields, new Set())).toEqual(['autoriza', 'terminos']);
    expect(fields).toMatchObject({ autoriza: 'si', terminos: '1' });
    expect(fields['boletin']).toBeUndefined();
    expect(meansConsent('No autorizo')).toBe(false);
  });

  it('metaRefresh: the URL a refresh sends the page to', () => {
    expect(metaRefresh('<meta http-equiv="Refresh" content="2;URL=\'/fin?x=1\'">', 'http://x/a/b')).toBe('http://x/fin?x=1');
    expect(metaRefresh('<meta name="viewport" content="width=device-width">', 'http://x/')).toBeUndefined();
  });
});
