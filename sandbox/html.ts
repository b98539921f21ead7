/** Minimal HTML for the hosted pages: plain forms that work without JavaScript. */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

export function pagina(titulo: string, cuerpo: string): string {
  return `<!doctype html>
<html lang="es">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(titulo)}</title></head>
<body>
<h1>${esc(titulo)}</h1>
${cuerpo}
</body>
</html>
`;
}

/** A page whose outcome is in `<p id="estado">` (410 refusals, quick-pay results). */
export function paginaEstado(titulo: string, estado: string, detalle = ''): string {
  return pagina(titulo, `<p id="estado">${esc(estado)}</p>${detalle === '' ? '' : `\n<p>${esc(detalle)}</p>`}`);
}

/** Validation errors of a submitted form, one `<li data-campo>` per violated field. */
export function paginaErrores(errores: { campo: string; mensaje: string }[]): string {
  const items = errores.map((e) => `<li data-campo="${esc(e.campo)}">${esc(e.campo)}: ${esc(e.mensaje)}</li>`);
  return pagina('Datos inválidos', `<p id="estado">datos inválidos</p>\n<ul id="errores">\n${items.join('\n')}\n</ul>`);
}
