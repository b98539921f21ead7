/**
 * 4.6 quick-pay: the API call creates a pending transaction and a QR (`urlQR`, a PNG whose content is the absolute
 * URL of the quick-pay page). Submitting that page before fechaVencimiento approves the transaction; afterwards it
 * answers 410 and nothing changes. The payment screen's formaPago 4 uses the same page. On the `challenge` screen the
 * page asks the payer to authorise the payment (radio buttons, none chosen): anything but "Sí" shows it again (422).
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import QRCode from 'qrcode';
import { requireAuth } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { esc, estadoEnPalabras, fechaLegible, formularioHosted, pagina, paginaEstado, resumen, type Resumen } from '../html.ts';
import { contarResultado, motivoNoDisponible } from '../links.ts';
import type { Transaction } from '../store.ts';
import {
  aprobar,
  contarSolicitudCompra,
  leerNotificaciones,
  notificacionesEfectivas,
  nuevaTransaccion,
  valorEnum,
} from '../transactions.ts';
import { Validacion, validacionApi } from '../validate.ts';
import { fechaServicio } from '../views.ts';
import { campoSesion, camposTarjeta, enIngles, leerTarjeta, listaErrores, sesionValida, texto } from '../card-fields.ts';
import { clockOf } from '../tenants.ts';

/** Starts the quick-pay validity of a pending transaction; returns datosQuickPay. */
export function datosQuickPay(ctx: SandboxContext, tx: Transaction): { urlQR: string; fechaVencimiento: string } {
  tx.fechaVencimiento = fechaServicio(ctx.variant, clockOf(ctx, tx.idAplicativo).nowMs() + ctx.options.quickPayTtlSeconds * 1000);
  return { urlQR: `${ctx.origin}/qp/${tx.idTransaccion}.png`, fechaVencimiento: tx.fechaVencimiento };
}

export const quickPayApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  app.post('/TransaccionCompra/Quick-pay', { onRequest: [contarSolicitudCompra, requireAuth('either')] }, async (req, reply) => {
    const v = validacionApi(ctx);
    const b = v.cuerpo(req.body);
    const monto = b.numero('monto', { requerido: true, ...(ctx.fault('quickpay-monto-zero-accepted') ? { min: 0 } : { mayorQue: 0 }) });
    const propias = leerNotificaciones(b);
    const datosAdicionales = b.diccionario('datosAdicionales');
    const maxIdExterno = ctx.fault('quickpay-idexterno-51-accepted') ? undefined : ctx.fault('quickpay-idexterno-50-rejected') ? 49 : 50;
    const idExterno = b.texto('idExterno', { max: maxIdExterno });
    if (!v.ok || monto === undefined) return reply.code(400).send({ errores: v.errores });

    const business = req.actor!.business;
    const tx = nuevaTransaccion(ctx, {
      tipo: 'quickpay',
      business,
      monto,
      formaPago: 4,
      notificaciones: notificacionesEfectivas(business, null, propias),
      idExterno,
      datosAdicionales,
    });
    // Variant pending-202: the payment waits for the payer to scan the QR (4.6 lists no success status).
    if (ctx.variant('pending-202')) reply.code(202);
    return {
      datosQuickPay: datosQuickPay(ctx, tx),
      idTransaccion: tx.idTransaccion,
      esReal: tx.esReal,
      esAprobada: tx.esAprobada,
      codigoAutorizacion: tx.codigoAutorizacion,
      mensaje: tx.mensaje,
      formaPago: valorEnum(ctx.fault, 'formaPago', tx.formaPago),
      monto: tx.monto,
      idExterno: tx.idExterno,
    };
  });
};

/** Challenge screen: the payer says whether they authorise the payment; nothing is chosen beforehand. */
function autorizacion(ctx: SandboxContext): string {
  const t = (es: string, en: string) => texto(ctx, es, en);
  return `<fieldset class="campo opciones" id="campo-autoriza"><legend>${t('¿Autoriza este pago?', 'Do you authorise this payment?')}</legend>
<label><input type="radio" name="autoriza" value="si"> ${t('Sí, autorizo el pago', 'Yes, I authorise the payment')}</label>
<label><input type="radio" name="autoriza" value="no"> ${t('No', 'No')}</label>
</fieldset>`;
}

