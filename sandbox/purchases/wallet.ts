/** 4.4 wallet purchase: approved at once in development; resultadoTransaccion is a string (4.4 response table). */
import type { FastifyPluginAsync } from 'fastify';
import { requireAuth } from '../auth.ts';
import { cerrarCompraAprobada } from './cierre.ts';
import { contarSolicitudCompra, leerNotificaciones, notificacionesEfectivas, nuevaTransaccion, valorEnum } from '../transactions.ts';
import { validacionApi } from '../validate.ts';

const RESULTADOS = ['ExitosaAprobada', 'ExitosaDeclinada', 'Fallida'];

export const walletApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  app.post('/TransaccionCompra/Wallet', { onRequest: [contarSolicitudCompra, requireAuth('bearer')] }, async (req, reply) => {
    const v = validacionApi(ctx);
    const b = v.cuerpo(req.body);
    const monto = b.numero('monto', { requerido: true, mayorQue: 0 });
    b.texto('dui', { requerido: true, max: 50 });
    b.texto('descripcion', { requerido: true, max: 500 });
    const propias = leerNotificaciones(b);
    const datosAdicionales = b.diccionario('datosAdicionales');
    const idExterno = b.texto('idExterno', { max: 500 });
    if (!v.ok || monto === undefined) return reply.code(400).send({ errores: v.errores });

    const business = req.actor!.business;
    const tx = nuevaTransaccion(ctx, {
      tipo: 'wallet',
      business,
      monto,
      formaPago: 0,
      notificaciones: notificacionesEfectivas(business, null, propias),
      idExterno,
      datosAdicionales,
    });
    cerrarCompraAprobada(ctx, reply, tx, null);
    return {
      idTransaccion: tx.idTransaccion,
      esReal: tx.esReal,
      mensaje: tx.mensaje,
      formaPago: valorEnum(ctx.fault, 'formaPago', tx.formaPago),
      monto: tx.monto,
      idExterno: tx.idExterno,
      datosAdicionales: tx.datosAdicionales,
      resultadoTransaccion: RESULTADOS[tx.resultadoTransaccion ?? 2],
      fechaTransaccion: tx.fechaTransaccion,
    };
  });
};
