/**
 * The sandbox as the deployed service — its spec-valid choices as
 * variants (screen-unavailable-200, pages-deployed-form, webhook-pairs-*, webhook-no-esaprobada, webhook-vendor-header,
 * lookup-deployed-shape, urls-deployed, lenient-types, the profile `deployed`) and its deviations as faults
 * (token-audience-own, telefono-digits-only, link-redirect-four-fields, webhook-monto-string, webhook-bom, enum-names
 * in the 3DS redirect, the composite `deployed`), each driven over HTTP with inject.
 */
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultSettings, variantIds, variantSettings } from '../../sandbox/index.ts';
import { FALLAS_DESPLEGADO, selectFault } from '../../sandbox/faults.ts';
import { PERFIL_DESPLEGADO } from '../../sandbox/variants.ts';
import {
  NEGOCIO,
  type Prueba,
  compra3dsValida,
  consulta,
  enlaceValido,
  formulario,
  hmacHex,
  ruta,
  sandbox,
  tarjeta,
  walletValido,
} from './helpers.ts';

const recibidos: { path: string; headers: IncomingHttpHeaders; raw: Buffer }[] = [];
const server = createServer((req, res) => {
  const partes: Buffer[] = [];
  req.on('data', (c: Buffer) => partes.push(c));
  req.on('end', () => {
    recibidos.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(partes) });
    res.end();
  });
});
let receptor = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receptor = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function entrega(path: string): Promise<(typeof recibidos)[number] | undefined> {
  const limite = Date.now() + 2000;
  while (!recibidos.some((r) => r.path === path) && Date.now() < limite) await new Promise((r) => setTimeout(r, 10));
  return recibidos.find((r) => r.path === path);
}

const HASH_6_3 = ['idTransaccion', 'monto', 'esReal', 'formaPago', 'esAprobada', 'codigoAutorizacion', 'mensaje'];
const NO_DISPONIBLE = 'Este enlace de pago no está disponible';

function tokenCon(p: Prueba, audience: string) {
  return p.app.inject({
    method: 'POST',
    url: '/auth/connect/token',
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      audience,
      client_id: NEGOCIO.clientId,
      client_secret: NEGOCIO.clientSecret,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

async function webhookDeWallet(p: Prueba, datosAdicionales: Record<string, string> = { pedido: 'A-1' }): Promise<Record<string, unknown>> {
  const res = await p.api(
    'POST',
    '/TransaccionCompra/Wallet',
    await p.bearer(),
    walletValido({ configuracion: { urlWebhook: 'http://127.0.0.1:9/closed' }, datosAdicionales }),
  );
  expect(res.statusCode).toBe(200);
  return p.ctx.store.outbox.webhooks.at(-1)!.body as Record<string, unknown>;
}

/** The 3DS flow to its redirect: API call, the issuer page, its form posted with `campos`. */
async function pagar3ds(p: Prueba, campos: Record<string, string> = {}) {
  const compra = (await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida())).json() as {
    urlCompletarPago3Ds: string;
  };
  const pagina = await p.abrir(compra.urlCompletarPago3Ds);
  return p.enviarFormulario(compra.urlCompletarPago3Ds, { ...formulario(pagina.body).campos, ...campos });
}

describe('variant screen-unavailable-200', () => {
  const esPaginaNoDisponible = (res: { statusCode: number; body: string }) => {
    expect(res.statusCode).toBe(200);
    const doc = parse(res.body);
    expect(doc.querySelector('h1')?.text).toBe(NO_DISPONIBLE);
    expect(doc.querySelector('form')).toBeNull();
    expect(doc.querySelector('#estado')).toBeNull();
  };

  it('a link past its failure limit, its success limit or its vigencia answers a 200 page with no form, to GET and POST', async () => {
    const p = await sandbox({ variant: 'screen-unavailable-200' });
    const fallidos = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 1 } }));
    expect(consulta(await p.pagar(fallidos.urlEnlaceLargo, tarjeta('111')))).toMatchObject({ esAprobada: 'false' });
    esPaginaNoDisponible(await p.abrir(fallidos.urlEnlaceLargo));
    esPaginaNoDisponible(await p.enviarFormulario(fallidos.urlEnlaceLargo, { cvv: '123' }));
    const exitosos = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    expect((await p.pagar(exitosos.urlEnlaceLargo)).statusCode).toBe(303);
    esPaginaNoDisponible(await p.abrir(exitosos.urlEnlaceLargo));
    const vencido = await p.crearEnlace(
      enlaceValido({ vigencia: { fechaInicio: '2020-01-01T00:00:00Z', fechaFin: '2020-01-02T00:00:00Z' } }),
    );
    esPaginaNoDisponible(await p.abrir(vencido.urlEnlaceLargo));
  });

  it('a screen submitted after duracionInterfazIntentoMinutos answers the same page and charges nothing', async () => {
    const p = await sandbox({ variant: 'screen-unavailable-200' });
    const link = await p.crearEnlace(
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', duracionInterfazIntentoMinutos: 1 },
      }),
    );
    const pantalla = await p.abrir(link.urlEnlaceLargo);
    await p.avanzar(61);
    esPaginaNoDisponible(
      await p.enviarFormulario(link.urlEnlaceLargo, {
        ...formulario(pantalla.body).campos,
        formaPago: '0',
        numeroTarjeta: '4111111111111111',
        cvv: '123',
        mesVencimiento: '12',
        anioVencimiento: '2030',
      }),
    );
    expect(p.ctx.store.transactions.size).toBe(0);
  });

  it('without the variant the refusal stays the 410 page with #estado', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(enlaceValido({ vigencia: { fechaInicio: '2020-01-01T00:00:00Z', fechaFin: '2020-01-02T00:00:00Z' } }));
    expect((await p.abrir(link.urlEnlaceLargo)).statusCode).toBe(410);
  });
});

