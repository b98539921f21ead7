/**
 * The hosted payment screen behind urlEnlaceLargo (`/pagar/:idEnlace`): a plain HTML form (field names in
 * docs/decisions.md) and its submission. The `intento` token (one per showing: time, nonce, signature) is signed, so
 * showing the screen changes nothing; its age bounds the submission (duracionInterfazIntentoMinutos), and once it paid,
 * a replay of it answers the same and charges nothing (store.intentosUsados). A processed card payment answers 303 to
 * urlRedirect (else the business URL) with the outcome query and hash; Bitcoin and quick-pay leave the
 * transaction pending and show what the customer must scan.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { SandboxContext } from './context.ts';
import { estadoRedireccion, urlResultado } from './hash.ts';
import {
  campo,
  esc,
  estadoEnPalabras,
  fechaLegible,
  formularioHosted,
  pagina,
  paginaErrores,
  paginaEstado,
  paginaNoDisponible,
  resumen,
  type Resumen,
} from './html.ts';
import {
  campoSesion,
  camposTarjeta,
  enIngles,
  leerPersona,
  confirmacionDistinta,
  leerTarjeta,
  listaErrores,
  nombresTarjeta,
  sesionValida,
  texto,
} from './card-fields.ts';
import { contarResultado, enlaceDeConsulta, idEnlaceDeRuta, motivoNoDisponible, ventanaDeCarrera } from './links.ts';
import { datosQuickPay } from './purchases/quickpay.ts';
import type { Business, Link, RespuestaIntento } from './store.ts';
import { MENSAJE_DECLINADA, aprobar, contarSolicitudCompra, declinar, notificacionesEfectivas, nuevaTransaccion } from './transactions.ts';
import { EMAIL, type Lector, Validacion } from './validate.ts';
import { fechaServicio } from './views.ts';
import { clockOf } from './tenants.ts';

export const NOMBRES_FORMA_PAGO = ['Tarjeta de crédito o débito', 'Puntos', 'Cuotas', 'Bitcoin', 'QuickPay'];
/** Variant pages-deployed-form: the payment forms offered by their 2.2 names, with the deployed screen's texts. */
// Stryker disable all: only variant pages-deployed-form reads these (plumbing, off by default; npm run mutation:stryker)
const VALORES_FORMA_PAGO = ['PagoNormal', 'Puntos', 'Cuotas', 'Bitcoin', 'QuickPay'];
const TEXTOS_FORMA_PAGO = ['Tarjeta de crédito o débito', 'Puntos Partner', 'Cuotas Partner', 'Bitcoin', 'QuickPay'];
// Stryker restore all

/** The names of the purchase inputs: docs/decisions.md's, or (pages-deployed-form) the deployed form's, the quantity's opaque. */
export function nombresCompra(ctx: SandboxContext): { formaPago: string; cuotas: string; cantidad: string; monto: string } {
  if (ctx.variant('pages-deployed-form')) return { formaPago: 'MetodoPago', cuotas: 'NumeroCuotas', cantidad: 'x9q2', monto: 'ValorPagar' };
  return { formaPago: 'formaPago', cuotas: 'cuotas', cantidad: 'cantidad', monto: 'monto' };
}

/** A payment form as the screen offers it: its number, or (pages-deployed-form) its name. */
export function valorFormaPago(ctx: SandboxContext, f: number): string {
  return ctx.variant('pages-deployed-form') ? (VALORES_FORMA_PAGO[f] ?? String(f)) : String(f);
}

/** The posted payment form: its number, or (pages-deployed-form) its name. */
function leerFormaPago(ctx: SandboxContext, f: Lector, nombre: string): number | undefined {
  const valor = f.datos[nombre];
  if (ctx.variant('pages-deployed-form') && typeof valor === 'string' && VALORES_FORMA_PAGO.includes(valor))
    return VALORES_FORMA_PAGO.indexOf(valor);
  return f.numero(nombre, { requerido: true, entero: true });
}
/** Sandbox exchange rate for the simulated Bitcoin payment. */
const DOLARES_POR_BITCOIN = 65_000;
const MINUTOS_BITCOIN = 15;

