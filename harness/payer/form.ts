/**
 * A hosted page as the HTTP payer reads it (node-html-parser): the payment form, its fields as a browser would
 * submit them untouched, the options of its selects (values and texts), and the text of `#estado`; the outcome a
 * page stands for, a refusal classified by how it refused (status, form again, words, no form).
 */
import { parse, type HTMLElement } from 'node-html-parser';
import { secrets } from '../record/redact.ts';
import type { Exchange } from '../api/http.ts';
import { fold } from './fields.ts';
import { sameForm } from './steps.ts';
import type { FieldNames, PaymentOutcome, Screen, ScreenForm, Timing } from './types.ts';

/**
 * The outcome a page stands for. An error status (4xx/5xx) is a refusal (`status`); so is, after a submission
 * (`submitted`: the form that was sent), a page showing that same form again (`form-again`: it did not take what was
 * entered); a page with no form whose text says it refuses (`words`); and, on opening, a page with no form at all
 * (`no-form`, with whether this payer already drove a payable screen of that origin).
 */
export function outcomeOf(
  screen: Pick<Screen, 'status' | 'html' | 'estado' | 'form' | 'url' | 'payableSeen'>,
  submitted?: ScreenForm,
): PaymentOutcome {
  const base = {
    status: screen.status,
    html: screen.html,
    text: pageText(screen.html),
    ...(screen.estado === undefined ? {} : { estado: screen.estado }),
  };
  const answered = submitted ? 'submission' : 'opening';
  if (screen.status >= 400) return { kind: 'refused', ...base, answered, by: 'status' };
  if (submitted && screen.form && sameForm(screen.form, submitted))
    return { kind: 'refused', ...base, answered, by: 'form-again', formAgain: true };
  if (!screen.form && refusalWords(fullText(screen.html)) !== undefined) return { kind: 'refused', ...base, answered, by: 'words' };
  if (!screen.form && !submitted) return { kind: 'refused', ...base, answered, by: 'no-form', payableSeen: screen.payableSeen === true };
  return { kind: 'page', ...base };
}

/** The outcome with when the payer opened the page, submitted the payment (if it did) and got the answer. */
export function timed(outcome: PaymentOutcome, openedAt: number, submittedAt?: number): PaymentOutcome {
  const timing: Timing = { openedAt, ...(submittedAt === undefined ? {} : { submittedAt }), answeredAt: Date.now() };
  return { ...outcome, timing };
}

/**
 * Phrases of a page saying a payment cannot be made (Spanish, English, Portuguese), accents and case folded; the
 * longer before the shorter, so the phrase returned is the page's own.
 */
export const REFUSAL_WORDS = new RegExp(
  [
    'ya no esta disponible',
    'no esta disponible',
    'no disponible',
    'no longer available',
    'not available',
    'unavailable',
    'nao esta disponivel',
    'nao disponivel',
    'indisponivel',
    'ha expirado',
    'expirad[oa]',
    'expired',
    'expirou',
    'vencid[oa]',
    'caducad[oa]',
    'caduco',
    'has ended',
    'ha finalizado',
    'desactivad[oa]',
    'deactivated',
    'inactiv[oa]',
    'inactive',
    'inativ[oa]',
    'disabled',
    'agotad[oa]',
    'sold out',
    'esgotad[oa]',
    'limite (de [a-z]+ )?(alcanzado|excedido|superado)',
    'limit (reached|exceeded)',
    '(?<!fecha )(?<!data )limite',
    'reached (its|the) limit',
    'no se puede',
    'no es posible',
    'cannot be paid',
    'can ?not be used',
    "can't be paid",
    'can no longer',
    'nao pode',
    'ya no',
    'no longer',
    'enlace no valido',
    'link no valido',
    'invalid link',
    'no es valido',
    'no valid[oa]',
  ]
    .map((w) => `\\b${w}\\b`)
    .join('|'),
);

/** The phrase of refusal a page's text says ("no disponible", "expired"…), accents and case folded; undefined when none. */
export function refusalWords(text: string): string | undefined {
  return REFUSAL_WORDS.exec(fold(text))?.[0];
}