describe('variant pages-deployed-form', () => {
  const cuota = enlaceValido({
    formaPago: {
      permitirTarjetaCreditoDebido: true,
      permitirPagoConPuntoPartner: true,
      permitirPagoEnCuotasPartner: false,
      permitirPagoEnBitcoin: true,
      permitePagoQuickPay: false,
    },
    configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', esCantidadEditable: true, esMontoEditable: true },
  });

  it('shows Spanish labels, autofill tokens on number, cvv and name, selects of 01…12 and four-digit years, forms by name', async () => {
    const p = await sandbox({ variant: 'pages-deployed-form' });
    const link = await p.crearEnlace(cuota);
    const doc = parse((await p.abrir(link.urlEnlaceLargo)).body);
    const etiqueta = (texto: string) => doc.querySelectorAll('label').find((l) => l.text.trim() === texto);
    const control = (texto: string) => doc.getElementById(etiqueta(texto)?.getAttribute('for') ?? '');
    expect(control('Número de tarjeta')?.getAttribute('autocomplete')).toBe('cc-number');
    expect(control('CVV')?.getAttribute('autocomplete')).toBe('cc-csc');
    expect(control('Nombre del titular')?.getAttribute('autocomplete')).toBe('cc-name');
    const mes = control('Mes de vencimiento')!;
    expect(mes.tagName).toBe('SELECT');
    expect(mes.querySelectorAll('option').map((o) => [o.getAttribute('value'), o.text])).toEqual(
      Array.from({ length: 12 }, (_, i) => [String(i + 1).padStart(2, '0'), String(i + 1).padStart(2, '0')]),
    );
    const anios = control('Año de vencimiento')!
      .querySelectorAll('option')
      .map((o) => o.getAttribute('value') ?? '');
    expect(anios.every((a) => /^\d{4}$/.test(a))).toBe(true);
    expect(anios).toContain('2030');
    const metodo = control('Método')!;
    expect(metodo.querySelectorAll('option').map((o) => [o.getAttribute('value'), o.text])).toEqual([
      ['PagoNormal', 'Tarjeta de crédito o débito'],
      ['Puntos', 'Puntos Partner'],
      ['Bitcoin', 'Bitcoin'],
    ]);
    const unidades = control('Unidades')!;
    expect(unidades.getAttribute('type')).toBe('number');
    expect(unidades.getAttribute('autocomplete')).toBeUndefined();
    expect(unidades.getAttribute('name')).not.toMatch(/cantidad|quantity/i);
    expect(control('Valor a pagar')?.getAttribute('type')).toBe('number');
  });

  it('takes the month 01 and the form by name, charges cantidad × monto, and cvv 111 still declines', async () => {
    const p = await sandbox({ variant: 'pages-deployed-form' });
    const link = await p.crearEnlace(cuota);
    const pantalla = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    const cantidad = Object.keys(pantalla.campos).find(
      (n) => !['intento', 'Tarjeta.Numero', 'Tarjeta.Cvv', 'Tarjeta.NombreTitular', 'Email', 'ValorPagar'].includes(n),
    )!;
    // Each payment on a screen of its own: posting one screen's intento again is a replay (answered as the first).
    const campos = async (cvv: string) => ({
      ...formulario((await p.abrir(link.urlEnlaceLargo)).body).campos,
      MetodoPago: 'PagoNormal',
      'Tarjeta.Numero': '4111111111111111',
      'Tarjeta.Cvv': cvv,
      'Tarjeta.MesVencimiento': '01',
      'Tarjeta.AnioVencimiento': '2030',
      'Tarjeta.NombreTitular': 'Ana Pérez',
      Email: 'ana@cliente.test',
      [cantidad]: '3',
      ValorPagar: '10.00',
    });
    const aprobada = consulta(await p.enviarFormulario(link.urlEnlaceLargo, await campos('123')));
    expect(aprobada).toMatchObject({ esAprobada: 'true', monto: '30.00', formaPago: '0' });
    const declinada = consulta(await p.enviarFormulario(link.urlEnlaceLargo, await campos('111')));
    expect(declinada).toMatchObject({ esAprobada: 'false' });
    // Numbers are still taken for the payment form (any value the select's meaning allows).
    expect((await p.enviarFormulario(link.urlEnlaceLargo, { ...(await campos('123')), MetodoPago: '1' })).statusCode).toBe(303);
    expect((await p.enviarFormulario(link.urlEnlaceLargo, { ...(await campos('123')), MetodoPago: 'Cuotas' })).statusCode).toBe(400);
  });

  it('with pages-ask-card the 3DS page asks for the card the same way and takes month 01', async () => {
    const p = await sandbox({ variant: 'pages-deployed-form,pages-ask-card' });
    const compra = (await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida())).json() as {
      urlCompletarPago3Ds: string;
    };
    const pagina = await p.abrir(compra.urlCompletarPago3Ds);
    expect(formulario(pagina.body).opciones['Tarjeta.MesVencimiento']?.[0]).toBe('01');
    const res = await p.enviarFormulario(compra.urlCompletarPago3Ds, {
      ...formulario(pagina.body).campos,
      'Tarjeta.Numero': '4111111111111111',
      'Tarjeta.Cvv': '123',
      'Tarjeta.MesVencimiento': '01',
      'Tarjeta.AnioVencimiento': '2030',
    });
    expect(consulta(res)).toMatchObject({ esAprobada: 'true' });
  });
});

