/**
 * The steps screen (`screen: 'steps'`): the link's payment screen in two steps, as many real checkouts take it.
 * Step 1 (`GET /pagar/:idEnlace`) is the card page, the payment form and instalments as radio buttons, button
 * "Continuar"; it sets a session cookie. Its POST validates as the single-step screen does and answers step 2, "Paso 2
 * de 2: confirma tu pago": a summary (the card masked to its last 4 digits) and one "Confirmar y pagar" button whose
 * form carries only a CSRF token bound to that cookie. The card waits in the store (pagosEnPasos), never in a page.
 * The confirmation (`POST /pagar/:idEnlace/confirmar`) pays as the single-step POST does: the screen's validity counts
 * from when step 1 was shown, and the same confirmation sent again answers the same and charges nothing.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext } from './context.ts';
import { campoSesion, sesionValida } from './card-fields.ts';
import { esc, pagina, resumen } from './html.ts';
import { enlaceDeConsulta } from './links.ts';
import {
  type Compra,
  NOMBRES_FORMA_PAGO,
  buscarEnlace,
  cobrar,
  emitirIntento,
  enHtml,
  enlaceYNegocio,
  formulario,
  html,
  indisponible,
  leerIntento,
  nombresCompra,
  repeticion,
  resumenDe,
  revisar,
} from './screen.ts';
import type { Business, Link } from './store.ts';
import { contarSolicitudCompra } from './transactions.ts';

const COOKIE = 'sesion_pasos';
const PASO_1 = 'Paso 1 de 2: datos de pago';

function cookieSesion(req: FastifyRequest): string | undefined {
  return /(?:^|;\s*)sesion_pasos=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
}

/** The browser's session: its cookie, or a new one set on this answer. */
function sesionDe(req: FastifyRequest, reply: FastifyReply): string {
  const actual = cookieSesion(req);
  if (actual !== undefined) return actual;
  const nueva = randomBytes(16).toString('base64url');
  void reply.header('set-cookie', `${COOKIE}=${nueva}; Path=/; HttpOnly; SameSite=Lax`);
  return nueva;
}

/** The confirmation's URL: the step 1 URL with /confirmar after its path (its query kept: variant urls-deployed). */
function accionConfirmar(url: string): string {
  const i = url.indexOf('?');
  return i < 0 ? `${url}/confirmar` : `${url.slice(0, i)}/confirmar${url.slice(i)}`;
}

/** Step 2: what will be charged and how, and the one button; no card data but its last 4 digits. */
function paginaConfirmar(link: Link, business: Business, c: Compra, csrf: string, accion: string): string {
  const total = Math.round(c.cantidad * c.montoUnitario * 100) / 100;
  const tarjeta =
    c.numeroTarjeta === undefined
      ? ''
      : `<div><dt>Tarjeta</dt><dd id="confirmar-tarjeta">•••• ${esc(c.numeroTarjeta.slice(-4))}</dd></div>`;
  const cuerpo = `<div class="pantalla">
${resumen({ ...resumenDe(link, business), cantidad: c.cantidad, montoUnitario: c.montoUnitario })}
<section class="tarjeta" aria-label="Confirmación del pago">
<h2>Resumen de su pago</h2>
<dl class="importe" id="confirmacion">
<div><dt>Producto</dt><dd id="confirmar-producto">${esc(link.nombreProducto)}</dd></div>
<div><dt>Cantidad</dt><dd id="confirmar-cantidad">${c.cantidad}</dd></div>
<div><dt>Forma de pago</dt><dd id="confirmar-forma">${esc(NOMBRES_FORMA_PAGO[c.formaPago] ?? String(c.formaPago))}</dd></div>
${tarjeta}
<div class="total"><dt>Total a cobrar</dt><dd id="confirmar-monto" data-monto="${total.toFixed(2)}">$${total.toFixed(2)}</dd></div>
</dl>
<form method="post" id="confirmar" action="${esc(accion)}">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<button type="submit">Confirmar y pagar</button>
</form>
</section>
</div>`;
  return pagina('Paso 2 de 2: confirma tu pago', cuerpo, { comercio: business.nombre });
}

