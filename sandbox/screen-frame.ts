/**
 * The frame screen (`screen: 'frame'`): the link's payment screen as a modern checkout. `GET /pagar/:idEnlace` is a
 * script shell with no <form>: e-mail, what is bought and a "Pagar" button, and the card (number, expiry, cvv,
 * holder) inside an <iframe> served from a second origin — the other loopback name of the same listener
 * (127.0.0.1 ↔ localhost, from the request's Host). On "Pagar" the shell asks the iframe (postMessage) to tokenise;
 * the iframe posts the card to its vault (`POST /vault/tokens`, its own origin) and posts back a one-time token; the
 * shell posts JSON to `/pagar/:idEnlace/api` and follows `{redirect}` or shows `{error}` in its role="alert" element.
 * The payment itself is the single-step screen's (screen.ts revisar/cobrar): limits, cvv 111, minutes, replays.
 * "Volver" is a button that navigates by script.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext } from './context.ts';
import { campoSesion, camposTarjeta, enIngles, nombresTarjeta, sesionValida, texto } from './card-fields.ts';
import { documento, esc, jsonEnLinea, pagina, resumen } from './html.ts';
import { enlaceDeConsulta } from './links.ts';
import {
  type Resultado,
  buscarEnlace,
  camposCompra,
  cobrar,
  emitirIntento,
  enHtml,
  enlaceYNegocio,
  formasAceptadas,
  indisponible,
  repeticion,
  resumenDe,
  revisar,
  valorFormaPago,
} from './screen.ts';
import type { Business, Link } from './store.ts';
import { contarSolicitudCompra } from './transactions.ts';
import { Validacion } from './validate.ts';

const NO_DISPONIBLE = 'Este enlace ya no está disponible';

/**
 * The iframe's origin: the same listener under the other loopback name (127.0.0.1 ↔ localhost; any other name →
 * localhost), so the browser treats it as another site's frame.
 */
export function otroOrigen(req: FastifyRequest): string {
  const host = req.headers.host ?? '127.0.0.1';
  const m = /^(\[[^\]]*\]|[^:]*)(:\d+)?$/.exec(host);
  const nombre = m?.[1] ?? '';
  return `${req.protocol}://${nombre === 'localhost' ? '127.0.0.1' : 'localhost'}${m?.[2] ?? ''}`;
}

function origenPropio(req: FastifyRequest): string {
  return `${req.protocol}://${req.headers.host ?? '127.0.0.1'}`;
}

/** The submission endpoint of a screen URL: /api after its path, its query kept (variant urls-deployed). */
function rutaApi(url: string): string {
  const i = url.indexOf('?');
  return i < 0 ? `${url}/api` : `${url.slice(0, i)}/api${url.slice(i)}`;
}

/** The shell's script: tokenise through the iframe, submit JSON, follow the redirect or show the refusal. */
const SCRIPT_PANTALLA = `(function () {
  var cfg = JSON.parse(document.getElementById('datos-pantalla').textContent);
  var marco = document.getElementById('marco-tarjeta');
  var origenMarco = new URL(marco.src).origin;
  var aviso = document.getElementById('aviso-pago');
  var boton = document.getElementById('pagar');
  var espera = null;
  window.addEventListener('message', function (e) {
    if (e.origin !== origenMarco || e.source !== marco.contentWindow || espera === null) return;
    var resolver = espera; espera = null; resolver(e.data || {});
  });
  function error(texto) { aviso.textContent = texto; aviso.hidden = false; }
  function tokenizar() {
    return new Promise(function (resolver) { espera = resolver; marco.contentWindow.postMessage({ tipo: 'tokenizar' }, origenMarco); });
  }
  document.getElementById('volver').addEventListener('click', function () {
    if (cfg.retorno) window.location.href = cfg.retorno; else history.back();
  });
  boton.addEventListener('click', async function () {
    boton.disabled = true; aviso.hidden = true; aviso.textContent = '';
    try {
      var datos = { intento: cfg.intento };
      document.querySelectorAll('#compra [name]').forEach(function (el) {
        if ((el.type === 'radio' || el.type === 'checkbox') && !el.checked) return;
        datos[el.name] = el.value;
      });
      if (cfg.sinTarjeta.indexOf(datos[cfg.nombreForma]) < 0) {
        var r = await tokenizar();
        if (r.tipo !== 'token') { error(r.error || cfg.textos.tarjeta); return; }
        datos.token = r.token;
      }
      var res = await fetch(cfg.api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(datos) });
      var cuerpo = await res.json();
      if (cuerpo.redirect) { window.location.href = cuerpo.redirect; return; }
      if (cuerpo.pagina) { document.open(); document.write(cuerpo.pagina); document.close(); return; }
      error(cuerpo.error || cfg.textos.fallo);
    } catch (e) {
      error(cfg.textos.fallo);
    } finally {
      boton.disabled = false;
    }
  });
})();`;