/**
 * The origins (scheme, host, port) where this process filled and submitted a payable page and got an answer other
 * than a refusal: there a page without a form is the target's answer, not a page the payer cannot read. Kept in
 * the payer's memory (memory.ts).
 */
export class PayableOrigins {
  readonly #origins = new Set<string>();
  add(url: string): void {
    const origin = originOf(url);
    if (origin) this.#origins.add(origin);
  }
  has(url: string): boolean {
    const origin = originOf(url);
    return origin !== undefined && this.#origins.has(origin);
  }
  /** Forgets them all (tests). */
  reset(): void {
    this.#origins.clear();
  }
}

const originOf = (url: string): string | undefined => (URL.canParse(url) ? new URL(url).origin : undefined);

/** A page's whole text (scripts and styles left out), for its words of refusal. */
function fullText(html: string): string {
  const root = parse(html);
  root.querySelectorAll('script, style, noscript, template').forEach((el) => el.remove());
  return (root.querySelector('body') ?? root).text;
}

/** Where pages put what went wrong; else the whole body is the page's answer. */
const MESSAGES = '[role=alert], #errores, .errores, .error, .errors, .alert, #estado';
const MAX_TEXT = 300;

/** What a page says, in one line for a report: its error or status messages, else its text; card data masked. */
export function pageText(html: string): string {
  const root = parse(html);
  root.querySelectorAll('script, style, noscript').forEach((el) => el.remove());
  const messages = root.querySelectorAll(MESSAGES).map((el) => el.text);
  const text = (messages.length > 0 ? messages.join(' ') : (root.querySelector('body') ?? root).text).replace(/\s+/g, ' ').trim();
  const shown = secrets.redactText(text);
  return shown.length > MAX_TEXT ? `${shown.slice(0, MAX_TEXT)}…` : shown;
}