describe('webhook variants', () => {
  it('webhook-pairs-nested: the pairs inside cliente, no datosAdicionales', async () => {
    const body = await webhookDeWallet(await sandbox({ variant: 'webhook-pairs-nested' }));
    expect(body).not.toHaveProperty('datosAdicionales');
    expect(body.cliente).toMatchObject({ pedido: 'A-1' });
  });

  it('webhook-pairs-nested with webhook-pascalcase: Cliente, the pair keys as sent', async () => {
    const body = await webhookDeWallet(await sandbox({ variant: 'webhook-pairs-nested,webhook-pascalcase' }));
    expect(body.Cliente).toMatchObject({ pedido: 'A-1', Nombre: null });
  });

  it('webhook-pairs-top-level: the pairs beside the transaction fields', async () => {
    const body = await webhookDeWallet(await sandbox({ variant: 'webhook-pairs-top-level' }));
    expect(body).not.toHaveProperty('datosAdicionales');
    expect(body).toMatchObject({ pedido: 'A-1', monto: 12.5 });
  });

  it('webhook-no-esaprobada: no esAprobada field', async () => {
    const body = await webhookDeWallet(await sandbox({ variant: 'webhook-no-esaprobada' }));
    expect(body).not.toHaveProperty('esAprobada');
    expect(body).toHaveProperty('idTransaccion');
  });

  it('webhook-vendor-header: the HMAC-SHA256 of the raw body in sandbox_hash, and no other signature header', async () => {
    const p = await sandbox({ variant: 'webhook-vendor-header', webhookRetryDelaysMs: [5] });
    await p.api(
      'POST',
      '/TransaccionCompra/Wallet',
      await p.bearer(),
      walletValido({ configuracion: { urlWebhook: `${receptor}/vendor` } }),
    );
    const r = await entrega('/vendor');
    expect(r?.headers['sandbox_hash']).toBe(hmacHex(NEGOCIO.clientSecret, r!.raw.toString('utf8')));
    expect(r?.headers['x-signature']).toBeUndefined();
    expect(variantSettings('webhook-vendor-header')).toEqual({ WEBHOOK_SIGNATURE_HEADER: 'sandbox_hash' });
  });
});

