/**
 * The 2.2 transaction object as the service writes it, shared by the lookup (transactions.ts), the link record
 * (links.ts) and the webhook body (notifications.ts). Its own module so that those import no plugin.
 */
import type { Fault } from './faults.ts';
import type { Transaction } from './store.ts';
import type { Variant } from './variants.ts';

/**
 * A DateTimeOffset (spec 2: ISO 8601) as the service writes it: by default UTC with milliseconds and Z; variant
 * fechas-offset-6 writes the same instant at -06:00, variant fechas-7-digits with 7 fractional digits (.NET).
 */
export function fechaServicio(variant: Variant, ms: number): string {
  const offsetMin = variant('fechas-offset-6') ? -6 * 60 : 0;
  // Stryker disable next-line ArithmeticOperator: offsetMin is 0 unless variant fechas-offset-6 (plumbing, off by default)
  const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, -1);
  const fraccion = variant('fechas-7-digits')
    ? `${local.slice(-3)}${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`
    : local.slice(-3);
  // Stryker disable next-line StringLiteral,ArithmeticOperator,EqualityOperator: the offset's text is written only under variant fechas-offset-6
  const zona = offsetMin === 0 ? 'Z' : `${offsetMin < 0 ? '-' : '+'}${String(Math.abs(offsetMin) / 60).padStart(2, '0')}:00`;
  return `${local.slice(0, -3)}${fraccion}${zona}`;
}

/** Spec 2.2: the names of the enum values (what fault enum-names writes instead of the integers). */
const NOMBRES_ENUM = {
  formaPago: ['PagoNormal', 'Puntos', 'Cuotas', 'Bitcoin', 'QuickPay'],
  resultadoTransaccion: ['ExitosaAprobada', 'ExitosaDeclinada', 'Fallida'],
} as const;

/** An enum value as the service writes it: the integer of 2.2, or (fault enum-names, as some deployed services do) its name. */
export function valorEnum(fault: Fault, campo: keyof typeof NOMBRES_ENUM, valor: number | null): number | string | null {
  if (valor === null || !fault('enum-names')) return valor;
  return NOMBRES_ENUM[campo][valor] ?? valor;
}

/** Variant lookup-deployed-shape: the pairs a deployed service adds to every purchase's datosAdicionales itself. */
const PARES_DEL_SERVICIO = { Apellidos: '', CantidadCompra: '1', Celular: '' } as const;

/**
 * The 2.2 transaction object (the fault decides how its enums are written). With `variant` (the lookup and link
 * records), variant lookup-deployed-shape writes it as a deployed service does: montoOriginal and datosBitcoin null
 * (datosBitcoin filled for a Bitcoin payment), datosAdicionales with the service's own pairs beside the ones sent.
 */
export function vistaTransaccion(tx: Transaction, fault: Fault, variant?: Variant) {
  if (variant?.('lookup-deployed-shape')) {
    return {
      ...vistaBase(tx, fault),
      montoOriginal: null,
      datosAdicionales: { ...PARES_DEL_SERVICIO, ...(tx.datosAdicionales ?? {}) },
      datosBitcoin: tx.datosBitcoin,
    };
  }
  return vistaBase(tx, fault);
}

function vistaBase(tx: Transaction, fault: Fault) {
  return {
    idTransaccion: tx.idTransaccion,
    esReal: tx.esReal,
    esAprobada: tx.esAprobada,
    codigoAutorizacion: tx.codigoAutorizacion,
    mensaje: tx.mensaje,
    formaPago: valorEnum(fault, 'formaPago', tx.formaPago),
    monto: tx.monto,
    montoOriginal: tx.montoOriginal,
    resultadoTransaccion: valorEnum(fault, 'resultadoTransaccion', tx.resultadoTransaccion),
    fechaTransaccion: tx.fechaTransaccion,
    idExterno: tx.idExterno,
    datosAdicionales: tx.datosAdicionales,
  };
}
