/**
 * What a person enters on a page and which control they press, decided from what the page shows and nothing else:
 * pure, so every quirk of a checkout (steps, a one-time code, radio groups, billing details, consent) is taught here
 * once and tested on HTML fixtures (test/harness/payer-plan.test.ts). A driver (http.ts, browser.ts) applies the plan.
 *
 * `strict` (a payment screen): every field of the payment must find its input and its option, else the page is not
 * driven (`problems`, nothing entered). `lenient` (a 3DS, quick-pay or next-step page): what the page shows that the
 * payment has is entered, the rest left as the page has it, and a challenge's code typed where the page asks for one.
 */
import { parse } from 'node-html-parser';
import { cannotDriveMessage, joinExpiry, placeByElimination, type FieldMapping, type UnmatchedOption } from './field-mapping.ts';
import { chooseOption, describeOptions, type Option } from './fields.ts';
import { bare } from './form.ts';
import { confirmations, consent, personalDetails, pressGoOn, shownCode } from './steps.ts';
import type { ChallengeCode, FieldName, OptionValues, ScreenForm } from './types.ts';

export type Policy = 'strict' | 'lenient';

/** A page as read: its URL, HTML, the form it submits and the mapping of its fields (mapPage). */
export interface PlannedPage {
  url: string;
  html: string;
  form: ScreenForm;
  mapping: FieldMapping;
}

/** What the page is to be filled with: the values in the order a customer enters them, a challenge's answer, forged fields. */
export interface PlanInput {
  values: [FieldName, string][];
  challenge?: ChallengeCode | undefined;
  /** Set whether or not the page shows them (what a customer could forge); strict pages only. */
  forged?: Partial<Record<FieldName, string>> | undefined;
  optionValues?: OptionValues | undefined;
}

/** One value entered: the input's name, the value, and (for the transcript) what it answers. */
export interface Entry {
  field?: FieldName;
  name: string;
  value: string;
  /** How it reads in the transcript: the field, `x (agreed)`, `x ("Apellido", as a person would)`, `x (the code …)`. */
  says: string;
}

export interface Plan {
  /** The form's fields as they will be sent: the page's own with the entries made and the control pressed. */
  fields: Record<string, string>;
  entries: Entry[];
  /** The words of the control pressed; undefined when the form has none a person would press (sent as Enter sends it). */
  press: string | undefined;
  /** Why a strict page cannot be driven (each field not found, each option not matched); empty when it can. */
  problems: string[];
}

/** The plan for one page: what is entered, where, and what is pressed. */
export function plan(page: PlannedPage, input: PlanInput, policy: Policy): Plan {
  const { form } = page;
  const fields = { ...form.fields };
  // A radio group none of whose buttons is checked is a field too (it submits nothing until one is).
  const present = (name: string): boolean => name in fields || name in form.selects;
  const mapping =
    policy === 'strict'
      ? placeByElimination(
          page.mapping,
          input.values.map(([field]) => field),
          present,
        )
      : page.mapping;
  const names = mapping.names;
  const values = joinExpiry(input.values, mapping);
  const entries: Entry[] = [];
  const missing: FieldName[] = [];
  const unmatched: UnmatchedOption[] = [];
  for (const [field, value] of values) {
    const name = names[field];
    if (!present(name)) {
      missing.push(field);
      continue;
    }
    const options = optionsOf(form, name);
    const pick = options ? chooseOption(field, value, options, input.optionValues) : value;
    if (pick === undefined) unmatched.push({ field, target: name, value, offered: describeOptions(options!) });
    else entries.push({ field, name, value: pick, says: field });
  }
  if (policy === 'strict' && (missing.length > 0 || unmatched.length > 0))
    return {
      fields,
      entries: [],
      press: undefined,
      problems: [cannotDriveMessage(`the payment screen at ${bare(page.url)}`, missing, unmatched, mapping)],
    };
  for (const e of entries) fields[e.name] = e.value;
  if (policy === 'strict')
    for (const [field, value] of Object.entries(input.forged ?? {})) if (value !== undefined) fields[names[field as FieldName]] = value;
  const placed = new Set(entries.map((e) => e.name));
  entries.push(...answers(form, fields, placed, Object.fromEntries(entries.flatMap((e) => (e.field ? [[e.field, e.value]] : [])))));
  if (policy === 'lenient') {
    const code = codeEntry(page, fields, placed, input.challenge);
    if (code) {
      fields[code.name] = code.value;
      entries.push(code);
    }
  }
  const press = pressGoOn(form, fields);
  return { fields, entries, press, problems: [] };
}

