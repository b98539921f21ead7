/**
 * How the service writes its JSON where the spec leaves the form open: the error body and status (spec 7: "not
 * shown") and the shape of every body (field order, fields the spec does not list, "" for absent strings, nulls left
 * out). The sandbox's default is `{"errores":[{campo,mensaje}]}` and the bodies as the plugins build them; the
 * variants of sandbox/variants.ts change them here, for the API responses (index.ts hooks) and the webhook body
 * (notifications.ts).
 */
import type { Variant } from './variants.ts';

interface Campo {
  campo: string;
  mensaje: string;
}

/** The sandbox's own error body: `{ errores: [{ campo, mensaje }] }`. */
function erroresDe(body: unknown): Campo[] | undefined {
  const errores = (body as { errores?: unknown } | null)?.errores;
  return Array.isArray(errores) ? (errores as Campo[]) : undefined;
}

/** A refusal of a field's rule (a parsed body), not of the request's form (malformed JSON, content type, URL). */
const esReglaDeCampo = (errores: Campo[]): boolean => errores.every((e) => !['$', 'content-type', 'url'].includes(e.campo));

/** Status, content type and body of an API error answer, as the selected variants write it. */
export function respuestaError(variant: Variant, status: number, body: unknown): { status: number; contentType?: string; body: unknown } {
  const errores = erroresDe(body);
  if (errores === undefined || status < 400) return { status, body };
  // Variant errors-422: a body that breaks a stated rule is "unprocessable", not "bad".
  const final = status === 400 && variant('errors-422') && esReglaDeCampo(errores) ? 422 : status;
  if (variant('errors-problem-json')) {
    return {
      status: final,
      contentType: 'application/problem+json; charset=utf-8',
      body: {
        type: `https://errors.sandbox.test/${final}`,
        title: final === 401 ? 'No autorizado' : final === 404 ? 'No encontrado' : 'Solicitud rechazada',
        status: final,
        detail: errores.map((e) => `${e.campo}: ${e.mensaje}`).join('; '),
        errors: Object.fromEntries(errores.map((e) => [e.campo, [e.mensaje]])),
      },
    };
  }
  if (variant('errors-mensajes')) {
    return {
      status: final,
      body: {
        mensajes: errores.map((e) => `${e.campo}: ${e.mensaje}`),
        servicioError: { codigo: `E${final}`, descripcion: errores[0]?.mensaje ?? '' },
      },
    };
  }
  return { status: final, body };
}

// Stryker disable all: only faults datos-keys-recased, datos-adicionales-numeric-coerced and the body-shape variants run these (plumbing, off by default; npm run mutation:stryker)
/**
 * Fault datos-keys-recased: every datosAdicionales dictionary of a body with its keys' first letter upper-cased, as a
 * serializer with a PascalCase dictionary-key policy writes them (the values untouched).
 */
export function datosRecasados(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(datosRecasados);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]): [string, unknown] =>
      k === 'datosAdicionales' && v !== null && typeof v === 'object' && !Array.isArray(v)
        ? [k, Object.fromEntries(Object.entries(v).map(([dk, dv]) => [dk.charAt(0).toUpperCase() + dk.slice(1), dv]))]
        : [k, datosRecasados(v)],
    ),
  );
}

/**
 * Fault datos-adicionales-numeric-coerced: every datosAdicionales value that reads as a number written as a JSON
 * number ("00123" → 123, "1.50" → 1.5), as a serializer that guesses types from text does.
 */
export function datosNumericos(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(datosNumericos);
  if (value === null || typeof value !== 'object') return value;
  const numero = (v: unknown) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v);
  return Object.fromEntries(
    Object.entries(value).map(([k, v]): [string, unknown] =>
      k === 'datosAdicionales' && v !== null && typeof v === 'object' && !Array.isArray(v)
        ? [k, Object.fromEntries(Object.entries(v).map(([dk, dv]) => [dk, numero(dv)]))]
        : [k, datosNumericos(v)],
    ),
  );
}

/** Fields some services write that the spec does not list (variant extra-fields). */
function conCamposExtra(value: Record<string, unknown>): Record<string, unknown> {
  return 'idTransaccion' in value ? { ...value, moneda: 'USD', origen: 'API' } : value;
}

/** String fields of the spec whose absence the sandbox writes as null (variant empty-strings writes ""). */
const TEXTOS = new Set([
  'mensaje',
  'codigoAutorizacion',
  'idExterno',
  'nit',
  'razonSocial',
  'idGrupoTarjetas',
  'nombreAplicativo',
  'urlRedirect',
  'urlRetorno',
  'emailsNotificacion',
  'urlWebhook',
  'telefonosNotificacion',
  'descripcionProducto',
  'urlImagenProducto',
]);

/**
 * A JSON body (response or webhook) in the shape the selected variants give it; `raiz` adds the top-level extras.
 * Variant nulls-omitted leaves out every key whose value is null (after empty-strings wrote its "").
 */
export function formaCuerpo(variant: Variant, value: unknown, raiz = true): unknown {
  if (!variant('extra-fields') && !variant('key-order-reversed') && !variant('empty-strings') && !variant('nulls-omitted')) return value;
  if (Array.isArray(value)) return value.map((v) => formaCuerpo(variant, v, false));
  if (value === null || typeof value !== 'object') return value;
  let entradas = Object.entries(value).map(([k, v]): [string, unknown] => {
    if (v === null && TEXTOS.has(k) && variant('empty-strings')) return [k, ''];
    return [k, formaCuerpo(variant, v, false)];
  });
  if (variant('nulls-omitted')) entradas = entradas.filter(([, v]) => v !== null);
  if (variant('extra-fields')) {
    entradas = Object.entries(conCamposExtra(Object.fromEntries(entradas)));
    if (raiz) entradas.push(['codigoRespuesta', '00']);
  }
  if (variant('key-order-reversed')) entradas.reverse();
  return Object.fromEntries(entradas);
}
// Stryker restore all
