/**
 * The probes of the faults of habits that ship (races, replays, short lifetimes, serializer habits) for faults.test.ts: each
 * answers "is this behaviour correct?" — true on the clean sandbox, false with its fault. Kept apart so the
 * catalogue's test file only spreads them in.
 */
import type { LightMyRequestResponse } from 'fastify';
import type { FaultId } from '../../sandbox/index.ts';
import {
  CUENTA,
  NEGOCIO,
  type Prueba,
  basic,
  compra3dsValida,
  consulta,
  enlaceValido,
  formulario,
  ruta,
  tarjeta,
  walletValido,
} from './helpers.ts';

type Sonda = (p: Prueba, id: string) => Promise<boolean>;
type Cuerpo = Record<string, unknown>;

const cuenta = basic(CUENTA.user, CUENTA.password);
/** A port nothing listens on: the webhook is recorded in the outbox, its delivery fails quietly. */
const WEBHOOK_CERRADO = 'http://127.0.0.1:9/closed';
const configuracion = (extra: Cuerpo = {}): Cuerpo => ({ notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', ...extra });

/** Opens the screen `n` times (one attempt each), then submits every form at the same instant. */
async function pagarALaVez(p: Prueba, url: string, n: number, campos: Record<string, string>): Promise<LightMyRequestResponse[]> {
  const formularios = [];
  for (let i = 0; i < n; i++) formularios.push(formulario((await p.abrir(url)).body).campos);
  return Promise.all(formularios.map((f) => p.enviarFormulario(url, { ...f, ...campos })));
}

const transaccionesDe = async (p: Prueba, idEnlace: number) => (await p.registro(idEnlace)).transacciones as Cuerpo[];

async function token(p: Prueba, secreto: string): Promise<number> {
  const res = await p.app.inject({
    method: 'POST',
    url: '/auth/connect/token',
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      audience: 'service_api',
      client_id: NEGOCIO.clientId,
      client_secret: secreto,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return res.statusCode;
}

export const SONDAS_HABITOS = {
  'race-success-limit': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    const respuestas = await pagarALaVez(p, link.urlEnlaceLargo, 3, tarjeta());
    const aprobadas = respuestas.filter((r) => r.statusCode === 303 && consulta(r).esAprobada === 'true').length;
    return aprobadas === 1 && (await p.registro(link.idEnlace)).cantidadPagosExitosos === 1;
  },
  'race-failure-counter': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
    await pagarALaVez(p, link.urlEnlaceLargo, 3, tarjeta('111'));
    const cerrado = (await p.abrir(link.urlEnlaceLargo)).statusCode === 410;
    const r = await p.registro(link.idEnlace);
    const declinadas = (r.transacciones as Cuerpo[]).filter((t) => t.esAprobada === false).length;
    return cerrado && r.cantidadIntentoPagoFallidos === 2 && declinadas === 2;
  },
  'race-activar-overwrites': async (p) => {
    const link = await p.crearEnlace();
    const activar = p.api('PUT', `/EnlacePago/${link.idEnlace}/activar`, cuenta);
    // The payments once activar is under way (inside its window under the fault).
    await new Promise((resolve) => setTimeout(resolve, 10));
    const pagos = await Promise.all(
      [1, 2].map(() => p.api('POST', '/TransaccionCompra/PagoQr', cuenta, { urlEnlacePago: link.urlEnlace })),
    );
    await activar;
    const ids = pagos.map((r) => r.json().idTransaccion);
    const listadas = (await transaccionesDe(p, link.idEnlace)).map((t) => t.idTransaccion);
    return pagos.every((r) => r.statusCode === 200) && ids.every((id) => listadas.includes(id));
  },
  'screen-replay-double-charge': async (p) => {
    const link = await p.crearEnlace();
    const { campos } = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    const primera = await p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta() });
    const segunda = await p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta() });
    return segunda.headers.location === primera.headers.location && (await transaccionesDe(p, link.idEnlace)).length === 1;
  },
  'screen-replay-redirect-invented': async (p) => {
    const link = await p.crearEnlace();
    const { campos } = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    await p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta() });
    const segunda = consulta(await p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta() }));
    return (await p.api('GET', `/TransaccionCompra/${segunda.idTransaccion}`, await p.bearer())).statusCode === 200;
  },
  '3ds-replay-double': async (p) => {
    const compra = (
      await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida({ configuracion: { urlWebhook: WEBHOOK_CERRADO } }))
    ).json();
    const completar = () => p.app.inject({ method: 'POST', url: ruta(compra.urlCompletarPago3Ds) });
    const primera = await completar();
    const segunda = await completar();
    return primera.statusCode === 303 && segunda.statusCode === 410 && p.ctx.store.outbox.webhooks.length === 1;
  },
  'token-dies-early': async (p) => {
    const auth = await p.bearer();
    await p.avanzar(1800);
    return (await p.api('POST', '/EnlacePago', auth, enlaceValido())).statusCode === 200;
  },
  'vigencia-end-by-date': async (p) => {
    // fechaFin at the start of today (UTC): past by the instant, not by the calendar day.
    const hoy = new Date(p.ctx.clock.nowMs());
    const fechaFin = new Date(Date.UTC(hoy.getUTCFullYear(), hoy.getUTCMonth(), hoy.getUTCDate())).toISOString();
    const link = await p.crearEnlace(enlaceValido({ vigencia: { fechaFin } }));
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 410;
  },
  'vigencia-inicio-offset-dropped': async (p) => {
    // fechaInicio a minute ago, written at +05:30: its wall time read as UTC lies hours ahead.
    const local = new Date(p.ctx.clock.nowMs() - 60_000 + 330 * 60_000).toISOString().slice(0, -1);
    const link = await p.crearEnlace(enlaceValido({ vigencia: { fechaInicio: `${local}+05:30` } }));
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 200;
  },
  'screen-expires-early': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', duracionInterfazIntentoMinutos: 1 },
      }),
    );
    const { campos } = formulario((await p.abrir(link.urlEnlaceLargo)).body);
    await p.avanzar(50);
    return (await p.enviarFormulario(link.urlEnlaceLargo, { ...campos, ...tarjeta() })).statusCode !== 410;
  },
  'quickpay-expires-before-stated': async (p) => {
    const qp = (await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 1 })).json();
    await p.avanzar(300);
    return (await p.app.inject({ method: 'POST', url: `/qp/${qp.idTransaccion}` })).statusCode === 200;
  },
  'datos-keys-recased': async (p) => {
    const datosAdicionales = { pedido: 'A-1', canalVenta: 'web' };
    const link = await p.crearEnlace(enlaceValido({ datosAdicionales, configuracion: configuracion({ urlWebhook: WEBHOOK_CERRADO }) }));
    const id = consulta(await p.pagar(link.urlEnlaceLargo)).idTransaccion;
    const lookup = (await p.api('GET', `/TransaccionCompra/${String(id)}`, await p.bearer())).json();
    const registro = await p.registro(link.idEnlace);
    const webhook = p.ctx.store.outbox.webhooks[0]?.body as Cuerpo | undefined;
    const iguales = (v: unknown) => JSON.stringify(v) === JSON.stringify(datosAdicionales);
    return (
      iguales(lookup.datosAdicionales) &&
      iguales(registro.datosAdicionales) &&
      iguales((registro.transacciones as Cuerpo[])[0]?.datosAdicionales) &&
      iguales(webhook?.datosAdicionales)
    );
  },
  'idexterno-case-folded': async (p) => {
    const tx = (await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido({ idExterno: 'Pedido-Ñ' }))).json();
    return tx.idExterno === 'Pedido-Ñ';
  },
  'transacciones-page-cap': async (p) => {
    const link = await p.crearEnlace();
    for (let i = 0; i < 101; i++) await p.pagar(link.urlEnlaceLargo);
    return (await transaccionesDe(p, link.idEnlace)).length === 101;
  },
  'nullable-dropped': async (p) => {
    const qp = (await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 1 })).json();
    const lookup = (await p.api('GET', `/TransaccionCompra/${String(qp.idTransaccion)}`, await p.bearer())).json() as Cuerpo;
    return 'resultadoTransaccion' in lookup && lookup.resultadoTransaccion === null;
  },
  'webhook-monto-unit-price': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({ configuracion: configuracion({ urlWebhook: WEBHOOK_CERRADO, cantidadPorDefecto: 3 }) }),
    );
    await p.pagar(link.urlEnlaceLargo);
    return (p.ctx.store.outbox.webhooks[0]?.body as Cuerpo | undefined)?.monto === 30;
  },
  'pagoqr-ignores-cantidad': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ configuracion: configuracion({ cantidadPorDefecto: 3 }) }));
    const res = await p.api('POST', '/TransaccionCompra/PagoQr', cuenta, { urlEnlacePago: link.urlEnlace });
    return res.json().monto === 30;
  },
  'secret-case-blind': async (p) =>
    (await token(p, NEGOCIO.clientSecret)) === 200 && (await token(p, NEGOCIO.clientSecret.toUpperCase())) === 401,
} satisfies Partial<Record<FaultId, Sonda>>;
