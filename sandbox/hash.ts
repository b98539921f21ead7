/**
 * Spec 6.3: the redirect hash, and the webhook signature. Both are lowercase hex HMAC-SHA256 keyed with the
 * business's client secret (docs/decisions.md). The redirect hash covers the seven values of 6.3, in that order,
 * exactly as they appear in the query (monto with two decimals, booleans true/false, empty text for null).
 */
import { createHmac } from 'node:crypto';
import type { SandboxContext } from './context.ts';
import type { Business, Link, Transaction } from './store.ts';

export function hmacHex(key: string, message: string): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

export function montoTexto(monto: number): string {
  return monto.toFixed(2);
}

/** `urlBase` with the outcome query of a processed payment appended (303 target of the hosted pages). */
export function urlResultado(ctx: SandboxContext, tx: Transaction, business: Business, link: Link | null, urlBase: string): string {
  const valores: [string, string][] = [
    ['idTransaccion', tx.idTransaccion],
    ['monto', montoTexto(tx.monto)],
    ['esReal', String(tx.esReal)],
    ['formaPago', String(tx.formaPago)],
    ['esAprobada', String(tx.esAprobada)],
    ['codigoAutorizacion', tx.codigoAutorizacion ?? ''],
    ['mensaje', tx.mensaje ?? ''],
  ];
  const orden = ctx.fault('hash-wrong-order') ? [...valores].reverse() : valores;
  const clave = ctx.fault('hash-wrong-key') ? business.clientIdApi : business.clientSecret;
  const url = new URL(urlBase);
  for (const [nombre, valor] of valores) url.searchParams.append(nombre, valor);
  url.searchParams.append('hash', hmacHex(clave, orden.map(([, valor]) => valor).join('')));
  if (link !== null) {
    url.searchParams.append('idEnlace', String(link.idEnlace));
    url.searchParams.append('identificadorEnlaceComercio', link.identificadorEnlaceComercio);
  }
  return url.toString();
}
