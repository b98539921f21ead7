/**
 * Spec 6.3: the redirect hash, and the webhook signature. Both are lowercase hex HMAC-SHA256 keyed with the
 * business's client secret (docs/decisions.md). The redirect hash covers the seven values of 6.3, in that order,
 * exactly as they appear in the query (monto with two decimals, booleans true/false, empty text for null).
 * Variants (sandbox/variants.ts) change what 6.3 leaves open: the redirect status, how monto and the booleans are
 * written, and the hash's algorithm, key and encoding.
 */
import { createHmac } from 'node:crypto';
import type { SandboxContext } from './context.ts';
import type { Business, Link, Transaction } from './store.ts';
import { LLAVE_HASH_VARIANTE } from './variants.ts';
import { valorEnum } from './views.ts';

/** The status of the hosted pages' redirect to urlRedirect: 303 See Other by default (variants redirect-302/-301). */
export function estadoRedireccion(ctx: SandboxContext): 301 | 302 | 303 {
  return ctx.variant('redirect-301') ? 301 : ctx.variant('redirect-302') ? 302 : 303;
}

export function hmacHex(key: string, message: string): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

export function montoTexto(monto: number): string {
  return monto.toFixed(2);
}

/**
 * Fault link-redirect-four-fields (as public integrations of a deployed service read it): after a link payment the
 * query carries only identificadorEnlaceComercio, idTransaccion, idEnlace, monto and the hash of those four in that
 * order — 6.3's esReal, formaPago, esAprobada, codigoAutorizacion and mensaje are missing.
 */
function urlCuatroCampos(tx: Transaction, business: Business, link: Link, urlBase: string, monto: string): string {
  const valores: [string, string][] = [
    ['identificadorEnlaceComercio', link.identificadorEnlaceComercio],
    ['idTransaccion', tx.idTransaccion],
    ['idEnlace', String(link.idEnlace)],
    ['monto', monto],
  ];
  const url = new URL(urlBase);
  for (const [nombre, valor] of valores) url.searchParams.append(nombre, valor);
  url.searchParams.append('hash', hmacHex(business.clientSecret, valores.map(([, valor]) => valor).join('')));
  return url.toString();
}

/** `urlBase` with the outcome query of a processed payment appended (303 target of the hosted pages). */
export function urlResultado(ctx: SandboxContext, tx: Transaction, business: Business, link: Link | null, urlBase: string): string {
  // Variant query-booleans-capitalised: True/False (as .NET writes them); monto-shortest: 10, 10.5 (not 10.00).
  const bool = (b: boolean) => (ctx.variant('query-booleans-capitalised') ? (b ? 'True' : 'False') : String(b));
  const monto = ctx.variant('monto-shortest') ? String(tx.monto) : montoTexto(tx.monto);
  if (link !== null && ctx.fault('link-redirect-four-fields')) return urlCuatroCampos(tx, business, link, urlBase, monto);
  const valores: [string, string][] = [
    ['idTransaccion', tx.idTransaccion],
    ['monto', monto],
    ['esReal', bool(tx.esReal)],
    // Fault enum-names: PagoNormal (as a deployed service writes it), hashed as sent.
    ['formaPago', String(valorEnum(ctx.fault, 'formaPago', tx.formaPago))],
    ['esAprobada', bool(tx.esAprobada)],
    ['codigoAutorizacion', tx.codigoAutorizacion ?? ''],
    ['mensaje', tx.mensaje ?? ''],
  ];
  const orden = ctx.fault('hash-wrong-order') ? [...valores].reverse() : valores;
  // 6.3: "The hash algorithm and key: not shown". Variant hash-hmac-sha512-base64: SHA-512 in base64; variant
  // hash-own-key: a key of its own, handed to the merchant.
  const otroEsquema = ctx.variant('hash-hmac-sha512-base64');
  const clave = ctx.fault('hash-wrong-key')
    ? business.clientIdApi
    : ctx.variant('hash-own-key')
      ? LLAVE_HASH_VARIANTE
      : business.clientSecret;
  const mensaje = orden.map(([, valor]) => valor).join('');
  const url = new URL(urlBase);
  // 4.1/6.3: the outcome is added to urlRedirect's own query (fault redirect-query-dropped replaces it).
  if (ctx.fault('redirect-query-dropped')) url.search = '';
  for (const [nombre, valor] of valores) url.searchParams.append(nombre, valor);
  url.searchParams.append('hash', otroEsquema ? createHmac('sha512', clave).update(mensaje).digest('base64') : hmacHex(clave, mensaje));
  if (link !== null && !ctx.variant('redirect-no-link-ids')) {
    url.searchParams.append('idEnlace', String(link.idEnlace));
    url.searchParams.append('identificadorEnlaceComercio', link.identificadorEnlaceComercio);
  }
  return url.toString();
}
