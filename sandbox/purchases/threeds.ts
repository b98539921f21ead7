/**
 * 4.3 card purchase with 3DS: the API call creates a pending transaction and answers urlCompletarPago3Ds (absolute
 * URL of the simulated issuer challenge); submitting that page approves the transaction (cvv 111 does not decline
 * under 3DS, spec 7), fires the notifications and answers 303 to urlRedirect with the outcome and hash (6.3).
 * A second submission changes nothing and answers 410 (sandbox decision). The `challenge` screen (and variant
 * threeds-challenge-code) makes the page an issuer test page asking for the code it shows.
 */
import { createHmac } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { requireAuth } from '../auth.ts';
import { estadoRedireccion, urlResultado } from '../hash.ts';
import { campo, esc, estadoEnPalabras, formularioHosted, pagina, paginaEstado, resumen } from '../html.ts';
import type { SandboxContext } from '../context.ts';
import type { Transaction } from '../store.ts';
import {
  MENSAJE_DECLINADA,
  aprobar,
  contarSolicitudCompra,
  declinar,
  leerNotificaciones,
  notificacionesEfectivas,
  nuevaTransaccion,
} from '../transactions.ts';
import { EMAIL, MENSAJE_TELEFONOS, SOLO_DIGITOS, Validacion, validacionApi } from '../validate.ts';
import { campoSesion, camposTarjeta, enIngles, leerTarjeta, listaErrores, sesionValida, texto } from '../card-fields.ts';

export const threeDsApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  app.post(
    '/TransaccionCompra/3DS',
    { onRequest: [contarSolicitudCompra, requireAuth('bearer', { optional: ctx.fault('3ds-without-token-accepted') })] },
    async (req, reply) => {
      const v = validacionApi(ctx);
      const b = v.cuerpo(req.body);
      // The spec's field table also spells the object tarjetaCreditoDebito; the JSON example's spelling comes first.
      // Variant 3ds-card-table-spelling: with both spellings sent, the table's (tarjetaCreditoDebito) is read.
      const laDeLaTabla = ctx.variant('3ds-card-table-spelling') ? b.presente('tarjetaCreditoDebito') : !b.presente('tarjetaCreditoDebido');
      const nombreTarjeta = laDeLaTabla && b.presente('tarjetaCreditoDebito') ? 'tarjetaCreditoDebito' : 'tarjetaCreditoDebido';
      const tarjeta = b.objeto(nombreTarjeta, true);
      tarjeta?.texto('numeroTarjeta', {
        requerido: true,
        patron: /^\d{12,19}$/,
        mensajePatron: 'debe tener de 12 a 19 dígitos, sin espacios',
      });
      const cvv = tarjeta?.texto('cvv', { requerido: true, patron: /^\d{3,4}$/, mensajePatron: 'debe tener 3 o 4 dígitos' });
      tarjeta?.numero('mesVencimiento', { requerido: true, entero: true, min: 1, max: 12 });
      tarjeta?.numero('anioVencimiento', { requerido: true, entero: true, min: 0, max: 9999 });
      const monto = b.numero('monto', { requerido: true, mayorQue: 0 });
      const urlRedirect = b.texto('urlRedirect', { requerido: true, url: true });
      for (const campo of ['nombre', 'apellido', 'ciudad', 'direccion', 'codigoPostal']) {
        b.texto(campo, { requerido: true, max: 500 });
      }
      // Fault telefono-digits-only: 4.3 says only "string"; the deployed service refuses anything but digits.
      b.texto('telefono', {
        requerido: true,
        max: 500,
        ...(ctx.fault('telefono-digits-only') ? { patron: SOLO_DIGITOS, mensajePatron: MENSAJE_TELEFONOS } : {}),
      });
      const email = b.texto('email', { requerido: true, patron: EMAIL, mensajePatron: 'debe ser un correo electrónico' });
      b.texto('idPais', { requerido: true, patron: /^[A-Z]{2}$/, mensajePatron: 'debe ser un código ISO 3166-1 alfa-2, p. ej. SV' });
      b.texto('idRegion', {
        requerido: true,
        ...(ctx.fault('3ds-idregion-not-iso-accepted')
          ? {}
          : { patron: /^[A-Z]{2}-[A-Z0-9]{1,3}$/, mensajePatron: 'debe ser un código ISO 3166-2, p. ej. SV-SS' }),
      });
      const propias = leerNotificaciones(b);
      const datosAdicionales = b.diccionario('datosAdicionales');
      if (!v.ok || monto === undefined || urlRedirect === undefined) return reply.code(400).send({ errores: v.errores });

      const business = req.actor!.business;
      const tx = nuevaTransaccion(ctx, {
        tipo: '3ds',
        business,
        monto,
        formaPago: 0,
        notificaciones: notificacionesEfectivas(business, null, propias),
        datosAdicionales,
        emailCliente: email,
        urlRedirect,
      });
      if (cvv === '111' && ctx.fault('cvv-111-declines-3ds')) declinar(ctx, tx, MENSAJE_DECLINADA);
      const url = `/3ds/${tx.idTransaccion}`;
      // Variant pending-202: the payment waits for the payer's browser (4.3 lists no success status).
      if (ctx.variant('pending-202')) reply.code(202);
      return {
        idTransaccion: tx.idTransaccion,
        esReal: ctx.fault('esreal-as-number') ? Number(tx.esReal) : tx.esReal,
        urlCompletarPago3Ds: ctx.fault('3ds-url-relative') ? url : `${ctx.origin}${url}`,
        monto: tx.monto,
      };
    },
  );
};