export function formasAceptadas(link: Link): number[] {
  const fp = link.formaPago;
  const flags = [
    fp.permitirTarjetaCreditoDebido,
    fp.permitirPagoConPuntoPartner,
    fp.permitirPagoEnCuotasPartner,
    fp.permitirPagoEnBitcoin,
    fp.permitePagoQuickPay,
  ];
  return flags.flatMap((permitido, formaPago) => (permitido ? [formaPago] : []));
}

// Stryker disable all: only fault link-formapago-not-enforced calls it (plumbing, off by default; npm run mutation:stryker)
/** The payment forms the business itself accepts (2.7): what a link's formaPago narrows. */
function formasDelNegocio(business: Business): number[] {
  const flags = [
    true,
    business.aplicaPagoConPuntos,
    business.cuotasDisponibles.length > 0,
    business.aplicaPagoConBitcoin,
    business.aplicaPagoConQuickPay,
  ];
  return flags.flatMap((acepta, formaPago) => (acepta ? [formaPago] : []));
}
// Stryker restore all

export function cuotasAceptadas(link: Link, business: Business): number[] {
  return business.cuotasDisponibles.map((c) => c.cantidadCuotas).filter((n) => n <= link.cantidadMaximaCuotas);
}

function firmaIntento(ctx: SandboxContext, idEnlace: number, emitido: number, nonce: string): string {
  return createHmac('sha256', ctx.claveIntento).update(`${idEnlace}.${emitido}.${nonce}`).digest('base64url').slice(0, 22);
}

/** `<emitido base 36>.<nonce>.<signature>`: the nonce makes two showings in the same millisecond two attempts. */
export function emitirIntento(ctx: SandboxContext, link: Link): string {
  const emitido = clockOf(ctx, link.idAplicativo).nowMs();
  const nonce = randomBytes(9).toString('base64url');
  return `${emitido.toString(36)}.${nonce}.${firmaIntento(ctx, link.idEnlace, emitido, nonce)}`;
}

export function leerIntento(ctx: SandboxContext, link: Link, intento: string): 'valido' | 'invalido' | 'vencido' {
  const [marca = '', nonce = '', firma] = intento.split('.');
  const emitido = parseInt(marca, 36);
  if (!Number.isSafeInteger(emitido) || firma !== firmaIntento(ctx, link.idEnlace, emitido, nonce)) return 'invalido';
  const minutos = link.configuracion.duracionInterfazIntentoMinutos;
  const desde = ctx.fault('screen-validity-from-link-creation') ? link.creadoMs : emitido;
  // Fault screen-expires-early: the screen lasts two thirds of its stated minutes.
  const dura = minutos === null ? null : minutos * 60_000 * (ctx.fault('screen-expires-early') ? 2 / 3 : 1);
  const vencido = dura !== null && clockOf(ctx, link.idAplicativo).nowMs() - desde > dura;
  return vencido && !ctx.fault('screen-duration-not-enforced') ? 'vencido' : 'valido';
}

export function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/** Sends what a processed submission answered (the first time, and again to a replay of it). */
function responder(ctx: SandboxContext, reply: FastifyReply, r: RespuestaIntento): FastifyReply {
  return r.status === 303 ? reply.redirect(r.location, estadoRedireccion(ctx)) : html(reply, 200, r.html);
}

/** What the screen shows beside its form (and its refusal pages): who charges, for what, how much, how. */
export function resumenDe(link: Link, business: Business): Resumen {
  const info = link.infoProducto;
  return {
    comercio: business.nombre,
    producto: link.nombreProducto,
    descripcion: info.descripcionProducto,
    imagen: info.urlImagenProducto,
    montoUnitario: link.monto,
    cantidad: link.configuracion.cantidadPorDefecto,
    formas: formasAceptadas(link).map((n) => NOMBRES_FORMA_PAGO[n] ?? String(n)),
  };
}

