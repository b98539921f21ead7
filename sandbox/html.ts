/**
 * HTML of the hosted pages, fit for people: who is charging, for what, how much and how, in a layout readable from
 * a phone (390 px) to a desktop; styles inline, nothing fetched from elsewhere (only the link's own product image).
 * The form contract of docs/decisions.md is kept (field names, `<p id="estado">`, one form per page). With the
 * `js` screen option the form is built by inline JavaScript (same fields), so only a browser can pay it.
 */
import type { Pantalla } from './context.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1d2433;background:#eef1f6}
.barra{display:flex;flex-wrap:wrap;gap:.25rem 1rem;justify-content:space-between;align-items:center;padding:.75rem 1rem;background:#14213d;color:#fff;font-size:.9rem}
.barra strong{font-size:1rem}
.prueba{background:#fca311;color:#14213d;border-radius:999px;padding:.1rem .6rem;font-weight:600;font-size:.8rem}
main{max-width:960px;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:0 0 .75rem}
.tarjeta{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(20,33,61,.15);padding:1.25rem;margin-bottom:1rem;min-width:0}
.pantalla{display:grid;gap:1rem;grid-template-columns:minmax(0,1fr)}
@media (min-width:800px){.pantalla{grid-template-columns:minmax(0,5fr) minmax(0,6fr);align-items:start}}
@media (max-width:799px){.pantalla .aviso{order:-1}}
.comercio{margin:0 0 .75rem;color:#4a5568;font-weight:600;overflow-wrap:anywhere}
.comercio span{display:block;font-size:.8rem;font-weight:400;text-transform:uppercase;letter-spacing:.05em}
.imagen{position:relative;aspect-ratio:4/3;max-height:260px;width:100%;border-radius:8px;overflow:hidden;margin:0 0 1rem;background:linear-gradient(135deg,#e5e9f2,#cfd8e8);display:flex;align-items:center;justify-content:center}
.imagen .inicial{font-size:3rem;font-weight:700;color:#7a8699}
.imagen img{position:absolute;inset:0;width:100%;height:100%;object-fit:cover}
.imagen.sin-imagen{aspect-ratio:auto;width:72px;height:72px}
.imagen.sin-imagen .inicial{font-size:2rem}
.producto{margin:0 0 .25rem;font-size:1.15rem;overflow-wrap:anywhere}
.descripcion{margin:0 0 1rem;color:#4a5568;overflow-wrap:anywhere}
.importe{margin:0 0 1rem;border-top:1px solid #e2e8f0}
.importe div{display:flex;justify-content:space-between;gap:1rem;padding:.5rem 0;border-bottom:1px solid #e2e8f0}
.importe dt{color:#4a5568}
.importe dd{margin:0;font-weight:600;text-align:right}
.importe .total dd{font-size:1.25rem;color:#14213d}
.formas{margin:0;padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:.5rem}
.formas li{border:1px solid #cbd5e0;border-radius:6px;padding:.2rem .6rem;font-size:.85rem;background:#f7fafc}
.campo{margin-bottom:.9rem;min-width:0}
.campo label{display:block;font-weight:600;font-size:.9rem;margin-bottom:.3rem}
.campo .ayuda{font-weight:400;color:#4a5568}
input,select{width:100%;max-width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #a0aec0;border-radius:8px;background:#fff;color:inherit}
input:focus,select:focus{outline:3px solid #fca31166;border-color:#14213d}
.opciones{border:0;padding:0;margin:0 0 .9rem;min-width:0}
.opciones legend{font-weight:600;font-size:.9rem;margin-bottom:.3rem;padding:0}
.opciones label{display:flex;gap:.6rem;align-items:center;padding:.45rem .7rem;border:1px solid #cbd5e0;border-radius:8px;margin-bottom:.4rem;cursor:pointer}
.opciones input{width:auto;margin:0}
.marco{display:block;width:100%;height:330px;border:0;margin:0 0 .9rem}
.secundario{background:#fff;color:#14213d;border:1px solid #14213d;margin-top:.75rem}
.secundario:hover{background:#eef1f6}
.fila{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.75rem}
button{width:100%;font:inherit;font-weight:700;font-size:1.05rem;padding:.8rem 1rem;border:0;border-radius:8px;background:#14213d;color:#fff;cursor:pointer}
button:hover{background:#23396b}
.regresar{display:inline-block;margin-top:1rem;color:#14213d}
.estado{display:inline-block;margin:0 0 .75rem;padding:.2rem .7rem;border-radius:999px;font-weight:700;font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;background:#e2e8f0}
.estado.error{background:#fde2e1;color:#9b1c1c}
.estado.ok{background:#def7ec;color:#03543f}
.estado.espera{background:#fef3c7;color:#92400e}
.mensaje{font-size:1.15rem;font-weight:600;margin:0 0 .5rem}
.detalle{margin:0 0 .5rem;color:#4a5568;overflow-wrap:anywhere}
.errores{margin:.5rem 0 0;padding-left:1.25rem;color:#9b1c1c}
.qr{display:block;width:220px;max-width:100%;height:auto;margin:1rem auto;image-rendering:pixelated}
code{overflow-wrap:anywhere;background:#f1f5f9;padding:.1rem .3rem;border-radius:4px}
footer{max-width:960px;margin:0 auto;padding:0 1rem 2rem;color:#4a5568;font-size:.8rem}
`;

/** A bare document with the pages' styles and no header (the frame screen's card iframe). */
// Stryker disable all: only the frame screen calls documento and jsonEnLinea (plumbing, off by default; npm run mutation:stryker)
export function documento(titulo: string, cuerpo: string, idioma: 'es' | 'en' = 'es'): string {
  return `<!doctype html>
<html lang="${idioma}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(titulo)}</title>
<style>${CSS}body{background:#fff}</style></head>
<body>
${cuerpo}
</body>
</html>
`;
}

/** A value for an inline `<script type="application/json">` (nothing in it can close the script). */
export function jsonEnLinea(valor: unknown): string {
  return JSON.stringify(valor)
    .replace(/</g, '\\u003c')
    .replace(/\u2028|\u2029/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}
// Stryker restore all

/** A whole page: header bar, a title and the body; `comercio` names who is charging. */
export function pagina(titulo: string, cuerpo: string, opciones: { comercio?: string; idioma?: 'es' | 'en' } = {}): string {
  return `<!doctype html>
<html lang="${opciones.idioma ?? 'es'}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(titulo)}${opciones.comercio ? ` · ${esc(opciones.comercio)}` : ''}</title>
<style>${CSS}</style></head>
<body>
<header class="barra"><strong>Pago seguro</strong><span class="prueba">Sandbox · modo de pruebas</span></header>
<main>
<h1>${esc(titulo)}</h1>
${cuerpo}
</main>
<footer>Sandbox de referencia del servicio de pagos: los pagos hechos aquí son simulados.</footer>
</body>
</html>
`;
}

/** What the customer pays for: merchant, product, image, amount, quantity, total, accepted payment forms. */
export interface Resumen {
  comercio: string;
  producto?: string;
  descripcion?: string | null;
  /** The link's own infoProducto.urlImagenProducto: the only image from elsewhere a page may show. */
  imagen?: string | null;
  montoUnitario: number;
  cantidad?: number;
  formas?: string[];
  /** The customer may change the quantity or the amount: the total shown is for the default ones. */
  editable?: boolean;
}

const dinero = (n: number) => `$${n.toFixed(2)}`;

export function resumen(r: Resumen): string {
  const cantidad = r.cantidad ?? 1;
  const producto = r.producto ?? '';
  // The placeholder shows the product's initial; an image that cannot be loaded removes itself (no broken icon).
  const imagen =
    r.imagen === undefined
      ? ''
      : `<div class="imagen${r.imagen === null ? ' sin-imagen' : ''}"><span class="inicial" aria-hidden="true">${esc(producto.trim().charAt(0).toUpperCase() || '$')}</span>${
          r.imagen === null ? '' : `<img src="${esc(r.imagen)}" alt="" referrerpolicy="no-referrer" onerror="this.remove()">`
        }</div>`;
  const formas = r.formas?.length
    ? `<h2 id="titulo-formas">Formas de pago aceptadas</h2>\n<ul class="formas" id="formas-aceptadas" ` +
      `aria-labelledby="titulo-formas">${r.formas.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>`
    : '';
  return `<section class="tarjeta resumen" aria-label="Resumen de la compra">
<p class="comercio" id="comercio"><span>Comercio</span>${esc(r.comercio)}</p>
${imagen}
${producto === '' ? '' : `<p class="producto" id="producto">${esc(producto)}</p>`}
${r.descripcion ? `<p class="descripcion" id="descripcion">${esc(r.descripcion)}</p>` : ''}
<dl class="importe" id="monto" data-monto="${r.montoUnitario.toFixed(2)}" data-cantidad="${cantidad}">
<div><dt>Precio unitario</dt><dd>${dinero(r.montoUnitario)}</dd></div>
<div><dt>Cantidad</dt><dd>${cantidad}</dd></div>
<div class="total"><dt>Total</dt><dd>${dinero(Math.round(r.montoUnitario * cantidad * 100) / 100)}</dd></div>
</dl>
${r.editable ? '<p class="detalle">Se cobra la cantidad por el precio que indique en el formulario.</p>' : ''}
${formas}
</section>`;
}

/** 2026-05-01T10:10:00.000Z → 01/05/2026 10:10 UTC (what a customer reads; the page states the zone). */
export function fechaLegible(iso: string): string {
  // Read as an instant first: a value written at another offset (variant fechas-offset-6) is shown in UTC too.
  const ms = Date.parse(iso);
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(Number.isNaN(ms) ? iso : new Date(ms).toISOString());
  return m ? `${m[3]}/${m[2]}/${m[1]} ${m[4]}:${m[5]} UTC` : iso;
}

/** One labelled field: `<label for>` and its control. */
export function campo(id: string, etiqueta: string, control: string, ayuda = ''): string {
  return (
    `<div class="campo"><label ` +
    `for="${esc(id)}">${esc(etiqueta)}${ayuda ? ` <span class="ayuda">${esc(ayuda)}</span>` : ''}</label>${control}</div>`
  );
}

/**
 * The page's form as served: plain HTML, or (`js`, and `frame` whose 3DS and quick-pay pages are `js` ones) a script
 * that builds the same form when the page loads, with a notice for browsers without JavaScript. Nothing is fetched
 * either way.
 */
export function formularioHosted(pantalla: Pantalla, form: string): string {
  if (pantalla !== 'js' && pantalla !== 'frame') return form;
  const literal = JSON.stringify(form)
    .replace(/</g, '\\u003c')
    .replace(/\u2028|\u2029/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
  return `<div id="formulario-js"><p class="detalle">Cargando el formulario de pago…</p></div>
<noscript><p class="mensaje">Esta pantalla de pago necesita JavaScript: actívelo para pagar.</p></noscript>
<script>(function () { document.getElementById('formulario-js').innerHTML = ${literal}; })();</script>`;
}

/** What each outcome means to the customer, in words; `tono` colours the badge. */
const ESTADOS: Record<string, { mensaje: string; tono: 'error' | 'ok' | 'espera' }> = {
  'no encontrado': { mensaje: 'No encontramos este pago. Revise el enlace que recibió del comercio.', tono: 'error' },
  'no encontrada': { mensaje: 'No encontramos esta verificación. Revise el enlace que recibió.', tono: 'error' },
  'no disponible': { mensaje: 'Este enlace de pago no se puede usar en este momento.', tono: 'error' },
  'intento vencido': { mensaje: 'El tiempo para completar este pago terminó; no se hizo ningún cobro.', tono: 'error' },
  completada: { mensaje: 'Esta verificación ya se completó; no hace falta repetirla.', tono: 'ok' },
  pagada: { mensaje: 'Este pago ya se realizó.', tono: 'ok' },
  vencido: { mensaje: 'Este código de pago venció; pida uno nuevo al comercio. No se hizo ningún cobro.', tono: 'error' },
  aprobada: { mensaje: 'Pago aprobado. ¡Gracias por su compra!', tono: 'ok' },
  pendiente: { mensaje: 'El pago está pendiente.', tono: 'espera' },
  'datos inválidos': { mensaje: 'Algunos datos no son válidos; corríjalos y vuelva a intentarlo.', tono: 'error' },
};

/** The `<p id="estado">` badge (its text is the contract) and the same outcome in words. */
export function estadoEnPalabras(estado: string, detalle = ''): string {
  const e = ESTADOS[estado] ?? { mensaje: 'Este pago no se puede completar ahora.', tono: 'error' as const };
  const frase = detalle === '' ? '' : `${detalle.charAt(0).toUpperCase()}${detalle.slice(1)}${/[.!?]$/.test(detalle) ? '' : '.'}`;
  return [
    `<p id="estado" class="estado ${e.tono}">${esc(estado)}</p>`,
    e.mensaje === '' ? '' : `<p class="mensaje">${esc(e.mensaje)}</p>`,
    frase === '' ? '' : `<p class="detalle">${esc(frase)}</p>`,
  ]
    .filter((p) => p !== '')
    .join('\n');
}

/** A page whose outcome is in `<p id="estado">` (410 refusals, quick-pay results), said in words. */
export function paginaEstado(titulo: string, estado: string, detalle = '', contexto?: Resumen): string {
  // On a phone the outcome comes first (.aviso), above what was being paid.
  const aviso = `<section class="tarjeta aviso" aria-live="polite">\n${estadoEnPalabras(estado, detalle)}\n</section>`;
  const cuerpo = contexto ? `<div class="pantalla">\n${resumen(contexto)}\n${aviso}\n</div>` : aviso;
  return pagina(titulo, cuerpo, contexto ? { comercio: contexto.comercio } : {});
}

/**
 * Variant screen-unavailable-200: the deployed service's page for a link that can no longer be paid — a 200 page
 * with a heading and a sentence, no form and no `#estado`.
 */
export function paginaNoDisponible(comercio: string): string {
  const aviso = `<section class="tarjeta aviso">
<h2>Este enlace de pago no está disponible</h2>
<p class="detalle">Comuníquese con ${esc(comercio)} para obtener un nuevo enlace de pago. No se realizó ningún cobro.</p>
</section>`;
  return pagina('Este enlace de pago no está disponible', aviso, { comercio });
}

/** Validation errors of a submitted form, one `<li data-campo>` per violated field. */
export function paginaErrores(errores: { campo: string; mensaje: string }[]): string {
  const items = errores.map((e) => `<li data-campo="${esc(e.campo)}">${esc(e.campo)}: ${esc(e.mensaje)}</li>`);
  return pagina(
    'Datos inválidos',
    `<section class="tarjeta">\n${estadoEnPalabras('datos inválidos')}\n<ul id="errores" ` +
      `class="errores">\n${items.join('\n')}\n</ul>\n<p class="detalle">Vuelva a la pantalla de pago para corregirlos.</p>\n</section>`,
  );
}
