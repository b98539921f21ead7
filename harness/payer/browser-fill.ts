/**
 * The browser payer's filling: where each field is across a page's parts (a frame of another origin included), the
 * plan's choices (options by meaning, consent, details, a challenge's code) entered as a customer enters them — in
 * one call into the page where its DOM reaches the field, else through Playwright's waits (the slow path).
 */
import type { Locator } from 'playwright-core';
import { parse } from 'node-html-parser';
import { PayerError } from './errors.ts';
import type { Session } from './browser-session.ts';
import type { FillScope, PageContext, Part } from './browser-frames.ts';
import {
  cannotDriveMessage,
  FieldsNotFoundError,
  joinExpiry,
  placeByElimination,
  type FieldMapping,
  type PageKind,
  type UnmatchedOption,
} from './field-mapping.ts';
import { chooseOption, cssOf, describeOptions, isInputName, paymentValues } from './fields.ts';
import { bare, readHtml } from './form.ts';
import { addHidden, describeTargets, emptyInputs, enterInPage, inputKind, namesIn, textOf, type FieldKind } from './in-page.ts';
import { answers, challengeAnswer } from './plan.ts';
import type { CardPayment, FieldName, PageInput } from './types.ts';

/**
 * Where each field is, across the parts: in the part whose mapping found it, else the first part showing an input
 * by that field's name there (a frame of another origin included), else through Playwright's selectors in the top
 * document. `mapping` names each field's input in the part it was found in (`where`).
 */
export async function place(
  ctx: PageContext,
  parts: Part[],
  fields: FieldName[],
  mapping: FieldMapping,
  where: (field: FieldName) => number,
): Promise<Map<FieldName, Placed>> {
  const placed = new Map<FieldName, Placed>();
  const targetIn = (field: FieldName, i: number): string => (i === where(field) ? mapping.names[field] : parts[i]!.mapping.names[field]);
  let left = fields;
  for (let round = 0; round < parts.length && left.length > 0; round++) {
    const byPart = new Map<number, FieldName[]>();
    for (const field of left) {
      const i = (where(field) + round) % parts.length;
      byPart.set(i, [...(byPart.get(i) ?? []), field]);
    }
    for (const [i, asked] of byPart) {
      const kinds = await parts[i]!.scope.evaluate(
        describeTargets,
        asked.map((f) => cssOf(targetIn(f, i))),
      );
      asked.forEach((field, j) => {
        if (kinds[j]) placed.set(field, { part: i, target: targetIn(field, i), kind: kinds[j]!, inDom: true });
      });
    }
    left = left.filter((f) => !placed.has(f));
  }
  for (const field of left) {
    const i = where(field);
    const kind = await kindThroughBrowser(ctx, parts[i]!.scope, targetIn(field, i));
    if (kind) placed.set(field, { part: i, target: targetIn(field, i), kind, inDom: false });
  }
  return placed;
}

/** A field's kind where only Playwright's selectors reach it (a shadow root, a selector the DOM API rejects); null when absent. */
export async function kindThroughBrowser(_ctx: PageContext, scope: FillScope, target: string): Promise<FieldKind | null> {
  const input = scope.locator(cssOf(target));
  return (await input.count()) > 0 ? input.first().evaluate(inputKind) : null;
}

/** The mapping of the whole page (the first part finding each field), each field's part, each part's inputs. */
export async function mergedMapping(
  ctx: PageContext,
  parts: Part[],
  kind?: PageKind,
): Promise<{ mapping: FieldMapping; where: (field: FieldName) => number; inputs: Set<string>[] }> {
  const inputs = (await Promise.all(parts.map((p) => p.scope.evaluate(namesIn, undefined)))).map((names) => new Set(names));
  const found = (field: FieldName, i: number): boolean => {
    const f = parts[i]!.mapping.found[field];
    return f !== undefined && (!isInputName(parts[i]!.mapping.names[field]) || inputs[i]!.has(parts[i]!.mapping.names[field]));
  };
  const first = new Map<FieldName, number>();
  for (const field of Object.keys(parts[0]!.mapping.names) as FieldName[]) {
    const i = parts.findIndex((_, j) => found(field, j));
    first.set(
      field,
      i >= 0
        ? i
        : Math.max(
            0,
            parts.findIndex((p) => p.mapping.found[field] !== undefined),
          ),
    );
  }
  const names = { ...parts[0]!.mapping.names };
  const byField: FieldMapping['found'] = {};
  for (const [field, i] of first) {
    names[field] = parts[i]!.mapping.names[field];
    const f = parts[i]!.mapping.found[field];
    if (f) byField[field] = f;
  }
  const mapping: FieldMapping = { names, found: byField, candidates: parts.flatMap((p) => p.mapping.candidates) };
  if (kind) ctx.fields.record(kind, mapping);
  return { mapping, where: (field) => first.get(field) ?? 0, inputs };
}

