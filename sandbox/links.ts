/**
 * Payment links: 4.1 POST /EnlacePago, 4.2 PUT /EnlacePago/{id}/activar, the short URL (302 to the hosted screen)
 * and the link's QR PNG. Also the link rules shared with the screen and PagoQr: availability (activation, vigencia,
 * success limit) and the counters of spec 3 (failure limit → not usable).
 *
 * Activation (4.2, sandbox decision): usable again and new windows for both usage limits; the totals
 * cantidadIntentoPagoFallidos / cantidadPagosExitosos keep the link's whole history (variants of sandbox/variants.ts
 * choose otherwise: the counters, the `usable` flag, the order of transacciones, the size of idEnlace).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { requireAuth } from './auth.ts';
import type { SandboxContext } from './context.ts';
import { paginaEstado } from './html.ts';
import type { ConfiguracionEnlace, FormaPago, Link, Transaction } from './store.ts';
import { vistaTransaccion } from './views.ts';
import { validacionApi } from './validate.ts';
import { clockOf } from './tenants.ts';

const CUOTAS: Record<string, number> = { Tres: 3, Seis: 6, Nueve: 9, Doce: 12 };
const CAMPOS_FORMA_PAGO = [
  'permitirTarjetaCreditoDebido',
  'permitirPagoConPuntoPartner',
  'permitirPagoEnCuotasPartner',
  'permitirPagoEnBitcoin',
  'permitePagoQuickPay',
] as const satisfies readonly (keyof FormaPago)[];
/** Spec 4.1: when formaPago is omitted, card and points are accepted. */
const FORMA_PAGO_POR_DEFECTO: FormaPago = {
  permitirTarjetaCreditoDebido: true,
  permitirPagoConPuntoPartner: true,
  permitirPagoEnCuotasPartner: false,
  permitirPagoEnBitcoin: false,
  permitePagoQuickPay: false,
};

// Stryker disable all: only variant urls-deployed calls it (plumbing, off by default; npm run mutation:stryker)
/** Variant urls-deployed: the token the long URL carries beside the id (stateless: a signature of the id). */
function tokenEnlace(ctx: SandboxContext, idEnlace: number): string {
  return createHmac('sha256', ctx.claveIntento).update(`enlace.${idEnlace}`).digest('base64url').slice(0, 24);
}
// Stryker restore all

/** Variant urls-deployed: the link of a long URL's query `?e=<idEnlace>&h=<token>`, or undefined. */
// Stryker disable all: only variant urls-deployed calls it (plumbing, off by default; npm run mutation:stryker)
export function enlaceDeConsulta(ctx: SandboxContext, e: unknown, h: unknown): Link | undefined {
  const id = typeof e === 'string' ? idEnlaceDeRuta(ctx, e) : undefined;
  if (id === undefined || typeof h !== 'string' || h !== tokenEnlace(ctx, id)) return undefined;
  return ctx.store.links.get(id);
}
// Stryker restore all

function urlsEnlace(ctx: SandboxContext, link: Link) {
  return {
    urlEnlace: `${ctx.origin}/l/${link.codigo}`,
    // Variant urls-deployed: a long URL that already carries a query string (the hosted screen's /pago).
    urlEnlaceLargo: ctx.variant('urls-deployed')
      ? `${ctx.origin}/pago?e=${link.idEnlace}&h=${tokenEnlace(ctx, link.idEnlace)}`
      : `${ctx.origin}/pagar/${link.idEnlace}`,
    urlQrCodeEnlace: `${ctx.origin}/qr/enlace/${link.idEnlace}.png`,
  };
}

/** An idEnlace written in a path: up to 9 digits, or (variant idenlace-large, ids past 2^32) up to 15. */
export function idEnlaceDeRuta(ctx: SandboxContext, texto: string): number | undefined {
  return (ctx.variant('idenlace-large') ? /^\d{1,15}$/ : /^\d{1,9}$/).test(texto) ? Number(texto) : undefined;
}