/** The code this transaction's challenge expects (challenge screen, threeds-challenge-code) (6 digits, as issuers' test pages show). */
function codigoDesafio(ctx: SandboxContext, tx: Transaction): string {
  const n = createHmac('sha256', ctx.claveIntento).update(`3ds.${tx.idTransaccion}`).digest().readUInt32BE(0) % 1_000_000;
  return String(n).padStart(6, '0');
}

/** Whether the page asks for a code: the challenge screen, or variant threeds-challenge-code. */
function pideCodigo(ctx: SandboxContext): boolean {
  return ctx.options.screen === 'challenge' || ctx.variant('threeds-challenge-code');
}

/**
 * The challenge input's name: its autofill token with pages-autofill-names, an opaque one with pages-opaque-names,
 * `otp` on the challenge screen (as issuers' pages name it: only its label says what it takes), else the spec-vocabulary name.
 */
function nombreDesafio(ctx: SandboxContext): string {
  if (ctx.variant('pages-opaque-names')) return 'f7';
  if (ctx.variant('pages-autofill-names')) return 'one-time-code';
  return ctx.options.screen === 'challenge' ? 'otp' : 'codigoDesafio';
}

/** The challenge: the test code shown (a test page shows it, a real issuer would send it) and its input. */
function campoDesafio(ctx: SandboxContext, tx: Transaction): string {
  const t = (es: string, en: string) => texto(ctx, es, en);
  if (ctx.options.screen === 'challenge') {
    // An issuer's test page: the code in a sentence beside the input, no id nor autofill hint to find either by.
    return `<p class="detalle codigo-emisor">${t('Código de prueba', 'Test code')}: <strong>${codigoDesafio(ctx, tx)}</strong></p>
${campo('campo-otp', t('Código de verificación', 'Verification code'), `<input id="campo-otp" name="${nombreDesafio(ctx)}" type="text">`)}`;
  }
  return `<p class="detalle">${t('Código de prueba (modo de pruebas)', 'Test code (test mode)')}: <strong id="codigo-prueba">${codigoDesafio(ctx, tx)}</strong></p>
${campo('campo-codigoDesafio', t('Código de verificación', 'Verification code'), `<input id="campo-codigoDesafio" name="${nombreDesafio(ctx)}" type="text"${ctx.variant('pages-opaque-names') ? '' : ' inputmode="numeric" autocomplete="one-time-code"'}>`)}`;
}

