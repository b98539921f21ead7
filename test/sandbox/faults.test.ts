/**
 * Every fault of the catalogue can be selected and breaks the behaviour it names: each probe answers "is this
 * behaviour correct?", which must be true without the fault and false with it. The Record type makes a missing
 * probe a compile error.
 */
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS, type FaultId } from '../../sandbox/index.ts';
import {
  CUENTA,
  DESECHABLE,
  NEGOCIO,
  NEGOCIO_SIN_MPOS,
  OTRA_CUENTA,
  OTRO_NEGOCIO,
  type Prueba,
  basic,
  compra3dsValida,
  consulta,
  enlaceValido,
  formulario,
  hmacHex,
  mposValido,
  ruta,
  sandbox,
  tarjeta,
  walletValido,
} from './helpers.ts';
import { SONDAS_HABITOS } from './sondas-habitos.ts';
import { SONDAS_PANTALLAS } from './sondas-pantallas.ts';
import { SONDAS_PUERTAS } from './sondas-puertas.ts';
import { SONDAS_CLASES } from './sondas-clases.ts';

const recibidos: { path: string; headers: IncomingHttpHeaders; raw: string }[] = [];
const fallarPrimero = new Set<string>();
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString()));
  req.on('end', () => {
    const path = req.url ?? '';
    recibidos.push({ path, headers: req.headers, raw });
    res.statusCode = fallarPrimero.delete(path) ? 500 : 200;
    res.end();
  });
});
let receptor = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receptor = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function esperarEntregas(path: string, n: number, ms = 2000): Promise<typeof recibidos> {
  const limite = Date.now() + ms;
  while (recibidos.filter((r) => r.path === path).length < n && Date.now() < limite) await new Promise((r) => setTimeout(r, 10));
  return recibidos.filter((r) => r.path === path);
}

const HASH_6_3 = ['idTransaccion', 'monto', 'esReal', 'formaPago', 'esAprobada', 'codigoAutorizacion', 'mensaje'];
const cuenta = basic(CUENTA.user, CUENTA.password);
const status = async (p: Prueba, path: string, body: unknown, auth?: string) =>
  (await p.api('POST', path, auth ?? (await p.bearer()), body)).statusCode;
const crearEnlace = (p: Prueba, body: Record<string, unknown>) => status(p, '/EnlacePago', body);