/**
 * What a 3DS, quick-pay or next-step page asks that the payment has, entered where the page (or one of its frames)
 * shows its field (the spec does not say what they ask), and a challenge's code — the one configured
 * (SCREEN_CHALLENGE_CODE), else the one the page shows (shownCode) — typed into the code field or, where none is
 * named so, the one empty input left. Never a code the page does not show. `step`: a page after the first, whose
 * hidden fields are the page's own. Returns what was filled (names of fields, never values).
 */
export async function fillPresent(
  ctx: PageContext,
  session: Session,
  parts: Part[],
  values: [FieldName, string][],
  challenge: PageInput['codigoDesafio'],
  kind: PageKind | undefined,
  step: boolean,
): Promise<string[]> {
  const { mapping, where } = await mergedMapping(ctx, parts, kind);
  const entered = joinExpiry(values, mapping);
  const fields = entered.map(([field]) => field);
  const placed = await place(ctx, parts, [...fields, 'codigoDesafio'], mapping, where);
  const entries: Entry[] = [];
  const filled: string[] = [];
  for (const [field, value] of entered) {
    const at = placed.get(field);
    if (!at || (step && at.kind.type === 'hidden')) continue;
    const pick = at.kind.options ? chooseOption(field, value, at.kind.options, ctx.optionValues) : value;
    if (pick === undefined) continue; // a choice the page offers none of: left as the page has it
    entries.push(entryOf(field, at, pick));
    filled.push(field);
  }
  filled.push(...answerQuestions(ctx, parts, entries));
  const code = await codeField(ctx, parts, placed, entries);
  if (code) {
    // A selector that matches nothing leaves the field as the page has it.
    const shown = challenge && 'shownIn' in challenge ? await challengeCode(ctx, session, challenge) : undefined;
    const value = challengeAnswer(challenge, shown, [parts[code.part]!.html, parts[0]!.html]);
    if (value !== undefined) {
      entries.push({
        field: 'codigoDesafio',
        part: code.part,
        selector: cssOf(code.target),
        name: code.target,
        value,
        how: 'type',
        inDom: code.inDom,
      });
      filled.push(`${code.target} (the code ${challenge ? 'configured' : 'the page shows'})`);
    }
  }
  await enterParts(ctx, session, parts, entries, placed);
  return filled;
}

/**
 * What a person answers on each part of the page that the payment says nothing of (plan.ts answers: questions agreed
 * to, a person's details, a detail confirmed), entered where that part shows it. Returns what was answered.
 */
export function answerQuestions(_ctx: PageContext, parts: Part[], entries: Entry[]): string[] {
  const answered: string[] = [];
  const given = Object.fromEntries(entries.flatMap((e) => (e.field ? [[e.field, e.value]] : [])));
  for (const [i, part] of parts.entries()) {
    const html = part.scope.isForm ? part.html : `<form>${parse(part.html).querySelector('body')?.innerHTML ?? part.html}</form>`;
    const form = readHtml(200, part.frame.url(), html, part.mapping.names).form;
    if (!form) continue;
    const placed = new Set(entries.filter((e) => e.part === i).map((e) => e.name));
    for (const a of answers(form, { ...form.fields }, placed, given)) {
      entries.push({ part: i, selector: cssOf(a.name), name: a.name, value: a.value, how: a.how, inDom: true });
      answered.push(a.says);
    }
  }
  return answered;
}