/** The iframe's script: on the shell's request (its origin only), the card to the vault, the token (or the error) back. */
const SCRIPT_BOVEDA = `(function () {
  var cfg = JSON.parse(document.getElementById('datos-boveda').textContent);
  var aviso = document.getElementById('aviso-tarjeta');
  function valor(id) { var el = document.getElementById(id); return el ? el.value : ''; }
  window.addEventListener('message', async function (e) {
    if (e.origin !== cfg.padre || e.source !== window.parent || !e.data || e.data.tipo !== 'tokenizar') return;
    aviso.hidden = true;
    try {
      var res = await fetch('/vault/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({
        idEnlace: cfg.idEnlace,
        numeroTarjeta: valor('campo-numeroTarjeta').replace(/[\\s-]+/g, ''),
        mesVencimiento: valor('campo-mesVencimiento'),
        anioVencimiento: valor('campo-anioVencimiento'),
        cvv: valor('campo-cvv'),
        nombreTitular: valor('campo-nombreTitular')
      }) });
      var cuerpo = await res.json();
      if (res.ok) { window.parent.postMessage({ tipo: 'token', token: cuerpo.token }, cfg.padre); return; }
      aviso.textContent = cuerpo.error; aviso.hidden = false;
      window.parent.postMessage({ tipo: 'error', error: cuerpo.error }, cfg.padre);
    } catch (err) {
      window.parent.postMessage({ tipo: 'error', error: cfg.fallo }, cfg.padre);
    }
  });
})();`;

/** The shell: what is bought and the e-mail in the page, the card in the iframe, no form; the script drives it. */
function shell(ctx: SandboxContext, link: Link, business: Business, req: FastifyRequest, reply: FastifyReply): string {
  const t = (es: string, en: string) => texto(ctx, es, en);
  const email = camposTarjeta(ctx, true).find((c) => c.includes('id="campo-email"')) ?? '';
  const marco = `${otroOrigen(req)}/vault/campos?enlace=${link.idEnlace}&padre=${encodeURIComponent(origenPropio(req))}`;
  const datos = {
    intento: emitirIntento(ctx, link),
    api: rutaApi(req.url),
    retorno: link.configuracion.urlRetorno ?? req.headers.referer ?? null,
    sinTarjeta: formasAceptadas(link)
      .filter((f) => f >= 3)
      .map((f) => valorFormaPago(ctx, f)),
    textos: {
      tarjeta: t('Revise los datos de la tarjeta.', 'Check the card details.'),
      fallo: t('No se pudo procesar el pago; inténtelo de nuevo.', 'The payment could not be processed; try again.'),
    },
  };
  // The payment form's input name (pages-deployed-form renames it): the script reads it to know when no card is needed.
  const nombreForma = /name="([^"]+)"/.exec(camposCompra(ctx, link, business, false)[0] ?? '')?.[1] ?? 'formaPago';
  const app = `<section class="tarjeta" aria-label="${t('Datos de pago', 'Payment details')}">
<h2>${t('Datos de pago', 'Payment details')}</h2>
<div id="compra">
${campoSesion(ctx, reply)}
${email}
${camposCompra(ctx, link, business, false).join('\n')}
</div>
<iframe id="marco-tarjeta" class="marco" title="${t('Datos de la tarjeta', 'Card details')}" src="${esc(marco)}"></iframe>
<p id="aviso-pago" class="errores" role="alert" hidden></p>
<button type="button" id="pagar">${t('Pagar', 'Pay')}</button>
<button type="button" id="volver" class="secundario">${t('Volver', 'Back')}</button>
</section>
<script type="application/json" id="datos-pantalla">${jsonEnLinea({ ...datos, nombreForma })}</script>
<script>${SCRIPT_PANTALLA}</script>`;
  const compra = { ...resumenDe(link, business), editable: link.configuracion.esCantidadEditable || link.configuracion.esMontoEditable };
  return pagina(link.nombreProducto, `<div class="pantalla">\n${resumen(compra)}\n${app}\n</div>`, {
    comercio: business.nombre,
    idioma: enIngles(ctx) ? 'en' : 'es',
  });
}