const MOTIVO_VENCIDO = 'el enlace está vencido';
const MOTIVO_LIMITE_EXITOSOS = 'el enlace alcanzó el máximo de pagos exitosos';

const DIA_MS = 86_400_000;
const finDelDiaUtc = (ms: number): number => Math.floor(ms / DIA_MS) * DIA_MS + DIA_MS - 1;
// Stryker disable all: only fault fechafin-calendar-date calls it (plumbing, off by default; npm run mutation:stryker)
/** Fault fechafin-calendar-date: the last instant of the date written (its own offset), as a date-only comparison reads it. */
const finDelDiaEscrito = (fecha: string): number => {
  const zona = /(Z|[+-]\d{2}:?\d{2})$/i.exec(fecha)?.[1] ?? 'Z';
  return Date.parse(`${fecha.slice(0, 10)}T23:59:59.999${zona}`);
};
// Stryker restore all

/**
 * How long the race faults (race-success-limit, race-failure-counter, race-activar-overwrites) wait between reading
 * link state and writing it — a database round trip, wide enough that payments sent at the same instant all land
 * inside it. Without those
 * faults nothing awaits between a link's check and its commit, so Node runs each payment's check-then-commit whole.
 */
const VENTANA_CARRERA_MS = 50;
// Stryker disable next-line all: only the race faults wait (plumbing, off by default; npm run mutation:stryker)
export const ventanaDeCarrera = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, VENTANA_CARRERA_MS));

/** Why the link cannot take a payment now, or null when it can. */
export function motivoNoDisponible(ctx: SandboxContext, link: Link): string | null {
  if (!link.activo) return 'el enlace está inactivo: alcanzó el máximo de pagos fallidos';
  const ahora = clockOf(ctx, link.idAplicativo).nowMs();
  const { fechaInicio, fechaFin } = link.vigencia;
  // Fault vigencia-inicio-offset-dropped: fechaInicio's wall time read as UTC, its offset ignored.
  const inicio =
    fechaInicio === null
      ? null
      : ctx.fault('vigencia-inicio-offset-dropped')
        ? Date.parse(fechaInicio.replace(/(?:Z|[+-]\d{2}:\d{2})$/, 'Z'))
        : Date.parse(fechaInicio);
  if (inicio !== null && ahora < inicio) return 'el enlace aún no está vigente';
  // Fault vigencia-end-by-date: fechaFin read as a calendar day (UTC), so the link lasts until that day's end.
  const fin =
    fechaFin === null
      ? null
      : ctx.fault('vigencia-end-by-date')
        ? finDelDiaUtc(Date.parse(fechaFin))
        : ctx.fault('fechafin-calendar-date')
          ? finDelDiaEscrito(fechaFin)
          : Date.parse(fechaFin);
  if (fin !== null && ahora > fin && !ctx.fault('vigencia-not-enforced')) return MOTIVO_VENCIDO;
  const maxExitosos = link.limitesDeUso.cantidadMaximaPagosExitosos;
  const tope = maxExitosos === null ? null : maxExitosos + (ctx.fault('success-limit-one-late') ? 1 : 0);
  if (tope !== null && link.exitososDesdeActivacion >= tope && !ctx.fault('success-limit-not-enforced')) {
    return MOTIVO_LIMITE_EXITOSOS;
  }
  return null;
}

/**
 * The 2.1 flag `usable`: by default false whenever the link cannot take a payment. Spec 3 shows only the failure
 * limit turning it false; variants usable-at-success-limit / usable-after-vigencia keep it true in those states
 * (payments are still refused: motivoNoDisponible).
 */
function usableSegunVariante(ctx: SandboxContext, link: Link): boolean {
  const motivo = motivoNoDisponible(ctx, link);
  if (motivo === MOTIVO_LIMITE_EXITOSOS && ctx.variant('usable-at-success-limit')) return true;
  if (motivo === MOTIVO_VENCIDO && ctx.variant('usable-after-vigencia')) return true;
  return motivo === null;
}