describe('variant lookup-deployed-shape', () => {
  it("lookups and link records: montoOriginal and datosBitcoin null, mensaje AUTORIZADO, the service's own pairs beside the sent ones", async () => {
    const p = await sandbox({ variant: 'lookup-deployed-shape' });
    const tx = (
      await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido({ datosAdicionales: { pedido: 'A-1' } }))
    ).json() as { idTransaccion: string };
    const vista = (await p.api('GET', `/TransaccionCompra/${tx.idTransaccion}`, await p.bearer())).json();
    expect(vista).toMatchObject({ montoOriginal: null, datosBitcoin: null, mensaje: 'AUTORIZADO', esAprobada: true });
    expect(vista.datosAdicionales).toEqual({ Apellidos: '', CantidadCompra: '1', Celular: '', pedido: 'A-1' });
    const link = await p.crearEnlace();
    await p.pagar(link.urlEnlaceLargo);
    const registro = await p.registro(link.idEnlace);
    expect(registro.transaccionCompra).toMatchObject({ montoOriginal: null, datosBitcoin: null, mensaje: 'AUTORIZADO' });
  });
});

describe('variant urls-deployed', () => {
  it('idEnlace in the millions, a long URL with a query that opens and pays the screen; the short URL leads to it', async () => {
    const p = await sandbox({ variant: 'urls-deployed' });
    const link = await p.crearEnlace();
    expect(link.idEnlace).toBeGreaterThanOrEqual(1_000_000);
    expect(link.idEnlace).toBeLessThan(100_000_000);
    const largo = new URL(link.urlEnlaceLargo);
    expect(largo.searchParams.get('e')).toBe(String(link.idEnlace));
    expect(largo.searchParams.get('h')).toMatch(/^[\w-]{16,}$/);
    expect(link.urlEnlace.length).toBeLessThan(link.urlEnlaceLargo.length);
    const corto = await p.abrir(link.urlEnlace);
    expect(corto.headers.location).toBe(link.urlEnlaceLargo);
    const pantalla = await p.abrir(link.urlEnlaceLargo);
    expect(pantalla.statusCode).toBe(200);
    expect(formulario(pantalla.body).action).toBe(ruta(link.urlEnlaceLargo));
    expect(consulta(await p.pagar(link.urlEnlaceLargo))).toMatchObject({ esAprobada: 'true', idEnlace: String(link.idEnlace) });
    expect((await p.abrir(`${largo.origin}/pago?e=${link.idEnlace}&h=wrong`)).statusCode).toBe(404);
    expect((await p.registro(link.idEnlace)).cantidadPagosExitosos).toBe(1);
  });
});

