/**
 * Checkouts with steps, read as a person reads them (both payers): which answer to a submission is the checkout's
 * next step, which button means going on, and a one-time code a test issuer page shows. A person finishes a review
 * page or an issuer's test challenge without being told how; the payer does the same, up to MAX_STEPS pages.
 */
import { parse, type HTMLElement } from 'node-html-parser';
import { PaymentRefused } from './errors.ts';
import { FieldsNotFoundError } from './field-mapping.ts';
import { fold } from './fields.ts';
import type { FieldName, Refusal, ScreenForm } from './types.ts';

/** Submissions a checkout may take before the payer gives up (a loop, or a page it misreads). */
export const MAX_STEPS = 6;

/**
 * Words of a button that goes on with the payment, by stem (Spanish, English, Portuguese): pay, confirm, continue,
 * next, accept, submit, send, proceed, finish, complete, verify, authorise, validate, buy.
 */
const GO_ON =
  /(^|[^a-z])(pag(ar|a|o|ue)|pay|confirm|continu|siguiente|seguir|sigue|next|proxim|acept|accept|submit|envi|send|proce[ds]|prosseg|prossig|finaliz|finish|conclu|complet|verific|verify|autoriz|authori[sz]|valid|compra|buy|checkout|ok)/;
/** Words of a control that leaves the payment: back, cancel, edit, close. Checked first ("Cancelar pago" does not pay). */
const LEAVES =
  /(^|[^a-z])(volver|regres|atras|cancel|back|return|retorn|anular|salir|exit|cerrar|close|modific|editar|edit|cambiar|change|voltar)/;

/** Whether a control's words mean going on with the payment (and not leaving it). */
export function meansGoOn(words: string): boolean {
  const text = fold(words);
  return text !== '' && !LEAVES.test(text) && GO_ON.test(text);
}

/** Whether a control's words mean leaving the payment screen (back, return, cancel). */
export function meansLeave(words: string): boolean {
  return LEAVES.test(fold(words));
}

/**
 * The button to press on a form: the first whose words mean going on; else, when the form has a single button that
 * does not mean leaving, that one (a bare arrow, an icon). Undefined when there is none a person would press.
 */
export function goOnButton(form: Pick<ScreenForm, 'buttons'>): number | undefined {
  const buttons = form.buttons ?? [];
  const i = buttons.findIndex((b) => meansGoOn(b.text));
  if (i >= 0) return i;
  const staying = buttons.filter((b) => !meansLeave(b.text));
  return buttons.length === 1 && staying.length === 1 ? 0 : undefined;
}

/** Words of an answer that agrees: yes, accept, authorise, confirm, agree (and no negation). */
const CONSENT = /(^|[^a-z])(si|yes|sim|acept|accept|autoriz|authori[sz]|confirm|agree|de acuerdo|concord)/;
const NEGATION = /(^|[^a-z])(no|nao|not|never|nunca|rechaz|declin|reject)($|[^a-z])/;

/** Whether an option's or a checkbox's words agree to go on ("Sí, autorizo el pago", "Acepto los términos"). */
export function meansConsent(words: string): boolean {
  const text = fold(words);
  return CONSENT.test(text) && !NEGATION.test(text);
}

/**
 * What a person answers on a page's questions the payment says nothing of: a radio group left unanswered whose one
 * agreeing option is checked, and an unticked checkbox whose label agrees is ticked (a consent the page asks for).
 * `placed`: inputs already filled with the payment's values. Returns the names answered.
 */
export function consent(
  form: Pick<ScreenForm, 'radios' | 'selects' | 'optionTexts' | 'checkboxes'>,
  fields: Record<string, string>,
  placed: ReadonlySet<string>,
): string[] {
  const answered: string[] = [];
  for (const name of form.radios ?? []) {
    if (placed.has(name) || name in fields) continue;
    const agreeing = (form.optionTexts[name] ?? []).flatMap((text, i) => (meansConsent(text) ? [i] : []));
    if (agreeing.length !== 1) continue;
    fields[name] = form.selects[name]![agreeing[0]!]!;
    answered.push(name);
  }
  for (const box of form.checkboxes ?? []) {
    if (placed.has(box.name) || fields[box.name] === box.value || !meansConsent(box.text)) continue;
    fields[box.name] = box.value;
    answered.push(box.name);
  }
  return answered;
}

/**
 * What a person types where a checkout asks of them what the payment does not say (billing details), by what the
 * input asks; the first that fits. Never into an input asking for a code (a one-time code is shownCode's).
 */