/** Where a challenge's code goes: the field named so, else the one empty input left on the page (in any frame). */
export async function codeField(
  _ctx: PageContext,
  parts: Part[],
  placed: Map<FieldName, Placed>,
  entries: Entry[],
): Promise<{ part: number; target: string; inDom: boolean } | undefined> {
  const named = placed.get('codigoDesafio');
  if (named && named.kind.type !== 'hidden') return { part: named.part, target: named.target, inDom: named.inDom };
  const empty: { part: number; target: string }[] = [];
  for (const [i, part] of parts.entries()) {
    const taken = new Set(entries.filter((e) => e.part === i).map((e) => e.name));
    for (const target of await part.scope.evaluate(emptyInputs, undefined)) if (!taken.has(target)) empty.push({ part: i, target });
  }
  return empty.length === 1 ? { ...empty[0]!, inDom: true } : undefined;
}

/** The challenge's answer: given, or read where the page shows it (undefined where nothing matches). */
export async function challengeCode(
  ctx: PageContext,
  session: Session,
  challenge: NonNullable<PageInput['codigoDesafio']>,
): Promise<string | undefined> {
  if ('code' in challenge) return challenge.code;
  const text = await session.page.evaluate(textOf, challenge.shownIn);
  if (text !== false) return text ?? undefined;
  const shown = session.page.locator(challenge.shownIn).first();
  return (await shown.count()) > 0 ? (await shown.innerText({ timeout: ctx.step() })).trim() : undefined;
}

/** The inputs the card number and cvv were typed into, blanked (in every frame) before any screenshot. */
export function secretsOf(_ctx: PageContext, session: Session, placed: Map<FieldName, Placed>): void {
  for (const field of ['numeroTarjeta', 'cvv'] as const) {
    const at = placed.get(field);
    if (at) session.secretTargets.add(cssOf(at.target));
  }
}

/**
 * Enters the payment as a customer would, in the page and its frames, then the forged fields (set or added as a
 * customer's devtools could). Every field the page cannot take is named at once, and nothing is entered then.
 */
export async function fillPayment(
  ctx: PageContext,
  session: Session,
  parts: Part[],
  where: string,
  payment: CardPayment,
  forged: Partial<Record<FieldName, string>>,
): Promise<void> {
  const asked = paymentValues(payment);
  const merged = await mergedMapping(ctx, parts);
  // The form's own inputs (not the page's), for the quantity or amount placed by elimination.
  const mapping = placeByElimination(
    merged.mapping,
    asked.map(([field]) => field),
    (target) => merged.inputs.some((s) => s.has(target)) || !isInputName(target),
  );
  const values = joinExpiry(asked, mapping);
  ctx.fields.record('link screen', mapping);
  const partOf = (field: FieldName): number =>
    mapping.found[field]?.by === 'elimination'
      ? Math.max(
          0,
          merged.inputs.findIndex((s) => s.has(mapping.names[field])),
        )
      : merged.where(field);
  const placed = await place(
    ctx,
    parts,
    values.map(([field]) => field),
    mapping,
    partOf,
  );
  const missing: FieldName[] = [];
  const unmatched: UnmatchedOption[] = [];
  const entries: Entry[] = [];
  for (const [field, value] of values) {
    const at = placed.get(field);
    if (!at) {
      missing.push(field);
      continue;
    }
    const pick = at.kind.options ? chooseOption(field, value, at.kind.options, ctx.optionValues) : value;
    if (pick === undefined) unmatched.push({ field, target: at.target, value, offered: describeOptions(at.kind.options!) });
    else entries.push(entryOf(field, at, pick));
  }
  if (missing.length > 0 || unmatched.length > 0)
    throw new FieldsNotFoundError(cannotDriveMessage(`the payment screen at ${bare(where)}`, missing, unmatched, mapping));
  answerQuestions(ctx, parts, entries);
  // The page's own parts first (its payment form may show other fields), then its frames.
  await enterParts(ctx, session, parts, entries, placed);
  for (const [field, value] of Object.entries(forged) as [FieldName, string | undefined][]) {
    if (value === undefined) continue;
    const scope = parts[partOf(field)]!.scope;
    const target = mapping.names[field];
    if ((await scope.locator(cssOf(target)).count()) > 0) await forgeValue(scope.locator(cssOf(target)).first(), value);
    else if (isInputName(target)) await scope.evaluate(addHidden, [target, value] as const);
    else throw new PayerError(`cannot forge ${field}: the selector ${target} matches nothing on the screen`);
  }
}