/** An answer to what a page asks beyond the payment, and how a browser enters it: typed, a radio checked, a box ticked. */
export interface Answer extends Entry {
  how: 'type' | 'check' | 'tick';
}

/**
 * What a person answers that the payment does not say, once for both payers (the browser asks it of each part of a
 * page): the page's questions agreed to (consent), the details it asks of a person (personalDetails), a detail of the
 * payment asked again to confirm it (confirmations). A new kind of question a checkout asks is taught here. `fields`:
 * the form's fields as they will be sent, updated; `placed`: the inputs already entered; `given`: what the payment
 * entered, by field.
 */
export function answers(
  form: ScreenForm,
  fields: Record<string, string>,
  placed: ReadonlySet<string>,
  given: Partial<Record<FieldName, string>>,
): Answer[] {
  const out: Answer[] = [];
  for (const name of consent(form, fields, placed))
    out.push({ name, value: fields[name]!, says: `${name} (agreed)`, how: form.radios?.includes(name) ? 'check' : 'tick' });
  for (const { name, asks } of personalDetails(form, fields, placed))
    out.push({ name, value: fields[name]!, says: `${name} ("${asks}", as a person would)`, how: 'type' });
  for (const { name, asks } of confirmations(form, fields, placed, given))
    out.push({ name, value: fields[name]!, says: `${name} ("${asks}", the same again)`, how: 'type' });
  return out;
}

/**
 * A challenge's code and where it goes: the field named so, else the one empty input left; the code configured
 * (SCREEN_CHALLENGE_CODE), else the one the page shows (shownCode). Never a code the page does not show.
 */
function codeEntry(
  page: PlannedPage,
  fields: Record<string, string>,
  placed: ReadonlySet<string>,
  challenge?: ChallengeCode,
): Entry | undefined {
  const { form } = page;
  const named = page.mapping.names.codigoDesafio;
  const empty = (form.visible ?? []).filter((n) => !placed.has(n) && fields[n] === '' && !(n in form.selects));
  const target = named in fields || named in form.selects ? named : empty.length === 1 ? empty[0] : undefined;
  if (target === undefined) return undefined;
  const shown = challenge && 'shownIn' in challenge ? shownText(page.html, challenge.shownIn) : undefined;
  const value = challengeAnswer(challenge, shown, [page.html]);
  return value === undefined
    ? undefined
    : { field: 'codigoDesafio', name: target, value, says: `${target} (the code ${challenge ? 'configured' : 'the page shows'})` };
}

/**
 * The answer to a challenge, chosen once for both payers: the code configured, or the text of the element the
 * configured selector names (`shown`, read by the driver from the page: undefined where nothing matches); with
 * nothing configured, the code the page shows (the first of `htmls` showing one).
 */
export function challengeAnswer(challenge: ChallengeCode | undefined, shown: string | undefined, htmls: string[]): string | undefined {
  if (challenge) return 'code' in challenge ? challenge.code : shown;
  for (const html of htmls) {
    const code = shownCode(html)?.code;
    if (code !== undefined) return code;
  }
  return undefined;
}

/** The text of the element a selector names (a challenge code the page shows), trimmed; undefined when none. */
function shownText(html: string, selector: string): string | undefined {
  try {
    return parse(html).querySelector(selector)?.text.trim();
  } catch {
    return undefined;
  }
}

/** A select's (or radio group's) options, value and text; undefined for an input. */
export function optionsOf(form: Pick<ScreenForm, 'selects' | 'optionTexts'>, name: string): Option[] | undefined {
  const values = form.selects[name];
  return values?.map((value, i) => ({ value, text: form.optionTexts[name]?.[i] ?? value }));
}
