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
  /** Its name (a radio group's). */
  name: string;
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
      const text = (document.body?.innerText ?? '')
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/\s+/g, ' ');
      ready = new RegExp(words).test(text);
    }
    if (ready || Date.now() >= until) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : '';
  return `${doctype}${document.documentElement.outerHTML}`;
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

/**
 * What each selector's first match in the form is (runs in the page); null where the DOM API finds none. A radio
 * button stands for its group: the group's buttons are its options, each named by its label.
 */
export function describeTargets(form: Element, selectors: string[]): (FieldKind | null)[] {
  return selectors.map((selector) => {
    let el: Element | null = null;
    try {
      el = form.querySelector(selector);
    } catch {
      el = null; // a selector only Playwright's engine reads
    }
    if (!el) return null;
    const input = el as HTMLInputElement;
    let options: Option[] | null = null;
    if (el instanceof HTMLSelectElement)
      options = [...el.options].map((o) => ({ value: o.value, text: o.text.replace(/\s+/g, ' ').trim() }));
    else if (input.type === 'radio') {
      const group = [...form.querySelectorAll<HTMLInputElement>('input[type=radio]')].filter((r) => r.name === input.name && !r.disabled);
      options = group.map((r) => {
        const next = r.nextSibling?.textContent?.trim();
        const label = r.labels?.[0]?.innerText ?? (next || r.getAttribute('aria-label') || r.value);
        return { value: r.value, text: label.replace(/\s+/g, ' ').trim() };
      });
    }
    return { tag: el.tagName.toLowerCase(), type: input.type, name: input.name ?? '', options };
  });
}

/**
 * Enters values in order (runs in the page) and returns how many it entered: it stops before one that is not ready
 * for a customer (not found, hidden, disabled, read-only; an option not offered). The value is set through the
 * element's own setter (frameworks that track it see the change) and the input and change events fired.
 */
export function enterInPage(form: Element, entries: ([string, 'select' | 'set' | 'type' | 'check' | 'tick', string] | null)[]): number {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!entry) return i;
    const [selector, how, value] = entry;
    const el = form.querySelector(selector) as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null;
    if (!el) return i;
    if (how === 'tick') {
      // A checkbox ticked as a customer does (its handlers run), the one submitting that value.
      const box = [...form.querySelectorAll<HTMLInputElement>('input[type=checkbox]')].find(
        (b) => b.name === (el as HTMLInputElement).name && b.value === value,
      );
      if (!box || box.disabled) return i;
      if (!box.checked) box.click();
      if (!box.checked) {
        box.checked = true;
        box.dispatchEvent(new Event('input', { bubbles: true }));
        box.dispatchEvent(new Event('change', { bubbles: true }));
      }
      continue;
    }
    if (how === 'check') {
      // The group's button with that value, clicked as a customer does (its handlers run); checked by hand if a handler refused.
      const radio = [...form.querySelectorAll<HTMLInputElement>('input[type=radio]')].find(
        (r) => r.name === (el as HTMLInputElement).name && r.value === value,
      );
      if (!radio || radio.disabled) return i;
      radio.click();
      if (!radio.checked) {
        radio.checked = true;
        radio.dispatchEvent(new Event('input', { bubbles: true }));
        radio.dispatchEvent(new Event('change', { bubbles: true }));
      }
      continue;
    }
    if (how === 'select' && (el.disabled || !(el instanceof HTMLSelectElement) || ![...el.options].some((o) => o.value === value)))
      return i;
    if (how === 'type') {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || el.disabled || (el as HTMLInputElement).readOnly)
        return i;
      el.focus();
    }
    if (how === 'set') el.disabled = false;
    const proto =
      el instanceof HTMLSelectElement
        ? HTMLSelectElement.prototype
        : el instanceof HTMLTextAreaElement
          ? HTMLTextAreaElement.prototype
          : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    if (how === 'type') el.blur();
  }
  return entries.length;
}