/** A payment left pending (Bitcoin, quick-pay): what to scan, beside what is paid. */
function paginaPendiente(titulo: string, instrucciones: string, compra: Resumen): string {
  const aviso = `<section class="tarjeta aviso" aria-live="polite">\n${estadoEnPalabras('pendiente')}\n${instrucciones}\n</section>`;
  return pagina(titulo, `<div class="pantalla">\n${resumen(compra)}\n${aviso}\n</div>`, { comercio: compra.comercio });
}

/**
 * The purchase inputs (what is bought and how). `radios` (steps screen): the payment form and the instalments as
 * labelled radio buttons, the first checked, instead of selects.
 */
export function camposCompra(ctx: SandboxContext, link: Link, business: Business, radios: boolean): string[] {
  const cfg = link.configuracion;
  const t = (es: string, en: string) => texto(ctx, es, en);
  const formas = formasAceptadas(link);
  const n = nombresCompra(ctx);
  const entrada = (id: string, name: string, atributos: string) => `<input id="campo-${id}" name="${name}" ${atributos}>`;
  // pages-deployed-form: the deployed screen's labels, and its payment forms offered by name.
  const desplegado = ctx.variant('pages-deployed-form');
  const etiquetaForma = (f: number) => (desplegado ? TEXTOS_FORMA_PAGO[f] : NOMBRES_FORMA_PAGO[f]) ?? String(f);
  const valorForma = (f: number) => valorFormaPago(ctx, f);
  const lista = (id: string, nombre: string, valores: number[], etiqueta: (n: number) => string, valor: (n: number) => string) =>
    `<select id="${id}" name="${esc(nombre)}">${valores.map((v) => `<option value="${esc(valor(v))}">${esc(etiqueta(v))}</option>`).join('')}</select>`;
  // Stryker disable all: radio groups are drawn only for the steps screen (plumbing, off by default; npm run mutation:stryker)
  const grupo = (
    id: string,
    leyenda: string,
    nombre: string,
    valores: number[],
    etiqueta: (n: number) => string,
    valor: (n: number) => string,
  ) =>
    `<fieldset class="campo opciones" id="${id}"><legend>${esc(leyenda)}</legend>${valores
      .map(
        (v, i) =>
          `<label><input type="radio" name="${esc(nombre)}" value="${esc(valor(v))}"${i === 0 ? ' checked' : ''}> ` +
          `${esc(etiqueta(v))}</label>`,
      )
      .join('')}</fieldset>`;
  // Stryker restore all
  const leyendaForma = desplegado ? t('Método', 'Method') : t('Forma de pago', 'Payment method');
  const meses = (c: number) => t(`${c} meses`, `${c} months`);
  const cuotas = cuotasAceptadas(link, business);
  return [
    radios
      ? grupo('campo-formaPago', leyendaForma, n.formaPago, formas, etiquetaForma, valorForma)
      : campo('campo-formaPago', leyendaForma, lista('campo-formaPago', n.formaPago, formas, etiquetaForma, valorForma)),
    !formas.includes(2)
      ? ''
      : radios
        ? grupo('campo-cuotas', t('Cuotas (pago en cuotas)', 'Instalments (instalment payments)'), n.cuotas, cuotas, meses, String)
        : campo(
            'campo-cuotas',
            t('Cuotas', 'Instalments'),
            lista('campo-cuotas', n.cuotas, cuotas, meses, String),
            t('(pago en cuotas)', '(instalment payments)'),
          ),
    cfg.esCantidadEditable
      ? campo(
          'campo-cantidad',
          desplegado ? t('Unidades', 'Units') : t('Cantidad', 'Quantity'),
          entrada('cantidad', n.cantidad, `type="number" min="1" step="1" value="${cfg.cantidadPorDefecto}"`),
        )
      : `<input type="hidden" name="${n.cantidad}" value="${cfg.cantidadPorDefecto}">`,
    cfg.esMontoEditable
      ? campo(
          'campo-monto',
          desplegado ? t('Valor a pagar', 'Amount to pay') : t('Monto a pagar ($)', 'Amount to pay ($)'),
          entrada('monto', n.monto, `type="number" min="0.01" step="0.01" value="${link.monto.toFixed(2)}"`),
        )
      : '',
  ].filter((c) => c !== '');
}

