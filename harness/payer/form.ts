/**
 * A hosted page as the HTTP payer reads it (node-html-parser): the payment form, its fields as a browser would
 * submit them untouched, the options of its selects, and the text of `#estado`; the outcome a page stands for.
 */
import { parse, type HTMLElement } from 'node-html-parser';
import { secrets } from '../record/evidence.ts';
import type { Exchange } from '../api/http.ts';
import type { FieldNames, PaymentOutcome, Screen, ScreenForm } from './types.ts';

/**
 * The outcome a page stands for. An error status (4xx/5xx) is a refusal; so is, after a submission (`submitted`: the
 * form that was sent), a page showing that same form again — it did not take what was entered.
 */
export function outcomeOf(screen: Pick<Screen, 'status' | 'html' | 'estado' | 'form'>, submitted?: ScreenForm): PaymentOutcome {
  const base = { status: screen.status, html: screen.html, text: pageText(screen.html), ...(screen.estado === undefined ? {} : { estado: screen.estado }) };
  const answered = submitted ? 'submission' : 'opening';
  if (screen.status >= 400) return { kind: 'refused', ...base, answered };
  if (submitted && screen.form && bare(screen.form.action) === bare(submitted.action)) return { kind: 'refused', ...base, answered, formAgain: true };
  return { kind: 'page', ...base };
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
  const formElement = forms.find((f) => f.querySelectorAll('[name]').some((el) => el.getAttribute('name') === names.numeroTarjeta)) ?? forms[0];
  return {
    status,
    url,
    html,
    ...(formElement ? { form: readForm(formElement, url) } : {}),
    ...(estado === undefined ? {} : { estado }),
  };
}

/** The form as a browser would submit it untouched (the first submit button counts as clicked). */
function readForm(form: HTMLElement, pageUrl: string): ScreenForm {
  const fields: Record<string, string> = {};
  const selects: Record<string, string[]> = {};
  let clicked = false;
  for (const el of form.querySelectorAll('input, select, textarea, button')) {
    const name = el.getAttribute('name');
    if (!name || el.hasAttribute('disabled')) continue;
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') ?? (tag === 'button' ? 'submit' : 'text')).toLowerCase();
    if (tag === 'select') {
      const options = el.querySelectorAll('option');
      selects[name] = options.map((o) => o.getAttribute('value') ?? o.text.trim());
      const chosen = options.find((o) => o.hasAttribute('selected')) ?? options[0];
      if (chosen) fields[name] = chosen.getAttribute('value') ?? chosen.text.trim();
    } else if (tag === 'textarea') {
      fields[name] = el.text;
    } else if (type === 'submit' || type === 'image') {
      if (!clicked) fields[name] = el.getAttribute('value') ?? '';
      clicked = true;
    } else if (type === 'checkbox' || type === 'radio') {
      if (el.hasAttribute('checked')) fields[name] = el.getAttribute('value') ?? 'on';
    } else if (type !== 'button' && type !== 'reset' && type !== 'file') {
      fields[name] = el.getAttribute('value') ?? '';
    }
  }
  const method = (form.getAttribute('method') ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET';
  return { action: new URL(form.getAttribute('action') || pageUrl, pageUrl).href, method, fields, selects };
}

