/**
 * The steps screen (`screen: 'steps'`) over HTTP: step 1 (card, radio buttons, "Continuar") → step 2 ("Paso 2 de 2",
 * summary, "Confirmar y pagar", only a CSRF token) → 303 to urlRedirect; the token needs its session cookie; the
 * same confirmation sent twice charges once; the screen's minutes count from step 1; refusals as the single-step screen's.
 */
import type { LightMyRequestResponse } from 'fastify';
import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import {
  consulta,
  cookiePasos as cookieDe,
  enlaceValido,
  estado,
  formulario,
  pasoUno as paso1,
  postar,
  ruta,
  sandbox,
  tarjeta,
} from './helpers.ts';

const conf = (extra: Record<string, unknown> = {}) => ({ notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', ...extra });

/** Step 2's form: its action and fields. */
function confirmacion(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(200);
  return formulario(res.body);
}

describe('steps screen', () => {
  it('step 1 offers the payment form and instalments as labelled radio buttons and a "Continuar" button', async () => {
    const p = await sandbox({ screen: 'steps' });
    const link = await p.crearEnlace(
      enlaceValido({
        formaPago: {
          permitirTarjetaCreditoDebido: true,
          permitirPagoConPuntoPartner: true,
          permitirPagoEnCuotasPartner: true,
          permitirPagoEnBitcoin: false,
          permitePagoQuickPay: false,
        },
        cantidadMaximaCuotas: 'Seis',
        configuracion: conf({ esCantidadEditable: true }),
      }),
    );
    const res = await p.abrir(link.urlEnlaceLargo);
    expect(res.statusCode).toBe(200);
    const doc = parse(res.body);
    expect(doc.querySelectorAll('select')).toHaveLength(0);
    const radios = (name: string) =>
      doc.querySelectorAll(`input[type=radio][name=${name}]`).map((r) => [r.getAttribute('value'), r.parentNode.text.trim()]);
    expect(radios('formaPago')).toEqual([
      ['0', 'Tarjeta de crédito o débito'],
      ['1', 'Puntos'],
      ['2', 'Cuotas'],
    ]);
    expect(radios('cuotas')).toEqual([
      ['3', '3 meses'],
      ['6', '6 meses'],
    ]);
    expect(doc.querySelector('input[name=cantidad]')?.getAttribute('type')).toBe('number');
    expect(doc.querySelector('form button')?.text).toBe('Continuar');
    expect(res.body).toContain('Paso 1 de 2');
  });

  it('step 1 → step 2 (summary, card masked, only a CSRF token) → 303 to urlRedirect with quantity × monto', async () => {
    const p = await sandbox({ screen: 'steps' });
    const link = await p.crearEnlace(
      enlaceValido({ monto: 10.5, configuracion: conf({ esCantidadEditable: true, urlRedirect: 'https://merchant.test/fin' }) }),
    );
    const { res, cookie } = await paso1(p, link.urlEnlaceLargo, { ...tarjeta(), numeroTarjeta: '4000123412341234', cantidad: '4' });
    expect(p.ctx.store.transactions.size).toBe(0);
    const doc = parse(res.body);
    expect(doc.querySelector('title')?.text).toMatch(/^Paso 2 de 2: confirma tu pago/);
    expect(doc.querySelector('h1')?.text).toBe('Paso 2 de 2: confirma tu pago');
    expect(doc.querySelector('#confirmar-monto')?.text).toBe('$42.00');
    expect(doc.querySelector('#confirmar-cantidad')?.text).toBe('4');
    expect(doc.querySelector('#confirmar-producto')?.text).toBe('Camisa');
    expect(doc.querySelector('#confirmar-tarjeta')?.text).toBe('•••• 1234');
    expect(res.body).not.toContain('4000123412341234');
    expect(res.body).not.toMatch(/value="123"/);
    const form = confirmacion(res);
    expect(Object.keys(form.campos)).toEqual(['csrf']);
    expect(doc.querySelector('form button')?.text).toBe('Confirmar y pagar');
    expect(form.action).toBe(`/pagar/${link.idEnlace}/confirmar`);

    const fin = await postar(p, form.action, form.campos, cookie);
    expect(fin.statusCode).toBe(303);
    expect(fin.headers.location).toMatch(/^https:\/\/merchant\.test\/fin\?/);
    expect(consulta(fin)).toMatchObject({ monto: '42.00', esAprobada: 'true' });
    expect((await p.registro(link.idEnlace)).cantidadPagosExitosos).toBe(1);
  });

  it('the confirmation without its session cookie, with another one or with a forged token is refused (403) and charges nothing', async () => {
    const p = await sandbox({ screen: 'steps' });
    const link = await p.crearEnlace();
    const { res, cookie } = await paso1(p, link.urlEnlaceLargo);
    const form = confirmacion(res);
    for (const [campos, galleta] of [
      [form.campos, undefined],
      [form.campos, 'sesion_pasos=otra'],
      [{ csrf: 'inventado' }, cookie],
    ] as const) {
      const r = await postar(p, form.action, campos, galleta);
      expect(r.statusCode).toBe(403);
      expect(estado(r.body)).toBe('sesión no válida');
    }
    expect(p.ctx.store.transactions.size).toBe(0);
    expect((await postar(p, form.action, form.campos, cookie)).statusCode).toBe(303);
  });

  it('the same confirmation sent twice answers the same and charges once', async () => {
    const p = await sandbox({ screen: 'steps' });
    const link = await p.crearEnlace();
    const { res, cookie } = await paso1(p, link.urlEnlaceLargo);
    const form = confirmacion(res);
    const primero = await postar(p, form.action, form.campos, cookie);
    const otra = await postar(p, form.action, form.campos, cookie);
    expect(otra.statusCode).toBe(303);
    expect(otra.headers.location).toBe(primero.headers.location);
    expect(p.ctx.store.transactions.size).toBe(1);
    expect((await p.registro(link.idEnlace)).cantidadPagosExitosos).toBe(1);
  });

  it('fault steps-confirm-twice-charges-twice: the same confirmation sent twice charges twice', async () => {
    const p = await sandbox({ fault: 'steps-confirm-twice-charges-twice' });
    expect(p.ctx.options.screen).toBe('steps');
    const link = await p.crearEnlace();
    const { res, cookie } = await paso1(p, link.urlEnlaceLargo);
    const form = confirmacion(res);
    const primero = consulta(await postar(p, form.action, form.campos, cookie));
    const otra = consulta(await postar(p, form.action, form.campos, cookie));
    expect(otra.idTransaccion).not.toBe(primero.idTransaccion);
    expect((await p.registro(link.idEnlace)).cantidadPagosExitosos).toBe(2);
  });

  it('fault steps-confirm-amount-differs: step 2 shows quantity × monto, the confirmation charges the default quantity', async () => {
    const p = await sandbox({ fault: 'steps-confirm-amount-differs' });
    const link = await p.crearEnlace(enlaceValido({ monto: 10.5, configuracion: conf({ esCantidadEditable: true }) }));
    const { res, cookie } = await paso1(p, link.urlEnlaceLargo, { ...tarjeta(), cantidad: '4' });
    expect(parse(res.body).querySelector('#confirmar-monto')?.text).toBe('$42.00');
    expect(consulta(await postar(p, confirmacion(res).action, confirmacion(res).campos, cookie)).monto).toBe('10.50');
  });

  it('cvv 111 declines on confirmation (spec 7)', async () => {
    const p = await sandbox({ screen: 'steps' });
    const link = await p.crearEnlace();
    const { res, cookie } = await paso1(p, link.urlEnlaceLargo, tarjeta('111'));
    const form = confirmacion(res);
    expect(consulta(await postar(p, form.action, form.campos, cookie))).toMatchObject({ esAprobada: 'false' });
  });

  it('invalid step 1 data shows step 1 again with the errors (400), nothing stored', async () => {
    const p = await sandbox({ screen: 'steps' });
    const link = await p.crearEnlace();
    const { res, pantalla } = await paso1(p, link.urlEnlaceLargo, { ...tarjeta(), numeroTarjeta: '12', cvv: 'x' });
    expect(res.statusCode).toBe(400);
    const doc = parse(res.body);
    expect(
      doc
        .querySelectorAll('#errores li')
        .map((li) => li.getAttribute('data-campo'))
        .sort(),
    ).toEqual(['cvv', 'numeroTarjeta']);
    expect(doc.querySelector('form button')?.text).toBe('Continuar');
    // Same showing: its intento kept.
    expect(formulario(res.body).campos.intento).toBe(formulario(pantalla.body).campos.intento);
    expect(p.ctx.store.pagosEnPasos.size).toBe(0);
    expect(p.ctx.store.transactions.size).toBe(0);
  });

  it('duracionInterfazIntentoMinutos counts from when step 1 was shown: a late confirmation is refused (410)', async () => {
    const p = await sandbox({ screen: 'steps' });
    const link = await p.crearEnlace(enlaceValido({ configuracion: conf({ duracionInterfazIntentoMinutos: 1 }) }));
    const pantalla = await p.abrir(link.urlEnlaceLargo);
    const cookie = cookieDe(pantalla);
    await p.avanzar(50);
    const form1 = formulario(pantalla.body);
    const res = await postar(p, form1.action, { ...form1.campos, ...tarjeta() }, cookie);
    const form = confirmacion(res);
    await p.avanzar(20);
    const tarde = await postar(p, form.action, form.campos, cookie);
    expect(tarde.statusCode).toBe(410);
    expect(estado(tarde.body)).toBe('intento vencido');
    expect(p.ctx.store.transactions.size).toBe(0);
  });

  it('a link that became unusable between the steps shows the refusal page', async () => {
    const p = await sandbox({ screen: 'steps' });
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    const a = await paso1(p, link.urlEnlaceLargo);
    const b = await paso1(p, link.urlEnlaceLargo);
    expect((await postar(p, confirmacion(a.res).action, confirmacion(a.res).campos, a.cookie)).statusCode).toBe(303);
    const tarde = await postar(p, confirmacion(b.res).action, confirmacion(b.res).campos, b.cookie);
    expect(tarde.statusCode).toBe(410);
    expect(estado(tarde.body)).toBe('no disponible');
    expect((await p.abrir(link.urlEnlaceLargo)).statusCode).toBe(410);
  });

  it('variant urls-deployed: /pago?e=…&h=… takes the two steps, the confirmation at /pago/confirmar with the same query', async () => {
    const p = await sandbox({ screen: 'steps', variant: 'urls-deployed' });
    const link = await p.crearEnlace();
    expect(ruta(link.urlEnlaceLargo)).toMatch(/^\/pago\?/);
    const { res, cookie } = await paso1(p, link.urlEnlaceLargo);
    const form = confirmacion(res);
    expect(form.action).toMatch(/^\/pago\/confirmar\?e=/);
    expect((await postar(p, form.action, form.campos, cookie)).statusCode).toBe(303);
  });

  it('variant screen-steps selects the screen; a contradicting screen option throws', async () => {
    const p = await sandbox({ variant: 'screen-steps' });
    expect(p.ctx.options.screen).toBe('steps');
    await expect(sandbox({ variant: 'screen-steps', screen: 'js' })).rejects.toThrow(/contradicts/);
  });
});
