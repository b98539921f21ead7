/**
 * PAYER=browser: pays hosted screens in headless Chromium, for screens whose form is built by JavaScript or whose
 * card fields sit in a frame of another origin. Each screen gets a browser context of its own with no cookies or
 * storage (a new customer; a context is cleaned and kept for the next screen rather than started anew). Top-level
 * navigations are intercepted: a request to the redirect prefix (or one `stopWhen` accepts) is the outcome and is
 * answered locally, never fetched; a payment is pressed once and never re-sent by the payer (a page posting it again
 * by itself is blocked; a 307/308 the target answers is followed by the browser, as for any customer). Fields are
 * placed by meaning across the page and its frames; the control pressed is the one whose words mean paying or going
 * on; a checkout's next steps (a review page, an issuer's challenge) are finished as a person would, up to MAX_STEPS.
 * After a script's submission the wait ends as soon as something follows (a navigation, a message, a next step).
 * Returns the same PaymentOutcome as the HTTP payer, timed. On failure the error carries the page URL, a screenshot
 * in REPORT_DIR/screens/ and the page's text, card number and cvv removed from every frame.
 */
import type { BrowserContext, ElementHandle, Frame, Locator, Page } from 'playwright-core';
import { parse } from 'node-html-parser';
import { NoFormError, PayerError, PaymentRefused } from './errors.ts';
import { noteStep } from '../record/transcript.ts';
import { priorityNow } from '../api/queue-order.ts';
import { waitingFor } from '../record/test-record.ts';
import { pending } from '../record/progress.ts';
import { launchChromium, pageEvidence } from './chromium.ts';
import {
  cannotDriveMessage,
  fieldMappings,
  FieldsNotFoundError,
  joinExpiry,
  mapPage,
  placeByElimination,
  type FieldMapping,
  type PageKind,
  type UnmatchedOption,
} from './field-mapping.ts';
import { chooseOption, cssOf, describeOptions, fieldNamesOf, fold, isInputName, pageValues, paymentValues } from './fields.ts';
import { bare, outcomeOf, payableOrigins, readHtml, REFUSAL_WORDS, timed } from './form.ts';
import { stopOf, submissions, type HttpPayer } from './http.ts';
import {
  answerable,
  consent,
  goOnButton,
  headingOf,
  leftEmpty,
  MAX_STEPS,
  meansGoOn,
  meansLeave,
  personalDetails,
  shownCode,
} from './steps.ts';
import type {
  CardPayment,
  FieldName,
  FieldNames,
  Followed,
  OptionValues,
  PageInput,
  Payer,
  PaymentOutcome,
  Screen,
  ScreenForm,
} from './types.ts';
import { MAX_DRIVEN, MAX_IDLE, MAX_OPEN, Session, Turns, type Stop } from './browser-session.ts';
import {
  addHidden,
  controls,
  describeTargets,
  emptyInputs,
  enterInPage,
  findScope,
  inputKind,
  namesIn,
  readPage,
  textOf,
  watchPage,
  type Control,
  type FieldKind,
  type Shown,
} from './in-page.ts';

export interface BrowserPayerOptions {
  chromiumPath: string;
  reportDir: string;
  /** Bound of the target's answer to a navigation the payer sends itself (HTTP_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * Bound of each of the browser's own steps (a page loading and rendering, a click, a field filled): the machine's
   * time, not the target's, so a loaded machine gets more of it (default: the larger of timeoutMs and 60 s).
   */
  browserTimeoutMs?: number;
  fieldNames?: Partial<FieldNames> | Record<string, string>;
  /** SCREEN_OPTION_VALUES: the page's option value for the suite's, per field. */
  optionValues?: OptionValues;
  /** Fetches images (QR codes) as they are: no page needed. */
  http: HttpPayer;
}

/**
 * A browser step's bound in page openings: an idle machine opens a sandbox page in 50–200 ms, well inside the
 * configured bound; a loaded one taking seconds a page gets a bound this many of its pages long.
 */
export const STEP_COST_FACTOR = 40;

export class BrowserPayer implements Payer {
  readonly #options: BrowserPayerOptions;
  readonly #names: FieldNames;
  readonly #sessions = new WeakMap<Screen, Session>();
  readonly #open: Screen[] = [];
  readonly #idle: Session[] = [];
  readonly #turns = new Turns(MAX_DRIVEN);

  /** The configured bound of a browser step (BROWSER_TIMEOUT_MS); #step() scales it with what a step costs now. */
  readonly #baseStepMs: number;
  /** What opening a page has cost lately on this machine (ms, a moving average): the unit the bounds scale with. */
  #cost = 0;

  constructor(options: BrowserPayerOptions) {
    this.#options = options;
    this.#baseStepMs = options.browserTimeoutMs ?? Math.max(options.timeoutMs, 60_000);
    this.#names = fieldNamesOf(options.fieldNames);
  }

  /**
   * A browser step's bound: the configured one, or STEP_COST_FACTOR times what opening a page costs now where that is
   * more, so a loaded machine (slower steps) gets bounds as generous, relative to its steps, as an idle one.
   */
  #step(): number {
    return Math.max(this.#baseStepMs, Math.round(this.#cost * STEP_COST_FACTOR));
  }

