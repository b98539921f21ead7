/**
 * Field mapping on hosted pages: which input of a page takes each of the spec's fields, read from the
 * page's HTML (as served, or a browser's DOM), so both payers map a vendor's screen the same way. A field is found,
 * in this order, by SCREEN_FIELD_NAMES (the user's word overrides), by its HTML autofill token
 * (`autocomplete="cc-number"`…), by its label (`<label for>`, a wrapping label, aria-label, placeholder; Spanish or
 * English), by its select's options, then by input type and `inputmode`; else the suite's default name (on a link
 * screen the quantity, then the amount, also by elimination: placeByElimination). The spec
 * shows none of this (1: "a payment screen hosted by the service"), so the mapping is only a note of the run; a page where a
 * field the payment needs cannot be found is not judged (FieldsNotFoundError: SKIP naming it and what the page shows).
 */
import { parse, type HTMLElement } from 'node-html-parser';
import { NoFormError } from './errors.ts';
import { secrets } from '../record/redact.ts';
import { fold, isInputName, resolveNames } from './fields.ts';
import { defaultFieldNames, type FieldName, type FieldNames } from './types.ts';

/** How a field's input was found. */
export type FoundBy = 'configured' | 'autocomplete' | 'label' | 'options' | 'type' | 'default name' | 'elimination';

/** An input a customer can fill, as the page presents it. */
export interface Candidate {
  /** Its input name, else `#id`: what the payers fill. */
  target: string;
  tag: string;
  type: string;
  autocomplete: string;
  inputmode: string;
  /** Label, aria-label and placeholder, as shown. */
  label: string;
  /** Option values and texts of a select. */
  options: string[];
}

export interface FieldMapping {
  /** The input of every field: found, configured, else the default name. */
  names: FieldNames;
  /** The fields found on this page and how. */
  found: Partial<Record<FieldName, { target: string; by: FoundBy }>>;
  candidates: Candidate[];
}

/** The page kinds whose mapping a run notes. */
export type PageKind = 'link screen' | '3DS page' | 'quick-pay page';

const AUTOCOMPLETE: Partial<Record<FieldName, string[]>> = {
  numeroTarjeta: ['cc-number'],
  cvv: ['cc-csc'],
  mesVencimiento: ['cc-exp-month'],
  anioVencimiento: ['cc-exp-year'],
  nombreTitular: ['cc-name'],
  email: ['email'],
  codigoDesafio: ['one-time-code'],
};

/**
 * Label words, accents and case folded; tried in this order per input, the specific before the general
 * ("Código de seguridad" is the cvv, not a challenge code; "Name on card" is the holder, not the card number).
 */
const LABELS: [FieldName, RegExp][] = [
  ['formaPago', /forma de pago|medio de pago|\bmetodo\b|\bmethod\b|payment method|pay with|pagar con/],
  ['cuotas', /cuotas|instal?l?ments?/],
  ['cvv', /\bcvv2?\b|\bcvc2?\b|\bcsc\b|codigo de seguridad|security code|card code/],
  ['mesVencimiento', /\bmes\b|month|\bmm\b/],
  ['anioVencimiento', /\bano\b|\byear\b|\baaaa\b|\byyyy\b/],
  ['email', /correo|e-?mail/],
  ['nombreTitular', /titular|name on card|cardholder|holder|nombre|\bname\b/],
  ['numeroTarjeta', /numero de (la )?tarjeta|card number|tarjeta|\bcard\b/],
  ['cantidad', /cantidad|quantity|\bqty\b|unidades|\bunits?\b|quantidade/],
  ['monto', /monto|amount|importe|valor a pagar|total a pagar|\btotal\b/],
  ['codigoDesafio', /codigo|\bcode\b|\botp\b|verificacion|verification|clave dinamica/],
];

/** What each field is looked for by, for a reason that says what was not found. */
const LOOKED_FOR: Record<FieldName, string> = {
  numeroTarjeta: 'autocomplete=cc-number, a label like "Número de tarjeta"/"Card number", inputmode=numeric',
  cvv: 'autocomplete=cc-csc, a label like "CVV"/"CVC"/"Código de seguridad"/"Security code", type=password',
  mesVencimiento: 'autocomplete=cc-exp-month, a label like "Mes"/"Month", a number input 1–12',
  anioVencimiento: 'autocomplete=cc-exp-year, a label like "Año"/"Year"',
  nombreTitular: 'autocomplete=cc-name, a label like "Nombre del titular"/"Name on card"',
  email: 'autocomplete=email, a label like "Correo"/"Email", type=email',
  formaPago: 'a label like "Forma de pago"/"Método"/"Payment method", a select offering card and points',
  cuotas: 'a label like "Cuotas"/"Instalments", a select of months',
  cantidad: 'a label like "Cantidad"/"Unidades"/"Quantity"/"Qty", the one number input left on a link screen',
  monto: 'a label like "Monto"/"Valor a pagar"/"Total a pagar"/"Amount", the one number input left once the quantity is placed',
  codigoDesafio: 'autocomplete=one-time-code, a label like "Código de verificación"/"Verification code"',
};

