/**
 * How a payer finds the spec's fields on a screen. SCREEN_FIELD_NAMES maps each field to an input name
 * (`card_number`, `card[number]`) or to a CSS selector (`#cc-number`, `input[autocomplete=cc-csc]`, `.cvc input`):
 * a value that is not a plain name is a selector. Both payers enter the payment's values in the same order.
 */
import { parse } from 'node-html-parser';
import { defaultFieldNames, type CardPayment, type FieldName, type FieldNames, type PageInput } from './types.ts';

/** Letters, digits, `_` and `-`, optionally followed by `[key]` parts: what forms name their inputs. */
const INPUT_NAME = /^[A-Za-z_][\w-]*(\[[\w-]*\])*$/;

export function isInputName(target: string): boolean {
  return INPUT_NAME.test(target);
}

/** The CSS selector of a field's target: `[name="…"]` for a name, the selector itself otherwise. */
export function cssOf(target: string): string {
  return isInputName(target) ? `[name="${target.replace(/["\\]/g, '\\$&')}"]` : target;
}

export function fieldNamesOf(configured: Partial<FieldNames> | Record<string, string> | undefined): FieldNames {
  return { ...defaultFieldNames, ...configured };
}

/**
 * The input name behind each field on this page: a selector is resolved to the `name` of the element it matches
 * (left as it is when it matches nothing, so "has no field" names what was looked for).
 */
export function resolveNames(names: FieldNames, html: string): FieldNames {
  if (Object.values(names).every(isInputName)) return names;
  const root = parse(html);
  const resolved = { ...names };
  for (const [field, target] of Object.entries(names) as [FieldName, string][]) {
    if (isInputName(target)) continue;
    let name: string | undefined;
    try {
      name = root.querySelector(target)?.getAttribute('name') ?? undefined;
    } catch {
      name = undefined; // a selector node-html-parser does not support: the browser payer may still use it
    }
    if (name) resolved[field] = name;
  }
  return resolved;
}

/** The payment's values in the order a customer fills the screen (payment form first: it may show other fields). */
export function paymentValues(payment: CardPayment): [FieldName, string][] {
  const order = ['formaPago', 'cuotas', 'cantidad', 'monto', 'numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento', 'nombreTitular', 'email'] as const;
  return order.flatMap((field) => (payment[field] === undefined ? [] : [[field, String(payment[field])] as [FieldName, string]]));
}

/** The values a 3DS or quick-pay page may ask for, in the same order; each entered only where the page shows its field. */
export function pageValues(card: PageInput | undefined): [FieldName, string][] {
  const order = ['numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento', 'nombreTitular', 'email'] as const;
  return order.flatMap((field) => (card?.[field] === undefined ? [] : [[field, String(card[field])] as [FieldName, string]]));
}