describe('variant lenient-types', () => {
  it('coerces numbers and numeric strings both ways, and still applies the stated rules', async () => {
    const p = await sandbox({ variant: 'lenient-types' });
    const post = async (path: string, body: unknown) => (await p.api('POST', path, await p.bearer(), body)).statusCode;
    const tarjeta = { numeroTarjeta: '4111111111111111', cvv: 123, mesVencimiento: '05', anioVencimiento: '2030' };
    expect(await post('/TransaccionCompra/3DS', compra3dsValida({ tarjetaCreditoDebido: tarjeta, telefono: 5555, monto: '25.50' }))).toBe(
      200,
    );
    expect(await post('/EnlacePago', enlaceValido({ monto: '10.00' }))).toBe(200);
    expect(await post('/EnlacePago', enlaceValido({ monto: '0.00' }))).toBe(400);
    expect(await post('/TransaccionCompra/3DS', compra3dsValida({ tarjetaCreditoDebido: { ...tarjeta, mesVencimiento: '13' } }))).toBe(400);
    expect(await post('/EnlacePago', enlaceValido({ monto: 'diez' }))).toBe(400);
    expect(await post('/EnlacePago', enlaceValido({ nombreProducto: undefined }))).toBe(400);
    const link = (await p.api('POST', '/EnlacePago', await p.bearer(), enlaceValido({ monto: '10.00' }))).json() as { idEnlace: number };
    expect((await p.registro(link.idEnlace)).monto).toBe(10);
    // As .NET clients send it.
    const patch = await p.app.inject({
      method: 'POST',
      url: '/api/EnlacePago',
      payload: JSON.stringify(enlaceValido()),
      headers: { authorization: await p.bearer(), 'content-type': 'application/json-patch+json' },
    });
    expect(patch.statusCode).toBe(200);
  });

  it('without it, no coercion', async () => {
    const p = await sandbox();
    expect((await p.api('POST', '/EnlacePago', await p.bearer(), enlaceValido({ monto: '10.00' }))).statusCode).toBe(400);
    const patch = await p.app.inject({
      method: 'POST',
      url: '/api/EnlacePago',
      payload: JSON.stringify(enlaceValido()),
      headers: { authorization: await p.bearer(), 'content-type': 'application/json-patch+json' },
    });
    expect(patch.statusCode).toBe(400);
  });
});

describe('profile deployed', () => {
  it("selects the deployed service's variants and their settings", async () => {
    expect(variantIds('deployed')).toEqual([...PERFIL_DESPLEGADO]);
    expect(variantIds('deployed')).toEqual(
      expect.arrayContaining([
        'screen-unavailable-200',
        'urls-deployed',
        'fechas-offset-6',
        'errors-mensajes',
        'query-booleans-capitalised',
      ]),
    );
    expect(variantSettings('deployed')).toMatchObject({ WEBHOOK_SIGNATURE_HEADER: 'sandbox_hash', WEBHOOK_FIELD_CASE: 'insensitive' });
    const p = await sandbox({ variant: 'deployed' });
    const link = await p.crearEnlace();
    expect(link.idEnlace).toBeGreaterThanOrEqual(1_000_000);
    const pantalla = await p.abrir(link.urlEnlaceLargo);
    expect(pantalla.statusCode).toBe(200);
    expect(formulario(pantalla.body).opciones['MetodoPago']).toEqual(['PagoNormal', 'Puntos']);
  });

  it('the deployed webhook: PascalCase, the pairs under Cliente, no EsAprobada, signed in sandbox_hash', async () => {
    const body = await webhookDeWallet(await sandbox({ variant: 'deployed' }));
    expect(body).toMatchObject({ Cliente: { pedido: 'A-1' } });
    expect(body).not.toHaveProperty('EsAprobada');
    expect(body).not.toHaveProperty('DatosAdicionales');
  });
});