/** The posted form's text fields (what step 1 sent), kept until the confirmation. */
function comoTexto(body: unknown): Record<string, string> {
  if (body === null || typeof body !== 'object') return {};
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export const stepsPages: FastifyPluginAsync = async (app) => {
  const ctx: SandboxContext = app.sandbox;
  if (ctx.options.screen !== 'steps') return;

  const paso1 = (link: Link | undefined, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const e = enlaceYNegocio(ctx, link);
    if (e === undefined) return enHtml(ctx, reply, undefined, undefined, { tipo: 'no encontrado' });
    const no = indisponible(ctx, e.link);
    if (no !== null) return enHtml(ctx, reply, e.link, e.business, no);
    sesionDe(req, reply);
    return html(
      reply,
      200,
      formulario(ctx, e.link, e.business, req.headers.referer, campoSesion(ctx, reply), req.url, {
        radios: true,
        boton: 'Continuar',
        aviso: PASO_1,
      }),
    );
  };

  /** Step 1 posted: validated as the single-step screen's POST; step 2 answered, or step 1 again with the errors (400). */
  const continuar = (link: Link | undefined, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const e = enlaceYNegocio(ctx, link);
    if (e === undefined) return enHtml(ctx, reply, undefined, undefined, { tipo: 'no encontrado' });
    const body = req.body as Record<string, unknown> | undefined;
    const r =
      repeticion(ctx, e.link, body?.intento, false) ??
      indisponible(ctx, e.link) ??
      (sesionValida(ctx, req) ? null : ({ tipo: 'sesion' } as const));
    if (r !== null) return enHtml(ctx, reply, e.link, e.business, r);
    const leido = revisar(ctx, e.link, e.business, body);
    if ('tipo' in leido) {
      if (leido.tipo !== 'errores') return enHtml(ctx, reply, e.link, e.business, leido);
      // Shown again for the same showing when its intento was good: the screen's minutes still count from step 1.
      const enviado = body?.intento;
      const intento = typeof enviado === 'string' && leerIntento(ctx, e.link, enviado) === 'valido' ? enviado : emitirIntento(ctx, e.link);
      sesionDe(req, reply);
      const forma = { radios: true, boton: 'Continuar', aviso: PASO_1, intento, errores: leido.errores };
      return html(reply, 400, formulario(ctx, e.link, e.business, req.headers.referer, campoSesion(ctx, reply), req.url, forma));
    }
    const csrf = randomBytes(24).toString('base64url');
    ctx.store.pagosEnPasos.set(csrf, {
      idEnlace: e.link.idEnlace,
      intento: leido.intento,
      sesion: sesionDe(req, reply),
      campos: comoTexto(body),
    });
    return html(reply, 200, paginaConfirmar(e.link, e.business, leido.compra, csrf, accionConfirmar(req.url)));
  };

  /** Step 2 posted: its CSRF token with the session cookie it was issued to, else 403; then paid as step 1 said. */
  const confirmar = async (link: Link | undefined, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const e = enlaceYNegocio(ctx, link);
    if (e === undefined) return enHtml(ctx, reply, undefined, undefined, { tipo: 'no encontrado' });
    const csrf = (req.body as Record<string, unknown> | undefined)?.csrf;
    const pendiente = typeof csrf === 'string' ? ctx.store.pagosEnPasos.get(csrf) : undefined;
    if (pendiente === undefined || pendiente.idEnlace !== e.link.idEnlace || cookieSesion(req) !== pendiente.sesion) {
      return enHtml(ctx, reply, e.link, e.business, { tipo: 'sesion' });
    }
    // The same confirmation sent again answers what the first answered (fault steps-confirm-twice-charges-twice: charges again).
    const r = repeticion(ctx, e.link, pendiente.intento, ctx.fault('steps-confirm-twice-charges-twice')) ?? indisponible(ctx, e.link);
    if (r !== null) return enHtml(ctx, reply, e.link, e.business, r);
    // Fault steps-confirm-amount-differs: the confirmation forgets the quantity chosen on step 1 (the default is charged).
    const campos = { ...pendiente.campos };
    if (ctx.fault('steps-confirm-amount-differs')) delete campos[nombresCompra(ctx).cantidad];
    const leido = revisar(ctx, e.link, e.business, campos);
    if ('tipo' in leido) return enHtml(ctx, reply, e.link, e.business, leido);
    return enHtml(ctx, reply, e.link, e.business, await cobrar(ctx, e.link, e.business, leido.compra, leido.intento));
  };

  type Ruta = { Params: { idEnlace: string } };
  app.get<Ruta>('/pagar/:idEnlace', async (req, reply) => paso1(buscarEnlace(ctx, req.params.idEnlace), req, reply));
  app.post<Ruta>('/pagar/:idEnlace', { onRequest: contarSolicitudCompra }, async (req, reply) =>
    continuar(buscarEnlace(ctx, req.params.idEnlace), req, reply),
  );
  app.post<Ruta>('/pagar/:idEnlace/confirmar', { onRequest: contarSolicitudCompra }, async (req, reply) =>
    confirmar(buscarEnlace(ctx, req.params.idEnlace), req, reply),
  );

  // Variant urls-deployed: /pago?e=<idEnlace>&h=<token>, its confirmation at /pago/confirmar with the same query.
  if (ctx.variant('urls-deployed')) {
    type Consulta = { Querystring: { e?: string; h?: string } };
    app.get<Consulta>('/pago', async (req, reply) => paso1(enlaceDeConsulta(ctx, req.query.e, req.query.h), req, reply));
    app.post<Consulta>('/pago', { onRequest: contarSolicitudCompra }, async (req, reply) =>
      continuar(enlaceDeConsulta(ctx, req.query.e, req.query.h), req, reply),
    );
    app.post<Consulta>('/pago/confirmar', { onRequest: contarSolicitudCompra }, async (req, reply) =>
      confirmar(enlaceDeConsulta(ctx, req.query.e, req.query.h), req, reply),
    );
  }
};