/** How the form of a link's screen is drawn: the steps screen's step 1 has radios, another button, and may show errors. */
export interface FormaPantalla {
  radios?: boolean;
  boton?: string;
  /** The intento to carry (a form shown again keeps the showing it came from); default a new one. */
  intento?: string;
  errores?: { campo: string; mensaje: string }[];
  /** A line above the form (steps: which step this is). */
  aviso?: string;
}

/**
 * The payment form: every input labelled (docs/decisions.md names the fields; the variants of card-fields.ts rename,
 * relabel and reorder them).
 */
function camposDePago(ctx: SandboxContext, link: Link, business: Business, sesion: string, forma: FormaPantalla): string[] {
  const compra = camposCompra(ctx, link, business, forma.radios === true);
  const tarjeta = camposTarjeta(ctx, true);
  return [
    `<input type="hidden" name="intento" value="${esc(forma.intento ?? emitirIntento(ctx, link))}">`,
    sesion,
    // pages-english: the card first, what is bought after it.
    ...(enIngles(ctx) ? [...tarjeta, ...compra] : [...compra, ...tarjeta]),
    `<button type="submit">${esc(forma.boton ?? texto(ctx, 'Pagar', 'Pay'))}</button>`,
  ].filter((c) => c !== '');
}

export function formulario(
  ctx: SandboxContext,
  link: Link,
  business: Business,
  referer: string | undefined,
  sesion: string,
  accion: string,
  forma: FormaPantalla = {},
): string {
  const regreso = link.configuracion.urlRetorno ?? referer;
  const form =
    `<form method="post" id="pago" ` + `action="${esc(accion)}">\n${camposDePago(ctx, link, business, sesion, forma).join('\n')}\n</form>`;
  const pago = `<section class="tarjeta" aria-label="Datos de pago">
<h2>${texto(ctx, 'Datos de pago', 'Payment details')}</h2>
${forma.aviso === undefined ? '' : `<p class="detalle" id="paso">${esc(forma.aviso)}</p>`}
${listaErrores(forma.errores ?? [])}
${formularioHosted(ctx.options.screen, form)}
${regreso === undefined ? '' : `<a id="regresar" class="regresar" href="${esc(regreso)}">← Regresar al comercio</a>`}
</section>`;
  const compra = { ...resumenDe(link, business), editable: link.configuracion.esCantidadEditable || link.configuracion.esMontoEditable };
  return pagina(link.nombreProducto, `<div class="pantalla">\n${resumen(compra)}\n${pago}\n</div>`, {
    comercio: business.nombre,
    idioma: enIngles(ctx) ? 'en' : 'es',
  });
}

/** What a submission of a link's screen came to, before it is written as a page (or, frame screen, as JSON). */
export type Resultado =
  | { tipo: 'hecho'; respuesta: RespuestaIntento }
  | { tipo: 'no encontrado' }
  | { tipo: 'no disponible'; estado: 'no disponible' | 'intento vencido'; detalle: string }
  | { tipo: 'en proceso' }
  | { tipo: 'sesion' }
  | { tipo: 'errores'; errores: { campo: string; mensaje: string }[] };

/** A submission read and validated: what is bought, how, and the cvv that decides a test payment's outcome. */
export interface Compra {
  formaPago: number;
  cantidad: number;
  montoUnitario: number;
  email: string | undefined;
  cvv: string | undefined;
  numeroTarjeta: string | undefined;
}