describe('faults of the deployed service', () => {
  it('token-audience-own: service_api refused (invalid_target), pasarela_api issued with its scope, discovery names it', async () => {
    const p = await sandbox({ fault: 'token-audience-own' });
    const refusal = await tokenCon(p, 'service_api');
    expect(refusal.statusCode).toBe(400);
    expect(refusal.json()).toMatchObject({ error: 'invalid_target' });
    const ok = await tokenCon(p, 'pasarela_api');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ scope: 'pasarela_api', expires_in: 3600, token_type: 'Bearer' });
    const token = (ok.json() as { access_token: string }).access_token;
    expect((await p.api('POST', '/EnlacePago', `Bearer ${token}`, enlaceValido())).statusCode).toBe(200);
    const oidc = await p.app.inject({ method: 'GET', url: '/auth/.well-known/openid-configuration' });
    expect(oidc.json()).toMatchObject({
      token_endpoint: 'http://sandbox.test/auth/connect/token',
      scopes_supported: ['openid', 'pasarela_api'],
      grant_types_supported: ['client_credentials'],
    });
    expect(faultSettings('token-audience-own')).toEqual({ TOKEN_AUDIENCE: 'pasarela_api' });
    expect(faultSettings('deployed')).toEqual({ TOKEN_AUDIENCE: 'pasarela_api' });
    expect(faultSettings('enum-names')).toEqual({});
    expect(() => faultSettings('nope')).toThrow(/unknown sandbox fault "nope"/);
    // Without the fault there is no discovery document.
    expect((await (await sandbox()).app.inject({ method: 'GET', url: '/auth/.well-known/openid-configuration' })).statusCode).toBe(404);
  });

  it("telefono-digits-only: link telephones and the 3DS telefono with anything but digits refused with the service's message", async () => {
    const p = await sandbox({ fault: 'telefono-digits-only' });
    const res = await p.api(
      'POST',
      '/EnlacePago',
      await p.bearer(),
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', telefonosNotificacion: '+50377777777' },
      }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      errores: [{ campo: 'configuracion.telefonosNotificacion', mensaje: 'Los formatos de telefonos no son válidos' }],
    });
    expect(
      (
        await p.api(
          'POST',
          '/EnlacePago',
          await p.bearer(),
          enlaceValido({
            configuracion: {
              notificarTransaccionCliente: false,
              emailsNotificacion: 'a@b.test',
              telefonosNotificacion: '50377777777,50377777778',
            },
          }),
        )
      ).statusCode,
    ).toBe(200);
    expect((await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida({ telefono: '7777-7777' }))).statusCode).toBe(
      400,
    );
    expect((await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida({ telefono: '77777777' }))).statusCode).toBe(
      200,
    );
    const mensajes = await sandbox({ fault: 'telefono-digits-only', variant: 'errors-mensajes' });
    const body = (await mensajes.api('POST', '/TransaccionCompra/3DS', await mensajes.bearer(), compra3dsValida())).json();
    expect(body.mensajes).toEqual([expect.stringContaining('Los formatos de telefonos no son válidos')]);
  });

  it('link-redirect-four-fields: a link payment redirects with the four fields and their hash only; the 3DS redirect keeps 6.3', async () => {
    const p = await sandbox({ fault: 'link-redirect-four-fields' });
    const link = await p.crearEnlace();
    const q = consulta(await p.pagar(link.urlEnlaceLargo));
    expect(Object.keys(q)).toEqual(['identificadorEnlaceComercio', 'idTransaccion', 'idEnlace', 'monto', 'hash']);
    expect(q.hash).toBe(hmacHex(NEGOCIO.clientSecret, `${q.identificadorEnlaceComercio}${q.idTransaccion}${q.idEnlace}${q.monto}`));
    const q3 = consulta(await pagar3ds(p));
    expect(q3.hash).toBe(hmacHex(NEGOCIO.clientSecret, HASH_6_3.map((k) => q3[k]).join('')));
  });

  it('enum-names: the 3DS redirect carries formaPago=PagoNormal, hashed as sent', async () => {
    const p = await sandbox({ fault: 'enum-names' });
    const q = consulta(await pagar3ds(p));
    expect(q.formaPago).toBe('PagoNormal');
    expect(q.hash).toBe(hmacHex(NEGOCIO.clientSecret, HASH_6_3.map((k) => q[k]).join('')));
  });

  it('webhook-monto-string: the webhook monto is "12.50"', async () => {
    expect((await webhookDeWallet(await sandbox({ fault: 'webhook-monto-string' }))).monto).toBe('12.50');
  });

  it('webhook-bom: a byte-order mark before the JSON, the signature over the bytes sent', async () => {
    const p = await sandbox({ fault: 'webhook-bom', webhookRetryDelaysMs: [5] });
    await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido({ configuracion: { urlWebhook: `${receptor}/bom` } }));
    const r = await entrega('/bom');
    expect([...r!.raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(JSON.parse(r!.raw.subarray(3).toString('utf8'))).toHaveProperty('idTransaccion');
    expect(r!.headers['x-signature']).toBe(hmacHex(NEGOCIO.clientSecret, r!.raw.toString('utf8')));
  });

  it('deployed: every deviation at once, and nothing else', () => {
    const f = selectFault('deployed');
    for (const id of FALLAS_DESPLEGADO) expect(f(id)).toBe(true);
    expect(f('hash-wrong-key')).toBe(false);
    expect(selectFault('enum-names')('token-audience-own')).toBe(false);
  });
});
