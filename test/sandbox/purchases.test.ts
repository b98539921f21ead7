import { describe, expect, it } from 'vitest';
import {
  CUENTA,
  DESECHABLE,
  NEGOCIO,
  NEGOCIO_SIN_MPOS,
  ORIGIN,
  basic,
  compra3dsValida,
  consulta,
  decodificarQr,
  enlaceValido,
  estado,
  hmacHex,
  mposValido,
  ruta,
  sandbox,
  walletValido,
} from './helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FECHA_CON_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const cuenta = basic(CUENTA.user, CUENTA.password);

function campos(res: { json(): unknown }): string[] {
  return (res.json() as { errores: { campo: string }[] }).errores.map((e) => e.campo);
}

describe('4.3 3DS', () => {
  it('answers a pending transaction with an absolute completion URL; completing approves it and redirects with the hash', async () => {
    const p = await sandbox();
    const res = await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida({ datosAdicionales: { pedido: '7' } }));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['esReal', 'idTransaccion', 'monto', 'urlCompletarPago3Ds']);
    expect(body.idTransaccion).toMatch(UUID);
    expect(body.esReal).toBe(false);
    expect(body.monto).toBe(25.5);
    expect(body.urlCompletarPago3Ds).toBe(`${ORIGIN}/3ds/${body.idTransaccion}`);

    const pendiente = (await p.api('GET', `/TransaccionCompra/${body.idTransaccion}`, await p.bearer())).json();
    expect(pendiente).toMatchObject({ esAprobada: false, resultadoTransaccion: null, codigoAutorizacion: null });

    const pagina = await p.abrir(body.urlCompletarPago3Ds);
    expect(pagina.statusCode).toBe(200);
    expect(pagina.body).toContain('<form method="post"');
    const fin = await p.app.inject({ method: 'POST', url: ruta(body.urlCompletarPago3Ds) });
    expect(fin.statusCode).toBe(303);
    expect(fin.headers.location).toMatch(/^https:\/\/merchant\.test\/vuelta\?/);
    const q = consulta(fin);
    expect(q).toMatchObject({
      idTransaccion: body.idTransaccion,
      monto: '25.50',
      esReal: 'false',
      formaPago: '0',
      esAprobada: 'true',
      mensaje: '',
    });
    // Spec 6.3 order, HMAC-SHA256 keyed with the client secret (docs/decisions.md), computed here independently.
    const mensaje = `${body.idTransaccion}25.50false0true${q.codigoAutorizacion}`;
    expect(q.hash).toBe(hmacHex(NEGOCIO.clientSecret, mensaje));

    const aprobada = (await p.api('GET', `/TransaccionCompra/${body.idTransaccion}`, await p.bearer())).json();
    expect(aprobada).toMatchObject({
      esAprobada: true,
      resultadoTransaccion: 0,
      codigoAutorizacion: q.codigoAutorizacion,
      datosAdicionales: { pedido: '7' },
    });

    // Completing twice creates no second approval: 410, nothing changes.
    const segunda = await p.app.inject({ method: 'POST', url: ruta(body.urlCompletarPago3Ds) });
    expect(segunda.statusCode).toBe(410);
    expect(estado(segunda.body)).toBe('completada');
    expect((await p.api('GET', `/TransaccionCompra/${body.idTransaccion}`, await p.bearer())).json().codigoAutorizacion).toBe(
      q.codigoAutorizacion,
    );
    expect(p.ctx.store.outbox.emails.filter((e) => e.subject.includes(body.idTransaccion))).toHaveLength(1);
  });

  it('cvv 111 does not decline under 3DS (spec 7)', async () => {
    const p = await sandbox();
    const body = compra3dsValida({
      tarjetaCreditoDebido: { numeroTarjeta: '4111111111111111', cvv: '111', mesVencimiento: 1, anioVencimiento: 2031 },
    });
    const res = (await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), body)).json();
    const fin = await p.app.inject({ method: 'POST', url: ruta(res.urlCompletarPago3Ds) });
    expect(consulta(fin).esAprobada).toBe('true');
  });

  it('validation lists every violated field', async () => {
    const p = await sandbox();
    const res = await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), {
      tarjetaCreditoDebido: { numeroTarjeta: '4111 1111 1111 1111', cvv: 123, mesVencimiento: 13 },
      monto: 0,
      urlRedirect: 'nope',
      email: 'x',
      idPais: 'sv',
      idRegion: 'SS',
    });
    expect(res.statusCode).toBe(400);
    expect(campos(res).sort()).toEqual(
      [
        'tarjetaCreditoDebido.numeroTarjeta',
        'tarjetaCreditoDebido.cvv',
        'tarjetaCreditoDebido.mesVencimiento',
        'tarjetaCreditoDebido.anioVencimiento',
        'monto',
        'urlRedirect',
        'nombre',
        'apellido',
        'ciudad',
        'direccion',
        'codigoPostal',
        'telefono',
        'email',
        'idPais',
        'idRegion',
      ].sort(),
    );
    expect(p.ctx.store.transactions.size).toBe(0);
  });

  it('unknown completion page → 404', async () => {
    const p = await sandbox();
    expect((await p.app.inject({ url: '/3ds/nope' })).statusCode).toBe(404);
    expect((await p.app.inject({ method: 'POST', url: '/3ds/nope' })).statusCode).toBe(404);
  });
});