const VENCIDO: Resultado = {
  tipo: 'no disponible',
  estado: 'intento vencido',
  detalle: 'vuelva a abrir el enlace de pago para intentarlo de nuevo',
};

export function buscarEnlace(ctx: SandboxContext, texto: string): Link | undefined {
  const id = idEnlaceDeRuta(ctx, texto);
  return id === undefined ? undefined : ctx.store.links.get(id);
}

/**
 * A replayed submission (same intento: a double click, a resent form, a retrying proxy) answers what the first
 * answered and charges nothing; one still being processed is refused. Checked first: the link's state may have
 * changed because of that first submission. `repetir`: a fault that charges it again. Undefined: a new submission.
 */
export function repeticion(ctx: SandboxContext, link: Link, enviado: unknown, repetir: boolean): Resultado | undefined {
  const previa = typeof enviado === 'string' ? ctx.store.intentosUsados.get(`${link.idEnlace}:${enviado}`) : undefined;
  if (previa?.status === 303 && ctx.fault('screen-replay-redirect-invented')) {
    // The replay answered as a charge of its own, with an id nothing was recorded under.
    const location = new URL(previa.location);
    location.searchParams.set('idTransaccion', randomUUID());
    return { tipo: 'hecho', respuesta: { status: 303, location: location.href } };
  }
  if (previa === undefined || repetir) return undefined;
  if (ctx.variant('screen-replay-any-age')) return previa === null ? { tipo: 'en proceso' } : { tipo: 'hecho', respuesta: previa };
  if (leerIntento(ctx, link, enviado as string) === 'vencido') return VENCIDO; // past its validity: refused, replayed or not
  return previa === null ? { tipo: 'en proceso' } : { tipo: 'hecho', respuesta: previa };
}

/** Reads a submission (the page's own field names): its intento, then what is bought; the refusal otherwise. */
export function revisar(
  ctx: SandboxContext,
  link: Link,
  business: Business,
  datos: unknown,
): { compra: Compra; intento: string } | Resultado {
  const v = new Validacion(true, { sinRecortar: ctx.variant('screen-numbers-untrimmed') });
  const f = v.cuerpo(datos);
  const intento = f.texto('intento', { requerido: true });
  if (intento !== undefined) {
    const estado = leerIntento(ctx, link, intento);
    if (estado === 'vencido') return VENCIDO;
    if (estado === 'invalido') v.error('intento', 'no corresponde a esta pantalla de pago');
  }
  const compra = nombresCompra(ctx);
  const formaPago = leerFormaPago(ctx, f, compra.formaPago);
  // The link's own formaPago decides, whatever the business accepts (fault link-formapago-not-enforced: the business's).
  const formas = ctx.fault('link-formapago-not-enforced') ? formasDelNegocio(business) : formasAceptadas(link);
  if (formaPago !== undefined && !formas.includes(formaPago)) {
    v.error(compra.formaPago, `el enlace acepta: ${formas.join(', ')}`);
  }
  const conTarjeta = formaPago === undefined || formaPago <= 2;
  const nombres = nombresTarjeta(ctx);
  const cvv = conTarjeta ? leerTarjeta(ctx, f, false).cvv : undefined;
  if (formaPago === 2) {
    const cuotas = f.numero(compra.cuotas, { requerido: true, entero: true });
    // Bounded by the link's cantidadMaximaCuotas where it is posted, not only by the select (fault cuotas-not-limited-by-link).
    const planes = ctx.fault('cuotas-not-limited-by-link')
      ? business.cuotasDisponibles.map((c) => c.cantidadCuotas)
      : cuotasAceptadas(link, business);
    if (cuotas !== undefined && !planes.includes(cuotas)) {
      v.error(compra.cuotas, `debe ser una de: ${planes.join(', ')}`);
    }
  }
  f.texto(nombres.nombreTitular, { max: 200 });
  leerPersona(ctx, f);
  const email = f.texto(nombres.email, {
    patron: EMAIL,
    mensajePatron: texto(ctx, 'debe ser un correo electrónico', 'must be an e-mail address'),
  });
  const distinta = confirmacionDistinta(ctx, f, email);
  if (distinta) v.error(distinta.campo, distinta.mensaje);
  const cfg = link.configuracion;
  const cantidad = cfg.esCantidadEditable
    ? // 4.1: a quantity is an int (fault cantidad-fraction-accepted takes 0.5 and charges half a unit).
      (f.numero(
        compra.cantidad,
        ctx.fault('cantidad-fraction-accepted') ? { min: 0.01, max: 1000 } : { entero: true, min: 1, max: 1000 },
      ) ?? cfg.cantidadPorDefecto)
    : cfg.cantidadPorDefecto;
  const montoEditable = cfg.esMontoEditable || ctx.fault('screen-monto-editable-ignored');
  const montoUnitario = montoEditable ? (f.numero(compra.monto, { min: 0.01, max: 1e9 }) ?? link.monto) : link.monto;
  if (!v.ok || formaPago === undefined || intento === undefined) return { tipo: 'errores', errores: v.errores };
  const numero = conTarjeta ? f.datos[nombres.numeroTarjeta] : undefined;
  return {
    intento,
    compra: { formaPago, cantidad, montoUnitario, email, cvv, numeroTarjeta: typeof numero === 'string' ? numero : undefined },
  };
}

