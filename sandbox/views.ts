/**
 * The 2.2 transaction object as the service writes it, shared by the lookup (transactions.ts), the link record
 * (links.ts) and the webhook body (notifications.ts). Its own module so that those import no plugin.
 */
import type { Fault } from './faults.ts';
import type { Transaction } from './store.ts';

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

/** The 2.2 transaction object (the fault decides how its enums are written). */
export function vistaTransaccion(tx: Transaction, fault: Fault) {
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