/** The inputs a customer can fill (not hidden, not buttons), in page order. */
export function candidatesOf(html: string): Candidate[] {
  const root = parse(html);
  const labelFor = new Map<string, string>();
  for (const label of root.querySelectorAll('label[for]')) labelFor.set(label.getAttribute('for')!, label.text);
  const out: Candidate[] = [];
  const groups = new Map<string, Candidate>();
  for (const el of root.querySelectorAll('input, select, textarea')) {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') ?? (tag === 'input' ? 'text' : tag)).toLowerCase();
    if (type === 'radio' && !el.hasAttribute('disabled')) {
      radioOption(el, labelFor, groups, out);
      continue;
    }
    if (['hidden', 'submit', 'button', 'reset', 'image', 'file', 'checkbox'].includes(type) || el.hasAttribute('disabled')) continue;
    const name = el.getAttribute('name');
    const id = el.getAttribute('id');
    const target = name && isInputName(name) ? name : id ? `#${id}` : undefined;
    if (!target) continue; // neither submitted nor addressable
    const labelledBy = (el.getAttribute('aria-labelledby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((ref) => root.querySelector(`[id="${ref}"]`)?.text ?? '');
    const label = [
      id ? labelFor.get(id) : undefined,
      wrappingLabel(el),
      el.getAttribute('aria-label'),
      ...labelledBy,
      el.getAttribute('placeholder'),
      el.getAttribute('title'),
    ]
      .filter((s): s is string => !!s && s.trim() !== '')
      .map((s) => s.replace(/\s+/g, ' ').trim())
      .join(' / ');
    const options = tag === 'select' ? el.querySelectorAll('option').flatMap((o) => [o.getAttribute('value') ?? '', o.text.trim()]) : [];
    out.push({
      target,
      tag,
      type,
      autocomplete: fold(el.getAttribute('autocomplete') ?? ''),
      inputmode: fold(el.getAttribute('inputmode') ?? ''),
      label,
      options,
    });
  }
  return out;
}

/**
 * A radio button: an option of its group, and the group one candidate read as a select (its options the buttons'
 * values and labels; its label the group's legend or aria-label), so it is placed by meaning as a select is.
 */
function radioOption(el: HTMLElement, labelFor: Map<string, string>, groups: Map<string, Candidate>, out: Candidate[]): void {
  const name = el.getAttribute('name');
  if (!name || !isInputName(name)) return;
  const id = el.getAttribute('id');
  const text = (id ? labelFor.get(id) : undefined) ?? wrappingLabel(el) ?? el.getAttribute('aria-label') ?? el.nextSibling?.text ?? '';
  let group = groups.get(name);
  if (!group) {
    let legend: string | undefined;
    for (let p = el.parentNode; p && legend === undefined; p = p.parentNode) {
      const tag = p.tagName?.toLowerCase();
      if (tag === 'fieldset') legend = p.querySelector('legend')?.text;
      else if (p.getAttribute?.('role') === 'radiogroup') legend = p.getAttribute('aria-label') ?? undefined;
      if (tag === 'form' || tag === 'body') break;
    }
    group = {
      target: name,
      tag: 'select',
      type: 'radio',
      autocomplete: '',
      inputmode: '',
      label: (legend ?? '').replace(/\s+/g, ' ').trim(),
      options: [],
    };
    groups.set(name, group);
    out.push(group);
  }
  group.options.push(el.getAttribute('value') ?? 'on', text.replace(/\s+/g, ' ').trim());
}

function wrappingLabel(el: HTMLElement): string | undefined {
  for (let p = el.parentNode; p; p = p.parentNode) if (p.tagName?.toLowerCase() === 'label') return p.text;
  return undefined;
}

/**
 * One input for the whole expiry ("MM/AA", autocomplete cc-exp), not a month or a year of its own: a label or
 * placeholder reading month/year, or naming the expiry without saying month or year.
 */
function joinedExpiry(c: Candidate): boolean {
  if (c.tag !== 'input' || c.type === 'number' || c.type === 'month') return false;
  if (c.autocomplete.split(' ').includes('cc-exp')) return true;
  const text = fold(c.label);
  if (/\b(mm|mes)\s*\/\s*(aa|yy|aaaa|yyyy|ano|year)\b/.test(text)) return true;
  return (
    /\b(vencimiento|vence|caducidad|expiry|expiration|expires|validade|valid thru)\b/.test(text) &&
    !/\bmes\b|month|\bano\b|\byear\b|\bmm\b|\baa(aa)?\b|\byy(yy)?\b/.test(text)
  );
}

/**
 * The payment's values as the page takes them: where month and year have one input (joinedExpiry), one value
 * `MM/AA` there (a four-digit year where the input asks for one), the year not entered on its own.
 */
export function joinExpiry(values: [FieldName, string][], mapping: Pick<FieldMapping, 'names' | 'candidates'>): [FieldName, string][] {
  const target = mapping.names.mesVencimiento;
  const mes = values.find(([f]) => f === 'mesVencimiento')?.[1];
  const anio = values.find(([f]) => f === 'anioVencimiento')?.[1];
  if (target !== mapping.names.anioVencimiento || mes === undefined || anio === undefined) return values;
  const asks = fold(mapping.candidates.find((c) => c.target === target)?.label ?? '');
  const year = /\b(aaaa|yyyy)\b/.test(asks) ? (anio.length === 2 ? `20${anio}` : anio) : anio.slice(-2);
  const joined = `${mes.padStart(2, '0')}/${year}`;
  return values.flatMap(([f, v]): [FieldName, string][] => (f === 'anioVencimiento' ? [] : [[f, f === 'mesVencimiento' ? joined : v]]));
}

/** The field an input's label names, if any. */
function byLabel(c: Candidate): FieldName | undefined {
  const text = fold(c.label);
  return text ? LABELS.find(([, re]) => re.test(text))?.[0] : undefined;
}

/** The field a select's options stand for: payment forms (card, points) or instalments (months). */
function byOptions(c: Candidate): FieldName | undefined {
  if (c.tag !== 'select') return undefined;
  const texts = fold(c.options.join(' '));
  if (/puntos|points|tarjeta|card|bitcoin|quick ?pay|pagonormal/.test(texts)) return 'formaPago';
  if (/meses|months|cuotas|instal/.test(texts)) return 'cuotas';
  // Twelve options 1–12 (or the months' names) are the expiry month; options that are all years, the expiry year.
  // Each option's value, else its text (what the option submits); a placeholder option left out.
  const values = c.options.flatMap((v, i) => (i % 2 === 0 ? [v || c.options[i + 1] || ''] : [])).filter((v) => v.trim() !== '');
  // (A first option such as "Mes" or "--" is a placeholder.)
  const numeric = values.filter((v, i) => i > 0 || /^\d+$/.test(v.trim()));
  if (numeric.length === 12 && numeric.every((v, i) => Number(v) === i + 1)) return 'mesVencimiento';
  if (/\b(enero|january)\b.*\b(diciembre|december)\b/.test(texts)) return 'mesVencimiento';
  if (numeric.length > 1 && numeric.every((v) => /^(20)?\d\d$/.test(v.trim()))) return 'anioVencimiento';
  return undefined;
}

/** The field an input's type and inputmode suggest. */
function byType(c: Candidate, free: Set<FieldName>): FieldName | undefined {
  if (c.type === 'email') return 'email';
  if (c.type === 'password') return 'cvv';
  if (c.tag === 'input' && (c.inputmode === 'numeric' || c.type === 'tel'))
    return free.has('numeroTarjeta') ? 'numeroTarjeta' : free.has('cvv') ? 'cvv' : undefined;
  return undefined;
}

/**
 * The page's mapping: `configured` (SCREEN_FIELD_NAMES, as the user set it) overrides; then, each input used once,
 * autofill tokens, labels, select options, types; the default names fill the rest (a hidden field keeps its name).
 */
export function discoverFields(html: string, configured: Partial<FieldNames> = {}): FieldMapping {
  const candidates = candidatesOf(html);
  const found: FieldMapping['found'] = {};
  for (const [field, target] of Object.entries(configured) as [FieldName, string][]) found[field] = { target, by: 'configured' };
  const used = new Set(Object.values(found).map((f) => f.target));
  const free = () => new Set((Object.keys(defaultFieldNames) as FieldName[]).filter((f) => !found[f]));
  const stages: [FoundBy, (c: Candidate, free: Set<FieldName>) => FieldName | undefined][] = [
    [
      'autocomplete',
      (c) =>
        (Object.keys(AUTOCOMPLETE) as FieldName[]).find((f) => c.autocomplete.split(' ').some((token) => AUTOCOMPLETE[f]!.includes(token))),
    ],
    ['default name', (c) => (Object.keys(defaultFieldNames) as FieldName[]).find((f) => defaultFieldNames[f] === c.target)],
    ['label', byLabel],
    ['options', byOptions],
    ['type', byType],
  ];
  // One input for month and year: both fields are entered there, as one value (joinExpiry).
  const joined =
    !found.mesVencimiento && !found.anioVencimiento ? candidates.find((c) => !used.has(c.target) && joinedExpiry(c)) : undefined;
  if (joined) {
    const by: FoundBy = joined.autocomplete.split(' ').includes('cc-exp') ? 'autocomplete' : 'label';
    found.mesVencimiento = { target: joined.target, by };
    found.anioVencimiento = { target: joined.target, by };
    used.add(joined.target);
  }
  for (const [by, match] of stages) {
    for (const c of candidates) {
      if (used.has(c.target)) continue;
      const field = match(c, free());
      if (field && !found[field]) {
        found[field] = { target: c.target, by };
        used.add(c.target);
      }
    }
  }
  const names = { ...defaultFieldNames };
  for (const [field, f] of Object.entries(found) as [FieldName, { target: string }][]) names[field] = f.target;
  // What a customer types there is a secret wherever the page names it.
  if (isInputName(names.numeroTarjeta)) secrets.addField(names.numeroTarjeta, 'card-number');
  if (isInputName(names.cvv)) secrets.addField(names.cvv, 'cvv');
  return { names, found, candidates };
}

/** One line for a report: each field found and how, e.g. `numeroTarjeta → cc-number (autocomplete)`. */
export function describeMapping(mapping: FieldMapping): string {
  const found = Object.entries(mapping.found) as [FieldName, { target: string; by: FoundBy }][];
  return found.length === 0 ? 'no field found' : found.map(([field, f]) => `${field} → ${f.target} (${f.by})`).join(', ');
}

/** Whether the mapping took more than SCREEN_FIELD_NAMES and the default names: discovery found something. */
export function isDiscovered(mapping: FieldMapping): boolean {
  return Object.entries(mapping.found).some(([field, f]) => f.by !== 'configured' && f.target !== defaultFieldNames[field as FieldName]);
}

/** The inputs a page shows, for a reason: `f1 "Número de tarjeta" (text)`. */
export function describeCandidates(candidates: Candidate[]): string {
  if (candidates.length === 0) return 'the page shows no input a customer can fill';
  const shown = candidates
    .slice(0, 12)
    .map(
      (c) =>
        `${c.target}${c.label ? ` "${c.label}"` : ''} ` +
        `(${c.tag === 'input' ? c.type : c.tag}${c.autocomplete ? `, autocomplete=${c.autocomplete}` : ''})`,
    );
  return `inputs seen: ${shown.join('; ')}${candidates.length > 12 ? `; … ${candidates.length - 12} more` : ''}`;
}

/**
 * The payment's quantity (and amount) placed by elimination on a link screen: when the payment has `cantidad`, the
 * page shows no field for it, the last number input left unplaced (type number, or a numeric inputmode) is the
 * quantity; then `monto`, once the quantity is placed, when exactly one is left. `present`: whether the page has a
 * field by that name or selector.
 */
export function placeByElimination(mapping: FieldMapping, needs: FieldName[], present: (target: string) => boolean): FieldMapping {
  let result = mapping;
  for (const field of ['cantidad', 'monto'] as const) {
    if (!needs.includes(field) || present(result.names[field])) continue;
    if (field === 'monto' && needs.includes('cantidad') && !present(result.names.cantidad)) continue;
    const placed = new Set(Object.values(result.found).map((f) => f.target));
    const left = result.candidates.filter((c) => c.tag === 'input' && numberLike(c) && !placed.has(c.target));
    // The quantity is the last number input left (where it is editable, it follows the amount); the amount
    // only when it is the one left.
    if (left.length === 0 || (field === 'monto' && left.length !== 1)) continue;
    const target = left[left.length - 1]!.target;
    result = { ...result, names: { ...result.names, [field]: target }, found: { ...result.found, [field]: { target, by: 'elimination' } } };
  }
  return result;
}

/** An input taking a number: type number, or a text input whose keyboard is numeric (inputmode numeric or decimal). */
const numberLike = (c: Candidate): boolean =>
  c.type === 'number' || (['text', 'tel', ''].includes(c.type) && ['numeric', 'decimal'].includes(c.inputmode));

/** A select whose options hold none meaning the suite's value: the field, the value sought, what was offered. */
export interface UnmatchedOption {
  field: FieldName;
  target: string;
  value: string;
  offered: string;
}

/**
 * The reason a page cannot be driven: each field not found (what it was looked for by) and each option not matched
 * (the value sought, the options offered with their texts), then the inputs seen.
 */
export function cannotDriveMessage(where: string, missing: FieldName[], unmatched: UnmatchedOption[], mapping: FieldMapping): string {
  const parts = [
    ...(missing.length > 0 ? [`could not find ${lookedFor(missing, mapping)}`] : []),
    ...unmatched.map(
      (u) =>
        `no option of ${u.field} (${u.target}) means "${u.value}": it offers ${u.offered}; set SCREEN_OPTION_VALUES, ` +
        `e.g. {"${u.field}":{"${u.value}":"<the option's value>"}}`,
    ),
  ];
  return `${where}: ${parts.join('; ')}; ${describeCandidates(mapping.candidates)}`;
}

/** A page where a field the payment needs was not found: not judged (SKIP), naming the fields and the page's inputs. */
export class FieldsNotFoundError extends NoFormError {
  override name = 'FieldsNotFoundError';
}

/** The reason a page cannot be mapped: the missing fields, what each was looked for by, and the inputs seen. */
export function notFoundMessage(where: string, missing: FieldName[], mapping: FieldMapping): string {
  return `${where}: could not find ${lookedFor(missing, mapping)}; ${describeCandidates(mapping.candidates)}`;
}

function lookedFor(missing: FieldName[], mapping: FieldMapping): string {
  return missing
    .map(
      (f) =>
        `${f} (looked for ${mapping.found[f]?.by === 'configured' ? `SCREEN_FIELD_NAMES "${mapping.names[f]}", but the page has no field "${mapping.names[f]}"` : LOOKED_FOR[f]})`,
    )
    .join(', ');
}

/**
 * The mappings a payer used in this run (its memory, memory.ts), per kind of page: the first of each kind is kept,
 * for one note per kind; only the page being paid is recorded, not the pages it leads to.
 */
export class FieldMappings {
  readonly #seen = new Map<PageKind, FieldMapping>();
  readonly #noted = new Set<PageKind>();
  record(kind: PageKind, mapping: FieldMapping): void {
    if (!this.#seen.has(kind)) this.#seen.set(kind, mapping);
  }
  get(kind: PageKind): FieldMapping | undefined {
    return this.#seen.get(kind);
  }
  /**
   * Each mapping discovery found beyond SCREEN_FIELD_NAMES and the default names, once per kind of page per run: a
   * note of the run (its summary), never a test's WARN, since which test paid such a page first is the run's
   * scheduling and the spec does not show the pages' fields.
   */
  newNotes(): string[] {
    const notes: string[] = [];
    for (const [kind, mapping] of this.#seen) {
      if (this.#noted.has(kind)) continue;
      this.#noted.add(kind);
      if (isDiscovered(mapping))
        notes.push(
          `${kind} fields discovered (${PAGE_CLAUSE[kind]}): ${describeMapping(mapping)}; ` +
            '`npm run discover` writes them as SCREEN_FIELD_NAMES',
        );
    }
    return notes;
  }
}

/** The clause each kind of page is reached by (its URL in the spec). */
const PAGE_CLAUSE: Record<PageKind, string> = {
  'link screen': '4.1-url-enlace-leads-to-screen',
  '3DS page': '4.3-url-completar',
  'quick-pay page': '4.6-url-qr',
};

/** The mapping a payer fills a page with (a configured CSS selector resolved to its input's name). */
export function mapPage(html: string, configured: Partial<FieldNames> | Record<string, string> | undefined): FieldMapping {
  const mapping = discoverFields(html, (configured ?? {}) as Partial<FieldNames>);
  return { ...mapping, names: resolveNames(mapping.names, html) };
}