/** Each part's entries entered in that part, page first then its frames; the card's places kept for redaction. */
async function enterParts(
  ctx: PageContext,
  session: Session,
  parts: Part[],
  entries: Entry[],
  placed: Map<FieldName, Placed>,
): Promise<void> {
  for (const [i, part] of parts.entries())
    await enterAll(
      ctx,
      part.scope,
      entries.filter((e) => e.part === i),
    );
  secretsOf(ctx, session, placed);
}

/**
 * Enters the values in order, as many as the page takes at once in one call (each field focused, its value set
 * and its input and change events fired, as typing does; a radio button clicked); a field not ready yet (hidden,
 * disabled, an option not there yet, a shadow root) is entered through the browser's own waits, then the rest go on at once.
 */
export async function enterAll(ctx: PageContext, scope: FillScope, entries: Entry[]): Promise<void> {
  let next = 0;
  while (next < entries.length) {
    next += await scope.evaluate(
      enterInPage,
      entries.slice(next).map((e) => (e.inDom ? ([e.selector, e.how, e.value] as [string, Entry['how'], string]) : null)),
    );
    if (next >= entries.length) break;
    const slow = entries[next]!;
    const input = scope.locator(slow.selector).first();
    if (slow.how === 'select') await input.selectOption(slow.value, { timeout: ctx.step() });
    else if (slow.how === 'tick')
      await scope
        .locator(`input[type=checkbox][name="${slow.name.replace(/["\\]/g, '\\$&')}"]`)
        .first()
        .check({ timeout: ctx.step(), force: true });
    else if (slow.how === 'check')
      await scope
        .locator(`input[type=radio][name="${slow.name.replace(/["\\]/g, '\\$&')}"][value="${slow.value.replace(/["\\]/g, '\\$&')}"]`)
        .first()
        .check({ timeout: ctx.step(), force: true });
    else if (slow.how === 'set') await setValue(input, slow.value);
    else await input.fill(slow.value, { timeout: ctx.step() });
    next++;
  }
}

/** Where a field was found: the part, its input there, what it is, whether the page's DOM API reaches it. */
export interface Placed {
  part: number;
  target: string;
  kind: FieldKind;
  inDom: boolean;
}

export function entryOf(field: FieldName, at: Placed, value: string): Entry {
  const how = at.kind.options ? (at.kind.type === 'radio' ? 'check' : 'select') : at.kind.type === 'hidden' ? 'set' : 'type';
  return { field, part: at.part, selector: cssOf(at.target), name: at.kind.name, value, how, inDom: at.inDom };
}

/**
 * A value to enter: in which part, where (`inDom`: reachable by the page's querySelector), how, and what (the
 * payment's field, where it is one).
 */
export interface Entry {
  field?: FieldName;
  part: number;
  selector: string;
  /** The input's name (a radio group's, to check one of its buttons). */
  name: string;
  value: string;
  how: 'select' | 'set' | 'type' | 'check' | 'tick';
  inDom: boolean;
}

/**
 * Sets a forged value as a customer editing the page would: a select gets the option it lacks, an input loses the
 * constraints (min, max, step, pattern) that would stop the browser submitting it, so the value reaches the target.
 */
export async function forgeValue(input: Locator, value: string): Promise<void> {
  await input.evaluate((el, v) => {
    if (el instanceof HTMLSelectElement && ![...el.options].some((o) => o.value === v)) {
      const option = document.createElement('option');
      option.value = v;
      option.textContent = v;
      el.append(option);
    }
    for (const name of ['min', 'max', 'step', 'pattern', 'maxlength', 'minlength']) el.removeAttribute(name);
  }, value);
  await setValue(input, value);
}

/** Sets a value a customer could not type (hidden or forged), as the page's own script would see it changed. */
export async function setValue(input: Locator, value: string): Promise<void> {
  await input.evaluate((el, v) => {
    const field = el as HTMLInputElement;
    field.disabled = false;
    field.value = v;
    field.dispatchEvent(new Event('input', { bubbles: true }));
    field.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
}
