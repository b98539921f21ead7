/**
 * The browser payer's reading of a page: its HTML as the page's own scripts left it, and its parts — the top
 * document and each frame showing an input, of any origin — each mapped by meaning as the HTTP payer maps a page,
 * with where its fields are filled (a form, else a document's body). A page whose fields are in frames or in no
 * form stands for the form its inputs and controls make (shellForm).
 */
import type { ElementHandle, Frame, Locator, Page } from 'playwright-core';
import { parse } from 'node-html-parser';
import type { Session } from './browser-session.ts';
import { mapPage, type FieldMapping, type FieldMappings } from './field-mapping.ts';
import { cssOf } from './fields.ts';
import { readHtml, REFUSAL_WORDS } from './form.ts';
import { controls, findScope, readPage, type Control } from './in-page.ts';
import type { FieldNames, OptionValues, Screen, ScreenForm } from './types.ts';

/** What the browser payer's page functions share: the field names and option values set, and a browser step's bound now. */
export interface PageContext {
  names: FieldNames;
  fieldNames?: Partial<FieldNames> | Record<string, string> | undefined;
  optionValues?: OptionValues | undefined;
  /** Where the mapping of each kind of page paid is recorded (the payer's memory). */
  fields: FieldMappings;
  /** A browser step's bound (ms), scaled with what a step costs on this machine now. */
  step(): number;
}

/**
 * The page's HTML as it is now, or once it shows a form or words of refusal (within waitMs). Read in the page's
 * own script context: no Playwright script is loaded into the page for it, which costs tens of milliseconds for
 * each page. A navigation under way (the page moving on by itself) is waited for, then the page read again.
 */
export async function pageHtml(ctx: PageContext, session: Session, waitMs = 0): Promise<string> {
  // (A frame's own fields are read once it is there: #parts.)
  const shown = `form, iframe, ${cssOf(ctx.names.numeroTarjeta)}`;
  for (let attempt = 1; ; attempt++) {
    try {
      return await session.page.evaluate(readPage, [shown, REFUSAL_WORDS.source, waitMs] as const);
    } catch (err) {
      if (attempt >= 3 || !MOVED_ON.test((err as Error).message)) throw err;
      await session.page.waitForLoadState('domcontentloaded', { timeout: ctx.step() }).catch(() => undefined);
    }
  }
}

/**
 * Where fields are filled in a frame: its payment form (the one holding the card field, else the first), else its
 * body (a shell whose fields are in no form). Held by a handle in the frame's own context when its DOM API finds
 * it, else through Playwright's selectors (shadow roots, selectors only Playwright reads).
 */
export async function fillScope(_ctx: PageContext, frame: Frame, card: string): Promise<FillScope> {
  const page = frame.page();
  const found = await frame.evaluate(findScope, card);
  if (found !== -1) {
    const handle = (
      await frame.evaluateHandle((i) => (i >= 0 ? document.querySelectorAll('form')[i]! : document.body), found)
    ).asElement()!;
    const within = found >= 0 ? frame.locator('form').nth(found) : frame.locator('body');
    return { page, frame, isForm: found >= 0, evaluate: evaluateOn(handle), locator: (selector) => within.locator(selector) };
  }
  const withCard = frame.locator('form').filter({ has: frame.locator(card) });
  const form = (await withCard.count()) > 0 ? withCard.first() : frame.locator('form').first();
  return { page, frame, isForm: true, evaluate: evaluateOn(form), locator: (selector) => form.locator(selector) };
}

/** The whole document of a frame (its controls, wherever they are). */
export async function bodyScope(_ctx: PageContext, frame: Frame): Promise<FillScope> {
  const handle = (await frame.evaluateHandle(() => document.body)).asElement()!;
  return {
    page: frame.page(),
    frame,
    isForm: false,
    evaluate: evaluateOn(handle),
    locator: (selector) => frame.locator('body').locator(selector),
  };
}

/**
 * The page as a customer sees it, in parts: the top document (`html`), then each frame that shows an input, of
 * any origin, each mapped by meaning as the HTTP payer maps a page. Frames load after their page: with `until`,
 * they are read again (within waitMs) until a part shows the card field (`card`) or any input (`inputs`).
 */
