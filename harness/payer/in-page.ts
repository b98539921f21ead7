/**
 * The browser payer's steps that run inside the page, in its own script context: each is serialised and sent whole,
 * so none may call a helper defined outside it, nor name an inner function (a bundler keeping names wraps it in a
 * helper the page does not have). Reading and driving the page this way needs no Playwright script
 * loaded into each new document (tens of milliseconds a page); Playwright's selectors stay for what the page's DOM
 * API cannot reach (browser.ts).
 */
import type { Option } from './fields.ts';

/** What an input is: its tag, its type, a select's options with their texts. */
export interface FieldKind {
  tag: string;
  type: string;
  options: Option[] | null;
}

/**
 * The page's HTML as the DOM holds it (runs in the page); with waitMs, once it shows `shown` (a form, the card field)
 * or words of refusal, or when waitMs has passed.
 */
export async function readPage([shown, words, waitMs]: readonly [string, string, number]): Promise<string> {
  const until = Date.now() + waitMs;
  for (;;) {
    let ready: boolean;
    try {
      ready = document.querySelector(shown) !== null;
    } catch {
      ready = document.querySelector('form') !== null; // a selector only Playwright reads
    }
    if (!ready) {
      const text = (document.body?.innerText ?? '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/\s+/g, ' ');
      ready = new RegExp(words).test(text);
    }
    if (ready || Date.now() >= until) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : '';
  return `${doctype}${document.documentElement.outerHTML}`;
}

/** The index of the payment form among the page's forms (runs in the page): the one holding the card field, else the first; -1 when the DOM API finds none. */
export function findForm(card: string): number {
  const forms = [...document.querySelectorAll('form')];
  try {
    const withCard = forms.findIndex((f) => f.querySelector(card) !== null);
    if (withCard >= 0) return withCard;
  } catch {
    return -1; // a selector only Playwright reads
  }
  return forms.length > 0 ? 0 : -1;
}

/** The trimmed text of the element a selector matches (runs in the page); null for none, false for a selector the DOM API rejects. */
export function textOf(selector: string): string | null | false {
  try {
    const el = document.querySelector<HTMLElement>(selector);
    return el ? el.innerText.trim() : null;
  } catch {
    return false;
  }
}

/** What each selector's first match in the form is (runs in the page); null where the DOM API finds none. */
export function describeTargets(form: Element, selectors: string[]): (FieldKind | null)[] {
  return selectors.map((selector) => {
    let el: Element | null = null;
    try {
      el = form.querySelector(selector);
    } catch {
      el = null; // a selector only Playwright's engine reads
    }
    if (!el) return null;
    return {
      tag: el.tagName.toLowerCase(),
      type: (el as HTMLInputElement).type,
      options: el instanceof HTMLSelectElement ? [...el.options].map((o) => ({ value: o.value, text: o.text.replace(/\s+/g, ' ').trim() })) : null,
    };
  });
}

/**
 * Enters values in order (runs in the page) and returns how many it entered: it stops before one that is not ready
 * for a customer (not found, hidden, disabled, read-only; an option not offered). The value is set through the
 * element's own setter (frameworks that track it see the change) and the input and change events fired.
 */
export function enterInPage(form: Element, entries: ([string, 'select' | 'set' | 'type', string] | null)[]): number {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!entry) return i;
    const [selector, how, value] = entry;
    const el = form.querySelector(selector) as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null;
    if (!el) return i;
    if (how === 'select' && (el.disabled || !(el instanceof HTMLSelectElement) || ![...el.options].some((o) => o.value === value))) return i;
    if (how === 'type') {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || el.disabled || (el as HTMLInputElement).readOnly) return i;
      el.focus();
    }
    if (how === 'set') el.disabled = false;
    const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    if (how === 'type') el.blur();
  }
  return entries.length;
}

/**
 * Submits the form as its button would (runs in the page): input hints off, the button clicked, else requestSubmit;
 * false, with nothing done, when the button is not ready for a customer (disabled, not shown).
 */
export function pressSubmit(form: Element, selector: string): boolean {
  const f = form as HTMLFormElement;
  f.noValidate = true;
  const button = f.querySelector<HTMLButtonElement>(selector);
  if (!button) {
    f.requestSubmit();
    return true;
  }
  const box = button.getBoundingClientRect();
  if (button.disabled || box.width === 0 || box.height === 0 || getComputedStyle(button).visibility === 'hidden') return false;
  button.click();
  return true;
}

/** What an element is (runs in the page): a select's options with their texts. */
export function inputKind(el: Element): FieldKind {
  return {
    tag: el.tagName.toLowerCase(),
    type: (el as HTMLInputElement).type,
    options: el instanceof HTMLSelectElement ? [...el.options].map((o) => ({ value: o.value, text: o.text.replace(/\s+/g, ' ').trim() })) : null,
  };
}

/** A forged field the screen does not show, added to its form (runs in the page). */
export function addHidden(form: Element, [name, value]: readonly [string, string]): void {
  const input = document.createElement('input');
  input.type = 'hidden';
  input.name = name;
  input.value = value;
  form.appendChild(input);
}
