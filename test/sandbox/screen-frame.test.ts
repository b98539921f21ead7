/**
 * The frame screen (`screen: 'frame'`) over HTTP: the shell has no form and frames the card from the other loopback
 * origin; the iframe page serves only inside that shell; the vault answers one-time tokens; the JSON submission pays
 * as the single-step screen does (redirect, cvv 111, replays, limits, minutes). The browser run: test/e2e/screen-frame.test.ts.
 */
import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import { consulta, datosPantallaMarco, enlaceValido, estado, pagarEnMarco, sandbox, tokenizar } from './helpers.ts';

const conf = (extra: Record<string, unknown> = {}) => ({ notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', ...extra });

describe('frame screen', () => {
  it('the shell has no form: e-mail, payment form and quantity outside any form, the card in an iframe of the other origin, buttons "Pagar" and "Volver" without href', async () => {
    const p = await sandbox({ screen: 'frame' });
    const link = await p.crearEnlace(
      enlaceValido({ configuracion: conf({ esCantidadEditable: true, urlRetorno: 'https://merchant.test/tienda' }) }),
    );
    expect(link.urlEnlaceLargo).toBe(`http://sandbox.test/pagar/${link.idEnlace}`);
    const res = await p.app.inject({ method: 'GET', url: `/pagar/${link.idEnlace}`, headers: { host: '127.0.0.1:4010' } });
    expect(res.statusCode).toBe(200);
    const doc = parse(res.body);
    expect(doc.querySelectorAll('form')).toHaveLength(0);
    expect(doc.querySelectorAll('#compra [name]').map((e) => e.getAttribute('name'))).toEqual(['email', 'formaPago', 'cantidad']);
    expect(doc.querySelector('input[name=numeroTarjeta]')).toBeNull();
    const src = new URL(doc.querySelector('iframe')!.getAttribute('src')!);
    expect(src.origin).toBe('http://localhost:4010');
    expect(src.pathname).toBe('/vault/campos');
    expect(src.searchParams.get('padre')).toBe('http://127.0.0.1:4010');
    expect(doc.querySelector('#pagar')?.text).toBe('Pagar');
    const volver = doc.querySelector('#volver')!;
    expect([volver.tagName, volver.text, volver.getAttribute('href')]).toEqual(['BUTTON', 'Volver', undefined]);
    expect(doc.querySelector('[role=alert]')).not.toBeNull();
    expect(datosPantallaMarco(res.body)).toMatchObject({
      api: `/pagar/${link.idEnlace}/api`,
      retorno: 'https://merchant.test/tienda',
      nombreForma: 'formaPago',
      sinTarjeta: [],
    });
    // From localhost, the frame is on 127.0.0.1.
    const otro = await p.app.inject({ method: 'GET', url: `/pagar/${link.idEnlace}`, headers: { host: 'localhost:4010' } });
    expect(new URL(parse(otro.body).querySelector('iframe')!.getAttribute('src')!).origin).toBe('http://127.0.0.1:4010');
  });

  it('the iframe holds the card inputs; it is served only for the shell of the other origin', async () => {
    const p = await sandbox({ screen: 'frame' });
    const link = await p.crearEnlace();
    const url = `/vault/campos?enlace=${link.idEnlace}&padre=${encodeURIComponent('http://127.0.0.1:4010')}`;
    const res = await p.app.inject({ method: 'GET', url, headers: { host: 'localhost:4010' } });
    expect(res.statusCode).toBe(200);
    const doc = parse(res.body);
    expect(doc.querySelectorAll('input, select').map((e) => e.getAttribute('name'))).toEqual([
      'numeroTarjeta',
      'mesVencimiento',
      'anioVencimiento',
      'cvv',
      'nombreTitular',
    ]);
    expect(doc.querySelectorAll('form')).toHaveLength(0);
    expect((await p.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1:4010' } })).statusCode).toBe(400);
  });

  it('the vault answers a one-time token for a valid card; a bad card is a 400 with the errors, nothing stored', async () => {
    const p = await sandbox({ screen: 'frame' });
    const link = await p.crearEnlace();
    const ok = await tokenizar(p, link.idEnlace);
    expect(ok.statusCode).toBe(201);
    expect(ok.json().token).toMatch(/^tok_/);
    const malo = await p.app.inject({
      method: 'POST',
      url: '/vault/tokens',
      payload: { idEnlace: link.idEnlace, numeroTarjeta: '12', cvv: '1', mesVencimiento: '13', anioVencimiento: '2030' },
    });
    expect(malo.statusCode).toBe(400);
    expect(
      malo
        .json()
        .errores.map((e: { campo: string }) => e.campo)
        .sort(),
    ).toEqual(['cvv', 'mesVencimiento', 'numeroTarjeta']);
    expect(p.ctx.store.tokensBoveda.size).toBe(1);
  });

  it('the JSON submission answers {redirect} to urlRedirect with quantity × monto; the token is used once', async () => {
    const p = await sandbox({ screen: 'frame' });
    const link = await p.crearEnlace(
      enlaceValido({ monto: 10.5, configuracion: conf({ esCantidadEditable: true, urlRedirect: 'https://merchant.test/fin' }) }),
    );
    const res = await pagarEnMarco(p, link.urlEnlaceLargo, { cantidad: '4' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^https:\/\/merchant\.test\/fin\?/);
    expect(consulta(res)).toMatchObject({ monto: '42.00', esAprobada: 'true' });
    const token = [...p.ctx.store.tokensBoveda.keys()][0]!;
    // The token again, on a new showing of the screen: refused, nothing charged.
    const shell = datosPantallaMarco((await p.abrir(link.urlEnlaceLargo)).body);
    const otra = await p.app.inject({ method: 'POST', url: shell.api, payload: { intento: shell.intento, formaPago: '0', token } });
    expect(otra.statusCode).toBe(400);
    expect(otra.json().errores[0].campo).toBe('token');
    expect(p.ctx.store.transactions.size).toBe(1);
  });

  it('cvv 111 still redirects, with esAprobada=false; the same submission again answers the same and charges nothing', async () => {
    const p = await sandbox({ screen: 'frame' });
    const link = await p.crearEnlace();
    const shell = datosPantallaMarco((await p.abrir(link.urlEnlaceLargo)).body);
    const token = (await tokenizar(p, link.idEnlace, '111')).json().token as string;
    const cuerpo = { intento: shell.intento, formaPago: '0', token };
    const primero = await p.app.inject({ method: 'POST', url: shell.api, payload: cuerpo });
    expect(new URL(primero.json().redirect).searchParams.get('esAprobada')).toBe('false');
    const otra = await p.app.inject({ method: 'POST', url: shell.api, payload: cuerpo });
    expect(otra.json()).toEqual(primero.json());
    expect(p.ctx.store.transactions.size).toBe(1);
  });

  it('an unusable link serves the refusal page on load, and the submission answers {error: "Este enlace ya no está disponible…"} (410)', async () => {
    const p = await sandbox({ screen: 'frame' });
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    const shell = datosPantallaMarco((await p.abrir(link.urlEnlaceLargo)).body);
    expect((await pagarEnMarco(p, link.urlEnlaceLargo)).statusCode).toBe(303);
    const token = (await tokenizar(p, link.idEnlace)).json().token as string;
    const tarde = await p.app.inject({ method: 'POST', url: shell.api, payload: { intento: shell.intento, formaPago: '0', token } });
    expect(tarde.statusCode).toBe(410);
    expect(tarde.json().error).toMatch(/^Este enlace ya no está disponible/);
    const pagina = await p.abrir(link.urlEnlaceLargo);
    expect(pagina.statusCode).toBe(410);
    expect(estado(pagina.body)).toBe('no disponible');
  });

  it('an attempt past duracionInterfazIntentoMinutos is refused (410), nothing charged', async () => {
    const p = await sandbox({ screen: 'frame' });
    const link = await p.crearEnlace(enlaceValido({ configuracion: conf({ duracionInterfazIntentoMinutos: 1 }) }));
    const shell = datosPantallaMarco((await p.abrir(link.urlEnlaceLargo)).body);
    const token = (await tokenizar(p, link.idEnlace)).json().token as string;
    await p.avanzar(61);
    const res = await p.app.inject({ method: 'POST', url: shell.api, payload: { intento: shell.intento, formaPago: '0', token } });
    expect(res.statusCode).toBe(410);
    expect(res.json().estado).toBe('intento vencido');
    expect(p.ctx.store.transactions.size).toBe(0);
  });

  it('fault frame-token-wrong-amount: the token charges the link monto, not cantidadPorDefecto × monto', async () => {
    const p = await sandbox({ fault: 'frame-token-wrong-amount' });
    expect(p.ctx.options.screen).toBe('frame');
    const link = await p.crearEnlace(enlaceValido({ monto: 10.5, configuracion: conf({ cantidadPorDefecto: 3 }) }));
    expect(consulta(await pagarEnMarco(p, link.urlEnlaceLargo)).monto).toBe('10.50');
  });

  it('variant urls-deployed: the shell at /pago?e=…&h=… submits to /pago/api with the same query', async () => {
    const p = await sandbox({ screen: 'frame', variant: 'urls-deployed' });
    const link = await p.crearEnlace();
    const shell = datosPantallaMarco((await p.abrir(link.urlEnlaceLargo)).body);
    expect(shell.api).toMatch(/^\/pago\/api\?e=/);
    expect((await pagarEnMarco(p, link.urlEnlaceLargo)).statusCode).toBe(303);
  });
});
