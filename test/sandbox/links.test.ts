import { describe, expect, it } from 'vitest';
import { CUENTA, DESECHABLE, ORIGIN, basic, decodificarQr, enlaceValido, sandbox } from './helpers.ts';

const FP_TODAS = {
  permitirTarjetaCreditoDebido: true,
  permitirPagoConPuntoPartner: false,
  permitirPagoEnCuotasPartner: true,
  permitirPagoEnBitcoin: false,
  permitePagoQuickPay: false,
};

describe('4.1 POST /EnlacePago', () => {
  it('answers idEnlace (int), urlQrCodeEnlace, urlEnlace, urlEnlaceLargo and estaProductivo', async () => {
    const p = await sandbox();
    const res = await p.api('POST', '/EnlacePago', await p.bearer(), enlaceValido());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.idEnlace).toBe(1);
    expect(Number.isInteger(body.idEnlace)).toBe(true);
    expect(body.urlEnlace).toMatch(new RegExp(`^${ORIGIN}/l/[0-9a-f]{8}$`));
    expect(body.urlEnlaceLargo).toBe(`${ORIGIN}/pagar/1`);
    expect(body.urlQrCodeEnlace).toBe(`${ORIGIN}/qr/enlace/1.png`);
    expect(body.estaProductivo).toBe(false);
    expect((await p.crearEnlace()).idEnlace).toBe(2);
  });

  it('the short URL redirects (302) to the hosted screen, and the QR PNG encodes the short URL', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace();
    const corto = await p.abrir(link.urlEnlace);
    expect(corto.statusCode).toBe(302);
    expect(corto.headers.location).toBe(link.urlEnlaceLargo);
    const qr = await p.abrir(link.urlQrCodeEnlace);
    expect(qr.statusCode).toBe(200);
    expect(qr.headers['content-type']).toBe('image/png');
    expect(decodificarQr(qr.rawPayload)).toBe(link.urlEnlace);
    expect((await p.app.inject({ url: '/l/nope' })).statusCode).toBe(404);
    expect((await p.app.inject({ url: '/qr/enlace/99.png' })).statusCode).toBe(404);
  });

  it('counts characters as code points: 500 emoji fit in nombreProducto, 501 do not', async () => {
    const p = await sandbox();
    const ok = await p.api('POST', '/EnlacePago', await p.bearer(), enlaceValido({ nombreProducto: '😀'.repeat(500) }));
    expect(ok.statusCode).toBe(200);
    const tooLong = await p.api('POST', '/EnlacePago', await p.bearer(), enlaceValido({ nombreProducto: '😀'.repeat(501) }));
    expect(tooLong.statusCode).toBe(400);
  });

  it('accepts the boundaries: monto 0.01, 500-character strings, every optional field', async () => {
    const p = await sandbox();
    const res = await p.api('POST', '/EnlacePago', await p.bearer(), {
      ...enlaceValido({ monto: 0.01, identificadorEnlaceComercio: 'i'.repeat(500), nombreProducto: 'n'.repeat(500) }),
      formaPago: FP_TODAS,
      cantidadMaximaCuotas: 'Seis',
      idGrupoTarjetas: 'grupo-1',
      infoProducto: { descripcionProducto: 'd'.repeat(5000), urlImagenProducto: 'https://merchant.test/img.png' },
      configuracion: {
        urlRedirect: 'https://merchant.test/ok',
        esMontoEditable: false,
        esCantidadEditable: true,
        cantidadPorDefecto: 2,
        duracionInterfazIntentoMinutos: 15,
        urlRetorno: 'https://merchant.test/back',
        emailsNotificacion: 'a@merchant.test, b@merchant.test',
        urlWebhook: 'https://merchant.test/hook',
        telefonosNotificacion: '+50370000000,+50370000001',
        notificarTransaccionCliente: true,
      },
      vigencia: { fechaInicio: '2020-01-01T00:00:00Z', fechaFin: '2099-01-01T00:00:00-06:00' },
      limitesDeUso: { cantidadMaximaPagosExitosos: 5, cantidadMaximaPagosFallidos: 3 },
      datosAdicionales: { canal: 'web' },
      unknownExtraField: { ignored: true },
    });
    expect(res.statusCode).toBe(200);
    const registro = await p.registro(res.json().idEnlace);
    expect(registro).toMatchObject({
      monto: 0.01,
      formaPago: FP_TODAS,
      cantidadMaximaCuotas: 6,
      idGrupoTarjetas: 'grupo-1',
      imagenes: [{ url: 'https://merchant.test/img.png', esPrincipal: true }],
      limitesDeUso: { cantidadMaximaPagosExitosos: 5, cantidadMaximaPagosFallidos: 3 },
      datosAdicionales: { canal: 'web' },
    });
    expect(registro).not.toHaveProperty('unknownExtraField');
  });

  const casos: [string, Record<string, unknown>, string[]][] = [
    ['monto 0', enlaceValido({ monto: 0 }), ['monto']],
    ['monto 0.009', enlaceValido({ monto: 0.009 }), ['monto']],
    ['monto negative', enlaceValido({ monto: -1 }), ['monto']],
    ['monto as text "10.00"', enlaceValido({ monto: '10.00' }), ['monto']],
    [
      'missing required fields',
      { configuracion: { notificarTransaccionCliente: true, urlWebhook: 'https://m.test/h' } },
      ['identificadorEnlaceComercio', 'monto', 'nombreProducto'],
    ],
    [
      '501-character strings',
      enlaceValido({ identificadorEnlaceComercio: 'i'.repeat(501), nombreProducto: 'n'.repeat(501) }),
      ['identificadorEnlaceComercio', 'nombreProducto'],
    ],
    ['nombreProducto a number', enlaceValido({ nombreProducto: 5 }), ['nombreProducto']],
    [
      'formaPago all false',
      enlaceValido({ formaPago: { ...FP_TODAS, permitirTarjetaCreditoDebido: false, permitirPagoEnCuotasPartner: false } }),
      ['formaPago'],
    ],
    [
      'formaPago partial',
      enlaceValido({ formaPago: { permitirTarjetaCreditoDebido: true } }),
      [
        'formaPago.permitirPagoConPuntoPartner',
        'formaPago.permitirPagoEnCuotasPartner',
        'formaPago.permitirPagoEnBitcoin',
        'formaPago.permitePagoQuickPay',
      ],
    ],
    ['formaPago flag as 1', enlaceValido({ formaPago: { ...FP_TODAS, permitirPagoEnBitcoin: 1 } }), ['formaPago.permitirPagoEnBitcoin']],
    ['formaPago not an object', enlaceValido({ formaPago: 7 }), ['formaPago']],
    [
      'no urlWebhook nor emailsNotificacion',
      enlaceValido({ configuracion: { notificarTransaccionCliente: false, urlWebhook: null } }),
      ['configuracion.urlWebhook', 'configuracion.emailsNotificacion'],
    ],
    [
      'no configuracion at all',
      { identificadorEnlaceComercio: 'a', monto: 1, nombreProducto: 'b' },
      ['configuracion.urlWebhook', 'configuracion.emailsNotificacion'],
    ],
    [
      'notificarTransaccionCliente missing',
      enlaceValido({ configuracion: { emailsNotificacion: 'a@b.test' } }),
      ['configuracion.notificarTransaccionCliente'],
    ],
    [
      'notificarTransaccionCliente as text',
      enlaceValido({ configuracion: { emailsNotificacion: 'a@b.test', notificarTransaccionCliente: 'true' } }),
      ['configuracion.notificarTransaccionCliente'],
    ],
    ['cantidadMaximaCuotas Cinco', enlaceValido({ cantidadMaximaCuotas: 'Cinco' }), ['cantidadMaximaCuotas']],
    ['cantidadMaximaCuotas as int', enlaceValido({ cantidadMaximaCuotas: 3 }), ['cantidadMaximaCuotas']],
    [
      'bad URLs',
      enlaceValido({ configuracion: { notificarTransaccionCliente: false, urlWebhook: 'not a url', urlRedirect: 'ftp://x' } }),
      ['configuracion.urlWebhook', 'configuracion.urlRedirect'],
    ],
    [
      'bad e-mail list',
      enlaceValido({ configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test, nope' } }),
      ['configuracion.emailsNotificacion'],
    ],
    [
      'cantidadPorDefecto 1.5 and duracion 0',
      enlaceValido({
        configuracion: {
          notificarTransaccionCliente: false,
          emailsNotificacion: 'a@b.test',
          cantidadPorDefecto: 1.5,
          duracionInterfazIntentoMinutos: 0,
        },
      }),
      ['configuracion.cantidadPorDefecto', 'configuracion.duracionInterfazIntentoMinutos'],
    ],
    ['vigencia without offset and reversed', enlaceValido({ vigencia: { fechaInicio: '2026-01-01T00:00:00' } }), ['vigencia.fechaInicio']],
    [
      'vigencia end before start',
      enlaceValido({ vigencia: { fechaInicio: '2026-02-01T00:00:00Z', fechaFin: '2026-01-01T00:00:00Z' } }),
      ['vigencia.fechaFin'],
    ],
    [
      'limits not ints',
      enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: '5', cantidadMaximaPagosFallidos: 0 } }),
      ['limitesDeUso.cantidadMaximaPagosExitosos', 'limitesDeUso.cantidadMaximaPagosFallidos'],
    ],
    ['datosAdicionales with a number value', enlaceValido({ datosAdicionales: { a: 1 } }), ['datosAdicionales.a']],
    ['body an array', [enlaceValido()] as unknown as Record<string, unknown>, ['$']],
  ];

  it.each(casos)('%s → 400 listing %j, nothing stored', async (_name, body, campos) => {
    const p = await sandbox();
    const res = await p.api('POST', '/EnlacePago', await p.bearer(), body);
    expect(res.statusCode).toBe(400);
    const listados = (res.json().errores as { campo: string; mensaje: string }[]).map((e) => e.campo);
    for (const campo of campos) expect(listados).toContain(campo);
    for (const e of res.json().errores) expect(typeof e.mensaje).toBe('string');
    expect(p.ctx.store.links.size).toBe(0);
  });

  it('malformed JSON, a wrong content type and an oversized body are 4xx, never 5xx', async () => {
    const p = await sandbox();
    const auth = await p.bearer();
    const enviar = (payload: string, type: string) =>
      p.app.inject({ method: 'POST', url: '/api/EnlacePago', payload, headers: { authorization: auth, 'content-type': type } });
    const malo = await enviar('{"monto": ', 'application/json');
    expect(malo.statusCode).toBe(400);
    expect(malo.json().errores[0].campo).toBe('$');
    expect((await enviar('', 'application/json')).statusCode).toBe(400);
    expect((await enviar('{"__proto__": {"x": 1}}', 'application/json')).statusCode).toBe(400);
    const tipo = await enviar(JSON.stringify(enlaceValido()), 'text/plain');
    expect(tipo.statusCode).toBe(400);
    expect(tipo.json().errores[0].campo).toBe('content-type');
    expect((await enviar('monto=1', 'application/x-www-form-urlencoded')).statusCode).toBe(400);
    const grande = await enviar(JSON.stringify({ ...enlaceValido(), relleno: 'x'.repeat(1024 * 1024) }), 'application/json');
    expect(grande.statusCode).toBe(413);
    expect(p.ctx.store.links.size).toBe(0);
  });
});