describe('4.4 wallet', () => {
  it('approves with the response fields of 4.4 (resultadoTransaccion as a string)', async () => {
    const p = await sandbox();
    const res = await p.api(
      'POST',
      '/TransaccionCompra/Wallet',
      await p.bearer(),
      walletValido({ idExterno: 'ord-1', datosAdicionales: { a: 'b' } }),
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'datosAdicionales',
      'esReal',
      'fechaTransaccion',
      'formaPago',
      'idExterno',
      'idTransaccion',
      'mensaje',
      'monto',
      'resultadoTransaccion',
    ]);
    expect(body).toMatchObject({
      esReal: false,
      mensaje: null,
      formaPago: 0,
      monto: 12.5,
      idExterno: 'ord-1',
      datosAdicionales: { a: 'b' },
      resultadoTransaccion: 'ExitosaAprobada',
    });
    expect(body.idTransaccion).toMatch(UUID);
    expect(body.fechaTransaccion).toMatch(FECHA_CON_OFFSET);
    const sinOpcionales = (await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido())).json();
    expect(sinOpcionales).toMatchObject({ idExterno: null, datosAdicionales: null });
  });

  it('requires monto, dui and descripcion, typed', async () => {
    const p = await sandbox();
    const res = await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), { monto: '1', dui: 5 });
    expect(res.statusCode).toBe(400);
    expect(campos(res).sort()).toEqual(['descripcion', 'dui', 'monto']);
  });
});