/**
 * Processes a validated submission of the screen shown as `intento`: records the transaction, decides it (spec 7),
 * counts it on the link, notifies, and remembers the answer for a replay of that intento.
 */
export async function cobrar(ctx: SandboxContext, link: Link, business: Business, c: Compra, intento: string): Promise<Resultado> {
  // Spec 4.1: amount charged = quantity × monto.
  const veces = ctx.fault('screen-cantidad-ignored')
    ? 1
    : ctx.fault('screen-cantidad-applied-twice')
      ? c.cantidad * c.cantidad
      : c.cantidad;
  // Fault amount-binary-float: the product left as the doubles give it, never rounded to the cent.
  const monto = ctx.fault('amount-binary-float') ? veces * c.montoUnitario : Math.round(veces * c.montoUnitario * 100) / 100;
  // A huge link monto times the quantity can leave the doubles: refuse it rather than store Infinity.
  if (!Number.isFinite(monto))
    return { tipo: 'errores', errores: [{ campo: 'cantidad', mensaje: 'el monto a cobrar (cantidad × monto) no es representable' }] };
  const { formaPago } = c;
  const tx = nuevaTransaccion(ctx, {
    tipo: formaPago === 4 ? 'quickpay' : 'enlace',
    business,
    monto,
    formaPago,
    notificaciones: notificacionesEfectivas(business, link),
    datosAdicionales: link.datosAdicionales,
    idEnlace: link.idEnlace,
    emailCliente: c.email ?? null,
  });
  link.transacciones.push(tx.idTransaccion);
  // The intento (valid: checked by revisar) is used from here on, in the same tick as the link's check.
  const clave = `${link.idEnlace}:${intento}`;
  ctx.store.intentosUsados.set(clave, null);
  const recordar = (r: RespuestaIntento): Resultado => {
    ctx.store.intentosUsados.set(clave, r);
    return { tipo: 'hecho', respuesta: r };
  };
  const compra = { ...resumenDe(link, business), cantidad: c.cantidad, montoUnitario: c.montoUnitario };

  if (formaPago === 3) {
    const qrData = `tb1q${tx.idTransaccion.replaceAll('-', '').slice(0, 38)}`;
    tx.datosBitcoin = {
      urlQR: `${ctx.origin}/qr/bitcoin/${tx.idTransaccion}.png`,
      qrData,
      ammountInBitcoins: Math.round((monto / DOLARES_POR_BITCOIN) * 1e8) / 1e8,
      ammountInDollars: monto,
      fechaVencimiento: fechaServicio(ctx.variant, clockOf(ctx, tx.idAplicativo).nowMs() + MINUTOS_BITCOIN * 60_000),
    };
    const cuerpo = `<p>Envíe ${tx.datosBitcoin.ammountInBitcoins} BTC a <code id="qrData">${esc(qrData)}</code> antes del ${esc(fechaLegible(tx.datosBitcoin.fechaVencimiento))}.</p>
<img id="qr" src="${esc(tx.datosBitcoin.urlQR)}" class="qr" alt="QR de pago en Bitcoin">`;
    return recordar({ status: 200, html: paginaPendiente('Pago con Bitcoin', cuerpo, compra) });
  }
  if (formaPago === 4) {
    const qp = datosQuickPay(ctx, tx);
    const cuerpo = `<p>Escanee el código con QuickPay antes del ${esc(fechaLegible(qp.fechaVencimiento))}.</p>
<img id="qr" src="${esc(qp.urlQR)}" class="qr" alt="QR de QuickPay">
<a id="pagina-quickpay" class="regresar" href="/qp/${tx.idTransaccion}">Pagar con QuickPay en este dispositivo</a>`;
    return recordar({ status: 200, html: paginaPendiente('Pago con QuickPay', cuerpo, compra) });
  }

  // Spec 7: development approves everything except cvv 111 on the payment screen.
  const declinada = !business.estaProductivo && c.cvv === '111' && !ctx.fault('cvv-111-approved-on-screen');
  // The success limit was checked before (motivoNoDisponible) and is committed here, with nothing awaited between,
  // unless fault race-success-limit waits a round trip in between.
  if (!declinada && ctx.fault('race-success-limit')) await ventanaDeCarrera();
  if (declinada) declinar(ctx, tx, MENSAJE_DECLINADA);
  else aprobar(ctx, tx);
  const conteo = contarResultado(ctx, link, tx);
  if (conteo !== undefined) await conteo;
  ctx.notifier.notificar(tx, link);
  return recordar({
    status: 303,
    location: urlResultado(ctx, tx, business, link, link.configuracion.urlRedirect ?? business.urlAplicativo),
  });
}