/** The iframe: the card inputs (labelled, the screen's names) and nothing else. */
function paginaBoveda(ctx: SandboxContext, idEnlace: number, padre: string): string {
  const t = (es: string, en: string) => texto(ctx, es, en);
  const tarjeta = camposTarjeta(ctx, true).filter((c) => !c.includes('id="campo-email"'));
  const cuerpo = `<main>
${tarjeta.join('\n')}
<p id="aviso-tarjeta" class="errores" role="alert" hidden></p>
</main>
<script type="application/json" id="datos-boveda">${jsonEnLinea({ idEnlace, padre, fallo: t('La bóveda de tarjetas no respondió.', 'The card vault did not answer.') })}</script>
<script>${SCRIPT_BOVEDA}</script>`;
  return documento(t('Datos de la tarjeta', 'Card details'), cuerpo, enIngles(ctx) ? 'en' : 'es');
}

/** A result as the shell's JSON: where to go, a page to show (Bitcoin, quick-pay), or the refusal in words. */
function enJson(reply: FastifyReply, r: Resultado): FastifyReply {
  switch (r.tipo) {
    case 'hecho':
      return reply.code(200).send(r.respuesta.status === 303 ? { redirect: r.respuesta.location } : { pagina: r.respuesta.html });
    case 'no encontrado':
      return reply.code(404).send({ error: 'No encontramos este pago.' });
    case 'no disponible':
      return reply.code(410).send({ error: `${NO_DISPONIBLE}: ${r.detalle}.`, estado: r.estado });
    case 'en proceso':
      return reply.code(409).send({ error: 'Este pago ya se está procesando.' });
    case 'sesion':
      return reply.code(403).send({ error: 'La sesión no es válida: vuelva a abrir el enlace de pago.' });
    case 'errores':
      return reply.code(400).send({
        error: `Algunos datos no son válidos: ${r.errores.map((e) => `${e.campo}: ${e.mensaje}`).join('; ')}.`,
        errores: r.errores,
      });
  }
}