/**
 * Counts a settled payment of the link (synchronous: never await between reading and writing link state). Returns
 * a promise only under fault race-failure-counter; the caller awaits it then.
 */
export function contarResultado(ctx: SandboxContext, link: Link, tx: Transaction): void | Promise<void> {
  const { fault } = ctx;
  if (fault('transaccion-compra-set-by-decline')) link.idTransaccionCompra = tx.idTransaccion;
  // The counters of 2.1 count the outcome; the faults swap which counter one outcome lands in.
  const exitoso = tx.esAprobada ? !fault('success-counted-as-failure') : fault('decline-counted-as-success');
  if (tx.esAprobada) {
    if (!(fault('transaccion-compra-first-success') && link.idTransaccionCompra !== null)) link.idTransaccionCompra = tx.idTransaccion;
    if (fault('transacciones-duplicated')) link.transacciones.push(tx.idTransaccion);
  }
  if (exitoso) {
    link.cantidadPagosExitosos += 1;
    link.exitososDesdeActivacion += 1;
    return;
  }
  // Fault failure-counter-frozen: the decline is listed but never counted, so the limit it drives is never reached.
  if (fault('failure-counter-frozen')) return;
  if (fault('race-failure-counter')) {
    // Read, wait, write back what was read plus one: declines at the same instant overwrite each other's increment.
    const [total, desdeActivacion] = [link.cantidadIntentoPagoFallidos, link.fallidosDesdeActivacion];
    return ventanaDeCarrera().then(() => {
      link.cantidadIntentoPagoFallidos = total + 1;
      link.fallidosDesdeActivacion = desdeActivacion + 1;
      inactivarAlLimite(ctx, link);
    });
  }
  link.cantidadIntentoPagoFallidos += 1;
  link.fallidosDesdeActivacion += 1;
  inactivarAlLimite(ctx, link);
}

/** Spec 3: the link becomes inactive once its failures since the last activation reach cantidadMaximaPagosFallidos. */
function inactivarAlLimite(ctx: SandboxContext, link: Link): void {
  const { fault } = ctx;
  const maxFallidos = link.limitesDeUso.cantidadMaximaPagosFallidos;
  const tope =
    maxFallidos === null ? null : maxFallidos + (fault('failure-limit-one-early') ? -1 : fault('failure-limit-one-late') ? 1 : 0);
  if (tope !== null && link.fallidosDesdeActivacion >= tope && !fault('failure-limit-not-enforced')) {
    link.activo = false;
  }
}

/** The 2.1 payment link record. */
function registroEnlace(ctx: SandboxContext, link: Link) {
  const { store } = ctx;
  const business = store.businesses.get(link.idAplicativo);
  const vista = (id: string) => {
    const tx = store.transactions.get(id);
    return tx === undefined ? null : vistaTransaccion(tx, ctx.fault, ctx.variant);
  };
  const { urlImagenProducto } = link.infoProducto;
  return {
    idEnlace: link.idEnlace,
    idAplicativo: link.idAplicativo,
    nombreAplicativo: business?.nombre ?? null,
    nombreEnlace: link.nombreEnlace,
    monto: link.monto,
    nombreProducto: link.nombreProducto,
    usable: usableSegunVariante(ctx, link),
    transaccionCompra: link.idTransaccionCompra === null ? null : vista(link.idTransaccionCompra),
    cantidadIntentoPagoFallidos: link.cantidadIntentoPagoFallidos,
    cantidadPagosExitosos: link.cantidadPagosExitosos,
    formaPago: link.formaPago,
    infoProducto: link.infoProducto,
    // Fault link-record-two-fields: two independent settings of the record answered wrong (the product image, the
    // link's back-button target), each judged by its own clause of the same test.
    configuracion: ctx.fault('link-record-two-fields') ? { ...link.configuracion, urlRetorno: null } : link.configuracion,
    cantidadMaximaCuotas: link.cantidadMaximaCuotas,
    // Variant transacciones-newest-first: 2.1 does not give the order of the list.
    transacciones: (ctx.variant('transacciones-newest-first') ? [...link.transacciones].reverse() : link.transacciones)
      .map(vista)
      .filter((t) => t !== null && !(ctx.fault('transacciones-missing-declines') && !t.esAprobada))
      // Fault transacciones-page-cap: a first page passed off as the whole list.
      .slice(0, ctx.fault('transacciones-page-cap') ? 100 : undefined),
    imagenes: urlImagenProducto === null ? [] : [{ url: urlImagenProducto, esPrincipal: true }],
    ...(ctx.fault('link-record-two-fields') ? { infoProducto: { ...link.infoProducto, urlImagenProducto: null } } : {}),
    vigencia: link.vigencia,
    limitesDeUso: link.limitesDeUso,
    datosAdicionales: link.datosAdicionales,
    idGrupoTarjetas: link.idGrupoTarjetas,
    ...urlsEnlace(ctx, link),
    estaProductivo: business?.estaProductivo ?? false,
  };
}