describe('4.5 PagoQr', () => {
  it('pays the link behind its short URL for monto and counts on the link', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(enlaceValido({ monto: 15 }));
    const res = await p.api('POST', '/TransaccionCompra/PagoQr', cuenta, {
      urlEnlacePago: link.urlEnlace,
      datosAdicionales: { mesa: '4' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      idTransaccion: expect.stringMatching(UUID),
      numeroCuentaBanco: '1234567890',
      monto: 15,
      nombreComercial: 'Tienda Sandbox',
      razonSocial: 'Comercio Sandbox, S.A. de C.V.',
      nombreAplicativo: 'Tienda Sandbox',
      producto: 'Camisa',
    });
    const tx = (await p.api('GET', `/TransaccionCompra/${body.idTransaccion}`, cuenta)).json();
    expect(tx).toMatchObject({ esAprobada: true, monto: 15, datosAdicionales: { mesa: '4' } });
    expect(p.ctx.store.links.get(link.idEnlace)!.cantidadPagosExitosos).toBe(1);
  });

  it('unknown link → 404; an unusable link → 400; not a URL → 400; bearer → 401', async () => {
    const p = await sandbox();
    expect((await p.api('POST', '/TransaccionCompra/PagoQr', cuenta, { urlEnlacePago: `${ORIGIN}/l/00000000` })).statusCode).toBe(404);
    expect((await p.api('POST', '/TransaccionCompra/PagoQr', cuenta, { urlEnlacePago: 'https://elsewhere.test/l/x' })).statusCode).toBe(
      404,
    );
    expect((await p.api('POST', '/TransaccionCompra/PagoQr', cuenta, { urlEnlacePago: 'nope' })).statusCode).toBe(400);
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    expect((await p.api('POST', '/TransaccionCompra/PagoQr', cuenta, { urlEnlacePago: link.urlEnlace })).statusCode).toBe(200);
    const agotado = await p.api('POST', '/TransaccionCompra/PagoQr', cuenta, { urlEnlacePago: link.urlEnlace });
    expect(agotado.statusCode).toBe(400);
    expect(campos(agotado)).toEqual(['urlEnlacePago']);
    expect((await p.api('POST', '/TransaccionCompra/PagoQr', await p.bearer(), { urlEnlacePago: link.urlEnlace })).statusCode).toBe(401);
    expect(p.ctx.store.transactions.size).toBe(1);
  });
});

