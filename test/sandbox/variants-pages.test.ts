/**
 * The page and account variants of sandbox/variants.ts do what they say, beside the default they replace: inputs
 * named by autofill tokens, one expiry input, English pages, a session token required back, 3DS and quick-pay pages asking for the
 * card or a challenge code (refusing with the form again), account tokens by password grant only.
 */
import { describe, expect, it } from 'vitest';
import { CUENTA, DESECHABLE, NEGOCIO, basic, compra3dsValida, enlaceValido, formulario, ruta, sandbox, type Prueba } from './helpers.ts';
import { variantSettings } from '../../sandbox/index.ts';

const CARD = { numeroTarjeta: '4111111111111111', cvv: '123', mesVencimiento: '12', anioVencimiento: '2030' };

async function pagina3ds(p: Prueba): Promise<string> {
  const res = await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida());
  return ruta(res.json<{ urlCompletarPago3Ds: string }>().urlCompletarPago3Ds);
}

async function paginaQuickPay(p: Prueba): Promise<string> {
  const res = await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 3 });
  return ruta(res.json<{ datosQuickPay: { urlQR: string } }>().datosQuickPay.urlQR).replace(/\.png$/, '');
}

describe('page variants', () => {
  it('pages-receipt-in-place: the quick-pay page posts by script; the answer is a receipt (role=status, heading, id), no #estado', async () => {
    const p = await sandbox({ variant: 'pages-receipt-in-place' });
    const url = await paginaQuickPay(p);
    const page = (await p.app.inject({ method: 'GET', url })).body;
    expect(page).toContain("f.id !== 'quickpay'");
    const form = formulario(page);
    const paid = await p.enviarFormulario(`http://sandbox.test${url}`, form.campos);
    expect(paid.statusCode).toBe(200);
    expect(paid.body).toMatch(/<section class="tarjeta recibo" role="status">\s*<h2>Pago aprobado<\/h2>/);
    expect(paid.body).toContain(url.split('/').pop());
    expect(paid.body).not.toContain('id="estado"');
  });

  it('pages-autofill-names: the screen names its card inputs by their autofill tokens, and reads them so; its setting says so', async () => {
    const p = await sandbox({ variant: 'pages-autofill-names' });
    const link = await p.crearEnlace();
    const form = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    expect(Object.keys(form.campos)).toEqual(
      expect.arrayContaining(['cc-number', 'cc-csc', 'cc-exp-month', 'cc-exp-year', 'cc-name', 'email']),
    );
    expect(Object.keys(form.campos)).not.toContain('numeroTarjeta');
    const paid = await p.pagar(link.urlEnlaceLargo, {
      formaPago: '0',
      'cc-number': CARD.numeroTarjeta,
      'cc-csc': '123',
      'cc-exp-month': '12',
      'cc-exp-year': '2030',
    });
    expect(paid.statusCode).toBe(303);
    // The suite finds them by their autofill tokens: no SCREEN_FIELD_NAMES handed over.
    expect(variantSettings('pages-autofill-names')['SCREEN_FIELD_NAMES']).toBeUndefined();
  });

  it('pages-opaque-names: inputs f1… with only their Spanish labels, no autofill token', async () => {
    const p = await sandbox({ variant: 'pages-opaque-names' });
    const link = await p.crearEnlace();
    const html = (await p.abrir(link.urlEnlaceLargo)).body;
    expect(Object.keys(formulario(html).campos)).toEqual(expect.arrayContaining(['f1', 'f2', 'f3', 'f4']));
    expect(html).not.toContain('autocomplete="cc-');
    const paid = await p.pagar(link.urlEnlaceLargo, { formaPago: '0', f1: CARD.numeroTarjeta, f4: '123', f2: '12', f3: '2030' });
    expect(paid.statusCode).toBe(303);
  });

  it('pages-expiry-joined: one expiry input "MM/AA"; a value not MM/AA shows the form again (400), MM/AA and MM/AAAA pay', async () => {
    const p = await sandbox({ variant: 'pages-expiry-joined' });
    const link = await p.crearEnlace();
    const html = (await p.abrir(link.urlEnlaceLargo)).body;
    expect(Object.keys(formulario(html).campos)).toContain('vencimiento');
    expect(html).not.toContain('name="mesVencimiento"');
    expect(html).toContain('placeholder="MM/AA"');
    const card = { formaPago: '0', numeroTarjeta: CARD.numeroTarjeta, cvv: '123' };
    const refused = await p.pagar(link.urlEnlaceLargo, { ...card, vencimiento: '13/30' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('debe ser MM/AA');
    expect((await p.pagar(link.urlEnlaceLargo, { ...card, vencimiento: '12/30' })).statusCode).toBe(303);
    expect((await p.pagar(link.urlEnlaceLargo, { ...card, vencimiento: '12/2030' })).statusCode).toBe(303);
  });

  it("pages-billing-details: the screen asks the payer's last name, phone and address; without them the form again (400)", async () => {
    const p = await sandbox({ variant: 'pages-billing-details' });
    const link = await p.crearEnlace();
    const html = (await p.abrir(link.urlEnlaceLargo)).body;
    expect(html).toContain('<label for="campo-apellidoCliente">Apellido</label>');
    const card = { formaPago: '0', numeroTarjeta: CARD.numeroTarjeta, cvv: '123', mesVencimiento: '12', anioVencimiento: '2030' };
    const refused = await p.pagar(link.urlEnlaceLargo, card);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('telefonoCliente');
    const persona = { apellidoCliente: 'Pérez', telefonoCliente: '70000000', direccionCliente: 'Calle 1' };
    expect((await p.pagar(link.urlEnlaceLargo, { ...card, ...persona })).statusCode).toBe(303);
  });

  it('pages-email-confirmation: the screen asks the e-mail twice; two that differ, the form again (400); the same, paid', async () => {
    const p = await sandbox({ variant: 'pages-email-confirmation' });
    const link = await p.crearEnlace();
    const html = (await p.abrir(link.urlEnlaceLargo)).body;
    expect(html).toContain('<label for="campo-emailConfirmacion">Confirme su correo electrónico</label>');
    const card = { formaPago: '0', numeroTarjeta: CARD.numeroTarjeta, cvv: '123', mesVencimiento: '12', anioVencimiento: '2030' };
    const refused = await p.pagar(link.urlEnlaceLargo, { ...card, email: 'ana@example.com' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('debe coincidir con el correo electrónico');
    expect((await p.pagar(link.urlEnlaceLargo, card)).statusCode).toBe(303);
    const again = await p.crearEnlace();
    const paid = await p.pagar(again.urlEnlaceLargo, { ...card, email: 'ana@example.com', emailConfirmacion: 'ana@example.com' });
    expect(paid.statusCode).toBe(303);
  });

  it('pages-english: English labels, lang="en", the card fields before what is bought', async () => {
    const p = await sandbox({ variant: 'pages-english' });
    const body = (await p.abrir((await p.crearEnlace()).urlEnlaceLargo)).body;
    expect(body).toContain('<html lang="en">');
    expect(body).toContain('Card number');
    expect(body.indexOf('name="numeroTarjeta"')).toBeLessThan(body.indexOf('name="formaPago"'));
    expect(body.indexOf('name="email"')).toBeLessThan(body.indexOf('name="numeroTarjeta"'));
  });

  it("pages-session-token: a post without the session cookie, or with another session's token, is refused (403); with both it is paid", async () => {
    const p = await sandbox({ variant: 'pages-session-token' });
    const link = await p.crearEnlace();
    const shown = await p.abrir(link.urlEnlaceLargo);
    const cookie = String(shown.headers['set-cookie']).split(';')[0]!;
    const campos = { ...formulario(shown.body).campos, formaPago: '0', ...CARD };
    expect((await p.enviarFormulario(link.urlEnlaceLargo, campos)).statusCode).toBe(403);
    const other = String((await p.abrir(link.urlEnlaceLargo)).headers['set-cookie']).split(';')[0]!;
    const post = (c: string) =>
      p.app.inject({
        method: 'POST',
        url: ruta(link.urlEnlaceLargo),
        payload: new URLSearchParams(campos).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: c },
      });
    expect((await post(other)).statusCode).toBe(403);
    expect((await post(cookie)).statusCode).toBe(303);
  });

  it('pages-ask-card: the 3DS and quick-pay pages ask for the card; without it they show the form again (422), with it they pay', async () => {
    const p = await sandbox({ variant: 'pages-ask-card' });
    for (const url of [await pagina3ds(p), await paginaQuickPay(p)]) {
      const form = formulario((await p.app.inject({ method: 'GET', url })).body);
      expect(Object.keys(form.campos)).toEqual(expect.arrayContaining(['numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento']));
      const empty = await p.enviarFormulario(`http://sandbox.test${url}`, form.campos);
      expect(empty.statusCode).toBe(422);
      expect(formulario(empty.body).action).toBe(url);
      expect(empty.body).toContain('id="errores"');
      const paid = await p.enviarFormulario(`http://sandbox.test${url}`, { ...form.campos, ...CARD });
      expect([200, 303]).toContain(paid.statusCode);
    }
  });

  it('threeds-challenge-code: the 3DS page shows its code; a wrong one shows the page again (422), the shown one completes it', async () => {
    const p = await sandbox({ variant: 'threeds-challenge-code' });
    const url = await pagina3ds(p);
    const page = (await p.app.inject({ method: 'GET', url })).body;
    const code = /id="codigo-prueba">(\d{6})</.exec(page)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    const form = formulario(page);
    const wrong = await p.enviarFormulario(`http://sandbox.test${url}`, {
      ...form.campos,
      codigoDesafio: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(422);
    const right = await p.enviarFormulario(`http://sandbox.test${url}`, { ...form.campos, codigoDesafio: code! });
    expect(right.statusCode).toBe(303);
    expect(variantSettings('threeds-challenge-code')).toEqual({ SCREEN_CHALLENGE_CODE: 'shown-in:#codigo-prueba' });
  });
});

describe('account-password-grant', () => {
  const grant = (p: Prueba, user: string, password: string, client = NEGOCIO) =>
    p.app.inject({
      method: 'POST',
      url: '/auth/connect/token',
      payload: new URLSearchParams({
        grant_type: 'password',
        audience: 'service_api',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        username: user,
        password,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

  it("issues account tokens for the account's user and password; account endpoints take them and refuse HTTP Basic", async () => {
    const p = await sandbox({ variant: 'account-password-grant' });
    const link = await p.crearEnlace(enlaceValido());
    expect((await grant(p, CUENTA.user, 'wrong')).json()).toMatchObject({ error: 'invalid_grant' });
    const token = (await grant(p, CUENTA.user, CUENTA.password)).json<{ access_token: string }>().access_token;
    expect((await p.api('PUT', `/EnlacePago/${link.idEnlace}/activar`, basic(CUENTA.user, CUENTA.password))).statusCode).toBe(401);
    expect((await p.api('PUT', `/EnlacePago/${link.idEnlace}/activar`, `Bearer ${token}`)).statusCode).toBe(200);
    // A business token is no account token, and an account token is no business token.
    expect((await p.api('PUT', `/EnlacePago/${link.idEnlace}/activar`, await p.bearer())).statusCode).toBe(401);
    expect((await p.api('POST', '/EnlacePago', `Bearer ${token}`, enlaceValido())).statusCode).toBe(401);
  });

  it('deleting the account revokes its tokens and refuses new grants', async () => {
    const p = await sandbox({ variant: 'account-password-grant' });
    const token = (await grant(p, DESECHABLE.user, DESECHABLE.password)).json<{ access_token: string }>().access_token;
    expect((await p.api('DELETE', '/Cuenta', `Bearer ${token}`)).statusCode).toBe(200);
    expect((await p.api('DELETE', '/Cuenta', `Bearer ${token}`)).statusCode).toBe(401);
    expect((await grant(p, DESECHABLE.user, DESECHABLE.password)).statusCode).toBe(400);
  });

  it('without the variant, grant_type=password stays unsupported', async () => {
    const p = await sandbox();
    expect((await grant(p, CUENTA.user, CUENTA.password)).json()).toMatchObject({ error: 'unsupported_grant_type' });
  });
});