export const linksApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;

  // Fault enlacepago-route-missing: the route is not there (as a base path that lacks a segment), whatever is sent.
  const rutaAusente = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (ctx.fault('enlacepago-route-missing'))
      await reply.code(404).send({ errores: [{ campo: 'url', mensaje: `no existe ${req.method} en esta ruta` }] });
  };
  app.post('/EnlacePago', { onRequest: [rutaAusente, requireAuth('bearer')] }, async (req, reply) => {
    const { fault } = ctx;
    const v = validacionApi(ctx);
    const b = v.cuerpo(req.body);
    const max = fault('link-maxlength-not-enforced') ? undefined : 500;
    const identificadorEnlaceComercio = b.texto('identificadorEnlaceComercio', { requerido: true, max });
    const monto = b.numero('monto', {
      requerido: true,
      ...(fault('link-monto-min-rejected') ? { mayorQue: 0.01 } : { min: fault('link-monto-zero-accepted') ? 0 : 0.01 }),
      aceptarTexto: fault('link-monto-string-accepted'),
    });
    const nombreProducto = b.texto('nombreProducto', {
      requerido: true,
      max: fault('link-nombreproducto-500-rejected') ? 499 : max,
    });

    let formaPago = { ...FORMA_PAGO_POR_DEFECTO };
    const fp = b.objeto('formaPago');
    if (fp !== undefined) {
      const flags = CAMPOS_FORMA_PAGO.map((k) => fp.booleano(k, !fault('link-formapago-partial-accepted')));
      formaPago = Object.fromEntries(CAMPOS_FORMA_PAGO.map((k, i) => [k, flags[i] ?? false])) as unknown as FormaPago;
      if (flags.every((f) => f !== true) && !fault('link-formapago-all-false-accepted')) {
        v.error('formaPago', 'al menos una forma de pago debe ser true');
      }
    }
    const cantidadMaximaCuotas = b.enumeracion('cantidadMaximaCuotas', CUOTAS);
    const idGrupoTarjetas = b.texto('idGrupoTarjetas');
    const info = b.objeto('infoProducto');
    const descripcionProducto = info?.texto('descripcionProducto');
    const urlImagenProducto = info?.texto('urlImagenProducto', { url: true });

    const c = b.objeto('configuracion');
    const configuracion: ConfiguracionEnlace = {
      urlRedirect: c?.texto('urlRedirect', { url: true }) ?? null,
      esMontoEditable: c?.booleano('esMontoEditable') ?? false,
      esCantidadEditable: c?.booleano('esCantidadEditable') ?? false,
      cantidadPorDefecto: c?.numero('cantidadPorDefecto', { entero: true, min: 1 }) ?? 1,
      duracionInterfazIntentoMinutos: c?.numero('duracionInterfazIntentoMinutos', { entero: true, min: 1 }) ?? null,
      urlRetorno: c?.texto('urlRetorno', { url: true }) ?? null,
      emailsNotificacion: c?.lista('emailsNotificacion', 'email') ?? null,
      urlWebhook: c?.texto('urlWebhook', { url: true }) ?? null,
      telefonosNotificacion: c?.lista('telefonosNotificacion', 'telefono') ?? null,
      notificarTransaccionCliente: c?.booleano('notificarTransaccionCliente', !fault('link-notificar-cliente-not-required')) ?? false,
    };
    // configuracion itself is optional (4.1), but without it there is no notification target: the rule below reports it.
    if (!c?.presente('urlWebhook') && !c?.presente('emailsNotificacion') && !fault('link-notification-target-not-required')) {
      const mensaje = 'se requiere urlWebhook o emailsNotificacion (al menos uno no nulo)';
      v.error('configuracion.urlWebhook', mensaje);
      v.error('configuracion.emailsNotificacion', mensaje);
    }

    const vig = b.objeto('vigencia');
    const fechaInicio = vig?.fecha('fechaInicio') ?? null;
    const fechaFin = vig?.fecha('fechaFin') ?? null;
    if (fechaInicio !== null && fechaFin !== null && Date.parse(fechaInicio) > Date.parse(fechaFin)) {
      v.error('vigencia.fechaFin', 'debe ser posterior a fechaInicio');
    }
    const lim = b.objeto('limitesDeUso');
    const cantidadMaximaPagosExitosos = lim?.numero('cantidadMaximaPagosExitosos', { entero: true, min: 1 }) ?? null;
    const cantidadMaximaPagosFallidos = lim?.numero('cantidadMaximaPagosFallidos', { entero: true, min: 1 }) ?? null;
    const datosAdicionales = b.diccionario('datosAdicionales') ?? null;

    if (!v.ok || identificadorEnlaceComercio === undefined || monto === undefined || nombreProducto === undefined) {
      return reply.code(400).send({ errores: v.errores });
    }
    const business = req.actor!.business;
    const { store } = ctx;
    let codigo = randomUUID().slice(0, 8);
    while (store.linkCodes.has(codigo)) codigo = randomUUID().slice(0, 8);
    const link: Link = {
      // Variant idenlace-large: ids past 2^32 (2.1 says int, not how large).
      // Variant urls-deployed: ids in the millions, as the deployed service's.
      idEnlace:
        store.nextIdEnlace++ + (ctx.variant('idenlace-large') ? 2 ** 32 + 1000 : 0) + (ctx.variant('urls-deployed') ? 4_000_000 : 0),
      codigo,
      creadoMs: clockOf(ctx, business.idAplicativo).nowMs(),
      idAplicativo: business.idAplicativo,
      identificadorEnlaceComercio,
      nombreEnlace: identificadorEnlaceComercio,
      monto,
      nombreProducto,
      formaPago,
      cantidadMaximaCuotas: cantidadMaximaCuotas ?? Math.max(...business.cuotasDisponibles.map((q) => q.cantidadCuotas)),
      idGrupoTarjetas: idGrupoTarjetas ?? null,
      infoProducto: { descripcionProducto: descripcionProducto ?? null, urlImagenProducto: urlImagenProducto ?? null },
      configuracion,
      vigencia: { fechaInicio, fechaFin },
      limitesDeUso: { cantidadMaximaPagosExitosos, cantidadMaximaPagosFallidos },
      datosAdicionales,
      activo: true,
      cantidadIntentoPagoFallidos: 0,
      cantidadPagosExitosos: 0,
      fallidosDesdeActivacion: 0,
      exitososDesdeActivacion: 0,
      transacciones: [],
      idTransaccionCompra: null,
    };
    store.links.set(link.idEnlace, link);
    store.linkCodes.set(codigo, link.idEnlace);

    const respuesta: Record<string, unknown> = {
      idEnlace: fault('link-idenlace-string') ? String(link.idEnlace) : link.idEnlace,
      ...urlsEnlace(ctx, link),
      estaProductivo: business.estaProductivo,
    };
    if (fault('link-urlenlace-missing')) delete respuesta.urlEnlace;
    if (ctx.variant('created-201-location')) reply.code(201).header('location', `${ctx.origin}/api/EnlacePago/${link.idEnlace}`);
    return respuesta;
  });

  app.put<{ Params: { id: string } }>('/EnlacePago/:id/activar', { onRequest: requireAuth('account') }, async (req, reply) => {
    if (idEnlaceDeRuta(ctx, req.params.id) === undefined) {
      return reply.code(400).send({ errores: [{ campo: 'id', mensaje: 'debe ser un número entero' }] });
    }
    const link = ctx.store.links.get(Number(req.params.id));
    if (link === undefined) return reply.code(404).send({ errores: [{ campo: 'id', mensaje: 'enlace no encontrado' }] });
    if (!req.actor!.account.aplicativos.includes(link.idAplicativo) && !ctx.fault('tenant-link-activatable')) {
      return reply.code(403).send({ errores: [{ campo: 'id', mensaje: 'el enlace pertenece a otra cuenta' }] });
    }
    if (ctx.fault('race-activar-overwrites')) {
      // Read, wait, write the link back as read: payments committed meanwhile are lost from it.
      const leido = {
        transacciones: [...link.transacciones],
        cantidadPagosExitosos: link.cantidadPagosExitosos,
        idTransaccionCompra: link.idTransaccionCompra,
      };
      await ventanaDeCarrera();
      Object.assign(link, leido);
    }
    if (!ctx.fault('activation-noop')) {
      link.activo = true;
      link.fallidosDesdeActivacion = 0;
      link.exitososDesdeActivacion = 0;
      // Variant activar-resets-then-answers: re-activation clears the failures, and the record answered is the one
      // just reset (4.2 returns "the full link record"; 2.1 does not say what re-activation does to the counter).
      if (ctx.variant('activar-resets-then-answers')) link.cantidadIntentoPagoFallidos = 0;
    }
    const registro = registroEnlace(ctx, link);
    // Variant activar-resets-counters: the record shows the counters as they stood, and they start again from 0
    // (4.2 does not say what activar does to them; the next activar shows the payments made since this one).
    if (ctx.variant('activar-resets-counters') && !ctx.fault('activation-noop')) {
      link.cantidadIntentoPagoFallidos = 0;
      link.cantidadPagosExitosos = 0;
    }
    return registro;
  });
};