export const threeDsPages: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  /** The pending 3DS transaction, or the refusal already sent. */
  const pendiente = (id: string, reply: FastifyReply): Transaction | undefined => {
    const tx = ctx.store.transactions.get(id);
    if (tx === undefined || tx.tipo !== '3ds') {
      void reply.code(404).type('text/html; charset=utf-8').send(paginaEstado('Verificación 3DS', 'no encontrada'));
      return undefined;
    }
    // Completed once: a replayed completion changes nothing (fault 3ds-replay-double approves and notifies again).
    if (tx.resultadoTransaccion !== null && !ctx.fault('3ds-replay-double')) {
      void reply
        .code(410)
        .type('text/html; charset=utf-8')
        .send(paginaEstado('Verificación 3DS', 'completada', 'esta verificación ya se completó'));
      return undefined;
    }
    return tx;
  };

  /** The issuer's page: a confirmation, or (pages-ask-card) the card asked for again; shown again with the errors of a refused post. */
  const pagina3ds = (tx: Transaction, reply: FastifyReply, errores: { campo: string; mensaje: string }[] = []): string => {
    const comercio = ctx.store.businesses.get(tx.idAplicativo)?.nombre ?? tx.idAplicativo;
    const t = (es: string, en: string) => texto(ctx, es, en);
    const emisor = ctx.options.screen === 'challenge';
    const form = `<form method="post" id="verificacion" action="/3ds/${esc(tx.idTransaccion)}">
${emisor ? '' : '<input type="hidden" name="desafio" value="aprobado">'}
${campoSesion(ctx, reply)}
${ctx.variant('pages-ask-card') ? camposTarjeta(ctx, false).join('\n') : ''}
${pideCodigo(ctx) ? campoDesafio(ctx, tx) : ''}
<button type="submit">${emisor ? t('Verificar', 'Verify') : t('Confirmar el pago', 'Confirm the payment')}</button>
</form>`;
    const cuerpo = `<div class="pantalla">
${resumen({ comercio, producto: t('Compra con tarjeta (3-D Secure)', 'Card purchase (3-D Secure)'), montoUnitario: tx.monto, formas: [t('Tarjeta de crédito o débito', 'Credit or debit card')] })}
<section class="tarjeta" aria-label="${t('Verificación del emisor', 'Issuer verification')}">
${estadoEnPalabras('pendiente', t('su banco pide confirmar este pago', 'your bank asks you to confirm this payment'))}
<p class="detalle">${t('Simulación del desafío del emisor para un pago de', 'Simulated issuer challenge for a payment of')} $${tx.monto.toFixed(2)} ${t('a', 'to')} ${esc(comercio)}.</p>
${listaErrores(errores)}
${formularioHosted(ctx.options.screen, form)}
</section>
</div>`;
    return pagina(t('Verificación 3DS', '3DS verification'), cuerpo, { comercio, idioma: enIngles(ctx) ? 'en' : 'es' });
  };

  app.get<{ Params: { id: string } }>('/3ds/:id', async (req, reply) => {
    const tx = pendiente(req.params.id, reply);
    if (tx === undefined) return reply;
    return reply.type('text/html; charset=utf-8').send(pagina3ds(tx, reply));
  });

  app.post<{ Params: { id: string } }>('/3ds/:id', { onRequest: contarSolicitudCompra }, async (req, reply) => {
    const tx = pendiente(req.params.id, reply);
    if (tx === undefined) return reply;
    const business = ctx.store.businesses.get(tx.idAplicativo);
    if (business === undefined || tx.urlRedirect === null) {
      return reply.code(404).type('text/html; charset=utf-8').send(paginaEstado('Verificación 3DS', 'no encontrada'));
    }
    if (!sesionValida(ctx, req))
      return reply
        .code(403)
        .type('text/html; charset=utf-8')
        .send(paginaEstado('Verificación 3DS', 'sesión no válida', 'vuelva a abrir la página de verificación'));
    if (ctx.variant('pages-ask-card') || pideCodigo(ctx)) {
      const v = new Validacion(true);
      const f = v.cuerpo(req.body);
      if (ctx.variant('pages-ask-card')) leerTarjeta(ctx, f, false);
      if (pideCodigo(ctx)) {
        const nombre = nombreDesafio(ctx);
        const codigo = f.texto(nombre, { requerido: true });
        if (codigo !== undefined && codigo.trim() !== codigoDesafio(ctx, tx))
          v.error(nombre, texto(ctx, 'el código no es el que se le mostró', 'the code is not the one shown to you'));
      }
      if (!v.ok)
        return reply
          .code(422)
          .type('text/html; charset=utf-8')
          .send(pagina3ds(tx, reply, v.errores));
    }
    aprobar(ctx, tx);
    ctx.notifier.notificar(tx, null);
    return reply.redirect(urlResultado(ctx, tx, business, null, tx.urlRedirect), estadoRedireccion(ctx));
  });
};