describe('4.2 PUT /EnlacePago/{id}/activar', () => {
  it('returns the full 2.1 record with every field of the table', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace();
    const res = await p.api('PUT', `/EnlacePago/${link.idEnlace}/activar`, basic(CUENTA.user, CUENTA.password));
    expect(res.statusCode).toBe(200);
    const r = res.json();
    expect(Object.keys(r).sort()).toEqual(
      [
        'idEnlace',
        'idAplicativo',
        'nombreAplicativo',
        'nombreEnlace',
        'monto',
        'nombreProducto',
        'usable',
        'transaccionCompra',
        'cantidadIntentoPagoFallidos',
        'cantidadPagosExitosos',
        'formaPago',
        'infoProducto',
        'configuracion',
        'cantidadMaximaCuotas',
        'transacciones',
        'imagenes',
        'vigencia',
        'limitesDeUso',
        'datosAdicionales',
        'idGrupoTarjetas',
        'urlQrCodeEnlace',
        'urlEnlace',
        'urlEnlaceLargo',
        'estaProductivo',
      ].sort(),
    );
    expect(r).toMatchObject({
      idEnlace: link.idEnlace,
      idAplicativo: 'app-dev-1',
      nombreAplicativo: 'Tienda Sandbox',
      nombreEnlace: 'pedido-1',
      monto: 10,
      nombreProducto: 'Camisa',
      usable: true,
      transaccionCompra: null,
      cantidadIntentoPagoFallidos: 0,
      cantidadPagosExitosos: 0,
      // Spec 4.1: formaPago omitted → card and points.
      formaPago: {
        permitirTarjetaCreditoDebido: true,
        permitirPagoConPuntoPartner: true,
        permitirPagoEnCuotasPartner: false,
        permitirPagoEnBitcoin: false,
        permitePagoQuickPay: false,
      },
      configuracion: { cantidadPorDefecto: 1, esMontoEditable: false, esCantidadEditable: false, notificarTransaccionCliente: false },
      cantidadMaximaCuotas: 12,
      transacciones: [],
      imagenes: [],
      urlEnlace: link.urlEnlace,
      urlEnlaceLargo: link.urlEnlaceLargo,
      urlQrCodeEnlace: link.urlQrCodeEnlace,
      estaProductivo: false,
    });
  });

  it('404 for an unknown link, 400 for a non-integer id, 403 for a link of another account', async () => {
    const p = await sandbox();
    const cuenta = basic(CUENTA.user, CUENTA.password);
    expect((await p.api('PUT', '/EnlacePago/999/activar', cuenta)).statusCode).toBe(404);
    expect((await p.api('PUT', '/EnlacePago/abc/activar', cuenta)).statusCode).toBe(400);
    const { idEnlace } = await p.crearEnlace();
    const ajena = await p.api('PUT', `/EnlacePago/${idEnlace}/activar`, basic(DESECHABLE.user, DESECHABLE.password));
    expect(ajena.statusCode).toBe(403);
  });
});