/** Short URL and QR image of a link (hosted, no authentication). */
export const linksPages: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;

  app.get<{ Params: { codigo: string } }>('/l/:codigo', async (req, reply) => {
    const id = ctx.store.linkCodes.get(req.params.codigo);
    const link = id === undefined ? undefined : ctx.store.links.get(id);
    if (link === undefined) return reply.code(404).type('text/html; charset=utf-8').send(paginaEstado('Enlace de pago', 'no encontrado'));
    return reply.redirect(urlsEnlace(ctx, link).urlEnlaceLargo, ctx.variant('redirect-301') ? 301 : 302);
  });

  app.get<{ Params: { archivo: string } }>('/qr/enlace/:archivo', async (req, reply) => {
    const id = req.params.archivo.endsWith('.png') ? idEnlaceDeRuta(ctx, req.params.archivo.slice(0, -4)) : undefined;
    const link = id === undefined ? undefined : ctx.store.links.get(id);
    if (link === undefined) return reply.code(404).type('text/html; charset=utf-8').send(paginaEstado('Código QR', 'no encontrado'));
    const png = await QRCode.toBuffer(urlsEnlace(ctx, link).urlEnlace, { type: 'png', margin: 2, scale: 6 });
    return reply.type('image/png').send(png);
  });
};