/**
 * A result as a page. A link that can no longer be paid (or an attempt past its time): the sandbox's 410 page with
 * `#estado`, or (variant screen-unavailable-200) the deployed service's plain 200 page saying the link is not available.
 */
export function enHtml(
  ctx: SandboxContext,
  reply: FastifyReply,
  link: Link | undefined,
  business: Business | undefined,
  r: Resultado,
): FastifyReply {
  if (r.tipo === 'hecho') return responder(ctx, reply, r.respuesta);
  if (r.tipo === 'no encontrado' || link === undefined || business === undefined)
    return html(reply, 404, paginaEstado('Pago', 'no encontrado'));
  if (r.tipo === 'no disponible') {
    if (ctx.variant('screen-unavailable-200')) return html(reply, 200, paginaNoDisponible(business.nombre));
    return html(reply, 410, paginaEstado(link.nombreProducto, r.estado, r.detalle, resumenDe(link, business)));
  }
  if (r.tipo === 'en proceso')
    return html(reply, 409, paginaEstado(link.nombreProducto, 'en proceso', 'este pago ya se está procesando', resumenDe(link, business)));
  if (r.tipo === 'sesion')
    return html(
      reply,
      403,
      paginaEstado(link.nombreProducto, 'sesión no válida', 'vuelva a abrir el enlace de pago', resumenDe(link, business)),
    );
  return html(reply, 400, paginaErrores(r.errores));
}

/** The link and its business, or the 404 result. */
export function enlaceYNegocio(ctx: SandboxContext, link: Link | undefined): { link: Link; business: Business } | undefined {
  const business = link && ctx.store.businesses.get(link.idAplicativo);
  return link === undefined || business === undefined ? undefined : { link, business };
}

