/**
 * How a payer finds the spec's fields on a screen. SCREEN_FIELD_NAMES maps each field to an input name
 * (`card_number`, `card[number]`) or to a CSS selector (`#cc-number`, `input[autocomplete=cc-csc]`, `.cvc input`):
 * a value that is not a plain name is a selector. Both payers enter the payment's values in the same order, and pick
 * a select's option by what it means (chooseOption; SCREEN_OPTION_VALUES where meaning fails).
 */
import { parse } from 'node-html-parser';
import { defaultFieldNames, type CardPayment, type FieldName, type FieldNames, type OptionValues, type PageInput } from './types.ts';

/**
 * Letters, digits, `_`, `-` and `.`, optionally followed by `[key]` parts: what forms name their inputs (.NET model
 * binding names them `Tarjeta.Numero`). A selector of the form `tag.class` reads as a name: write `.class` instead.
 */
const INPUT_NAME = /^[A-Za-z_][\w.-]*(\[[\w.-]*\])*$/;

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
  const order = [
    'formaPago',
    'cuotas',
    'cantidad',
    'monto',
    'numeroTarjeta',
    'cvv',
    'mesVencimiento',
    'anioVencimiento',
    'nombreTitular',
    'email',
  ] as const;
  return order.flatMap((field) => (payment[field] === undefined ? [] : [[field, String(payment[field])] as [FieldName, string]]));
}

/** The values a 3DS or quick-pay page may ask for, in the same order; each entered only where the page shows its field. */
export function pageValues(card: PageInput | undefined): [FieldName, string][] {
  const order = ['numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento', 'nombreTitular', 'email'] as const;
  return order.flatMap((field) => (card?.[field] === undefined ? [] : [[field, String(card[field])] as [FieldName, string]]));
}

/** An option of a select as the page shows it. */
export interface Option {
  value: string;
  text: string;
}

/** Text as the payers compare words: accents dropped, lower case, blanks (no-break spaces too) one space, trimmed. */
export const fold = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

/** Month names and abbreviations (Spanish, English, Portuguese), folded; index + 1 is the month. */
const MONTHS: RegExp[] = [
  /^(enero|ene|january|jan|janeiro)$/,
  /^(febrero|feb|february|fevereiro|fev)$/,
  /^(marzo|mar|march|marco)$/,
  /^(abril|abr|april|apr)$/,
  /^(mayo|may|maio|mai)$/,
  /^(junio|jun|june|junho)$/,
  /^(julio|jul|july|julho)$/,
  /^(agosto|ago|august|aug)$/,
  /^(septiembre|setiembre|sep|sept|set|september|setembro)$/,
  /^(octubre|oct|october|outubro|out)$/,
  /^(noviembre|nov|november|novembro)$/,
  /^(diciembre|dic|december|dec|dezembro|dez)$/,
];

/** The month a value or a text names: a number 1–12 ("01", "01 - Enero") or a month's name; undefined when none. */
function monthOf(s: string): number | undefined {
  const folded = fold(s);
  for (const word of folded.split(/[^a-z]+/)) {
    const i = MONTHS.findIndex((re) => re.test(word));
    if (i >= 0) return i + 1;
  }
  const n = /^\D*?(\d{1,2})(?!\d)/.exec(folded)?.[1];
  return n !== undefined && Number(n) >= 1 && Number(n) <= 12 ? Number(n) : undefined;
}

/** The four-digit year a value or text names (31 and 2031 alike); undefined when none. */
function yearOf(s: string): number | undefined {
  const n = /(?<!\d)(\d{4}|\d{2})(?!\d)/.exec(s)?.[1];
  if (n === undefined) return undefined;
  return n.length === 2 ? 2000 + Number(n) : Number(n);
}

/**
 * The payment form (spec: 0 card, 1 points, 2 instalments, 3 bitcoin, 4 quick pay) a name or label stands for, in
 * Spanish or English; the specific before the general ("Cuotas con tarjeta" is instalments).
 */