/** What an element is (runs in the page): a select's options with their texts. */
export function inputKind(el: Element): FieldKind {
  return {
    tag: el.tagName.toLowerCase(),
    type: (el as HTMLInputElement).type,
    name: (el as HTMLInputElement).name ?? '',
    options:
      el instanceof HTMLSelectElement ? [...el.options].map((o) => ({ value: o.value, text: o.text.replace(/\s+/g, ' ').trim() })) : null,
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

/** A control a customer may press: what it says, whether it submits a form, whether it can be pressed now. */
export interface Control {
  text: string;
  submits: boolean;
  ready: boolean;
}

/** What the page shows before a control is pressed: its messages, whether it says it refuses, the inputs of its forms. */
export interface Shown {
  /** The body's text, folded. */
  text: string;
  messages: string;
  refusal: boolean;
  forms: string;
  /** What the page says as an answer would: its headings and status regions (role=status, aria-live), folded. */
  said: string;
  /** The transaction ids (UUIDs) its text shows. */
  ids: string;
  /** How many forms it has (one without inputs to type into has an empty entry in `forms`). */
  formCount: number;
}

/**
 * The controls of a form (`form`: its submit buttons, else its buttons) or of the whole page (`page`: buttons,
 * links, anything with role=button or link), in page order (runs in the page). With `index` >= 0, presses that one
 * (the one saying `said`, if the page re-rendered them) with the page's input hints off (the service is under
 * test: what it would refuse reaches it) and returns what the page showed just before; -1 submits the form itself
 * as Enter does. A control not ready (disabled, not shown) returns `before: null` and nothing is done.
 */
export function controls(
  root: Element,
  [mode, index, words, said]: readonly ['form' | 'page', number | null, string, string],
): { list: Control[]; before?: Shown | null } {
  const all = [
    ...root.querySelectorAll<HTMLElement>(mode === 'form' ? 'button, input' : 'button, input, a, area, [role=button], [role=link]'),
  ].filter((el) => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') ?? (tag === 'button' ? 'submit' : tag === 'input' ? 'text' : '')).toLowerCase();
    if (tag === 'input')
      return mode === 'form' ? type === 'submit' || type === 'image' : ['submit', 'image', 'button', 'reset'].includes(type);
    return true;
  });
  // (No named helper: it would not reach the page.)
  const submits = all.map((el) =>
    ['submit', 'image'].includes((el.getAttribute('type') ?? (el.tagName === 'BUTTON' ? 'submit' : '')).toLowerCase()),
  );
  // A form whose buttons all run scripts (type=button) is pressed through them.
  const els = mode === 'form' && submits.includes(true) ? all.filter((_, i) => submits[i]) : all;
  const list = els.map((el) => {
    const box = el.getBoundingClientRect();
    const field = el as HTMLInputElement;
    const text = (el.innerText || field.value || el.getAttribute('alt') || el.getAttribute('aria-label') || el.getAttribute('title') || '')
      .replace(/\s+/g, ' ')
      .trim();
    const ready =
      !field.disabled &&
      el.getAttribute('aria-disabled') !== 'true' &&
      box.width > 0 &&
      box.height > 0 &&
      getComputedStyle(el).visibility !== 'hidden';
    return { text, submits: submits[all.indexOf(el)]!, ready };
  });
  if (index === null) return { list };
  // The control chosen by its words: found again by them if the page re-rendered its controls meanwhile.
  const press =
    index >= 0 && list[index]?.text !== said && list.some((c) => c.text === said) ? list.findIndex((c) => c.text === said) : index;
  const target = press >= 0 ? els[press] : undefined;
  if (press >= 0 && (!target || !list[press]!.ready)) return { list, before: null };
  const shown = (document.body?.innerText ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ');
  const before: Shown = {
    text: shown,
    messages: [...document.querySelectorAll<HTMLElement>('[role=alert], #estado, #errores, .errores, .error, .errors')]
      .map((m) => m.innerText.trim())
      .join('\n'),
    refusal: new RegExp(words).test(shown),
    forms: [...document.forms]
      .map((f) =>
        [...f.elements]
          .filter(
            (e) => !['hidden', 'submit', 'button', 'image', 'reset'].includes((e as HTMLInputElement).type) && (e as HTMLInputElement).name,
          )
          .map((e) => (e as HTMLInputElement).name)
          .sort()
          .join(','),
      )
      .join('|'),
    said: [...document.querySelectorAll<HTMLElement>('h1, h2, h3, [role=status], [aria-live]')]
      .map((m) => m.innerText.replace(/\s+/g, ' ').trim())
      .join('\n'),
    formCount: document.forms.length,
    ids: [...new Set(shown.match(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g) ?? [])].sort().join(','),
  };
  for (const f of document.forms) f.noValidate = true;
  if (target) target.click();
  else (root as HTMLFormElement).requestSubmit();
  return { list, before };
}

/**
 * Waits (runs in the page) until the page shows what follows a script-driven submission, and says what: a message
 * (role=alert, #estado, an error list) other than before, words of refusal it did not show before, a form asking
 * for other inputs with a button to press (a next step), or any other answer rendered in place — a heading or a
 * status region (role=status, aria-live) saying something new, a transaction id appearing, the form pressed gone
 * while the text changed (a receipt in its place). A status or heading saying only that it is working ("Procesando…")
 * is no answer. Within waitMs; then 'the page changed' when its text is not what it was, else ''.
 */
export async function watchPage([before, words, waitMs]: readonly [Shown, string, number]): Promise<string> {
  const until = Date.now() + waitMs;
  for (;;) {
    const messages = [...document.querySelectorAll<HTMLElement>('[role=alert], #estado, #errores, .errores, .error, .errors')]
      .map((m) => m.innerText.trim())
      .join('\n');
    if (messages !== before.messages && messages.replace(/\s+/g, '') !== '')
      return `a message: "${messages.replace(/\s+/g, ' ').slice(0, 120)}"`;
    const text = (document.body?.innerText ?? '')
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/\s+/g, ' ');
    if (!before.refusal && new RegExp(words).test(text)) return 'words of refusal';
    const forms = [...document.forms].map((f) =>
      [...f.elements]
        .filter(
          (e) => !['hidden', 'submit', 'button', 'image', 'reset'].includes((e as HTMLInputElement).type) && (e as HTMLInputElement).name,
        )
        .map((e) => (e as HTMLInputElement).name)
        .sort()
        .join(','),
    );
    const known = new Set(before.forms.split('|'));
    const next = [...document.forms].find(
      (f, i) => !known.has(forms[i]!) && f.querySelector('button:not([disabled]), input[type=submit]:not([disabled])') !== null,
    );
    if (next) return 'a next step (a form asking for other inputs)';
    const working = /procesando|processing|espere|please wait|cargando|loading|enviando|sending|verificando|verifying|un momento/;
    const said = [...document.querySelectorAll<HTMLElement>('h1, h2, h3, [role=status], [aria-live]')]
      .map((m) => m.innerText.replace(/\s+/g, ' ').trim())
      .join('\n');
    // A line that differs from one shown before only in its digits is a counter ticking (a countdown), no answer.
    const shapes = before.said.split('\n').map((line) => line.replace(/\d/g, '#'));
    const added = said
      .split('\n')
      .filter((line) => line !== '' && !before.said.split('\n').includes(line) && !shapes.includes(line.replace(/\d/g, '#')))
      .join(' ');
    if (added !== '' && !working.test(added.toLowerCase())) return `an answer in place: "${added.slice(0, 120)}"`;
    const ids = [...new Set(text.match(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g) ?? [])];
    const shownBefore = before.ids.split(',');
    const newId = ids.find((id) => !shownBefore.includes(id));
    if (newId !== undefined) return `a transaction id shown: ${newId}`;
    const gone = document.forms.length < before.formCount || before.forms.split('|').some((f) => f !== '' && !forms.includes(f));
    if (gone && text !== before.text && !working.test(text)) return 'the form replaced in place';
    // At the bound: whether the page shows anything else at all (read, never taken for the same form refusing).
    if (Date.now() >= until) return text !== before.text ? 'the page changed' : '';
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The inputs of a form (or a frame's body) a customer would type into that are still empty (runs in the page), as
 * the payers name them: its name, else #id.
 */
export function emptyInputs(root: Element): string[] {
  return [...root.querySelectorAll<HTMLInputElement>('input, textarea')]
    .filter(
      (el) =>
        ['text', 'tel', 'number', 'password', 'email', 'url', 'search', 'textarea', ''].includes(el.type) &&
        el.value === '' &&
        !el.disabled &&
        !el.readOnly,
    )
    .flatMap((el) => (el.name ? [el.name] : el.id ? [`#${el.id}`] : []));
}

/** The fields of a form or a frame's body (runs in the page): each name, else #id. */
export function namesIn(root: Element): string[] {
  return [...root.querySelectorAll('input, select, textarea')].flatMap((el) =>
    el.getAttribute('name') ? [el.getAttribute('name')!] : el.id ? [`#${el.id}`] : [],
  );
}

/**
 * The index of the payment form among the document's forms (runs in the page): the one holding the card field, else
 * the first; -1 when the DOM API cannot read the selector, -2 when the document has no form (its body is the scope).
 */
export function findScope(card: string): number {
  const forms = [...document.querySelectorAll('form')];
  if (forms.length === 0) return -2;
  try {
    const withCard = forms.findIndex((f) => f.querySelector(card) !== null);
    if (withCard >= 0) return withCard;
  } catch {
    return -1;
  }
  return 0;
}