/** Why the link cannot be paid now, as a result (null: it can). */
export function indisponible(ctx: SandboxContext, link: Link): Resultado | null {
  const motivo = motivoNoDisponible(ctx, link);
  return motivo === null ? null : { tipo: 'no disponible', estado: 'no disponible', detalle: motivo };
}

export const screenPages: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  // The steps and frame screens serve the link's screen themselves (screen-steps.ts, screen-frame.ts).
  const propia = ctx.options.screen !== 'steps' && ctx.options.screen !== 'frame';

  /** The screen of a link; its form posts to `accion` (default its /pagar path). */
  const mostrar = (link: Link | undefined, req: FastifyRequest, reply: FastifyReply, accion?: string): FastifyReply => {
    const e = enlaceYNegocio(ctx, link);
    if (e === undefined) return enHtml(ctx, reply, undefined, undefined, { tipo: 'no encontrado' });
    const no = indisponible(ctx, e.link);
    if (no !== null) return enHtml(ctx, reply, e.link, e.business, no);
    return html(
      reply,
      200,
      formulario(ctx, e.link, e.business, req.headers.referer, campoSesion(ctx, reply), accion ?? `/pagar/${e.link.idEnlace}`),
    );
  };

  const procesar = async (link: Link | undefined, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const e = enlaceYNegocio(ctx, link);
    if (e === undefined) return enHtml(ctx, reply, undefined, undefined, { tipo: 'no encontrado' });
    const intento = (req.body as Record<string, unknown> | undefined)?.intento;
    const r =
      repeticion(ctx, e.link, intento, ctx.fault('screen-replay-double-charge')) ??
      indisponible(ctx, e.link) ??
      (sesionValida(ctx, req) ? null : ({ tipo: 'sesion' } as const));
    if (r !== null) return enHtml(ctx, reply, e.link, e.business, r);
    const leido = revisar(ctx, e.link, e.business, req.body);
    if ('tipo' in leido) return enHtml(ctx, reply, e.link, e.business, leido);
    return enHtml(ctx, reply, e.link, e.business, await cobrar(ctx, e.link, e.business, leido.compra, leido.intento));
  };

  if (propia) {
    app.get<{ Params: { idEnlace: string } }>('/pagar/:idEnlace', async (req, reply) =>
      mostrar(buscarEnlace(ctx, req.params.idEnlace), req, reply),
    );
    app.post<{ Params: { idEnlace: string } }>('/pagar/:idEnlace', { onRequest: contarSolicitudCompra }, async (req, reply) =>
      procesar(buscarEnlace(ctx, req.params.idEnlace), req, reply),
    );
  }

  // Variant urls-deployed: urlEnlaceLargo is /pago?e=<idEnlace>&h=<token>; its form posts back to the same URL.
  if (propia && ctx.variant('urls-deployed')) {
    type Consulta = { Querystring: { e?: string; h?: string } };
    app.get<Consulta>('/pago', async (req, reply) => mostrar(enlaceDeConsulta(ctx, req.query.e, req.query.h), req, reply, req.url));
    app.post<Consulta>('/pago', { onRequest: contarSolicitudCompra }, async (req, reply) =>
      procesar(enlaceDeConsulta(ctx, req.query.e, req.query.h), req, reply),
    );
  }

  app.get<{ Params: { archivo: string } }>('/qr/bitcoin/:archivo', async (req, reply) => {
    const id = req.params.archivo.replace(/\.png$/, '');
    const datos = ctx.store.transactions.get(id)?.datosBitcoin;
    if (!req.params.archivo.endsWith('.png') || datos == null) return html(reply, 404, paginaEstado('Código QR', 'no encontrado'));
    const png = await QRCode.toBuffer(`bitcoin:${datos.qrData}?amount=${datos.ammountInBitcoins}`, { type: 'png', margin: 2, scale: 6 });
    return reply.type('image/png').send(png);
  });
};
