/**
 * Transactions (spec 2.2): creation with the test-mode rules of spec 7, approval/decline, the 2.2 view shared by
 * GET /TransaccionCompra/{id} (4.8) and the link record, and the GET route itself.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, onRequestAsyncHookHandler } from 'fastify';
import { requireAuth } from './auth.ts';
import type { Actor, SandboxContext } from './context.ts';
import type { Business, Link, Notificaciones, TipoTransaccion, Transaction } from './store.ts';
import type { Lector } from './validate.ts';
import { fechaServicio, vistaTransaccion } from './views.ts';
import { clockOf, tenantOfAuthorization } from './tenants.ts';

export const MENSAJE_DECLINADA = 'Transacción declinada (cvv de prueba 111)';

/** Notification settings of a transaction: its own fields win, then the link's, then the business's. */
export function notificacionesEfectivas(business: Business, link: Link | null, propias: Partial<Notificaciones> = {}): Notificaciones {
  const capas: Partial<Notificaciones>[] = [propias, link?.configuracion ?? {}, business.notificaciones];
  const primero = <K extends keyof Notificaciones>(k: K): Notificaciones[K] | null =>
    capas.map((c) => c[k]).find((v) => v !== undefined && v !== null) ?? null;
  return {
    urlWebhook: primero('urlWebhook'),
    emailsNotificacion: primero('emailsNotificacion'),
    telefonosNotificacion: primero('telefonosNotificacion'),
    notificarTransaccionCliente: primero('notificarTransaccionCliente'),
  };
}

/** The optional per-transaction configuracion of 4.3, 4.4 and 4.6 (overrides the business settings). */
export function leerNotificaciones(b: Lector): Partial<Notificaciones> {
  const c = b.objeto('configuracion');
  if (c === undefined) return {};
  return {
    emailsNotificacion: c.lista('emailsNotificacion', 'email'),
    urlWebhook: c.texto('urlWebhook', { url: true }),
    telefonosNotificacion: c.lista('telefonosNotificacion', 'telefono'),
    notificarTransaccionCliente: c.booleano('notificarTransaccionCliente'),
  };
}

/** onRequest hook of every purchase POST (API and hosted): counts it, accepted or not (test-control stats). */
export const contarSolicitudCompra: onRequestAsyncHookHandler = async (req) => {
  const { store } = req.server.sandbox;
  store.stats.purchaseRequests += 1;
  const tenant = tenantOfAuthorization(store, req.headers.authorization);
  if (tenant) tenant.stats.purchaseRequests += 1;
};

export interface DatosTransaccion {
  tipo: TipoTransaccion;
  business: Business;
  monto: number;
  formaPago: number;
  notificaciones: Notificaciones;
  idExterno?: string | null;
  datosAdicionales?: Record<string, string> | null;
  idEnlace?: number | null;
  idCuentaPagador?: string | null;
  emailCliente?: string | null;
  urlRedirect?: string | null;
}

/** 2.2 says only "string": a UUID by default; variant idtransaccion-numeric: 19 digits (a snowflake-like number). */
function nuevoIdTransaccion(ctx: SandboxContext): string {
  if (!ctx.variant('idtransaccion-numeric')) return randomUUID();
  let id: string;
  do id = `${randomInt(1, 10)}${String(randomInt(0, 1e9)).padStart(9, '0')}${String(randomInt(0, 1e9)).padStart(9, '0')}`;
  while (ctx.store.transactions.has(id));
  return id;
}

/** A new pending transaction (esAprobada false, resultadoTransaccion null), already in the store. */
export function nuevaTransaccion(ctx: SandboxContext, d: DatosTransaccion): Transaction {
  const tx: Transaction = {
    idTransaccion: nuevoIdTransaccion(ctx),
    tipo: d.tipo,
    idAplicativo: d.business.idAplicativo,
    idCuentaPagador: d.idCuentaPagador ?? null,
    // Spec 2.2/7: a development business makes test transactions (not charged).
    esReal: d.business.estaProductivo || ctx.fault('esreal-true-in-development'),
    esAprobada: false,
    codigoAutorizacion: null,
    mensaje: null,
    formaPago: d.formaPago,
    monto: d.monto,
    montoOriginal: d.monto,
    resultadoTransaccion: null,
    fechaTransaccion: fechaServicio(ctx.variant, clockOf(ctx, d.business.idAplicativo).nowMs()),
    // Fault idexterno-case-folded: a collation that folds case stores the identifier in lower case.
    idExterno: d.idExterno == null ? null : ctx.fault('idexterno-case-folded') ? d.idExterno.toLowerCase() : d.idExterno,
    datosAdicionales: d.datosAdicionales ?? null,
    idEnlace: d.idEnlace ?? null,
    notificaciones: d.notificaciones,
    emailCliente: d.emailCliente ?? null,
    urlRedirect: d.urlRedirect ?? null,
    fechaVencimiento: null,
    datosBitcoin: null,
  };
  ctx.store.transactions.set(tx.idTransaccion, tx);
  return tx;
}