export const quickPayPages: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  const html = (reply: FastifyReply, status: number, body: string) => reply.code(status).type('text/html; charset=utf-8').send(body);
  const buscar = (id: string) => {
    const tx = ctx.store.transactions.get(id);
    return tx?.tipo === 'quickpay' && tx.fechaVencimiento !== null ? tx : undefined;
  };
  /** Who is paid and for what: the link's product when the quick-pay started on a link's screen. */
  const resumenQuickPay = (tx: Transaction): Resumen => {
    const link = tx.idEnlace === null ? undefined : ctx.store.links.get(tx.idEnlace);
    return {
      comercio: ctx.store.businesses.get(tx.idAplicativo)?.nombre ?? tx.idAplicativo,
      producto: link?.nombreProducto ?? 'Pago con QuickPay',
      montoUnitario: tx.monto,
      formas: ['QuickPay'],
    };
  };
  /** Why this quick-pay cannot be paid now, or null. One started from a link's screen obeys that link's state too. */
  const motivo = (tx: Transaction): string | null => {
    if (tx.resultadoTransaccion !== null) return 'pagada';
    // Fault quickpay-expires-before-stated: the real limit is a third of the interval the response announced.
    const adelanto = ctx.fault('quickpay-expires-before-stated') ? (ctx.options.quickPayTtlSeconds * 1000 * 2) / 3 : 0;
    const gracia = ctx.fault('quickpay-qr-expires-late') ? 5 * 60_000 : 0;
    const vencido = clockOf(ctx, tx.idAplicativo).nowMs() > Date.parse(tx.fechaVencimiento ?? '') + gracia - adelanto;
    if (vencido && !ctx.fault('quickpay-qr-never-expires')) return 'vencido';
    const link = tx.idEnlace === null ? undefined : ctx.store.links.get(tx.idEnlace);
    return link === undefined ? null : motivoNoDisponible(ctx, link);
  };

  /** The quick-pay page: a button, or (pages-ask-card) the card asked for; shown again with the errors of a refused post. */
  const paginaQuickPay = (tx: Transaction, reply: FastifyReply, errores: { campo: string; mensaje: string }[] = []): string => {
    const compra = resumenQuickPay(tx);
    const t = (es: string, en: string) => texto(ctx, es, en);
    const form = `<form method="post" id="quickpay" action="/qp/${esc(tx.idTransaccion)}">
${campoSesion(ctx, reply)}
${ctx.variant('pages-ask-card') ? camposTarjeta(ctx, false).join('\n') : ''}
${ctx.options.screen === 'challenge' ? autorizacion(ctx) : ''}
<button type="submit">${t('Pagar', 'Pay')} $${tx.monto.toFixed(2)} ${t('con', 'with')} QuickPay</button>
</form>`;
    const cuerpo = `<div class="pantalla">
${resumen(compra)}
<section class="tarjeta" aria-label="${t('Pago QuickPay', 'QuickPay payment')}">
${estadoEnPalabras('pendiente')}
<p class="detalle">${t('Pago de', 'Payment of')} $${tx.monto.toFixed(2)}; ${t('puede pagarse hasta el', 'can be paid until')} ${esc(fechaLegible(tx.fechaVencimiento ?? ''))}.</p>
${listaErrores(errores)}
${formularioHosted(ctx.options.screen, form)}
</section>
</div>${ctx.variant('pages-receipt-in-place') ? RECIBO_EN_PAGINA : ''}`;
    return pagina('QuickPay', cuerpo, { comercio: compra.comercio, idioma: enIngles(ctx) ? 'en' : 'es' });
  };

  app.get<{ Params: { archivo: string } }>('/qp/:archivo', async (req, reply) => {
    const png = req.params.archivo.endsWith('.png');
    const tx = buscar(png ? req.params.archivo.slice(0, -4) : req.params.archivo);
    if (tx === undefined) return html(reply, 404, paginaEstado('QuickPay', 'no encontrado'));
    if (png) {
      const qr = await QRCode.toBuffer(`${ctx.origin}/qp/${tx.idTransaccion}`, { type: 'png', margin: 2, scale: 6 });
      return reply.type('image/png').send(qr);
    }
    const estado = motivo(tx);
    if (estado !== null) return html(reply, 410, paginaEstado('QuickPay', estado, '', resumenQuickPay(tx)));
    return html(reply, 200, paginaQuickPay(tx, reply));
  });

  app.post<{ Params: { archivo: string } }>('/qp/:archivo', { onRequest: contarSolicitudCompra }, async (req, reply) => {
    const tx = buscar(req.params.archivo);
    if (tx === undefined) return html(reply, 404, paginaEstado('QuickPay', 'no encontrado'));
    const estado = motivo(tx);
    // Fault quickpay-expired-paid-by-post: the expiry is checked when the page is shown, not when its form is posted.
    const tarde = estado === 'vencido' && ctx.fault('quickpay-expired-paid-by-post');
    if (estado !== null && !tarde) return html(reply, 410, paginaEstado('QuickPay', estado, '', resumenQuickPay(tx)));
    if (!sesionValida(ctx, req))
      return html(reply, 403, paginaEstado('QuickPay', 'sesión no válida', 'vuelva a abrir la página de pago', resumenQuickPay(tx)));
    if (ctx.variant('pages-ask-card') || ctx.options.screen === 'challenge') {
      const v = new Validacion(true);
      const f = v.cuerpo(req.body);
      if (ctx.variant('pages-ask-card')) leerTarjeta(ctx, f, false);
      if (ctx.options.screen === 'challenge' && f.datos['autoriza'] !== 'si')
        v.error('autoriza', texto(ctx, 'confirme que autoriza el pago', 'confirm that you authorise the payment'));
      if (!v.ok) return html(reply, 422, paginaQuickPay(tx, reply, v.errores));
    }
    aprobar(ctx, tx);
    const link = tx.idEnlace === null ? null : (ctx.store.links.get(tx.idEnlace) ?? null);
    if (link !== null) contarResultado(ctx, link, tx);
    ctx.notifier.notificar(tx, link);
    if (ctx.variant('pages-receipt-in-place')) return html(reply, 200, paginaRecibo(tx));
    return html(reply, 200, paginaEstado('QuickPay', 'aprobada', '', resumenQuickPay(tx)));
  });

  /** Variant pages-receipt-in-place: the receipt (role=status, a heading, the transaction id), no #estado badge. */
  const paginaRecibo = (tx: Transaction): string => {
    const t = (es: string, en: string) => texto(ctx, es, en);
    const compra = resumenQuickPay(tx);
    return pagina(
      'QuickPay',
      `<div class="pantalla">
${resumen(compra)}
<section class="tarjeta recibo" role="status">
<h2>${t('Pago aprobado', 'Payment approved')}</h2>
<p class="detalle">${t('Transacción', 'Transaction')} ${esc(tx.idTransaccion)} · $${tx.monto.toFixed(2)}</p>
</section>
</div>`,
      { comercio: compra.comercio, idioma: enIngles(ctx) ? 'en' : 'es' },
    );
  };
};

/**
 * Variant pages-receipt-in-place: the quick-pay form is posted by the page's script, which puts the answer's card (a
 * receipt, the form again with its errors, an expiry) where the form was; nothing navigates. Without a script the
 * form posts as usual and the same answer is a page of its own.
 */
const RECIBO_EN_PAGINA = `
<script>
document.addEventListener('submit', function (e) {
  var f = e.target;
  if (!f || f.id !== 'quickpay') return;
  e.preventDefault();
  var cuerpo = new URLSearchParams(new FormData(f));
  fetch(f.action, { method: 'POST', body: cuerpo, credentials: 'same-origin' })
    .then(function (r) { return r.text(); })
    .then(function (h) {
      var d = new DOMParser().parseFromString(h, 'text/html');
      var nueva = d.querySelector('section.recibo') || d.querySelector('section.tarjeta:not(.resumen)');
      var vieja = f.closest('section.tarjeta');
      if (nueva && vieja) vieja.replaceWith(document.importNode(nueva, true));
    });
});
</script>`;
