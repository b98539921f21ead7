/**
 * 4.5 purchase from a link QR: an account pays the link behind `urlEnlacePago` (the link's short URL) for
 * cantidadPorDefecto × monto (4.1: amount charged = quantity × monto). Unknown link → 404; a link of another account
 * → 403 (tenant isolation); a link that cannot take payments
 * now (inactive, outside vigencia, success limit) → 400.
 */
import type { FastifyPluginAsync } from 'fastify';
import { requireAuth } from '../auth.ts';
import { motivoNoDisponible, ventanaDeCarrera } from '../links.ts';
import type { Link } from '../store.ts';
import { contarSolicitudCompra, notificacionesEfectivas, nuevaTransaccion } from '../transactions.ts';
import { cerrarCompraAprobada } from './cierre.ts';
import { validacionApi } from '../validate.ts';

export const pagoQrApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;

  /** The link whose short URL this is (same origin, path /l/:codigo). */
  const enlaceDe = (urlEnlacePago: string): Link | undefined => {
    const url = new URL(urlEnlacePago);
    const codigo = /^\/l\/([^/]+)$/.exec(url.pathname)?.[1];
    if (url.origin !== ctx.origin || codigo === undefined) return undefined;
    const id = ctx.store.linkCodes.get(codigo);
    return id === undefined ? undefined : ctx.store.links.get(id);
  };

  // Fault pagoqr-any-caller: any authenticated caller, a business token too.
  app.post(
    '/TransaccionCompra/PagoQr',
    { onRequest: [contarSolicitudCompra, requireAuth(ctx.fault('pagoqr-any-caller') ? 'either' : 'account')] },
    async (req, reply) => {
      const v = validacionApi(ctx);
      const b = v.cuerpo(req.body);
      const urlEnlacePago = b.texto('urlEnlacePago', { requerido: true, url: true });
      const datosAdicionales = b.diccionario('datosAdicionales');
      if (!v.ok || urlEnlacePago === undefined) return reply.code(400).send({ errores: v.errores });

      const link = enlaceDe(urlEnlacePago);
      const business = link && ctx.store.businesses.get(link.idAplicativo);
      const account = business && ctx.store.accounts.get(business.idCuenta);
      if (link === undefined || business === undefined || account === undefined) {
        return reply.code(404).send({ errores: [{ campo: 'urlEnlacePago', mensaje: 'enlace de pago no encontrado' }] });
      }
      // Tenant isolation (sandbox decision; OWASP API1:2023): an account pays only links of its own businesses.
      if (!req.actor!.account.aplicativos.includes(link.idAplicativo) && !ctx.fault('tenant-pagoqr-other-link')) {
        return reply.code(403).send({ errores: [{ campo: 'urlEnlacePago', mensaje: 'el enlace pertenece a otra cuenta' }] });
      }
      const motivo = motivoNoDisponible(ctx, link);
      if (motivo !== null) return reply.code(400).send({ errores: [{ campo: 'urlEnlacePago', mensaje: motivo }] });
      // No quantity is sent: the link's cantidadPorDefecto is the quantity (fault pagoqr-ignores-cantidad drops it).
      const cantidad = ctx.fault('pagoqr-ignores-cantidad') ? 1 : link.configuracion.cantidadPorDefecto;
      // Fault amount-binary-float: the product left as the doubles give it, never rounded to the cent.
      const monto =
        cantidad === 1
          ? link.monto
          : ctx.fault('amount-binary-float')
            ? cantidad * link.monto
            : Math.round(cantidad * link.monto * 100) / 100;
      if (!Number.isFinite(monto)) {
        return reply
          .code(400)
          .send({ errores: [{ campo: 'urlEnlacePago', mensaje: 'el monto a cobrar (cantidad × monto) no es representable' }] });
      }
      // The check above is committed below with nothing awaited between, unless fault race-success-limit waits.
      if (ctx.fault('race-success-limit')) await ventanaDeCarrera();

      const tx = nuevaTransaccion(ctx, {
        tipo: 'pagoqr',
        business,
        monto,
        formaPago: 0,
        notificaciones: notificacionesEfectivas(business, link),
        datosAdicionales: datosAdicionales ?? link.datosAdicionales,
        idEnlace: link.idEnlace,
        idCuentaPagador: req.actor!.account.idCuenta,
      });
      cerrarCompraAprobada(ctx, reply, tx, link);
      return {
        idTransaccion: tx.idTransaccion,
        numeroCuentaBanco: business.numeroCuenta,
        monto: tx.monto,
        nombreComercial: account.nombreComercial,
        razonSocial: account.razonSocial,
        nombreAplicativo: business.nombre,
        producto: link.nombreProducto,
      };
    },
  );
};