/** A URL without its query, for messages: a GET form's query holds the card. */
export function bare(url: string): string {
  return url.replace(/[?#].*$/, '');
}

/** The page as the payer reads it; its form is the one holding the card-number field, else the first one. */
export function readScreen(ex: Exchange, url: string, names: FieldNames): Screen {
  const res = ex.response!;
  return readHtml(res.status, url, res.bodyText, names);
}

/** A page's HTML (as served, or a browser's DOM) read as a screen; `names` already resolved (resolveNames). */
export function readHtml(status: number, url: string, html: string, names: FieldNames): Screen {
  const root = parse(html);
  const estado = root.querySelector('#estado')?.text.trim();
  const forms = root.querySelectorAll('form');
  const formElement =
    forms.find((f) => f.querySelectorAll('[name]').some((el) => el.getAttribute('name') === names.numeroTarjeta)) ?? forms[0];
  return {
    status,
    url,
    html,
    ...(formElement ? { form: readForm(formElement, url) } : {}),
    ...(estado === undefined ? {} : { estado }),
  };
}

/**
 * The form as a browser would submit it untouched (the first submit button counts as pressed); a radio group is
 * read as a select whose options are its buttons, each named by its label.
 */
function readForm(form: HTMLElement, pageUrl: string): ScreenForm {
  const fields: Record<string, string> = {};
  const selects: Record<string, string[]> = {};
  const optionTexts: Record<string, string[]> = {};
  const radios = new Set<string>();
  const visible = new Set<string>();
  const buttons: NonNullable<ScreenForm['buttons']> = [];
  const checkboxes: NonNullable<ScreenForm['checkboxes']> = [];
  const asked: Record<string, string> = {};
  const required = new Set<string>();
  const root = form.parentNode ? rootOf(form) : form;
  let clicked = false;
  for (const el of form.querySelectorAll('input, select, textarea, button')) {
    const name = el.getAttribute('name');
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') ?? (tag === 'button' ? 'submit' : 'text')).toLowerCase();
    if (el.hasAttribute('disabled')) continue;
    if (type === 'submit' || type === 'image') {
      const text =
        (tag === 'button' ? el.text : (el.getAttribute('value') ?? el.getAttribute('alt') ?? '')) ||
        el.getAttribute('aria-label') ||
        el.getAttribute('title') ||
        '';
      buttons.push({ ...(name ? { name } : {}), value: el.getAttribute('value') ?? '', text: text.replace(/\s+/g, ' ').trim() });
    }
    if (!name) continue;
    if (tag === 'select') {
      const options = el.querySelectorAll('option');
      selects[name] = options.map((o) => o.getAttribute('value') ?? o.text.trim());
      optionTexts[name] = options.map((o) => o.text.replace(/\s+/g, ' ').trim());
      const chosen = options.find((o) => o.hasAttribute('selected')) ?? options[0];
      if (chosen) fields[name] = chosen.getAttribute('value') ?? chosen.text.trim();
      visible.add(name);
    } else if (tag === 'textarea') {
      fields[name] = el.text;
      visible.add(name);
    } else if (type === 'submit' || type === 'image') {
      if (!clicked) fields[name] = el.getAttribute('value') ?? '';
      clicked = true;
    } else if (type === 'radio') {
      radios.add(name);
      visible.add(name);
      (selects[name] ??= []).push(el.getAttribute('value') ?? 'on');
      (optionTexts[name] ??= []).push(labelOf(el, root));
      if (el.hasAttribute('checked')) fields[name] = el.getAttribute('value') ?? 'on';
    } else if (type === 'checkbox') {
      if (el.hasAttribute('checked')) fields[name] = el.getAttribute('value') ?? 'on';
      else checkboxes.push({ name, value: el.getAttribute('value') ?? 'on', text: labelOf(el, root, false) });
      visible.add(name);
    } else if (type !== 'button' && type !== 'reset' && type !== 'file') {
      fields[name] = el.getAttribute('value') ?? '';
      if (type !== 'hidden') visible.add(name);
      if (type !== 'hidden' && fields[name] === '') asked[name] = asksOf(el, root);
      if (type !== 'hidden' && (el.hasAttribute('required') || el.getAttribute('aria-required') === 'true')) required.add(name);
    }
  }
  const method = (form.getAttribute('method') ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET';
  return {
    action: new URL(form.getAttribute('action') || pageUrl, pageUrl).href,
    method,
    fields,
    selects,
    optionTexts,
    ...(radios.size > 0 ? { radios: [...radios] } : {}),
    visible: [...visible],
    ...(checkboxes.length > 0 ? { checkboxes } : {}),
    ...(Object.keys(asked).length > 0 ? { asked } : {}),
    ...(required.size > 0 ? { required: [...required] } : {}),
    buttons,
  };
}

function rootOf(el: HTMLElement): HTMLElement {
  let node = el;
  while (node.parentNode) node = node.parentNode;
  return node;
}

/**
 * What a text input asks: its label (for=, wrapping) or aria-label, then its placeholder — never the text after it,
 * which is the next field's label.
 */
function asksOf(el: HTMLElement, root: HTMLElement): string {
  const id = el.getAttribute('id');
  let wrapping: string | undefined;
  for (let p = el.parentNode; p && !wrapping; p = p.parentNode) if (p.tagName?.toLowerCase() === 'label') wrapping = p.text;
  const label = (id ? root.querySelector(`label[for="${id}"]`)?.text : undefined) ?? wrapping ?? el.getAttribute('aria-label') ?? '';
  return [label, el.getAttribute('placeholder') ?? '']
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join(' / ');
}

/** What a radio button or checkbox says: its label (for=, wrapping), else the text right after it, else (`orValue`) its value. */
function labelOf(el: HTMLElement, root: HTMLElement, orValue = true): string {
  const id = el.getAttribute('id');
  const byFor = id ? root.querySelector(`label[for="${id}"]`)?.text : undefined;
  let wrapping: string | undefined;
  for (let p = el.parentNode; p && !wrapping; p = p.parentNode) if (p.tagName?.toLowerCase() === 'label') wrapping = p.text;
  const next = el.nextSibling?.text;
  return (
    byFor ??
    wrapping ??
    (next && next.trim() !== '' ? next : undefined) ??
    el.getAttribute('aria-label') ??
    (orValue ? el.getAttribute('value') : undefined) ??
    ''
  )
    .replace(/\s+/g, ' ')
    .trim();
}
