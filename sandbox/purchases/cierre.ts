/**
 * The tail every direct purchase (4.4 wallet, 4.5 PagoQr, 4.7 MPOS) shares once its input is valid: approve it (test
 * mode approves), count it on its link where it paid one, notify (webhook, email, SMS), and answer as a created
 * resource under variant created-201-location. One place, so a purchase cannot forget a step.
 */
import type { FastifyReply } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { contarResultado } from '../links.ts';
import type { Link, Transaction } from '../store.ts';
import { aprobar } from '../transactions.ts';

export function cerrarCompraAprobada(ctx: SandboxContext, reply: FastifyReply, tx: Transaction, link: Link | null): void {
  aprobar(ctx, tx);
  if (link) {
    link.transacciones.push(tx.idTransaccion);
    // An approval never takes the race-failure-counter path (a decline's): nothing to await.
    void contarResultado(ctx, link, tx);
  }
  ctx.notifier.notificar(tx, link);
  // Variant created-201-location: the purchase is a created resource, found at its 4.8 address.
  if (ctx.variant('created-201-location'))
    reply.code(201).header('location', `${ctx.origin}/api/TransaccionCompra/${encodeURIComponent(tx.idTransaccion)}`);
}