export const framePages: FastifyPluginAsync = async (app) => {
  const ctx: SandboxContext = app.sandbox;
  if (ctx.options.screen !== 'frame') return;

  const mostrar = (link: Link | undefined, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const e = enlaceYNegocio(ctx, link);
    if (e === undefined) return enHtml(ctx, reply, undefined, undefined, { tipo: 'no encontrado' });
    const no = indisponible(ctx, e.link);
    if (no !== null) return enHtml(ctx, reply, e.link, e.business, no);
    return reply
      .code(200)
      .type('text/html; charset=utf-8')
      .send(shell(ctx, e.link, e.business, req, reply));
  };

  /** The shell's JSON submission: the single-step screen's payment, the card taken from its vault token. */
  const pagar = async (link: Link | undefined, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const e = enlaceYNegocio(ctx, link);
    if (e === undefined) return enJson(reply, { tipo: 'no encontrado' });
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body))
      return enJson(reply, { tipo: 'errores', errores: [{ campo: '$', mensaje: 'el cuerpo debe ser un objeto JSON' }] });
    const r =
      repeticion(ctx, e.link, body.intento, ctx.fault('screen-replay-double-charge')) ??
      indisponible(ctx, e.link) ??
      (sesionValida(ctx, req) ? null : ({ tipo: 'sesion' } as const));
    if (r !== null) return enJson(reply, r);
    const token = typeof body.token === 'string' ? ctx.store.tokensBoveda.get(body.token) : undefined;
    if (body.token !== undefined && (token === undefined || token.usado || token.idEnlace !== e.link.idEnlace)) {
      return enJson(reply, {
        tipo: 'errores',
        errores: [{ campo: 'token', mensaje: 'la tarjeta no se pudo verificar; vuelva a ingresarla' }],
      });
    }
    // The card the token stands for, under the screen's own input names (what revisar reads).
    const n = nombresTarjeta(ctx);
    const datos: Record<string, unknown> = { ...body };
    if (token !== undefined) {
      const c = token.tarjeta;
      Object.assign(datos, {
        [n.numeroTarjeta]: c.numeroTarjeta,
        [n.cvv]: c.cvv,
        [n.mesVencimiento]: String(c.mesVencimiento),
        [n.anioVencimiento]: String(c.anioVencimiento),
        [n.nombreTitular]: c.nombreTitular,
      });
    }
    const leido = revisar(ctx, e.link, e.business, datos);
    if ('tipo' in leido) return enJson(reply, leido);
    if (token !== undefined) token.usado = true;
    // Fault frame-token-wrong-amount: the token charges the link's monto it remembered, whatever quantity was chosen.
    const compra =
      token !== undefined && ctx.fault('frame-token-wrong-amount')
        ? { ...leido.compra, cantidad: 1, montoUnitario: token.montoEnlace }
        : leido.compra;
    return enJson(reply, await cobrar(ctx, e.link, e.business, compra, leido.intento));
  };

  type Ruta = { Params: { idEnlace: string } };
  app.get<Ruta>('/pagar/:idEnlace', async (req, reply) => mostrar(buscarEnlace(ctx, req.params.idEnlace), req, reply));
  app.post<Ruta>('/pagar/:idEnlace/api', { onRequest: contarSolicitudCompra }, async (req, reply) =>
    pagar(buscarEnlace(ctx, req.params.idEnlace), req, reply),
  );
  if (ctx.variant('urls-deployed')) {
    type Consulta = { Querystring: { e?: string; h?: string } };
    app.get<Consulta>('/pago', async (req, reply) => mostrar(enlaceDeConsulta(ctx, req.query.e, req.query.h), req, reply));
    app.post<Consulta>('/pago/api', { onRequest: contarSolicitudCompra }, async (req, reply) =>
      pagar(enlaceDeConsulta(ctx, req.query.e, req.query.h), req, reply),
    );
  }

  /** The card iframe, for the shell of the other origin only (`padre`). */
  app.get<{ Querystring: { enlace?: string; padre?: string } }>('/vault/campos', async (req, reply) => {
    const link = typeof req.query.enlace === 'string' ? buscarEnlace(ctx, req.query.enlace) : undefined;
    if (link === undefined)
      return reply
        .code(404)
        .type('text/html; charset=utf-8')
        .send(documento('Datos de la tarjeta', '<p class="detalle">No encontramos este pago.</p>'));
    if (req.query.padre !== otroOrigen(req)) {
      return reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send(documento('Datos de la tarjeta', '<p class="detalle">Este formulario solo se muestra dentro de la pantalla de pago.</p>'));
    }
    return reply.type('text/html; charset=utf-8').send(paginaBoveda(ctx, link.idEnlace, req.query.padre));
  });

  /** The vault: a card in, a one-time token out (bound to the link); a bad card is a 400 with the errors, nothing stored. */
  app.post('/vault/tokens', async (req, reply) => {
    const v = new Validacion(true);
    const f = v.cuerpo(req.body);
    const idEnlace = f.numero('idEnlace', { requerido: true, entero: true, min: 1 });
    const numeroTarjeta = f.texto('numeroTarjeta', {
      requerido: true,
      patron: /^\d{12,19}$/,
      mensajePatron: texto(ctx, 'debe tener de 12 a 19 dígitos', 'must have 12 to 19 digits'),
    });
    const cvv = f.texto('cvv', {
      requerido: true,
      patron: /^\d{3,4}$/,
      mensajePatron: texto(ctx, 'debe tener 3 o 4 dígitos', 'must have 3 or 4 digits'),
    });
    const mesVencimiento = f.numero('mesVencimiento', { requerido: true, entero: true, min: 1, max: 12 });
    const anioVencimiento = f.numero('anioVencimiento', { requerido: true, entero: true, min: 0, max: 2199 });
    const nombreTitular = f.texto('nombreTitular', { max: 200 });
    const link = idEnlace === undefined ? undefined : ctx.store.links.get(idEnlace);
    if (idEnlace !== undefined && link === undefined) v.error('idEnlace', 'no existe');
    if (
      !v.ok ||
      link === undefined ||
      numeroTarjeta === undefined ||
      cvv === undefined ||
      mesVencimiento === undefined ||
      anioVencimiento === undefined
    ) {
      return reply.code(400).send({
        error:
          `${texto(ctx, 'Revise los datos de la tarjeta', 'Check the card details')}: ` +
          `${v.errores.map((e) => `${e.campo}: ${e.mensaje}`).join('; ')}.`,
        errores: v.errores,
      });
    }
    const token = `tok_${randomBytes(18).toString('base64url')}`;
    ctx.store.tokensBoveda.set(token, {
      idEnlace: link.idEnlace,
      tarjeta: { numeroTarjeta, cvv, mesVencimiento, anioVencimiento, nombreTitular },
      montoEnlace: link.monto,
      usado: false,
    });
    return reply.code(201).send({ token });
  });
};