export async function readParts(
  ctx: PageContext,
  session: Session,
  html: string,
  until: 'card' | 'inputs' | undefined,
  waitMs: number,
): Promise<Part[]> {
  const deadline = Date.now() + waitMs;
  for (let top = html; ; top = await pageHtml(ctx, session)) {
    const views: { frame: Frame; html: string; mapping: FieldMapping }[] = [
      { frame: session.page.mainFrame(), html: top, mapping: mapPage(top, ctx.fieldNames) },
    ];
    for (const frame of session.page.frames()) {
      if (frame === session.page.mainFrame() || frame.isDetached()) continue;
      const inner = await frame.evaluate(readPage, [FIELDS, REFUSAL_WORDS.source, 0] as const).catch(() => undefined);
      const mapping = inner === undefined ? undefined : mapPage(inner, ctx.fieldNames);
      if (mapping && mapping.candidates.length > 0) views.push({ frame, html: inner!, mapping });
    }
    const framed = session.page.frames().length > 1;
    const enough = until === 'card' ? views.some((v) => shows(v.html, v.mapping.names.numeroTarjeta)) : views.length > 1;
    if (until === undefined || enough || !framed || Date.now() >= deadline) {
      return Promise.all(views.map(async (v) => ({ ...v, scope: await fillScope(ctx, v.frame, cssOf(v.mapping.names.numeroTarjeta)) })));
    }
    // A frame still loading its fields: read again shortly (the wait ends as soon as they show).
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The screen a page stands for: its form as read, else — a page whose fields are in frames or in no form — the
 * form its inputs and controls make (shellForm), so a screen a customer can pay is never read as one without a form.
 */
export async function screenOf(ctx: PageContext, session: Session, html: string, parts?: Part[]): Promise<Screen> {
  const screen = readHtml(session.status, session.page.url(), html, mapPage(html, ctx.fieldNames).names);
  if (screen.form || !parts) return screen;
  const top = await session.page
    .mainFrame()
    .evaluate(() => document.body ?? document.documentElement)
    .then(async (body) =>
      body ? (await bodyScope(ctx, session.page.mainFrame())).evaluate(controls, ['page', null, '', ''] as const) : { list: [] },
    );
  const form = shellForm(screen.url, parts, top.list);
  return form ? { ...screen, form } : screen;
}

/** The page read again (after a step or a script's answer), its frames included. */
export async function reread(ctx: PageContext, session: Session): Promise<{ screen: Screen; parts: Part[]; html: string }> {
  const html = await pageHtml(ctx, session);
  const parts = await readParts(ctx, session, html, undefined, 0);
  return { screen: await screenOf(ctx, session, html, parts), parts, html };
}

/** A navigation under way ended the page's script context (or the page itself). */
export const MOVED_ON = /context was destroyed|navigat|Target (page, context or browser )?(has been )?closed/i;

/** What a frame shows that a customer fills. */
export const FIELDS = 'input:not([type=hidden]), select, textarea';

/** Where fields are filled: a form of the page or of a frame, else a frame's body; in its own context or through Playwright's selectors. */
export interface FillScope {
  page: Page;
  frame: Frame;
  /** A form (its submit buttons are the controls), else a document's body. */
  isForm: boolean;
  evaluate<R, A>(fn: (root: Element, arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Playwright's selectors within it, for what must wait for the page (slow paths). */
  locator(selector: string): Locator;
}

/** A part of the page: the top document or a frame showing inputs, its HTML as read, its mapping, where to fill it. */
export interface Part {
  frame: Frame;
  html: string;
  mapping: FieldMapping;
  scope: FillScope;
}

/** `evaluate` of a handle or a locator, typed for functions written against Element (Playwright's own type is generic over the element). */
export function evaluateOn(target: ElementHandle | Locator): FillScope['evaluate'] {
  return target.evaluate.bind(target) as FillScope['evaluate'];
}

/** Whether a page's HTML has the element a field's target names (a selector it cannot read counts as shown). */
export function shows(html: string, target: string): boolean {
  try {
    return parse(html).querySelector(cssOf(target)) !== null;
  } catch {
    return true;
  }
}

/**
 * The form a page without one stands for (a shell whose fields are in frames, or in no form): the inputs of the page
 * and its frames, choices (selects, radio groups) with their options, and the page's controls as its buttons. None
 * when nothing there can be filled.
 */
export function shellForm(url: string, parts: { mapping: FieldMapping }[], shown: Control[]): ScreenForm | undefined {
  const candidates = parts.flatMap((p) => p.mapping.candidates);
  if (candidates.length === 0) return undefined;
  const selects: Record<string, string[]> = {};
  const optionTexts: Record<string, string[]> = {};
  const radios: string[] = [];
  for (const c of candidates.filter((c) => c.tag === 'select')) {
    selects[c.target] = c.options.filter((_, i) => i % 2 === 0);
    optionTexts[c.target] = c.options.filter((_, i) => i % 2 === 1);
    if (c.type === 'radio') radios.push(c.target);
  }
  return {
    action: url,
    method: 'POST',
    fields: {},
    selects,
    optionTexts,
    ...(radios.length > 0 ? { radios } : {}),
    visible: candidates.map((c) => c.target),
    buttons: shown.filter((c) => c.ready).map((c) => ({ value: '', text: c.text })),
  };
}