async function wallet(p: Prueba, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return (await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido(extra))).json();
}
async function obtener(p: Prueba, id: unknown): Promise<Record<string, unknown>> {
  return (await p.api('GET', `/TransaccionCompra/${String(id)}`, await p.bearer())).json();
}
async function webhookDeWallet(p: Prueba, datosAdicionales?: Record<string, string>): Promise<Record<string, unknown> | undefined> {
  await wallet(p, { configuracion: { urlWebhook: 'http://127.0.0.1:9/closed' }, ...(datosAdicionales ? { datosAdicionales } : {}) });
  return p.ctx.store.outbox.webhooks[0]?.body as Record<string, unknown> | undefined;
}
async function hashValido(p: Prueba): Promise<boolean> {
  const link = await p.crearEnlace();
  const q = consulta(await p.pagar(link.urlEnlaceLargo));
  return q.hash === hmacHex(NEGOCIO.clientSecret, HASH_6_3.map((k) => q[k]).join(''));
}
/** Spec 5.1: a token is issued for audience service_api. */
async function tokenServiceApi(p: Prueba): Promise<boolean> {
  const res = await p.app.inject({
    method: 'POST',
    url: '/auth/connect/token',
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      audience: 'service_api',
      client_id: NEGOCIO.clientId,
      client_secret: NEGOCIO.clientSecret,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return res.statusCode === 200 && res.json().scope === 'service_api';
}
const formaPagoTodoFalso = {
  permitirTarjetaCreditoDebido: false,
  permitirPagoConPuntoPartner: false,
  permitirPagoEnCuotasPartner: false,
  permitirPagoEnBitcoin: false,
  permitePagoQuickPay: false,
};

const SONDAS: Record<FaultId, (p: Prueba, id: string) => Promise<boolean>> = {
  'enlacepago-route-missing': async (p) => (await p.api('POST', '/EnlacePago', await p.bearer(), {})).statusCode !== 404,
  'link-idenlace-string': async (p) => typeof (await p.crearEnlace()).idEnlace === 'number',
  'link-urlenlace-missing': async (p) => 'urlEnlace' in (await p.crearEnlace()),
  'transaction-monto-string': async (p) => typeof (await obtener(p, (await wallet(p)).idTransaccion)).monto === 'number',
  'esreal-as-number': async (p) =>
    typeof (await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida())).json().esReal === 'boolean',
  'transaction-formapago-out-of-enum': async (p) =>
    [0, 1, 2, 3, 4].includes((await obtener(p, (await wallet(p)).idTransaccion)).formaPago as number),
  'fecha-without-offset': async (p) =>
    /(Z|[+-]\d{2}:\d{2})$/.test(String((await obtener(p, (await wallet(p)).idTransaccion)).fechaTransaccion)),
  'enum-names': async (p) => {
    const tx = await obtener(p, (await wallet(p)).idTransaccion);
    return tx.formaPago === 0 && tx.resultadoTransaccion === 0 && (await webhookDeWallet(p))?.formaPago === 0;
  },
  'booleans-as-strings': async (p) =>
    (await wallet(p)).esReal === false && ((await p.crearEnlace()) as Record<string, unknown>).estaProductivo === false,
  'link-monto-zero-accepted': async (p) => (await crearEnlace(p, enlaceValido({ monto: 0 }))) === 400,
  'link-monto-string-accepted': async (p) => (await crearEnlace(p, enlaceValido({ monto: '10.00' }))) === 400,
  'link-formapago-all-false-accepted': async (p) => (await crearEnlace(p, enlaceValido({ formaPago: formaPagoTodoFalso }))) === 400,
  'link-formapago-partial-accepted': async (p) =>
    (await crearEnlace(p, enlaceValido({ formaPago: { permitirTarjetaCreditoDebido: true } }))) === 400,
  'link-notification-target-not-required': async (p) =>
    (await crearEnlace(p, enlaceValido({ configuracion: { notificarTransaccionCliente: false } }))) === 400,
  'link-notificar-cliente-not-required': async (p) =>
    (await crearEnlace(p, enlaceValido({ configuracion: { emailsNotificacion: 'a@b.test' } }))) === 400,
  'link-maxlength-not-enforced': async (p) => (await crearEnlace(p, enlaceValido({ nombreProducto: 'n'.repeat(501) }))) === 400,
  'quickpay-monto-zero-accepted': async (p) => (await status(p, '/TransaccionCompra/Quick-pay', { monto: 0 })) === 400,
  'quickpay-idexterno-51-accepted': async (p) =>
    (await status(p, '/TransaccionCompra/Quick-pay', { monto: 1, idExterno: 'e'.repeat(51) })) === 400,
  'mpos-monto-zero-accepted': async (p) => (await status(p, '/TransaccionCompra/Mpos/Banda', mposValido({ monto: 0 }))) === 400,
  'mpos-month-13-accepted': async (p) => (await status(p, '/TransaccionCompra/Mpos/Banda', mposValido({ mesVencimiento: 13 }))) === 400,
  'mpos-idaplicativo-missing-accepted': async (p) => (await status(p, '/TransaccionCompra/Mpos/Banda', mposValido(), cuenta)) === 400,
  '3ds-idregion-not-iso-accepted': async (p) =>
    (await status(p, '/TransaccionCompra/3DS', compra3dsValida({ idRegion: 'San Salvador' }))) === 400,
  'link-monto-min-rejected': async (p) => (await crearEnlace(p, enlaceValido({ monto: 0.01 }))) === 200,
  'link-nombreproducto-500-rejected': async (p) => (await crearEnlace(p, enlaceValido({ nombreProducto: 'n'.repeat(500) }))) === 200,
  'quickpay-idexterno-50-rejected': async (p) =>
    (await status(p, '/TransaccionCompra/Quick-pay', { monto: 1, idExterno: 'e'.repeat(50) })) === 200,
  'mpos-month-12-rejected': async (p) => (await status(p, '/TransaccionCompra/Mpos/Banda', mposValido({ mesVencimiento: 12 }))) === 200,
  'token-wrong-secret-accepted': async (p) => {
    const res = await p.app.inject({
      method: 'POST',
      url: '/auth/connect/token',
      payload: 'grant_type=client_credentials&audience=service_api&client_id=sandbox-client&client_secret=wrong',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return res.statusCode === 401;
  },
  'token-expiry-ignored': async (p) => {
    const auth = await p.bearer();
    await p.avanzar(3601);
    return (await status(p, '/EnlacePago', enlaceValido(), auth)) === 401;
  },
  'token-expires-in-string': async (p) => {
    await p.token();
    const res = await p.app.inject({
      method: 'POST',
      url: '/auth/connect/token',
      payload: 'grant_type=client_credentials&audience=service_api&client_id=sandbox-client&client_secret=sandbox-secret',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return Number.isInteger(res.json().expires_in);
  },
  '3ds-without-token-accepted': async (p) =>
    (await p.api('POST', '/TransaccionCompra/3DS', undefined, compra3dsValida())).statusCode === 401,
  'get-transaction-without-auth': async (p) =>
    (await p.api('GET', `/TransaccionCompra/${String((await wallet(p)).idTransaccion)}`)).statusCode === 401,
  'mpos-without-permission-allowed': async (p) =>
    (await status(p, '/TransaccionCompra/Mpos/Banda', mposValido(), await p.bearer(NEGOCIO_SIN_MPOS))) === 403,
  'deleted-account-still-works': async (p) => {
    const desechable = basic(DESECHABLE.user, DESECHABLE.password);
    await p.api('DELETE', '/Cuenta', desechable);
    return (await p.api('DELETE', '/Cuenta', desechable)).statusCode === 401;
  },
  'failure-limit-not-enforced': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 1 } }));
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 410;
  },
  'success-limit-not-enforced': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    await p.pagar(link.urlEnlaceLargo);
    return (await p.pagar(link.urlEnlaceLargo)).statusCode === 410;
  },
  'activation-noop': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 1 } }));
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    return (await p.registro(link.idEnlace)).usable === true && (await p.pagar(link.urlEnlaceLargo)).statusCode === 303;
  },
  'vigencia-not-enforced': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ vigencia: { fechaFin: '2000-01-01T00:00:00Z' } }));
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 410;
  },
  'screen-duration-not-enforced': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', duracionInterfazIntentoMinutos: 1 },
      }),
    );
    const { campos } = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    await p.avanzar(61);
    return (await p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta() })).statusCode === 410;
  },
  'screen-cantidad-ignored': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({ configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', cantidadPorDefecto: 2 } }),
    );
    return consulta(await p.pagar(link.urlEnlaceLargo)).monto === '20.00';
  },
  'cvv-111-approved-on-screen': async (p) =>
    consulta(await p.pagar((await p.crearEnlace()).urlEnlaceLargo, tarjeta('111'))).esAprobada === 'false',
  'cvv-111-declines-3ds': async (p) => {
    const body = compra3dsValida({
      tarjetaCreditoDebido: { numeroTarjeta: '4111111111111111', cvv: '111', mesVencimiento: 1, anioVencimiento: 2031 },
    });
    const tds = (await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), body)).json();
    const fin = await p.app.inject({ method: 'POST', url: ruta(tds.urlCompletarPago3Ds) });
    return fin.statusCode === 303 && consulta(fin).esAprobada === 'true';
  },
  'esreal-true-in-development': async (p) => (await wallet(p)).esReal === false,
  '3ds-url-relative': async (p) =>
    URL.canParse((await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida())).json().urlCompletarPago3Ds),
  'hash-wrong-key': hashValido,
  'hash-wrong-order': hashValido,
  'webhook-missing': async (p) => (await webhookDeWallet(p)) !== undefined,
  'webhook-esproductiva-true': async (p) => (await webhookDeWallet(p))?.esProductiva === false,
  'webhook-without-datosadicionales': async (p) => JSON.stringify((await webhookDeWallet(p, { k: 'v' }))?.datosAdicionales) === '{"k":"v"}',
  'webhook-bad-signature': async (p, id) => {
    await wallet(p, { configuracion: { urlWebhook: `${receptor}/${id}` } });
    const [entrega] = await esperarEntregas(`/${id}`, 1);
    return entrega !== undefined && entrega.headers['x-signature'] === hmacHex(NEGOCIO.clientSecret, entrega.raw);
  },
  'webhook-on-decline': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({ configuracion: { notificarTransaccionCliente: false, urlWebhook: 'http://127.0.0.1:9/closed' } }),
    );
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    return p.ctx.store.outbox.webhooks.length === 0;
  },
  'webhook-no-retry': async (p, id) => {
    fallarPrimero.add(`/${id}`);
    await wallet(p, { configuracion: { urlWebhook: `${receptor}/${id}` } });
    // The retry comes 5 ms after the first 500; 300 ms is ample.
    return (await esperarEntregas(`/${id}`, 2, 300)).length === 2;
  },
  'quickpay-qr-never-expires': async (p) => {
    const qp = (await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 1 })).json();
    await p.avanzar(601);
    return (await p.app.inject({ method: 'POST', url: `/qp/${qp.idTransaccion}` })).statusCode === 410;
  },
  'get-returns-other-transaction': async (p) => {
    const primera = await wallet(p);
    await wallet(p);
    return (await obtener(p, primera.idTransaccion)).idTransaccion === primera.idTransaccion;
  },
  'unknown-id-500': async (p) => (await p.api('GET', '/TransaccionCompra/unknown', await p.bearer())).statusCode === 404,
  'malformed-json-500': async (p) => {
    const res = await p.app.inject({
      method: 'POST',
      url: '/api/EnlacePago',
      payload: '{"monto":',
      headers: { authorization: await p.bearer(), 'content-type': 'application/json' },
    });
    return res.statusCode === 400;
  },
  // The subtler state-machine faults and the tenant leaks.
  'failure-limit-one-early': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 200;
  },
  'failure-limit-one-late': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
    for (let i = 0; i < 2; i++) await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 410;
  },
  'success-limit-one-late': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 2 } }));
    for (let i = 0; i < 2; i++) await p.pagar(link.urlEnlaceLargo);
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 410;
  },
  'failure-counter-frozen': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
    for (let i = 0; i < 2; i++) await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 410 && (await p.registro(link.idEnlace)).cantidadIntentoPagoFallidos === 2;
  },
  'decline-counted-as-success': async (p) => {
    const link = await p.crearEnlace();
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    const r = await p.registro(link.idEnlace);
    return r.cantidadPagosExitosos === 0 && r.cantidadIntentoPagoFallidos === 1;
  },
  'success-counted-as-failure': async (p) => {
    const link = await p.crearEnlace();
    await p.pagar(link.urlEnlaceLargo);
    const r = await p.registro(link.idEnlace);
    return r.cantidadPagosExitosos === 1 && r.cantidadIntentoPagoFallidos === 0;
  },
  'transaccion-compra-set-by-decline': async (p) => {
    const link = await p.crearEnlace();
    const aprobada = consulta(await p.pagar(link.urlEnlaceLargo)).idTransaccion;
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    return ((await p.registro(link.idEnlace)).transaccionCompra as { idTransaccion?: string } | null)?.idTransaccion === aprobada;
  },
  'transaccion-compra-first-success': async (p) => {
    const link = await p.crearEnlace();
    await p.pagar(link.urlEnlaceLargo);
    const ultima = consulta(await p.pagar(link.urlEnlaceLargo)).idTransaccion;
    return ((await p.registro(link.idEnlace)).transaccionCompra as { idTransaccion?: string } | null)?.idTransaccion === ultima;
  },
  'transacciones-missing-declines': async (p) => {
    const link = await p.crearEnlace();
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    return ((await p.registro(link.idEnlace)).transacciones as unknown[]).length === 1;
  },
  'transacciones-duplicated': async (p) => {
    const link = await p.crearEnlace();
    await p.pagar(link.urlEnlaceLargo);
    return ((await p.registro(link.idEnlace)).transacciones as unknown[]).length === 1;
  },
  'screen-cantidad-applied-twice': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({ configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', cantidadPorDefecto: 3 } }),
    );
    return consulta(await p.pagar(link.urlEnlaceLargo)).monto === '30.00';
  },
  'screen-monto-editable-ignored': async (p) => {
    const link = await p.crearEnlace();
    return consulta(await p.pagar(link.urlEnlaceLargo, { ...tarjeta(), monto: '1.00' })).monto === '10.00';
  },
  'screen-validity-from-link-creation': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', duracionInterfazIntentoMinutos: 1 },
      }),
    );
    await p.avanzar(120);
    return (await p.pagar(link.urlEnlaceLargo)).statusCode === 303;
  },
  'quickpay-qr-expires-late': async (p) => {
    const qp = (await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 1 })).json();
    await p.avanzar(660);
    return (await p.app.inject({ method: 'POST', url: `/qp/${qp.idTransaccion}` })).statusCode === 410;
  },
  'bitcoin-lookup-without-datosbitcoin': async (p) => {
    const formaPago = {
      permitirTarjetaCreditoDebido: false,
      permitirPagoConPuntoPartner: false,
      permitirPagoEnCuotasPartner: false,
      permitirPagoEnBitcoin: true,
      permitePagoQuickPay: false,
    };
    const link = await p.crearEnlace(enlaceValido({ formaPago }));
    await p.pagar(link.urlEnlaceLargo, { formaPago: '3', email: 'ana@cliente.test' });
    const [id] = [...p.ctx.store.transactions.keys()];
    return typeof (await obtener(p, id)).datosBitcoin === 'object';
  },
  'tenant-transaction-readable': async (p) => {
    const id = (await wallet(p)).idTransaccion;
    return (await p.api('GET', `/TransaccionCompra/${String(id)}`, await p.bearer(OTRO_NEGOCIO))).statusCode === 404;
  },
  'tenant-link-activatable': async (p) => {
    const link = await p.crearEnlace();
    return (await p.api('PUT', `/EnlacePago/${link.idEnlace}/activar`, basic(OTRA_CUENTA.user, OTRA_CUENTA.password))).statusCode === 403;
  },
  'tenant-pagoqr-other-link': async (p) => {
    const link = await p.crearEnlace();
    return (
      (await status(p, '/TransaccionCompra/PagoQr', { urlEnlacePago: link.urlEnlace }, basic(OTRA_CUENTA.user, OTRA_CUENTA.password))) ===
      403
    );
  },
  'tenant-mpos-other-idaplicativo': async (p) =>
    (await status(
      p,
      '/TransaccionCompra/Mpos/Banda',
      mposValido({ idAplicativo: 'app-dev-1' }),
      basic(OTRA_CUENTA.user, OTRA_CUENTA.password),
    )) === 400,
  'link-record-two-fields': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({
        infoProducto: { urlImagenProducto: 'https://example.com/p.png' },
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', urlRetorno: 'https://example.com/volver' },
      }),
    );
    const record = (
      await p.api('PUT', `/EnlacePago/${link.idEnlace}/activar`, basic('merchant@sandbox.test', 'sandbox-password'))
    ).json() as { infoProducto: { urlImagenProducto: unknown }; configuracion: { urlRetorno: unknown } };
    return (
      record.infoProducto.urlImagenProducto === 'https://example.com/p.png' &&
      record.configuracion.urlRetorno === 'https://example.com/volver'
    );
  },
  'token-audience-own': tokenServiceApi,
  'telefono-digits-only': async (p) => {
    const enlace = await crearEnlace(
      p,
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', telefonosNotificacion: '+503 7777-7777' },
      }),
    );
    return enlace === 200 && (await status(p, '/TransaccionCompra/3DS', compra3dsValida({ telefono: '+503 7777 7777' }))) === 200;
  },
  'link-redirect-four-fields': async (p) => {
    const link = await p.crearEnlace();
    const q = consulta(await p.pagar(link.urlEnlaceLargo));
    return q.esAprobada === 'true' && q.hash === hmacHex(NEGOCIO.clientSecret, HASH_6_3.map((k) => q[k]).join(''));
  },
  'webhook-monto-string': async (p) => typeof (await webhookDeWallet(p))?.monto === 'number',
  'webhook-bom': async (p, id) => {
    await wallet(p, { configuracion: { urlWebhook: `${receptor}/${id}` } });
    const [entrega] = await esperarEntregas(`/${id}`, 1);
    return entrega?.raw.startsWith('{') === true;
  },
  deployed: tokenServiceApi,
  'responses-text-plain': async (p) => {
    const res = await p.api('POST', '/EnlacePago', await p.bearer(), enlaceValido());
    return String(res.headers['content-type']).startsWith('application/json');
  },
  ...SONDAS_HABITOS,
  ...SONDAS_PANTALLAS,
  ...SONDAS_PUERTAS,
  ...SONDAS_CLASES,
};

describe('fault catalogue', () => {
  it('has at least 32 faults with unique ids, an area and a description', () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(32);
    expect(new Set(FAULTS.map((f) => f.id)).size).toBe(FAULTS.length);
    for (const f of FAULTS) {
      expect(f.id).toMatch(/^[a-z0-9-]+$/);
      expect(f.area).not.toBe('');
      expect(f.description.length).toBeGreaterThan(10);
    }
  });

  it.each(FAULTS.map((f) => f.id))('%s breaks the behaviour it names', async (id) => {
    for (const [fault, esperado] of [
      [undefined, true],
      [id, false],
    ] as const) {
      const p = await sandbox({ fault, webhookRetryDelaysMs: [5] });
      try {
        expect(await SONDAS[id](p, `${id}-${fault ?? 'none'}`), fault ? `with fault ${fault}` : 'without fault').toBe(esperado);
      } finally {
        await p.app.close();
      }
    }
  });
});
