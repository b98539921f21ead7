/**
 * Enumerations and flag sets of a link request (4.1): cantidadMaximaCuotas and formaPago.
 */
import fc from 'fast-check';
import type { FormaPagoRequest } from '../spec/types.ts';

/** 4.1: the values a default account accepts. */
export const CUOTAS = ['Tres', 'Seis', 'Nueve', 'Doce'] as const;

export const validCuotas = fc.constantFrom(...CUOTAS);

/**
 * Values a default account must refuse however a server reads them: names of counts that are no instalment count
 * at all (2.1 lists 1–12, 18, 24, 36, so "Quince" is invalid even for a negotiated account), the empty string, a
 * boolean. Never null: null for an optional field may mean "not sent".
 */
export const invalidCuotas: fc.Arbitrary<unknown> = fc.constantFrom<unknown>('Quince', 'Veinte', 'Cien', '', true);

/**
 * Values next to a valid name that a common reading takes: case, surrounding space or accent variants (.NET parses
 * enum names case-blind), the numbers the names stand for, as numbers or strings, and a comma-separated list
 * (System.Text.Json's JsonStringEnumConverter accepts integer values and reads "Tres,Seis" as flags). The table's
 * literal values refuse them; the suite observes them, never fails on them.
 */
export const NEAR_MISS_CUOTAS: readonly unknown[] = [
  'tres',
  'TRES',
  'Tres ',
  ' Seis',
  'Nueve\n',
  'doce',
  'Trés',
  3,
  6,
  12,
  '3',
  '12',
  'Tres,Seis',
];

export const FORMA_PAGO_FIELDS = [
  'permitirTarjetaCreditoDebido',
  'permitirPagoConPuntoPartner',
  'permitirPagoEnCuotasPartner',
  'permitirPagoEnBitcoin',
  'permitePagoQuickPay',
] as const satisfies readonly (keyof FormaPagoRequest)[];

export type FormaPagoField = (typeof FORMA_PAGO_FIELDS)[number];
export type FormaPagoFlags = Record<FormaPagoField, boolean>;

const flags: fc.Arbitrary<FormaPagoFlags> = fc.record(
  Object.fromEntries(FORMA_PAGO_FIELDS.map((f) => [f, fc.boolean()])) as Record<FormaPagoField, fc.Arbitrary<boolean>>,
);

/** All five fields, at least one true (4.1): the 31 valid combinations. */
export const validFormaPago: fc.Arbitrary<FormaPagoFlags> = flags.filter((f) => Object.values(f).some((v) => v));

/** All five fields, all false: violates "at least one must be true" only. */
export const allFalseFormaPago = Object.fromEntries(FORMA_PAGO_FIELDS.map((f) => [f, false])) as FormaPagoFlags;

/**
 * One to four of the five fields, at least one of those sent true: violates "all five fields are required" only
 * (an all-false partial object would break both rules).
 */
export const partialFormaPago: fc.Arbitrary<Partial<FormaPagoFlags>> = fc
  .tuple(flags, fc.subarray([...FORMA_PAGO_FIELDS], { minLength: 1, maxLength: 4 }), fc.nat())
  .map(([values, kept, pick]) => {
    const partial: Partial<FormaPagoFlags> = Object.fromEntries(kept.map((f) => [f, values[f]]));
    partial[kept[pick % kept.length]!] = true;
    return partial;
  });

/**
 * Combinations every business can take: card credit/debit always true (the one way to pay no business flag of 2.7
 * gates; points, Bitcoin and quick-pay depend on aplicaPagoConPuntos / …ConBitcoin / …ConQuickPay), the others any.
 * What a valid link expected to be ACCEPTED carries, so that no target fails for its business's settings.
 */
export const supportedFormaPago: fc.Arbitrary<FormaPagoFlags> = flags.map((f) => ({ ...f, permitirTarjetaCreditoDebido: true }));

/** Only `field` true, the other four false: a valid formaPago at the edge of "at least one must be true". */
export function onlyFlag(field: FormaPagoField): FormaPagoFlags {
  return Object.fromEntries(FORMA_PAGO_FIELDS.map((f) => [f, f === field])) as FormaPagoFlags;
}