describe('4.6 quick-pay', () => {
  it('answers datosQuickPay and the transaction fields; the QR holds the absolute page URL that pays it', async () => {
    const p = await sandbox({ now: () => new Date('2026-05-01T10:00:00Z') });
    const res = await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 3.5, idExterno: 'e'.repeat(50) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      datosQuickPay: { urlQR: `${ORIGIN}/qp/${body.idTransaccion}.png`, fechaVencimiento: '2026-05-01T10:10:00.000Z' },
      idTransaccion: expect.stringMatching(UUID),
      esReal: false,
      esAprobada: false,
      codigoAutorizacion: null,
      mensaje: null,
      formaPago: 4,
      monto: 3.5,
      idExterno: 'e'.repeat(50),
    });
    const qr = await p.abrir(body.datosQuickPay.urlQR);
    expect(qr.headers['content-type']).toBe('image/png');
    const pagina = decodificarQr(qr.rawPayload)!;
    expect(pagina).toBe(`${ORIGIN}/qp/${body.idTransaccion}`);
    expect((await p.abrir(pagina)).body).toContain('<form method="post"');
    const pago = await p.app.inject({ method: 'POST', url: ruta(pagina) });
    expect(pago.statusCode).toBe(200);
    expect(estado(pago.body)).toBe('aprobada');
    const tx = (await p.api('GET', `/TransaccionCompra/${body.idTransaccion}`, await p.bearer())).json();
    expect(tx).toMatchObject({ esAprobada: true, resultadoTransaccion: 0, formaPago: 4 });
    expect((await p.app.inject({ method: 'POST', url: ruta(pagina) })).statusCode).toBe(410);
  });

  it('paying after fechaVencimiento is refused and the transaction stays not approved', async () => {
    const p = await sandbox({ quickPayTtlSeconds: 60 });
    const body = (await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 1 })).json();
    await p.avanzar(61);
    const tarde = await p.app.inject({ method: 'POST', url: `/qp/${body.idTransaccion}` });
    expect(tarde.statusCode).toBe(410);
    expect(estado(tarde.body)).toBe('vencido');
    const tx = (await p.api('GET', `/TransaccionCompra/${body.idTransaccion}`, await p.bearer())).json();
    expect(tx).toMatchObject({ esAprobada: false, resultadoTransaccion: null });
  });

  it.each([
    ['monto 0', { monto: 0 }, ['monto']],
    ['monto missing', {}, ['monto']],
    ['monto as text', { monto: '1' }, ['monto']],
    ['idExterno 51', { monto: 1, idExterno: 'e'.repeat(51) }, ['idExterno']],
    [
      'notificarTransaccionCliente as 1',
      { monto: 1, configuracion: { notificarTransaccionCliente: 1 } },
      ['configuracion.notificarTransaccionCliente'],
    ],
  ])('%s → 400', async (_name, body, esperados) => {
    const p = await sandbox();
    const res = await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), body);
    expect(res.statusCode).toBe(400);
    expect(campos(res)).toEqual(esperados);
  });

  it('accepts notificarTransaccionCliente null (nullable bool)', async () => {
    const p = await sandbox();
    const res = await p.api('POST', '/TransaccionCompra/Quick-pay', cuenta, {
      monto: 0.01,
      configuracion: { notificarTransaccionCliente: null },
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('4.7 MPOS banda', () => {
  it('approves with tipoTransaccion 4 and the fields of 4.7', async () => {
    const p = await sandbox();
    const res = await p.api('POST', '/TransaccionCompra/Mpos/Banda', await p.bearer(), mposValido());
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'codigoAutorizacion',
      'esAprobada',
      'esReal',
      'fechaTransaccion',
      'idTransaccion',
      'mensaje',
      'monto',
      'tipoTransaccion',
    ]);
    expect(body).toMatchObject({ esReal: false, esAprobada: true, mensaje: null, tipoTransaccion: 4, monto: 7.25 });
    expect(body.codigoAutorizacion).toMatch(/^\d{6}$/);
    expect(body.fechaTransaccion).toMatch(FECHA_CON_OFFSET);
  });

  it('a business without the permission gets 403; as an account, a business without permission too', async () => {
    const p = await sandbox();
    const res = await p.api('POST', '/TransaccionCompra/Mpos/Banda', await p.bearer(NEGOCIO_SIN_MPOS), mposValido());
    expect(res.statusCode).toBe(403);
    expect((await p.api('POST', '/TransaccionCompra/Mpos/Banda', cuenta, mposValido({ idAplicativo: 'app-dev-2' }))).statusCode).toBe(403);
    expect(p.ctx.store.transactions.size).toBe(0);
  });

  it('as an account idAplicativo is required and must be a business of that account', async () => {
    const p = await sandbox();
    const sin = await p.api('POST', '/TransaccionCompra/Mpos/Banda', cuenta, mposValido());
    expect(sin.statusCode).toBe(400);
    expect(campos(sin)).toEqual(['idAplicativo']);
    const ajeno = await p.api('POST', '/TransaccionCompra/Mpos/Banda', cuenta, mposValido({ idAplicativo: 'app-disposable' }));
    expect(ajeno.statusCode).toBe(400);
    expect(campos(ajeno)).toEqual(['idAplicativo']);
    expect((await p.api('POST', '/TransaccionCompra/Mpos/Banda', cuenta, mposValido({ idAplicativo: 'app-dev-1' }))).statusCode).toBe(200);
    // As a business, idAplicativo is taken from the credentials.
    expect((await p.api('POST', '/TransaccionCompra/Mpos/Banda', await p.bearer(), mposValido())).statusCode).toBe(200);
  });

  it.each([
    ['month 0', { mesVencimiento: 0 }, ['mesVencimiento']],
    ['month 13', { mesVencimiento: 13 }, ['mesVencimiento']],
    ['month as text', { mesVencimiento: '12' }, ['mesVencimiento']],
    ['monto 0', { monto: 0 }, ['monto']],
    ['monto null', { monto: null }, ['monto']],
    ['expired card', { mesVencimiento: 4, anioVencimiento: 2026 }, ['anioVencimiento']],
    ['three-digit year', { anioVencimiento: 203 }, ['anioVencimiento']],
    ['more than 20 years ahead', { anioVencimiento: 2047 }, ['anioVencimiento']],
    ['missing device data', { posId: undefined, tarjetaBan: undefined, llaveTarjetaBan: '' }, ['posId', 'tarjetaBan', 'llaveTarjetaBan']],
  ])('%s → 400', async (_name, extra, esperados) => {
    const p = await sandbox({ now: () => new Date('2026-05-15T12:00:00Z') });
    const res = await p.api('POST', '/TransaccionCompra/Mpos/Banda', await p.bearer(), mposValido(extra));
    expect(res.statusCode).toBe(400);
    expect(campos(res).sort()).toEqual(esperados.sort());
  });

  it.each([
    ['month 12', { mesVencimiento: 12 }],
    ['month 1 of next year', { mesVencimiento: 1, anioVencimiento: 2027 }],
    ['the current month', { mesVencimiento: 5, anioVencimiento: 2026 }],
    ['two-digit year', { anioVencimiento: 30 }],
    ['20 years ahead', { anioVencimiento: 2046 }],
  ])('%s is accepted', async (_name, extra) => {
    const p = await sandbox({ now: () => new Date('2026-05-15T12:00:00Z') });
    expect((await p.api('POST', '/TransaccionCompra/Mpos/Banda', await p.bearer(), mposValido(extra))).statusCode).toBe(200);
  });
});

describe('4.8 GET /TransaccionCompra/{id}', () => {
  it('returns the 2.2 fields with the values of the purchase', async () => {
    const p = await sandbox();
    const compra = (
      await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido({ idExterno: 'x-1', datosAdicionales: { k: 'v' } }))
    ).json();
    const res = await p.api('GET', `/TransaccionCompra/${compra.idTransaccion}`, await p.bearer());
    expect(res.statusCode).toBe(200);
    const tx = res.json();
    expect(Object.keys(tx).sort()).toEqual([
      'codigoAutorizacion',
      'datosAdicionales',
      'esAprobada',
      'esReal',
      'fechaTransaccion',
      'formaPago',
      'idExterno',
      'idTransaccion',
      'mensaje',
      'monto',
      'montoOriginal',
      'resultadoTransaccion',
    ]);
    expect(tx).toMatchObject({
      idTransaccion: compra.idTransaccion,
      esReal: false,
      esAprobada: true,
      mensaje: null,
      formaPago: 0,
      monto: 12.5,
      montoOriginal: 12.5,
      resultadoTransaccion: 0,
      fechaTransaccion: compra.fechaTransaccion,
      idExterno: 'x-1',
      datosAdicionales: { k: 'v' },
    });
  });

  it("unknown id → 404; another account's transaction → 404; no auth → 401", async () => {
    const p = await sandbox();
    const compra = (await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido())).json();
    expect((await p.api('GET', '/TransaccionCompra/00000000-0000-4000-8000-000000000000', await p.bearer())).statusCode).toBe(404);
    expect((await p.api('GET', `/TransaccionCompra/${compra.idTransaccion}`, basic(DESECHABLE.user, DESECHABLE.password))).statusCode).toBe(
      404,
    );
    expect((await p.api('GET', `/TransaccionCompra/${compra.idTransaccion}`, await p.bearer(NEGOCIO_SIN_MPOS))).statusCode).toBe(404);
    expect((await p.api('GET', `/TransaccionCompra/${compra.idTransaccion}`, cuenta)).statusCode).toBe(200);
    expect((await p.api('GET', `/TransaccionCompra/${compra.idTransaccion}`)).statusCode).toBe(401);
  });
});

