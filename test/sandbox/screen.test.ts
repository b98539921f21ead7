import { describe, expect, it } from 'vitest';
import { NEGOCIO, consulta, decodificarQr, enlaceValido, estado, formulario, hmacHex, ruta, sandbox, tarjeta } from './helpers.ts';

const HASH_6_3 = ['idTransaccion', 'monto', 'esReal', 'formaPago', 'esAprobada', 'codigoAutorizacion', 'mensaje'];

describe('hosted payment screen', () => {
  it('GET shows a plain form with the documented fields and only the accepted payment forms', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', urlRetorno: 'https://merchant.test/back' },
      }),
    );
    const res = await p.abrir(link.urlEnlaceLargo);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).not.toContain('<script');
    const form = formulario(res.body);
    expect(form.action).toBe('/pagar/1');
    expect(Object.keys(form.campos).sort()).toEqual(
      ['intento', 'cantidad', 'numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento', 'nombreTitular', 'email'].sort(),
    );
    expect(form.campos.cantidad).toBe('1');
    expect(form.opciones).toEqual({ formaPago: ['0', '1'] });
    expect(res.body).toContain('href="https://merchant.test/back"');
  });

  it('an approved payment answers 303 to urlRedirect with the outcome, a valid 6.3 hash and the link ids', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        identificadorEnlaceComercio: 'orden 7',
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', urlRedirect: 'https://merchant.test/fin?x=1' },
      }),
    );
    const res = await p.pagar(link.urlEnlaceLargo);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^https:\/\/merchant\.test\/fin\?x=1&/);
    const q = consulta(res);
    expect(q).toMatchObject({
      monto: '10.00',
      esReal: 'false',
      formaPago: '0',
      esAprobada: 'true',
      mensaje: '',
      idEnlace: '1',
      identificadorEnlaceComercio: 'orden 7',
    });
    expect(q.codigoAutorizacion).toMatch(/^\d{6}$/);
    expect(q.hash).toBe(hmacHex(NEGOCIO.clientSecret, HASH_6_3.map((k) => q[k]).join('')));
    const r = await p.registro(link.idEnlace);
    expect(r.cantidadPagosExitosos).toBe(1);
    expect((r.transaccionCompra as { idTransaccion: string }).idTransaccion).toBe(q.idTransaccion);
  });

  it('without urlRedirect the business URL is used', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace();
    const res = await p.pagar(link.urlEnlaceLargo);
    expect(res.headers.location).toMatch(/^https:\/\/app-dev-1\.merchant\.sandbox\.test\/\?/);
  });

  it('cvv 111 declines (spec 7); reaching the failure limit makes the link unusable; activar restores it', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
    const primero = await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    expect(primero.statusCode).toBe(303);
    const q = consulta(primero);
    expect(q).toMatchObject({ esAprobada: 'false', codigoAutorizacion: '', mensaje: 'Transacción declinada (cvv de prueba 111)' });
    expect(q.hash).toBe(hmacHex(NEGOCIO.clientSecret, HASH_6_3.map((k) => q[k]).join('')));
    // The screen shown before the link became unusable is refused afterwards too.
    const pantalla = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    expect((await p.pagar(link.urlEnlaceLargo, tarjeta('111'))).statusCode).toBe(303);

    const cerrado = await p.abrir(link.urlEnlaceLargo);
    expect(cerrado.statusCode).toBe(410);
    expect(estado(cerrado.body)).toBe('no disponible');
    expect(cerrado.body).not.toContain('<form');
    const transacciones = p.ctx.store.transactions.size;
    const rechazado = await p.enviarFormulario(link.urlEnlaceLargo, { ...pantalla.campos, ...tarjeta() });
    expect(rechazado.statusCode).toBe(410);
    expect(p.ctx.store.transactions.size).toBe(transacciones);

    const r = await p.registro(link.idEnlace);
    expect(r).toMatchObject({ usable: true, cantidadIntentoPagoFallidos: 2, cantidadPagosExitosos: 0, transaccionCompra: null });
    const tx = r.transacciones as Record<string, unknown>[];
    expect(tx).toHaveLength(2);
    expect(tx[0]).toMatchObject({
      esAprobada: false,
      resultadoTransaccion: 1,
      codigoAutorizacion: null,
      mensaje: 'Transacción declinada (cvv de prueba 111)',
    });

    const aprobado = await p.pagar(link.urlEnlaceLargo);
    expect(consulta(aprobado).esAprobada).toBe('true');
  });

  it('N concurrent declines on a link with limit N count exactly N and leave it inactive', async () => {
    const p = await sandbox();
    const N = 20;
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: N } }));
    // One showing per submission: a showing's attempt pays once (a second post of it is a replay).
    const formularios = [];
    for (let i = 0; i < N + 5; i++) formularios.push(formulario((await p.abrir(link.urlEnlaceLargo)).body).campos);
    const envios = formularios.map((campos) => p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta('111') }));
    const estados = (await Promise.all(envios)).map((r) => r.statusCode);
    expect(estados.filter((s) => s === 303)).toHaveLength(N);
    expect(estados.filter((s) => s === 410)).toHaveLength(5);
    const enlace = p.ctx.store.links.get(link.idEnlace)!;
    expect(enlace.cantidadIntentoPagoFallidos).toBe(N);
    expect(enlace.activo).toBe(false);
    expect((await p.abrir(link.urlEnlaceLargo)).statusCode).toBe(410);
  });

  it('reaching cantidadMaximaPagosExitosos stops further payments', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    expect((await p.pagar(link.urlEnlaceLargo)).statusCode).toBe(303);
    expect((await p.pagar(link.urlEnlaceLargo)).statusCode).toBe(410);
    expect(p.ctx.store.links.get(link.idEnlace)!.cantidadPagosExitosos).toBe(1);
  });

  it('vigencia: before fechaInicio and after fechaFin the screen answers 410', async () => {
    const p = await sandbox({ now: () => new Date('2026-03-01T12:00:00Z') });
    const futuro = await p.crearEnlace(enlaceValido({ vigencia: { fechaInicio: '2026-03-02T00:00:00Z' } }));
    expect((await p.abrir(futuro.urlEnlaceLargo)).statusCode).toBe(410);
    const vigente = await p.crearEnlace(enlaceValido({ vigencia: { fechaFin: '2026-03-01T13:00:00Z' } }));
    expect((await p.abrir(vigente.urlEnlaceLargo)).statusCode).toBe(200);
    await p.avanzar(3601);
    expect((await p.abrir(vigente.urlEnlaceLargo)).statusCode).toBe(410);
    await p.avanzar(11 * 3600);
    expect((await p.pagar(futuro.urlEnlaceLargo)).statusCode).toBe(303);
  });

  it('duracionInterfazIntentoMinutos: a submission after the attempt expired is not processed', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', duracionInterfazIntentoMinutos: 5 },
      }),
    );
    const { campos } = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    await p.avanzar(299);
    expect((await p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta() })).statusCode).toBe(303);
    await p.avanzar(2);
    const tarde = await p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta() });
    expect(tarde.statusCode).toBe(410);
    expect(estado(tarde.body)).toBe('intento vencido');
    expect(p.ctx.store.links.get(link.idEnlace)!.transacciones).toHaveLength(1);
  });

  it('charges cantidad × monto; editable quantity and amount come from the form', async () => {
    const p = await sandbox();
    const fija = await p.crearEnlace(
      enlaceValido({
        monto: 2.5,
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', cantidadPorDefecto: 3 },
      }),
    );
    // A non-editable quantity ignores whatever the form sends.
    expect(consulta(await p.pagar(fija.urlEnlaceLargo, { ...tarjeta(), cantidad: '9' })).monto).toBe('7.50');
    const editable = await p.crearEnlace(
      enlaceValido({
        monto: 0.1,
        configuracion: {
          notificarTransaccionCliente: false,
          emailsNotificacion: 'a@b.test',
          esCantidadEditable: true,
          esMontoEditable: true,
        },
      }),
    );
    const form = formulario((await p.abrir(editable.urlEnlaceLargo)).body);
    expect(form.campos).toHaveProperty('monto');
    expect(consulta(await p.pagar(editable.urlEnlaceLargo, { ...tarjeta(), cantidad: '3', monto: '0.10' })).monto).toBe('0.30');
    expect(consulta(await p.pagar(editable.urlEnlaceLargo, { ...tarjeta(), cantidad: '2', monto: '4.25' })).monto).toBe('8.50');
  });

  it('invalid form input → 400 listing each field, nothing recorded', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        formaPago: {
          permitirTarjetaCreditoDebido: true,
          permitirPagoConPuntoPartner: false,
          permitirPagoEnCuotasPartner: true,
          permitirPagoEnBitcoin: false,
          permitePagoQuickPay: false,
        },
        cantidadMaximaCuotas: 'Seis',
      }),
    );
    const form = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    expect(form.opciones).toEqual({ formaPago: ['0', '2'], cuotas: ['3', '6'] });
    const res = await p.enviarFormulario(link.urlEnlaceLargo, {
      intento: 'forged.token',
      formaPago: '2',
      cuotas: '12',
      numeroTarjeta: '4111 1111',
      cvv: '12',
      mesVencimiento: '13',
      anioVencimiento: 'x',
      email: 'nope',
    });
    expect(res.statusCode).toBe(400);
    const campos = [...res.body.matchAll(/data-campo="([^"]+)"/g)].map((m) => m[1]);
    expect(campos.sort()).toEqual(['anioVencimiento', 'cuotas', 'cvv', 'email', 'intento', 'mesVencimiento', 'numeroTarjeta'].sort());
    const puntos = await p.pagar(link.urlEnlaceLargo, { ...tarjeta(), formaPago: '1' });
    expect(puntos.statusCode).toBe(400);
    expect(p.ctx.store.transactions.size).toBe(0);
    const cuotas = await p.pagar(link.urlEnlaceLargo, { ...tarjeta(), formaPago: '2', cuotas: '6' });
    expect(consulta(cuotas)).toMatchObject({ formaPago: '2', esAprobada: 'true' });
  });

  it('Bitcoin (formaPago 3) leaves a pending transaction with datosBitcoin', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        formaPago: {
          permitirTarjetaCreditoDebido: false,
          permitirPagoConPuntoPartner: false,
          permitirPagoEnCuotasPartner: false,
          permitirPagoEnBitcoin: true,
          permitePagoQuickPay: false,
        },
      }),
    );
    const pantalla = await p.abrir(link.urlEnlaceLargo);
    const { campos } = formulario(pantalla.body);
    const res = await p.enviarFormulario(link.urlEnlaceLargo, { intento: campos.intento!, formaPago: '3' });
    expect(res.statusCode).toBe(200);
    expect(estado(res.body)).toBe('pendiente');
    const [idTransaccion] = p.ctx.store.links.get(link.idEnlace)!.transacciones;
    const tx = await p.api('GET', `/TransaccionCompra/${idTransaccion}`, await p.bearer());
    const body = tx.json();
    expect(body).toMatchObject({ formaPago: 3, esAprobada: false, resultadoTransaccion: null, monto: 10 });
    expect(body.datosBitcoin).toMatchObject({ ammountInDollars: 10, qrData: expect.any(String), urlQR: expect.stringMatching(/\.png$/) });
    expect(typeof body.datosBitcoin.ammountInBitcoins).toBe('number');
    expect(body.datosBitcoin.fechaVencimiento).toMatch(/Z$/);
    const qr = await p.abrir(body.datosBitcoin.urlQR);
    expect(decodificarQr(qr.rawPayload)).toContain(body.datosBitcoin.qrData);
    expect(p.ctx.store.links.get(link.idEnlace)).toMatchObject({ cantidadPagosExitosos: 0, cantidadIntentoPagoFallidos: 0 });
  });

  it('quick-pay (formaPago 4) on the screen shows a QR whose page pays the link', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        formaPago: {
          permitirTarjetaCreditoDebido: false,
          permitirPagoConPuntoPartner: false,
          permitirPagoEnCuotasPartner: false,
          permitirPagoEnBitcoin: false,
          permitePagoQuickPay: true,
        },
      }),
    );
    const { campos } = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    const res = await p.enviarFormulario(link.urlEnlaceLargo, { intento: campos.intento!, formaPago: '4' });
    expect(res.statusCode).toBe(200);
    const urlQR = /<img id="qr" src="([^"]+)"/.exec(res.body)?.[1];
    const pagina = decodificarQr((await p.abrir(urlQR!)).rawPayload)!;
    expect((await p.app.inject({ method: 'POST', url: ruta(pagina) })).statusCode).toBe(200);
    expect(p.ctx.store.links.get(link.idEnlace)!.cantidadPagosExitosos).toBe(1);
  });

  it('a quick-pay opened from the screen obeys the link: past its success limit the QR page refuses and nothing changes', async () => {
    const p = await sandbox();
    const soloQuickPay = {
      permitirTarjetaCreditoDebido: false,
      permitirPagoConPuntoPartner: false,
      permitirPagoEnCuotasPartner: false,
      permitirPagoEnBitcoin: false,
      permitePagoQuickPay: true,
    };
    const link = await p.crearEnlace(enlaceValido({ formaPago: soloQuickPay, limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    const paginas: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { campos } = formulario((await p.abrir(link.urlEnlaceLargo)).body);
      const res = await p.enviarFormulario(link.urlEnlaceLargo, { intento: campos.intento!, formaPago: '4' });
      const urlQR = /<img id="qr" src="([^"]+)"/.exec(res.body)?.[1];
      paginas.push(decodificarQr((await p.abrir(urlQR!)).rawPayload)!);
    }
    expect((await p.app.inject({ method: 'POST', url: ruta(paginas[0]!) })).statusCode).toBe(200);
    expect((await p.app.inject({ method: 'POST', url: ruta(paginas[1]!) })).statusCode).toBe(410);
    expect(p.ctx.store.links.get(link.idEnlace)!.cantidadPagosExitosos).toBe(1);
  });

  it('a quantity that makes the charged amount overflow is refused, not stored as Infinity', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        monto: 1e308,
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@merchant.test', esCantidadEditable: true },
      }),
    );
    const { campos } = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    const res = await p.enviarFormulario(link.urlEnlaceLargo, { ...tarjeta(), intento: campos.intento!, cantidad: '1000' });
    expect(res.statusCode).toBe(400);
    expect(p.ctx.store.links.get(link.idEnlace)!.transacciones).toHaveLength(0);
  });

  it('unknown link → 404 on GET and POST', async () => {
    const p = await sandbox();
    expect((await p.app.inject({ url: '/pagar/42' })).statusCode).toBe(404);
    expect((await p.enviarFormulario('http://sandbox.test/pagar/42', tarjeta())).statusCode).toBe(404);
  });
});
