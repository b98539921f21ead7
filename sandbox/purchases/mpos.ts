/**
 * 4.7 magnetic-stripe/chip POS purchase. Needs the business's MPOS permission (403 without it). As an account,
 * idAplicativo is required and must name a business of that account. anioVencimiento (sandbox rule): four digits,
 * or two digits meaning 20YY; the card must not be expired nor more than 20 years ahead. tipoTransaccion 4 (chip).
 */
import type { FastifyPluginAsync } from 'fastify';
import { requireAuth } from '../auth.ts';
import { contarSolicitudCompra, notificacionesEfectivas, nuevaTransaccion } from '../transactions.ts';
import { cerrarCompraAprobada } from './cierre.ts';
import { validacionApi } from '../validate.ts';
import { clockOf } from '../tenants.ts';

const MPOS_CHIP = 4;
const MPOS_CONTACTLESS = 5;
const ANIOS_MAXIMOS = 20;

export const mposApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  app.post('/TransaccionCompra/Mpos/Banda', { onRequest: [contarSolicitudCompra, requireAuth('either')] }, async (req, reply) => {
    const { fault } = ctx;
    const actor = req.actor!;
    const v = validacionApi(ctx);
    const b = v.cuerpo(req.body);
    const comoCuenta = actor.via === 'account';
    const idAplicativo = b.texto('idAplicativo', { requerido: comoCuenta && !fault('mpos-idaplicativo-missing-accepted') });
    for (const campo of ['posId', 'tarjetaBan', 'llaveTarjetaBan']) b.texto(campo, { requerido: true, max: 2000 });
    b.texto('numeroTarjeta', { requerido: true, patron: /^\d{12,19}$/, mensajePatron: 'debe tener de 12 a 19 dígitos, sin espacios' });
    const mes = b.numero('mesVencimiento', {
      requerido: true,
      entero: true,
      min: 1,
      max: fault('mpos-month-13-accepted') ? 13 : fault('mpos-month-12-rejected') ? 11 : 12,
    });
    const anio = b.numero('anioVencimiento', { requerido: true, entero: true });
    if (anio !== undefined) {
      const completo = anio >= 0 && anio <= 99 ? 2000 + anio : anio;
      const ahora = clockOf(ctx, actor.business.idAplicativo).now();
      const mesActual = ahora.getUTCFullYear() * 12 + ahora.getUTCMonth() + 1;
      if (completo < 1000 || completo > 9999) v.error('anioVencimiento', 'debe tener 4 dígitos (o 2, que significan 20AA)');
      else if (mes !== undefined && completo * 12 + mes < mesActual) v.error('anioVencimiento', 'la tarjeta está vencida');
      else if (completo > ahora.getUTCFullYear() + ANIOS_MAXIMOS)
        v.error('anioVencimiento', `no puede superar ${ANIOS_MAXIMOS} años en el futuro`);
    }
    const monto = b.numero('monto', { requerido: true, ...(fault('mpos-monto-zero-accepted') ? { min: 0 } : { mayorQue: 0 }) });
    const datosAdicionales = b.diccionario('datosAdicionales');

    // As a business, idAplicativo is taken from the credentials (4.7); as an account it names one of its businesses.
    let business = actor.business;
    // Fault mpos-idaplicativo-overrides-tenant: with a business token the body's idAplicativo picks the business charged.
    const sobrescribe = !comoCuenta && fault('mpos-idaplicativo-overrides-tenant');
    if ((comoCuenta || sobrescribe) && idAplicativo !== undefined) {
      const propio = sobrescribe || actor.account.aplicativos.includes(idAplicativo) || fault('tenant-mpos-other-idaplicativo');
      const elegido = propio ? ctx.store.businesses.get(idAplicativo) : undefined;
      if (elegido === undefined) v.error('idAplicativo', 'no es un aplicativo de esta cuenta');
      else business = elegido;
    }
    if (!v.ok || monto === undefined) return reply.code(400).send({ errores: v.errores });
    if (!business.permisoMpos && !fault('mpos-without-permission-allowed')) {
      return reply
        .code(403)
        .send({ errores: [{ campo: 'idAplicativo', mensaje: 'el aplicativo no tiene permiso para transacciones MPOS' }] });
    }

    const tx = nuevaTransaccion(ctx, {
      tipo: 'mpos',
      business,
      monto,
      formaPago: 0,
      notificaciones: notificacionesEfectivas(business, null),
      datosAdicionales,
    });
    cerrarCompraAprobada(ctx, reply, tx, null);
    return {
      idTransaccion: tx.idTransaccion,
      esReal: tx.esReal,
      esAprobada: tx.esAprobada,
      codigoAutorizacion: tx.codigoAutorizacion,
      mensaje: tx.mensaje,
      // Variant mpos-contactless: 4.7 allows MPosChip=4 and MPosContactless=5.
      tipoTransaccion: ctx.variant('mpos-contactless') ? MPOS_CONTACTLESS : MPOS_CHIP,
      monto: tx.monto,
      fechaTransaccion: tx.fechaTransaccion,
    };
  });
};