describe('4.9 DELETE /Cuenta', () => {
  it('returns the 2.6 account with its 2.7 businesses; then its credentials, tokens and links stop working', async () => {
    const p = await sandbox();
    const desechable = basic(DESECHABLE.user, DESECHABLE.password);
    const negocio = { clientId: 'disposable-client', clientSecret: 'disposable-secret' };
    const token = await p.bearer(negocio);
    const link = (await p.api('POST', '/EnlacePago', token, enlaceValido())).json();
    const res = await p.api('DELETE', '/Cuenta', desechable);
    expect(res.statusCode).toBe(200);
    const cuentaBorrada = res.json();
    expect(Object.keys(cuentaBorrada).sort()).toEqual([
      'actividadEconomica',
      'aplicativos',
      'calle',
      'direccion',
      'emailLogin',
      'fechaRegistro',
      'idCuenta',
      'local',
      'nit',
      'nombreComercial',
      'nombreCompletoContacto',
      'nombreCuenta',
      'razonSocial',
      'tipoPersoneria',
      'urbanizacion',
    ]);
    expect(cuentaBorrada).toMatchObject({
      emailLogin: DESECHABLE.user,
      razonSocial: null,
      nit: null,
      fechaRegistro: expect.stringMatching(FECHA_CON_OFFSET),
    });
    expect(cuentaBorrada.aplicativos).toEqual([
      {
        idAplicativo: 'app-disposable',
        clientIdApi: 'disposable-client',
        clientSecret: 'disposable-secret',
        numeroCuenta: '9876543210',
        nombre: 'Prueba de Borrado',
        urlAplicativo: expect.any(String),
        estaProductivo: false,
        urlLogo: expect.any(String),
        aplicaPagoConPuntos: true,
        aplicaPagoConBitcoin: true,
        aplicaPagoConQuickPay: true,
        cuotasDisponibles: [
          { cantidadCuotas: 3, tasa: 0 },
          { cantidadCuotas: 6, tasa: 0 },
          { cantidadCuotas: 9, tasa: 0 },
          { cantidadCuotas: 12, tasa: 0 },
        ],
        tapOnPhone: null,
      },
    ]);

    expect((await p.api('DELETE', '/Cuenta', desechable)).statusCode).toBe(401);
    expect((await p.api('POST', '/EnlacePago', token, enlaceValido())).statusCode).toBe(401);
    expect((await p.abrir(link.urlEnlace)).statusCode).toBe(404);
    expect((await p.abrir(link.urlEnlaceLargo)).statusCode).toBe(404);
    const nuevoToken = await p.app.inject({
      method: 'POST',
      url: '/auth/connect/token',
      payload: `grant_type=client_credentials&audience=service_api&client_id=${negocio.clientId}&client_secret=${negocio.clientSecret}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(nuevoToken.statusCode).toBe(401);
    // The other account is untouched.
    expect((await p.api('POST', '/EnlacePago', await p.bearer(), enlaceValido())).statusCode).toBe(200);
  });
});

describe('production mode', () => {
  it('flips esReal, estaProductivo and esProductiva, and cvv 111 is not a test decline', async () => {
    const p = await sandbox({ mode: 'production' });
    const link = (
      await p.api(
        'POST',
        '/EnlacePago',
        await p.bearer(),
        enlaceValido({ configuracion: { notificarTransaccionCliente: false, urlWebhook: 'http://127.0.0.1:9/hook' } }),
      )
    ).json();
    expect(link.estaProductivo).toBe(true);
    const tds = (await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida())).json();
    expect(tds.esReal).toBe(true);
    const pago = await p.pagar(link.urlEnlaceLargo, {
      formaPago: '0',
      numeroTarjeta: '4111111111111111',
      cvv: '111',
      mesVencimiento: '1',
      anioVencimiento: '2031',
    });
    expect(consulta(pago)).toMatchObject({ esReal: 'true', esAprobada: 'true' });
    expect(p.ctx.store.outbox.webhooks[0]!.body).toMatchObject({ esProductiva: true, esReal: true });
    const control = (await p.app.inject({ url: '/__sandbox' })).json();
    expect(control.mode).toBe('production');
    await p.app.close();
  });
});