const FORMAS: [number, RegExp][] = [
  [4, /quick ?pay|\bqr\b/],
  [3, /bitcoin|\bbtc\b|cripto|crypto/],
  [2, /cuotas|instal?l?ments?|plazos|parcelad|tasa cero/],
  [1, /puntos|points|pontos|millas|miles/],
  [0, /pago ?normal|tarjeta|card|cartao|credito|debito|credit|debit|\btc\b|\btd\b|contado/],
];

function formaOf(s: string): number | undefined {
  const folded = fold(s);
  if (/^[0-4]$/.test(folded)) return Number(folded);
  return FORMAS.find(([, re]) => re.test(folded))?.[0];
}

/** The number of instalments a value or text names ("3", "3 meses", "6 cuotas"); undefined when none. */
function cuotasOf(s: string): number | undefined {
  const n = /(?<!\d)(\d{1,3})(?!\d)/.exec(s)?.[1];
  return n === undefined ? undefined : Number(n);
}

/** What an option means for a field, read from its text first where the text says it, else from its value. */
function meaningOf(field: FieldName, option: Option): number | undefined {
  switch (field) {
    case 'mesVencimiento': {
      // A name in the text is the month ("Febrero" behind a 0-based value "1"); else the value's number, else the text's.
      const named = fold(option.text)
        .split(/[^a-z]+/)
        .some((w) => MONTHS.some((re) => re.test(w)));
      return (named ? monthOf(option.text) : undefined) ?? monthOf(option.value) ?? monthOf(option.text);
    }
    case 'anioVencimiento':
      return yearOf(option.text) ?? yearOf(option.value);
    case 'formaPago': {
      // A name as the value ("PagoNormal") says it; a number as the value may be the vendor's own: the label says it.
      const byValue = /^\d+$/.test(option.value.trim()) ? undefined : formaOf(option.value);
      return byValue ?? formaOf(option.text) ?? formaOf(option.value);
    }
    case 'cuotas':
      return cuotasOf(option.text) ?? cuotasOf(option.value);
    default:
      return undefined;
  }
}

/** What the suite's value means for a field. */
function soughtOf(field: FieldName, value: string): number | undefined {
  switch (field) {
    case 'mesVencimiento':
      return monthOf(value);
    case 'anioVencimiento':
      return yearOf(value);
    case 'formaPago':
      return formaOf(value);
    case 'cuotas':
      return cuotasOf(value);
    default:
      return undefined;
  }
}

/**
 * The option value to pick for the suite's `value` of `field`: SCREEN_OPTION_VALUES first (`optionValues`, the
 * page's value for the suite's), then by meaning — months as 1/01/Enero/January/Jan, years of two or four digits,
 * payment forms by number, name or label (Spanish or English), instalments by their number of months — then the
 * exact value, then an option whose text is the value or whose value is the same number. Undefined when none fits.
 */
export function chooseOption(field: FieldName, value: string, options: Option[], optionValues?: OptionValues): string | undefined {
  const values = options.map((o) => o.value);
  const configured = optionValues?.[field]?.[value];
  if (configured !== undefined && values.includes(configured)) return configured;
  const sought = soughtOf(field, value);
  if (sought !== undefined) {
    const meaning = options.filter((o) => meaningOf(field, o) === sought);
    // Several options meaning the same: the one whose value is the suite's own, else the first.
    const chosen = meaning.find((o) => o.value === value) ?? meaning[0];
    if (chosen) return chosen.value;
  }
  if (values.includes(value)) return value;
  const byText = options.find((o) => fold(o.text) === fold(value));
  if (byText) return byText.value;
  const asNumber = Number(value);
  if (value.trim() !== '' && Number.isFinite(asNumber))
    return options.find((o) => o.value.trim() !== '' && Number(o.value) === asNumber)?.value;
  return undefined;
}

/** The options as a report shows them: `"01" (Enero), "02" (Febrero)`. */
export function describeOptions(options: Option[]): string {
  if (options.length === 0) return '(no option)';
  const shown = options.slice(0, 15).map((o) => `"${o.value}"${o.text && o.text !== o.value ? ` (${o.text})` : ''}`);
  return `${shown.join(', ')}${options.length > 15 ? `, … ${options.length - 15} more` : ''}`;
}