const PERSON: [RegExp, string][] = [
  [/apellido|last ?name|surname|family name|sobrenome/, 'Pérez'],
  [/telefono|celular|movil|phone|mobile|telemovel/, '70000000'],
  [/codigo postal|postal|\bzip\b|\bcep\b/, '01101'],
  [/direccion|address|endereco|\bcalle\b|street/, 'Calle 1, Casa 2'],
  [/ciudad|\bcity\b|cidade|municipio|town/, 'San Salvador'],
  [/\bdui\b|documento|document|identificacion|identity|cedula|\bnit\b|\bcpf\b/, '00000000-0'],
  [/^(su |tu |your )?(primer )?(nombre|first name|given name|nome)( completo| del (cliente|comprador|pagador))?$/, 'Ana'],
];
const ASKS_CODE = /(^|[^a-z])(codigo|code|otp|clave|pin|token|verificacion|verification|contrasena|password)($|[^a-z])/;

/**
 * The details a person types into the text inputs left empty that ask for them (a last name, a phone, an address),
 * as consent answers a question: `placed` (the payment's own inputs) and inputs asking for a code untouched. Returns
 * the inputs answered and what each asks.
 */
export function personalDetails(
  form: Pick<ScreenForm, 'asked'>,
  fields: Record<string, string>,
  placed: ReadonlySet<string>,
): { name: string; asks: string }[] {
  const answered: { name: string; asks: string }[] = [];
  for (const [name, asks] of Object.entries(form.asked ?? {})) {
    const text = fold(asks);
    if (placed.has(name) || fields[name] !== '' || text === '' || (ASKS_CODE.test(text) && !/postal|zip/.test(text))) continue;
    const value = PERSON.find(([re]) => re.test(text))?.[1];
    if (value === undefined) continue;
    fields[name] = value;
    answered.push({ name, asks });
  }
  return answered;
}

/** Words of an input asking a detail again, to confirm it ("Confirme su correo", "Repeat e-mail"). */
const AGAIN = /(^|[^a-z])(confirm|repit|repet|repeat|retype|re-enter|vuelva a|otra vez|de nuevo|again|novamente)/;
/** The details of the payment a page may ask twice, by what the input's words name. */
const TWICE: [RegExp, FieldName][] = [[/correo|e-?mail/, 'email']];

/**
 * The inputs left empty that ask a detail the payment entered once more, to confirm it (the e-mail typed twice):
 * the same value typed again. `given`: what the payment entered, by field. Returns the inputs answered and what each asks.
 */
export function confirmations(
  form: Pick<ScreenForm, 'asked'>,
  fields: Record<string, string>,
  placed: ReadonlySet<string>,
  given: Partial<Record<FieldName, string>>,
): { name: string; asks: string }[] {
  const answered: { name: string; asks: string }[] = [];
  for (const [name, asks] of Object.entries(form.asked ?? {})) {
    const text = fold(asks);
    if (placed.has(name) || fields[name] !== '' || !AGAIN.test(text)) continue;
    const field = TWICE.find(([re]) => re.test(text))?.[1];
    const value = field === undefined ? undefined : given[field];
    if (value === undefined || value === '') continue;
    fields[name] = value;
    answered.push({ name, asks });
  }
  return answered;
}

/**
 * What the page asks that was left `empty` (neither a detail of the payment nor a person's): the inputs it marks
 * required and, once it refused the submission (`refusal`: its words), those its answer names. Each as `"label"
 * (name)`. Such a refusal is the payer's gap, never a verdict on the target.
 */
export function unanswered(form: Pick<ScreenForm, 'asked' | 'required'>, empty: ReadonlySet<string>, refusal?: string): string[] {
  const said = refusal === undefined ? undefined : fold(refusal);
  return Object.entries(form.asked ?? {}).flatMap(([name, asks]) => {
    if (!empty.has(name)) return [];
    const required = form.required?.includes(name) ?? false;
    const label = fold(asks.split(' / ')[0] ?? '');
    const word = (w: string): boolean =>
      w.length >= 3 && new RegExp(`(^|[^a-z0-9])${w.replace(/[^a-z0-9 ]/g, '.')}($|[^a-z0-9])`).test(said!);
    const named = said !== undefined && (word(label) || word(fold(name)));
    return required || named ? [`"${asks}" (${name}${required ? ', required' : ''})`] : [];
  });
}

/**
 * Before a submission: a required input left `empty` that no detail answers stops it (FieldsNotFoundError, naming
 * the inputs and `where`): a page the payer cannot complete is not driven, and nothing is sent.
 */
export function answerable(form: ScreenForm, empty: ReadonlySet<string>, where: string, nothingDone: string): void {
  const required = unanswered(form, empty);
  if (required.length > 0)
    throw new FieldsNotFoundError(
      `${where} asks what the payment does not carry and the payer has no answer for: ${required.join(', ')}; ${nothingDone}`,
    );
}