  /** Notes what one page opening cost (its document loaded), for #step(). */
  #costs(ms: number): void {
    this.#cost = this.#cost === 0 ? ms : 0.7 * this.#cost + 0.3 * ms;
  }

  /**
   * A fresh context with a page on `url`, used as soon as its document is parsed and it shows a form (a script may
   * build it later) or words of refusal; a 4xx/5xx or an outcome ends it there. `openedAt`: when it was requested.
   */
  async #visit(url: string, stop: Stop | undefined, hold: (session: Session) => void): Promise<Visit> {
    // Inside the caller's turn: contexts started all at once only slow each other down.
    const session = await this.#acquire();
    hold(session);
    session.reset(stop);
    session.stepMs = this.#step();
    try {
      const openedAt = Date.now();
      const response = await session.page.goto(url, { waitUntil: 'domcontentloaded', timeout: this.#step() });
      this.#costs(Date.now() - openedAt);
      session.status = response?.status() ?? session.status;
      // A script may build the form after the document was parsed (even after fetching its own settings).
      const waitMs = session.status < 400 ? Math.min(this.#options.timeoutMs, 10_000) : 0;
      const html = session.outcome ? '' : await this.#html(session, waitMs);
      if (session.outcome)
        return { session, screen: { ...readHtml(session.status, session.page.url(), html, this.#names), openedAt }, html };
      // A page whose fields are in no form of its own (a shell with frames): read with its frames, once they show inputs.
      const formless = !/<form[\s>]/i.test(html);
      // Frames render on this machine's time: the browser's own step bound (the wait ends as soon as they show).
      const parts = formless ? await this.#parts(session, html, 'inputs', this.#step()) : undefined;
      return { session, screen: { ...(await this.#screenOf(session, html, parts)), openedAt }, html };
    } catch (err) {
      throw await this.#failure(session, 'opening', err);
    }
  }

  /**
   * The page's HTML as it is now, or once it shows a form or words of refusal (within waitMs). Read in the page's
   * own script context: no Playwright script is loaded into the page for it, which costs tens of milliseconds for
   * each page. A navigation under way (the page moving on by itself) is waited for, then the page read again.
   */
  async #html(session: Session, waitMs = 0): Promise<string> {
    // (A frame's own fields are read once it is there: #parts.)
    const shown = `form, iframe, ${cssOf(this.#names.numeroTarjeta)}`;
    for (let attempt = 1; ; attempt++) {
      try {
        return await session.page.evaluate(readPage, [shown, REFUSAL_WORDS.source, waitMs] as const);
      } catch (err) {
        if (attempt >= 3 || !MOVED_ON.test((err as Error).message)) throw err;
        await session.page.waitForLoadState('domcontentloaded', { timeout: this.#step() }).catch(() => undefined);
      }
    }
  }

  /**
   * Runs `fn` on its turn to drive a page (at most MAX_DRIVEN at once). Neither the wait nor the driving is the test's
   * own time: the browser is shared and slows with the machine's load; each of its steps has its own bound (stepMs).
   */
  async #driven<T>(fn: (hold: (session: Session) => void) => Promise<T>): Promise<T> {
    await waitingFor(`a turn to drive a browser page (at most ${MAX_DRIVEN} at once)`, this.#turns.take(priorityNow()));
    // A page that stops answering (a hung or crashed renderer: a call into the page has no bound of its own) must not
    // keep the turn, or every later payment waits for it: its context is closed and the test ends ERROR.
    const bound = this.#step() * 3;
    let held: Session | undefined;
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void held?.close();
        reject(
          new PayerError(
            `the browser did not finish with a page in ${Math.round(bound / 1000)} s (hung or crashed); its context ` +
              `was closed, the payment's outcome is unknown`,
          ),
        );
      }, bound);
    });
    // The run's summary says how long pages were being driven (where the time went).
    const ended = pending('browser', 'a browser page');
    try {
      return await waitingFor('the browser driving a page (each step bounded by its own timeout)', () =>
        Promise.race([fn((session) => (held = session)), stuck]),
      );
    } finally {
      ended();
      clearTimeout(timer);
      this.#turns.give();
    }
  }

  /** A cleaned page of an earlier screen, else a new context. */
  async #acquire(): Promise<Session> {
    // A page kept from a browser that has since gone away (a crash) is dropped: a new browser starts below.
    for (let idle = this.#idle.pop(); idle; idle = this.#idle.pop()) {
      if (idle.usable()) return idle;
    }
    // Starting a browser context under load is time spent waiting for a page, not the test's own work.
    return waitingFor('a browser page', () => this.#newSession());
  }

  async #newSession(): Promise<Session> {
    let context: BrowserContext;
    try {
      const browser = await launchChromium(this.#options.chromiumPath);
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    } catch (err) {
      throw new PayerError(
        `the browser payer could not start Chromium at ${this.#options.chromiumPath}: ${(err as Error).message.split('\n')[0]}`,
      );
    }
    return Session.open(context, this.#options.timeoutMs, this.#step());
  }

  /** A screen done with: kept for the next one when it can be cleaned, else closed. */
  async #release(session: Session): Promise<void> {
    if (this.#idle.length < MAX_IDLE && (await session.clean())) this.#idle.push(session);
    else await session.close();
  }

  /** The error to throw, with the page's evidence; the session is closed. */
  async #failure(session: Session, doing: string, err: unknown): Promise<Error> {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    const evidence = await pageEvidence(session.page, {
      reportDir: this.#options.reportDir,
      label: `payer-${doing}-${URL.canParse(session.page.url()) ? new URL(session.page.url()).pathname : ''}`,
      cardTarget: this.#names.numeroTarjeta,
      cvvTarget: this.#names.cvv,
      secretTargets: [...session.secretTargets],
    });
    await session.close();
    // No `cause`: a browser error may quote a URL whose query holds what was typed; the message is redacted.
    // The most specific kind first (FieldsNotFoundError is a NoFormError): how the test is classified depends on it.
    const Kind = [FieldsNotFoundError, NoFormError, PaymentRefused].find((k) => err instanceof k) ?? PayerError;
    return new Kind(`${message} (${evidence})`);
  }

  /**
   * Where fields are filled in a frame: its payment form (the one holding the card field, else the first), else its
   * body (a shell whose fields are in no form). Held by a handle in the frame's own context when its DOM API finds
   * it, else through Playwright's selectors (shadow roots, selectors only Playwright reads).
   */
  async #scope(frame: Frame, card: string): Promise<TestRecord> {
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
  async #bodyScope(frame: Frame): Promise<TestRecord> {
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
  async #parts(session: Session, html: string, until: 'card' | 'inputs' | undefined, waitMs: number): Promise<Part[]> {
    const deadline = Date.now() + waitMs;
    for (let top = html; ; top = await this.#html(session)) {
      const views: { frame: Frame; html: string; mapping: FieldMapping }[] = [
        { frame: session.page.mainFrame(), html: top, mapping: mapPage(top, this.#options.fieldNames) },
      ];
      for (const frame of session.page.frames()) {
        if (frame === session.page.mainFrame() || frame.isDetached()) continue;
        const inner = await frame.evaluate(readPage, [FIELDS, REFUSAL_WORDS.source, 0] as const).catch(() => undefined);
        const mapping = inner === undefined ? undefined : mapPage(inner, this.#options.fieldNames);
        if (mapping && mapping.candidates.length > 0) views.push({ frame, html: inner!, mapping });
      }
      const framed = session.page.frames().length > 1;
      const enough = until === 'card' ? views.some((v) => shows(v.html, v.mapping.names.numeroTarjeta)) : views.length > 1;
      if (until === undefined || enough || !framed || Date.now() >= deadline) {
        return Promise.all(views.map(async (v) => ({ ...v, scope: await this.#scope(v.frame, cssOf(v.mapping.names.numeroTarjeta)) })));
      }
      // A frame still loading its fields: read again shortly (the wait ends as soon as they show).
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * The screen a page stands for: its form as read, else — a page whose fields are in frames or in no form — the
   * form its inputs and controls make (shellForm), so a screen a customer can pay is never read as one without a form.
   */
  async #screenOf(session: Session, html: string, parts?: Part[]): Promise<Screen> {
    const screen = readHtml(session.status, session.page.url(), html, mapPage(html, this.#options.fieldNames).names);
    if (screen.form || !parts) return screen;
    const top = await session.page
      .mainFrame()
      .evaluate(() => document.body ?? document.documentElement)
      .then(async (body) =>
        body ? (await this.#bodyScope(session.page.mainFrame())).evaluate(controls, ['page', null, '', ''] as const) : { list: [] },
      );
    const form = shellForm(screen.url, parts, top.list);
    return form ? { ...screen, form } : screen;
  }

  /** The page read again (after a step or a script's answer), its frames included. */
  async #reread(session: Session): Promise<{ screen: Screen; parts: Part[]; html: string }> {
    const html = await this.#html(session);
    const parts = await this.#parts(session, html, undefined, 0);
    return { screen: await this.#screenOf(session, html, parts), parts, html };
  }

  /**
   * Where each field is, across the parts: in the part whose mapping found it, else the first part showing an input
   * by that field's name there (a frame of another origin included), else through Playwright's selectors in the top
   * document. `mapping` names each field's input in the part it was found in (`where`).
   */
  async #place(
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
      const kind = await this.#kindThroughBrowser(parts[i]!.scope, targetIn(field, i));
      if (kind) placed.set(field, { part: i, target: targetIn(field, i), kind, inDom: false });
    }
    return placed;
  }

  /** A field's kind where only Playwright's selectors reach it (a shadow root, a selector the DOM API rejects); null when absent. */
  async #kindThroughBrowser(scope: TestRecord, target: string): Promise<FieldKind | null> {
    const input = scope.locator(cssOf(target));
    return (await input.count()) > 0 ? input.first().evaluate(inputKind) : null;
  }

  /** The mapping of the whole page (the first part finding each field), each field's part, each part's inputs. */
  async #merged(
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
    if (kind) fieldMappings.record(kind, mapping);
    return { mapping, where: (field) => first.get(field) ?? 0, inputs };
  }

  /**
   * What a 3DS, quick-pay or next-step page asks that the payment has, entered where the page (or one of its frames)
   * shows its field (the spec does not say what they ask), and a challenge's code — the one configured
   * (SCREEN_CHALLENGE_CODE), else the one the page shows (shownCode) — typed into the code field or, where none is
   * named so, the one empty input left. Never a code the page does not show. `step`: a page after the first, whose
   * hidden fields are the page's own. Returns what was filled (names of fields, never values).
   */
  async #fillPresent(
    session: Session,
    parts: Part[],
    values: [FieldName, string][],
    challenge: PageInput['codigoDesafio'],
    kind: PageKind | undefined,
    step: boolean,
  ): Promise<string[]> {
    const { mapping, where } = await this.#merged(parts, kind);
    const entered = joinExpiry(values, mapping);
    const fields = entered.map(([field]) => field);
    const placed = await this.#place(parts, [...fields, 'codigoDesafio'], mapping, where);
    const entries: Entry[] = [];
    const filled: string[] = [];
    for (const [field, value] of entered) {
      const at = placed.get(field);
      if (!at || (step && at.kind.type === 'hidden')) continue;
      const pick = at.kind.options ? chooseOption(field, value, at.kind.options, this.#options.optionValues) : value;
      if (pick === undefined) continue; // a choice the page offers none of: left as the page has it
      entries.push(entryOf(field, at, pick));
      filled.push(field);
    }
    filled.push(...this.#consent(parts, entries));
    const code = await this.#codeField(parts, placed, entries);
    if (code) {
      // A selector that matches nothing leaves the field as the page has it.
      const value = challenge
        ? await this.#challengeCode(session, challenge)
        : (shownCode(parts[code.part]!.html) ?? shownCode(parts[0]!.html))?.code;
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
    for (const [i, part] of parts.entries())
      await this.#enterAll(
        part.scope,
        entries.filter((e) => e.part === i),
      );
    this.#secretsOf(session, placed);
    return filled;
  }

  /**
   * What a person answers on each part's questions the payment says nothing of (steps.ts consent): an unanswered
   * radio group's one agreeing option checked, an agreeing checkbox ticked. Returns what was answered.
   */
  #consent(parts: Part[], entries: Entry[]): string[] {
    const answered: string[] = [];
    for (const [i, part] of parts.entries()) {
      const html = part.scope.isForm ? part.html : `<form>${parse(part.html).querySelector('body')?.innerHTML ?? part.html}</form>`;
      const form = readHtml(200, part.frame.url(), html, part.mapping.names).form;
      if (!form) continue;
      const fields = { ...form.fields };
      const placed = new Set(entries.filter((e) => e.part === i).map((e) => e.name));
      for (const { name, asks } of personalDetails(form, fields, placed)) {
        entries.push({ part: i, selector: cssOf(name), name, value: fields[name]!, how: 'type', inDom: true });
        answered.push(`${name} ("${asks}", as a person would)`);
      }
      for (const name of consent(form, fields, placed)) {
        entries.push({
          part: i,
          selector: cssOf(name),
          name,
          value: fields[name]!,
          how: form.radios?.includes(name) ? 'check' : 'tick',
          inDom: true,
        });
        answered.push(`${name} (agreed)`);
      }
    }
    return answered;
  }

  /** Where a challenge's code goes: the field named so, else the one empty input left on the page (in any frame). */
  async #codeField(
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
  async #challengeCode(session: Session, challenge: NonNullable<PageInput['codigoDesafio']>): Promise<string | undefined> {
    if ('code' in challenge) return challenge.code;
    const text = await session.page.evaluate(textOf, challenge.shownIn);
    if (text !== false) return text ?? undefined;
    const shown = session.page.locator(challenge.shownIn).first();
    return (await shown.count()) > 0 ? (await shown.innerText({ timeout: this.#step() })).trim() : undefined;
  }

  /** The inputs the card number and cvv were typed into, blanked (in every frame) before any screenshot. */
  #secretsOf(session: Session, placed: Map<FieldName, Placed>): void {
    for (const field of ['numeroTarjeta', 'cvv'] as const) {
      const at = placed.get(field);
      if (at) session.secretTargets.add(cssOf(at.target));
    }
  }

  /**
   * Enters the payment as a customer would, in the page and its frames, then the forged fields (set or added as a
   * customer's devtools could). Every field the page cannot take is named at once, and nothing is entered then.
   */
  async #fill(
    session: Session,
    parts: Part[],
    where: string,
    payment: CardPayment,
    forged: Partial<Record<FieldName, string>>,
  ): Promise<void> {
    const asked = paymentValues(payment);
    const merged = await this.#merged(parts);
    // The form's own inputs (not the page's), for the quantity or amount placed by elimination.
    const mapping = placeByElimination(
      merged.mapping,
      asked.map(([field]) => field),
      (target) => merged.inputs.some((s) => s.has(target)) || !isInputName(target),
    );
    const values = joinExpiry(asked, mapping);
    fieldMappings.record('link screen', mapping);
    const partOf = (field: FieldName): number =>
      mapping.found[field]?.by === 'elimination'
        ? Math.max(
            0,
            merged.inputs.findIndex((s) => s.has(mapping.names[field])),
          )
        : merged.where(field);
    const placed = await this.#place(
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
      const pick = at.kind.options ? chooseOption(field, value, at.kind.options, this.#options.optionValues) : value;
      if (pick === undefined) unmatched.push({ field, target: at.target, value, offered: describeOptions(at.kind.options!) });
      else entries.push(entryOf(field, at, pick));
    }
    if (missing.length > 0 || unmatched.length > 0)
      throw new FieldsNotFoundError(cannotDriveMessage(`the payment screen at ${bare(where)}`, missing, unmatched, mapping));
    this.#consent(parts, entries);
    // The page's own parts first (its payment form may show other fields), then its frames.
    for (const [i, part] of parts.entries())
      await this.#enterAll(
        part.scope,
        entries.filter((e) => e.part === i),
      );
    this.#secretsOf(session, placed);
    for (const [field, value] of Object.entries(forged) as [FieldName, string | undefined][]) {
      if (value === undefined) continue;
      const scope = parts[partOf(field)]!.scope;
      const target = mapping.names[field];
      if ((await scope.locator(cssOf(target)).count()) > 0) await forgeValue(scope.locator(cssOf(target)).first(), value);
      else if (isInputName(target)) await scope.evaluate(addHidden, [target, value] as const);
      else throw new PayerError(`cannot forge ${field}: the selector ${target} matches nothing on the screen`);
    }
  }

  /**
   * Enters the values in order, as many as the page takes at once in one call (each field focused, its value set
   * and its input and change events fired, as typing does; a radio button clicked); a field not ready yet (hidden,
   * disabled, an option not there yet, a shadow root) is entered through the browser's own waits, then the rest go on at once.
   */
  async #enterAll(scope: TestRecord, entries: Entry[]): Promise<void> {
    let next = 0;
    while (next < entries.length) {
      next += await scope.evaluate(
        enterInPage,
        entries.slice(next).map((e) => (e.inDom ? ([e.selector, e.how, e.value] as [string, Entry['how'], string]) : null)),
      );
      if (next >= entries.length) break;
      const slow = entries[next]!;
      const input = scope.locator(slow.selector).first();
      if (slow.how === 'select') await input.selectOption(slow.value, { timeout: this.#step() });
      else if (slow.how === 'tick')
        await scope
          .locator(`input[type=checkbox][name="${slow.name.replace(/["\\]/g, '\\$&')}"]`)
          .first()
          .check({ timeout: this.#step(), force: true });
      else if (slow.how === 'check')
        await scope
          .locator(`input[type=radio][name="${slow.name.replace(/["\\]/g, '\\$&')}"][value="${slow.value.replace(/["\\]/g, '\\$&')}"]`)
          .first()
          .check({ timeout: this.#step(), force: true });
      else if (slow.how === 'set') await setValue(input, slow.value);
      else await input.fill(slow.value, { timeout: this.#step() });
      next++;
    }
  }

  /**
   * The control that pays or goes on: on the payment form, its button whose words mean going on (steps.ts), else
   * its only button that does not leave, else its first submit button, else the form submitted as Enter does; on a
   * page whose fields are in no form (a shell), the page's control whose words mean going on.
   */
  async #control(parts: Part[]): Promise<Pressing> {
    const scopes = parts[0]!.scope.isForm
      ? [parts[0]!.scope]
      : [
          await this.#bodyScope(parts[0]!.frame),
          ...parts
            .slice(1)
            .filter((p) => p.scope.isForm)
            .map((p) => p.scope),
        ];
    const seen: string[] = [];
    for (const scope of scopes) {
      const mode = scope.isForm ? 'form' : 'page';
      const { list } = await scope.evaluate(controls, [mode, null, '', ''] as const);
      const i = goOnButton({ buttons: list.map((c) => ({ value: '', text: c.text })) });
      if (i !== undefined) return { scope, mode, index: i, text: list[i]!.text };
      if (scope.isForm) {
        const first = list.findIndex((c) => c.submits && !meansLeave(c.text));
        if (first >= 0) return { scope, mode, index: first, text: list[first]!.text };
        if (!list.some((c) => c.submits)) return { scope, mode, index: -1, text: '(the form submitted as Enter does)' };
      }
      seen.push(...list.map((c) => `"${c.text}"`));
    }
    throw new NoFormError(
      `no control of the page at ${bare(parts[0]!.frame.url())} means paying or going on: it shows ` +
        `${seen.slice(0, 12).join(', ') || 'none'}`,
    );
  }

  /**
   * Presses the control once, as a customer does, when it is ready (a button the page's script enables later is
   * waited for, within the browser's step bound). Returns what the page showed just before; undefined when the
   * press started a navigation at once.
   */
  async #press(session: Session, pressing: Pressing): Promise<Shown | undefined> {
    const until = Date.now() + session.stepMs;
    for (;;) {
      let before: Shown | null | undefined;
      try {
        before = (await pressing.scope.evaluate(controls, [pressing.mode, pressing.index, REFUSAL_WORDS.source, pressing.text] as const))
          .before;
      } catch (err) {
        // The navigation it starts may end the call's context: that is the submission going out.
        if (MOVED_ON.test((err as Error).message)) return undefined;
        throw err;
      }
      if (before) return before;
      if (Date.now() >= until)
        throw new PayerError(
          `"${pressing.text}" was not ready to press (disabled or hidden) ${session.stepMs} ms after the page showed it`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Presses the control and waits for what follows, ending as soon as something does: the outcome's redirect caught
   * (a form's, or a script's window.location), a new document, or — a script's submission — a message, words of
   * refusal, or a next step rendered in the page. A page where nothing at all follows within the browser's bound
   * is the suite's own error (PayerError), never the target's: the payment was sent once and is not sent again.
   */
  async #pressAndWait(session: Session, pressing: Pressing): Promise<string | undefined> {
    const page = session.page;
    const bound = session.stepMs;
    const never = new Promise<undefined>(() => {});
    const loaded = page.waitForEvent('domcontentloaded', { timeout: bound }).then(
      () => 'a new document',
      () => undefined,
    );
    const inFrame =
      pressing.scope.frame === page.mainFrame()
        ? never
        : pressing.scope.frame.waitForNavigation({ timeout: bound, waitUntil: 'domcontentloaded' }).then(
            () => 'the frame moved on',
            () => never,
          );
    const before = await this.#press(session, pressing);
    // (A watch ended by a navigation is answered by `loaded`.)
    const watched = before
      ? pressing.scope.frame.evaluate(watchPage, [before, REFUSAL_WORDS.source, bound] as const).then(
          (what) => what || undefined,
          () => never,
        )
      : never;
    const what = await Promise.race([session.settled().then(() => 'the outcome'), loaded, inFrame, watched]);
    if (session.outcome || session.error) return what;
    if (what === undefined) {
      session.error ??= nothingFollowed(pressing.text, bound);
      return what;
    }
    if (what === 'a new document') {
      // A page that moves on by itself (an intermediate page): give it a moment to reach the outcome.
      // (A page showing its outcome in #estado has arrived.)
      const final = await page.evaluate(() => document.querySelector('#estado') !== null).catch(() => false);
      if (!final) await page.waitForLoadState('networkidle', { timeout: 1_500 }).catch(() => undefined);
    }
    return what;
  }

  /**
   * Presses the control that pays (a form's submit button, a shell's pay button) and reads what follows, timed from
   * `openedAt`. A next step (a form that is not the same again, with a button that goes on) is filled with what it
   * asks that the payment has and its go-on button pressed, each step noted in the transcript, up to MAX_STEPS
   * pages. An answer other than a refusal marks the screen's origin as one whose pages this payer drives.
   */
  async #submitted(
    session: Session,
    parts: Part[],
    stop: Stop,
    screen: Screen,
    openedAt: number,
    input: StepInput,
  ): Promise<PaymentOutcome> {
    session.stop = stop;
    let pressing = await this.#control(parts);
    const submittedAt = Date.now();
    let sent: ScreenForm = screen.form ?? { action: '', method: 'POST', fields: {}, selects: {}, optionTexts: {} };
    let current = parts;
    let shown = screen.html;
    for (let step = 1; ; step++) {
      const empty = new Set((await Promise.all(current.map((p) => p.scope.evaluate(emptyInputs, undefined)))).flat());
      answerable(sent, empty, bare(session.page.url()), 'nothing was pressed');
      const what = await this.#pressAndWait(session, pressing);
      if (session.error) throw new PayerError(session.error);
      if (session.outcome) return this.#done(screen, timed(session.outcome, openedAt, submittedAt));
      const answer = await this.#reread(session);
      const outcome = outcomeOf(answer.screen, sent);
      if (outcome.kind === 'refused') leftEmpty(outcome, sent, empty, shown, answer.html);
      // The same form after a wait that saw no answer (only some other change) is no refusal: nothing was answered.
      if (what === 'the page changed' && outcome.kind === 'refused' && outcome.by === 'form-again')
        throw new PayerError(nothingFollowed(pressing.text, session.stepMs));
      if (outcome.kind !== 'page' || !answer.screen.form || goOnButton(answer.screen.form) === undefined)
        return this.#done(screen, timed(outcome, openedAt, submittedAt));
      if (step >= MAX_STEPS) {
        noteStep({
          kind: 'page',
          title: `checkout step ${step + 1} not taken: more than ${MAX_STEPS} pages after the first (a loop, or pages the payer misreads)`,
        });
        return this.#done(screen, timed(outcome, openedAt, submittedAt));
      }
      const values = 'payment' in input ? paymentValues(input.payment) : pageValues(input.card);
      const challenge = 'payment' in input ? undefined : input.card?.codigoDesafio;
      const filled = await this.#fillPresent(session, answer.parts, values, challenge, undefined, true);
      pressing = await this.#control(answer.parts);
      noteStep({
        kind: 'page',
        title:
          `checkout step ${step + 1}: "${headingOf(answer.html) || '(no heading)'}" — ` +
          `${filled.length > 0 ? `filled ${filled.join(', ')}` : 'nothing to fill'}; pressed "${pressing.text}"`,
      });
      // Pressing the step's button is the payer's own submission, not the page sending the last one again.
      session.nextSubmission();
      sent = answer.screen.form;
      current = answer.parts;
      shown = answer.html;
    }
  }

  /** An answer other than a refusal marks the screen's origin as one whose pages this payer drives. */
  #done(screen: Screen, outcome: PaymentOutcome): PaymentOutcome {
    if (outcome.kind !== 'refused') payableOrigins.add(screen.url);
    return outcome;
  }

  /**
   * Fills and submits (a payment screen: every field of the payment; a 3DS or quick-pay page: the card where it asks
   * for it), through the checkout's steps; the session is closed afterwards, its evidence kept on failure. `html`:
   * the page as just read, when it was (else it is read now: a script may have built its form since).
   */
  async #pay(
    session: Session,
    screen: Screen & { openedAt: number },
    input: StepInput,
    stop: Stop,
    forged: Partial<Record<FieldName, string>> = {},
    html?: string,
  ): Promise<PaymentOutcome> {
    session.stepMs = this.#step();
    try {
      // The page as the customer sees it (its frames too): the same discovery as the HTTP payer's.
      const needsCard = 'payment' in input || input.card?.numeroTarjeta !== undefined;
      const parts = await this.#parts(session, html ?? (await this.#html(session)), needsCard ? 'card' : undefined, this.#step());
      if ('payment' in input) await this.#fill(session, parts, screen.url, input.payment, forged);
      else await this.#fillPresent(session, parts, pageValues(input.card), input.card?.codigoDesafio, input.kind, false);
      const outcome = await this.#submitted(session, parts, stop, screen, screen.openedAt, input);
      if (session.submission) submissions.set(screen, session.submission);
      await this.#release(session);
      return outcome;
    } catch (err) {
      throw await this.#failure(session, 'paying', err);
    }
  }

  /**
   * Opens a screen and pays it, unless opening it already ended: an outcome redirect, an error status, a page with
   * no form (its words of refusal, else no form at all).
   */
  #openAndPay(url: string, input: StepInput, stop: Stop): Promise<PaymentOutcome> {
    // One turn for both: a page opened is paid at once, so the pages in use stay as few as the turns.
    return this.#driven(async (hold) => {
      const { session, screen, html } = await this.#visit(url, stop, hold);
      if (session.outcome) {
        const outcome = session.outcome;
        await this.#release(session);
        return timed(outcome, screen.openedAt);
      }
      if (screen.status >= 400 || !screen.form) {
        await this.#release(session);
        return timed(outcomeOf(screen), screen.openedAt);
      }
      return this.#pay(session, screen, input, stop, {}, html);
    });
  }

  async openScreen(url: string): Promise<Screen> {
    const { session, screen } = await this.#driven((hold) => this.#visit(url, undefined, hold));
    this.#sessions.set(screen, session);
    this.#open.push(screen);
    const oldest = this.#open.length > MAX_OPEN ? this.#open.shift() : undefined;
    const evicted = oldest && this.#sessions.get(oldest);
    if (evicted) {
      // That screen can no longer be submitted: forgotten first, so submitScreen says so.
      this.#sessions.delete(oldest!);
      await this.#release(evicted);
    }
    return screen;
  }

  async submitScreen(screen: Screen, payment: CardPayment, forged?: Partial<Record<FieldName, string>>): Promise<PaymentOutcome> {
    const session = this.#sessions.get(screen);
    if (!session)
      throw new PayerError(
        `the screen at ${bare(screen.url)} was not opened by the browser payer (or was closed: at most ${MAX_OPEN} stay open)`,
      );
    this.#sessions.delete(screen);
    this.#open.splice(this.#open.indexOf(screen), 1);
    const openedAt = screen.openedAt ?? Date.now();
    if (!screen.form || screen.status >= 400) {
      // An error status or words of refusal are the outcome; a page with no form at all cannot be submitted (#form says so).
      const outcome = outcomeOf(screen);
      if (outcome.kind === 'refused' && outcome.by !== 'no-form') {
        await this.#release(session);
        return timed(outcome, openedAt);
      }
    }
    // The screen itself (with its opening time): the test holds it, and resubmitScreen finds its submission by it.
    return this.#driven((hold) => {
      hold(session);
      return this.#pay(session, Object.assign(screen, { openedAt }), { payment }, stopOf(payment), forged);
    });
  }

  async submitPage(
    screen: Screen,
    options: { card?: PageInput; redirectPrefix?: string; stopWhen?: (url: string) => boolean } = {},
  ): Promise<PaymentOutcome> {
    const session = this.#sessions.get(screen);
    if (!session)
      throw new PayerError(
        `the page at ${bare(screen.url)} was not opened by the browser payer (or was closed: at most ${MAX_OPEN} stay open)`,
      );
    this.#sessions.delete(screen);
    this.#open.splice(this.#open.indexOf(screen), 1);
    const openedAt = screen.openedAt ?? Date.now();
    return this.#driven((hold) => {
      hold(session);
      return this.#pay(session, Object.assign(screen, { openedAt }), { card: options.card, kind: 'quick-pay page' }, stopOf(options));
    });
  }

  /**
   * Presses the screen's control whose words mean `meaning` (back: "Volver", "Regresar", "Back"…, else a cancel; cancel:
   * the other way round; go-on: "Pagar", "Continuar"…) and says where it leads: the first navigation it starts, caught
   * and not fetched when it leaves the screen's origin (as the redirect is), else the page it loads. A control that
   * runs a script is pressed as one with an href is. Not found: what was looked for and what the screen shows. The
   * screen is used up (a customer who pressed it has left it); one not opened by this payer is opened anew.
   */
  async follow(screen: Screen, meaning: 'back' | 'cancel' | 'go-on'): Promise<Followed> {
    const owned = this.#sessions.get(screen);
    if (owned) {
      this.#sessions.delete(screen);
      this.#open.splice(this.#open.indexOf(screen), 1);
    }
    return this.#driven(async (hold) => {
      let session = owned;
      if (session) hold(session);
      else session = (await this.#visit(screen.url, undefined, hold)).session;
      try {
        const origin = new URL(session.page.url()).origin;
        const body = await this.#bodyScope(session.page.mainFrame());
        const { list } = await body.evaluate(controls, ['page', null, '', ''] as const);
        const index = controlMeaning(list, meaning);
        if (index === undefined) {
          await this.#release(session);
          return {
            notFound: `no control of the screen at ${bare(screen.url)} says ${MEANINGS[meaning]}: it shows ${
              list
                .filter((c) => c.ready)
                .map((c) => `"${c.text}"`)
                .slice(0, 12)
                .join(', ') || 'no control'
            }`,
          };
        }
        const text = list[index]!.text;
        session.reset((url) => !URL.canParse(url) || new URL(url).origin !== origin);
        const loaded = session.page.waitForEvent('domcontentloaded', { timeout: session.stepMs }).then(
          () => true,
          () => false,
        );
        await this.#press(session, { scope: body, mode: 'page', index, text });
        const navigated = await Promise.race([session.settled().then(() => false), loaded]);
        const url = session.outcome?.location ?? (navigated ? session.page.url() : undefined);
        noteStep({
          kind: 'page',
          title:
            `pressed "${text}" on the screen (${meaning}): ` +
            `${url ? `it leads to ${url}` : `nothing followed within ${session.stepMs} ms`}`,
        });
        await this.#release(session);
        return url
          ? { url, control: text }
          : { notFound: `pressing "${text}" (${meaning}) on the screen at ${bare(screen.url)} led nowhere within ${session.stepMs} ms` };
      } catch (err) {
        throw await this.#failure(session, 'following', err);
      }
    });
  }

  /** The page's own submission sent again through the run's HTTP client (its cookies and fields as the browser sent them). */
  resubmitScreen(screen: Screen, stop: { redirectPrefix?: string; stopWhen?: (url: string) => boolean }): Promise<PaymentOutcome> {
    const submission = submissions.get(screen);
    if (!submission) throw new PayerError(`the screen at ${bare(screen.url)} was not submitted by this payer: nothing to send again`);
    return this.#options.http.resend(submission, stopOf(stop));
  }

  /** Whether this payer opened the screen (PAYER=auto sends it back here). */
  owns(screen: Screen): boolean {
    return this.#sessions.has(screen);
  }

  payLink(urlEnlace: string, payment: CardPayment): Promise<PaymentOutcome> {
    return this.#openAndPay(urlEnlace, { payment }, stopOf(payment));
  }

  complete3ds(
    urlCompletarPago3Ds: string,
    { redirectPrefix, card }: { redirectPrefix: string; card?: PageInput },
  ): Promise<PaymentOutcome> {
    return this.#openAndPay(urlCompletarPago3Ds, { card, kind: '3DS page' }, stopOf({ redirectPrefix }));
  }

  async payQuickPay(urlQR: string, options: { redirectPrefix?: string; card?: PageInput } = {}): Promise<PaymentOutcome> {
    return this.#openAndPay(await this.#options.http.quickPayPage(urlQR), { card: options.card, kind: 'quick-pay page' }, stopOf(options));
  }

  fetchImage(url: string): Promise<{ status: number; contentType: string; isPng: boolean; bytes: Buffer }> {
    return this.#options.http.fetchImage(url);
  }
}

/** A navigation under way ended the page's script context (or the page itself). */
const MOVED_ON = /context was destroyed|navigat|Target (page, context or browser )?(has been )?closed/i;

function nothingFollowed(pressed: string, ms: number): string {
  return (
    `nothing the payer can read followed "${pressed}" within ${ms} ms: no navigation, no message, no next step ` +
    `(the payment was sent once and is not sent again)`
  );
}

/** What a frame shows that a customer fills. */
const FIELDS = 'input:not([type=hidden]), select, textarea';

/** What a checkout's pages are filled with: a link payment, or the card (and challenge) a 3DS or quick-pay page may ask. */
type StepInput = { payment: CardPayment } | { card: PageInput | undefined; kind: PageKind };

/** Where fields are filled: a form of the page or of a frame, else a frame's body; in its own context or through Playwright's selectors. */
interface TestRecord {
  page: Page;
  frame: Frame;
  /** A form (its submit buttons are the controls), else a document's body. */
  isForm: boolean;
  evaluate<R, A>(fn: (root: Element, arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Playwright's selectors within it, for what must wait for the page (slow paths). */
  locator(selector: string): Locator;
}

/** A part of the page: the top document or a frame showing inputs, its HTML as read, its mapping, where to fill it. */
interface Part {
  frame: Frame;
  html: string;
  mapping: FieldMapping;
  scope: TestRecord;
}

/** Where a field was found: the part, its input there, what it is, whether the page's DOM API reaches it. */
interface Placed {
  part: number;
  target: string;
  kind: FieldKind;
  inDom: boolean;
}

/** The control to press: where, among which controls, which one and what it says. */
interface Pressing {
  scope: TestRecord;
  mode: 'form' | 'page';
  /** In the list `controls` makes; -1 submits the form as Enter does. */
  index: number;
  text: string;
}

/** `evaluate` of a handle or a locator, typed for functions written against Element (Playwright's own type is generic over the element). */
function evaluateOn(target: ElementHandle | Locator): TestRecord['evaluate'] {
  return target.evaluate.bind(target) as TestRecord['evaluate'];
}

function entryOf(field: FieldName, at: Placed, value: string): Entry {
  const how = at.kind.options ? (at.kind.type === 'radio' ? 'check' : 'select') : at.kind.type === 'hidden' ? 'set' : 'type';
  return { field, part: at.part, selector: cssOf(at.target), name: at.kind.name, value, how, inDom: at.inDom };
}

/** Whether a page's HTML has the element a field's target names (a selector it cannot read counts as shown). */
function shows(html: string, target: string): boolean {
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
function shellForm(url: string, parts: { mapping: FieldMapping }[], shown: Control[]): ScreenForm | undefined {
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

/** Words of going back, and of cancelling: which of the controls that leave (meansLeave) a meaning asks for first. */
const BACK = /(^|[^a-z])(volver|regres|atras|back|return|retorn|voltar)/;
const CANCEL = /(^|[^a-z])(cancel|anular|salir|exit|cerrar|close)/;
const MEANINGS = {
  back: 'going back (Volver, Regresar, Atrás, Back, Return; else Cancelar, Cancel)',
  cancel: 'cancelling (Cancelar, Anular, Cancel; else Volver, Back)',
  'go-on': 'paying or going on (Pagar, Continuar, Confirmar, Pay, Continue…)',
} as const;

/** The control a customer would press for `meaning`, among those shown. */
function controlMeaning(list: Control[], meaning: 'back' | 'cancel' | 'go-on'): number | undefined {
  const ready = (i: number): boolean => list[i]!.ready;
  const find = (test: (words: string) => boolean): number | undefined => {
    const i = list.findIndex((c, j) => ready(j) && test(c.text));
    return i >= 0 ? i : undefined;
  };
  if (meaning === 'go-on') return find(meansGoOn);
  const [first, then] = meaning === 'back' ? [BACK, CANCEL] : [CANCEL, BACK];
  return find((w) => meansLeave(w) && first.test(fold(w))) ?? find((w) => meansLeave(w) && then.test(fold(w)));
}

/** A screen opened: its session (the page still on it), what was read and when it was asked for, its HTML. */
interface Visit {
  session: Session;
  screen: Screen & { openedAt: number };
  html: string;
}

/**
 * A value to enter: in which part, where (`inDom`: reachable by the page's querySelector), how, and what (the
 * payment's field, where it is one).
 */
interface Entry {
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
async function forgeValue(input: Locator, value: string): Promise<void> {
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
async function setValue(input: Locator, value: string): Promise<void> {
  await input.evaluate((el, v) => {
    const field = el as HTMLInputElement;
    field.disabled = false;
    field.value = v;
    field.dispatchEvent(new Event('input', { bubbles: true }));
    field.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
}