export function aprobar(ctx: SandboxContext, tx: Transaction): void {
  tx.esAprobada = true;
  tx.resultadoTransaccion = 0;
  // 2.2: the code is "of an approved real transaction"; variant codigo-autorizacion-dev-empty gives a test one "".
  const sinCodigo = !tx.esReal && ctx.variant('codigo-autorizacion-dev-empty');
  tx.codigoAutorizacion = sinCodigo ? '' : String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0');
  // Variant lookup-deployed-shape: an approval says so in mensaje, as the deployed service writes it.
  tx.mensaje = ctx.variant('lookup-deployed-shape') ? 'AUTORIZADO' : null;
}

export function declinar(ctx: SandboxContext, tx: Transaction, mensaje: string): void {
  tx.esAprobada = false;
  tx.resultadoTransaccion = 1;
  // 2.2: no code without an approval (fault declined-has-codigo-autorizacion: the processor's reference kept as one).
  tx.codigoAutorizacion = ctx.fault('declined-has-codigo-autorizacion')
    ? String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0')
    : null;
  tx.mensaje = mensaje;
}

// The 2.2 view lives in views.ts (notifications and links use it without importing this plugin).
export { valorEnum, vistaTransaccion } from './views.ts';

/** A transaction is visible to its business, to the businesses' account, and to the account that paid it. */
function puedeVer(actor: Actor, tx: Transaction): boolean {
  if (actor.via === 'bearer') return tx.idAplicativo === actor.business.idAplicativo;
  return actor.account.aplicativos.includes(tx.idAplicativo) || tx.idCuentaPagador === actor.account.idCuenta;
}

export const transactionsApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  // Fault lookup-stale-cache: the first answer for an id is kept and served again; nothing a payment does refreshes it.
  const cache = new Map<string, Record<string, unknown>>();
  app.get<{ Params: { id: string } }>(
    '/TransaccionCompra/:id',
    {
      onRequest: requireAuth('either', {
        optional: ctx.fault('get-transaction-without-auth'),
        expiryIgnored: ctx.fault('lookup-token-expiry-ignored'),
      }),
    },
    async (req, reply) => {
      const actor = req.actor;
      let tx = ctx.store.transactions.get(req.params.id);
      if (tx === undefined && ctx.fault('unknown-id-500')) throw new Error('transaction lookup failed');
      const visible =
        ctx.fault('get-transaction-without-auth') ||
        ctx.fault('tenant-transaction-readable') ||
        (actor !== null && tx !== undefined && puedeVer(actor, tx));
      if (tx === undefined || actor === null || !visible) {
        return reply.code(404).send({ errores: [{ campo: 'id', mensaje: 'transacción no encontrada' }] });
      }
      const guardada = ctx.fault('lookup-stale-cache') ? cache.get(tx.idTransaccion) : undefined;
      if (guardada !== undefined) return guardada;
      if (ctx.fault('get-returns-other-transaction')) {
        tx = [...ctx.store.transactions.values()].find((t) => t.idTransaccion !== tx?.idTransaccion) ?? tx;
      }
      const vista: Record<string, unknown> = { ...vistaTransaccion(tx, ctx.fault, ctx.variant) };
      if (tx.datosBitcoin !== null && !ctx.fault('bitcoin-lookup-without-datosbitcoin')) vista.datosBitcoin = tx.datosBitcoin;
      else if (ctx.fault('bitcoin-lookup-without-datosbitcoin')) delete vista.datosBitcoin;
      if (ctx.fault('transaction-monto-string')) vista.monto = tx.monto.toFixed(2);
      if (ctx.fault('transaction-formapago-out-of-enum')) vista.formaPago = 7;
      if (ctx.fault('fecha-without-offset')) vista.fechaTransaccion = tx.fechaTransaccion.replace(/\.\d+Z$/, '');
      // Fault nullable-dropped: a serializer that omits nulls drops the 2.2 nullable fields instead of writing null.
      if (ctx.fault('nullable-dropped')) for (const k of ['montoOriginal', 'resultadoTransaccion']) if (vista[k] === null) delete vista[k];
      if (ctx.fault('lookup-stale-cache')) cache.set(tx.idTransaccion, vista);
      return vista;
    },
  );
};