/** The lines of text an answer shows that the page submitted did not (its messages, not the form's own labels). */
export function newWords(beforeHtml: string, answerHtml: string): string {
  const lines = (html: string): string[] => {
    const root = parse(html);
    root.querySelectorAll('script, style, noscript').forEach((el) => el.remove());
    return root.structuredText
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  };
  const before = new Set(lines(beforeHtml));
  return lines(answerHtml)
    .filter((line) => !before.has(line))
    .join('\n');
}

/**
 * A refusal of a submission that left empty what the page asks and its answer names (unanswered): PaymentRefused,
 * naming them — the test is not judged on it (a payment the payer could not complete says nothing of the target).
 */
export function leftEmpty(outcome: Refusal, sent: ScreenForm, empty: ReadonlySet<string>, beforeHtml: string, answerHtml: string): void {
  if (outcome.answered !== 'submission' || outcome.by === 'words' || outcome.status === 410) return;
  const left = unanswered(sent, empty, newWords(beforeHtml, answerHtml));
  if (left.length > 0)
    throw new PaymentRefused(
      `the page refused the submission (status ${outcome.status}${outcome.formAgain ? ', its form again' : ''}) and asks for ` +
        `what the payer left empty: ${left.join(', ')} — details the payment does not carry`,
    );
}

/**
 * The fields with the button a person presses submitted (readForm counts the first one as pressed): the one that
 * goes on, where the form has one; else the fields as they are. Returns the words of the button pressed.
 */
export function pressGoOn(form: Pick<ScreenForm, 'buttons'>, fields: Record<string, string>): string | undefined {
  const i = goOnButton(form);
  if (i === undefined) return undefined;
  const pressed = form.buttons![i]!;
  for (const b of form.buttons ?? []) if (b.name) delete fields[b.name];
  if (pressed.name) fields[pressed.name] = pressed.value;
  return pressed.text || pressed.value || '(a button without words)';
}

/**
 * Whether `answer` shows the same form that was submitted (the page refusing what was entered) rather than a next
 * step: the same action and the same inputs a customer fills. A review page posting to the same URL is a next step.
 */
export function sameForm(answer: ScreenForm, submitted: ScreenForm): boolean {
  if (bareUrl(answer.action) !== bareUrl(submitted.action)) return false;
  if (answer.visible === undefined || submitted.visible === undefined) return true;
  const a = new Set(answer.visible);
  return a.size === submitted.visible.length && submitted.visible.every((n) => a.has(n));
}

const bareUrl = (url: string): string => url.replace(/[?#].*$/, '');

/** The page's heading, for the transcript: its h1, else h2, else title. */
export function headingOf(html: string): string {
  const root = parse(html);
  const el = root.querySelector('h1') ?? root.querySelector('h2') ?? root.querySelector('title');
  return (el?.text ?? '').replace(/\s+/g, ' ').trim().slice(0, 120);
}

/**
 * A code the page shows for the customer to type (an issuer's test page: "Código de prueba: 123456"): 4 to 8
 * digits after words naming a code, else the one element on the page whose whole text is such a number. Never a
 * number the page does not show; undefined when there is none, or more than one candidate element.
 */
export function shownCode(html: string): { code: string; selector?: string } | undefined {
  const root = parse(html);
  root.querySelectorAll('script, style, noscript, template, input, select, textarea, option').forEach((el) => el.remove());
  const text = fold((root.querySelector('body') ?? root).text);
  const said = /(codigo|code|otp|clave|token|pin)(?! postal)(?!.{0,12}postal)[^0-9]{0,40}?(?<![\d*•x])(\d{4,8})(?![\d*•x])/.exec(text);
  const alone = root.querySelectorAll('*').filter((el) => el.childNodes.every((n) => n.nodeType === 3) && /^\s*\d{4,8}\s*$/.test(el.text));
  const element = alone.length === 1 ? alone[0]! : undefined;
  if (said) {
    const code = said[2]!;
    const holder = alone.find((el) => el.text.trim() === code);
    return { code, ...(holder ? withSelector(holder) : {}) };
  }
  return element ? { code: element.text.trim(), ...withSelector(element) } : undefined;
}

function withSelector(el: HTMLElement): { selector?: string } {
  const id = el.getAttribute('id');
  return id && /^[A-Za-z][\w-]*$/.test(id) ? { selector: `#${id}` } : {};
}

/**
 * The URL a meta refresh sends the page to (`<meta http-equiv="refresh" content="0; url=…">`), resolved against
 * the page's; undefined when the page has none.
 */
export function metaRefresh(html: string, pageUrl: string): string | undefined {
  const meta = parse(html)
    .querySelectorAll('meta')
    .find((m) => (m.getAttribute('http-equiv') ?? '').toLowerCase() === 'refresh');
  const content = meta?.getAttribute('content');
  const url = content ? /url\s*=\s*['"]?([^'"]+)['"]?/i.exec(content)?.[1]?.trim() : undefined;
  return url && URL.canParse(url, pageUrl) ? new URL(url, pageUrl).href : undefined;
}
