/**
 * PAYER=browser: pays hosted screens in headless Chromium, for screens whose form is built by JavaScript. Each
 * screen gets a browser context of its own with no cookies or storage (a new customer; a context is cleaned and
 * kept for the next screen rather than started anew). The main frame's navigations are intercepted: a request
 * to the redirect prefix (or one `stopWhen` accepts) is the outcome and is answered locally, never fetched; a
 * payment is sent once — a second submission of the same form, or a 307/308 asking to re-send it, is refused.
 * Returns the same PaymentOutcome as the HTTP payer, timed; pages are opened and submitted as soon as they can be
 * (DOMContentLoaded, then the form or words of refusal), a page opened and paid in one turn, in one call per step
 * inside the page (in-page.ts). On failure the error carries the page URL, a screenshot in REPORT_DIR/screens/ and
 * the page's text, card number and cvv removed.
 */
import type { BrowserContext, ElementHandle, Locator, Page } from 'playwright-core';
import { NoFormError, PayerError } from '../record/errors.ts';
import { priorityNow, waitingFor } from '../record/scope.ts';
import { pending } from '../record/progress.ts';
import { launchChromium, pageEvidence } from './chromium.ts';
import { cannotDriveMessage, FieldsNotFoundError, mapPage, placeByElimination, type PageKind, type UnmatchedOption } from './discovery.ts';
import { chooseOption, cssOf, describeOptions, fieldNamesOf, isInputName, pageValues, paymentValues } from './fields.ts';
import { bare, outcomeOf, payableOrigins, readHtml, REFUSAL_WORDS, timed } from './form.ts';
import { noFormMessage, stopOf, submissions, type HttpPayer } from './http.ts';
import type { FieldMapping } from './discovery.ts';
import type { CardPayment, FieldName, FieldNames, OptionValues, PageInput, Payer, PaymentOutcome, Screen, ScreenForm } from './types.ts';
import { MAX_DRIVEN, MAX_IDLE, MAX_OPEN, Session, SUBMIT, Turns, type Stop } from './browser-session.ts';
import { addHidden, describeTargets, enterInPage, findForm, inputKind, pressSubmit, readPage, textOf, type FieldKind } from './in-page.ts';

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


export class BrowserPayer implements Payer {
  readonly #options: BrowserPayerOptions;
  readonly #names: FieldNames;
  readonly #sessions = new WeakMap<Screen, Session>();
  readonly #open: Screen[] = [];
  readonly #idle: Session[] = [];
  readonly #turns = new Turns(MAX_DRIVEN);

  readonly #stepMs: number;

  constructor(options: BrowserPayerOptions) {
    this.#options = options;
    this.#stepMs = options.browserTimeoutMs ?? Math.max(options.timeoutMs, 60_000);
    this.#names = fieldNamesOf(options.fieldNames);
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
    try {
      const openedAt = Date.now();
      const response = await session.page.goto(url, { waitUntil: 'domcontentloaded', timeout: this.#stepMs });
      session.status = response?.status() ?? session.status;
      // A script may build the form after the document was parsed (even after fetching its own settings).
      const html = session.outcome ? '' : await this.#html(session, session.status < 400 ? Math.min(this.#options.timeoutMs, 10_000) : 0);
      return { session, screen: { ...this.#screenOf(session, html), openedAt }, html };
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
    const shown = `form, ${cssOf(this.#names.numeroTarjeta)}`;
    for (let attempt = 1; ; attempt++) {
      try {
        return await session.page.evaluate(readPage, [shown, REFUSAL_WORDS.source, waitMs] as const);
      } catch (err) {
        if (attempt >= 3 || !MOVED_ON.test((err as Error).message)) throw err;
        await session.page.waitForLoadState('domcontentloaded', { timeout: this.#stepMs }).catch(() => undefined);
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
    const bound = this.#stepMs * 3;
    let held: Session | undefined;
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void held?.close();
        reject(new PayerError(`the browser did not finish with a page in ${Math.round(bound / 1000)} s (hung or crashed); its context was closed, the payment's outcome is unknown`));
      }, bound);
    });
    // The run's summary says how long pages were being driven (where the time went).
    const ended = pending('browser', 'a browser page');
    try {
      return await waitingFor('the browser driving a page (each step bounded by its own timeout)', () => Promise.race([fn((session) => (held = session)), stuck]));
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
      throw new PayerError(`the browser payer could not start Chromium at ${this.#options.chromiumPath}: ${(err as Error).message.split('\n')[0]}`);
    }
    return Session.open(context, this.#options.timeoutMs, this.#stepMs);
  }

  /** A screen done with: kept for the next one when it can be cleaned, else closed. */
  async #release(session: Session): Promise<void> {
    if (this.#idle.length < MAX_IDLE && (await session.clean())) this.#idle.push(session);
    else await session.close();
  }

  #screenOf(session: Session, html: string): Screen {
    return readHtml(session.status, session.page.url(), html, mapPage(html, this.#options.fieldNames).names);
  }

  /** The error to throw, with the page's evidence; the session is closed. */
  async #failure(session: Session, doing: string, err: unknown): Promise<Error> {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    const evidence = await pageEvidence(session.page, {
      reportDir: this.#options.reportDir,
      label: `payer-${doing}-${URL.canParse(session.page.url()) ? new URL(session.page.url()).pathname : ''}`,
      cardTarget: this.#names.numeroTarjeta,
      cvvTarget: this.#names.cvv,
    });
    await session.close();
    // No `cause`: a browser error may quote a URL whose query holds what was typed; the message is redacted.
    const Kind = err instanceof FieldsNotFoundError ? FieldsNotFoundError : err instanceof NoFormError ? NoFormError : PayerError;
    return new Kind(`${message} (${evidence})`);
  }

  /**
   * The payment form: the one holding the card field, else the first; a page without one cannot be paid. Held by a
   * handle in the page's own context when the page's DOM API finds it, else through Playwright's selectors (shadow
   * roots, selectors only Playwright reads).
   */
  async #form(session: Session, screen: Screen, names: FieldNames): Promise<FormRef> {
    const page = session.page;
    const card = cssOf(names.numeroTarjeta);
    const found = await page.evaluate(findForm, card);
    if (found >= 0) {
      const handle = (await page.evaluateHandle((i) => document.querySelectorAll('form')[i]!, found)).asElement()!;
      return { page, evaluate: evaluateOn(handle), locator: (selector) => page.locator('form').nth(found).locator(selector) };
    }
    const withCard = page.locator('form').filter({ has: page.locator(card) });
    const any = page.locator('form');
    const form = (await withCard.count()) > 0 ? withCard.first() : (await any.count()) > 0 ? any.first() : undefined;
    if (!form) throw new NoFormError(noFormMessage(screen));
    return { page, evaluate: evaluateOn(form), locator: (selector) => form.locator(selector) };
  }

  /** A field's kind where only Playwright's selectors reach it (a shadow root, a selector the DOM API rejects); null when absent. */
  async #kindThroughBrowser(form: FormRef, target: string): Promise<FieldKind | null> {
    const input = form.locator(cssOf(target));
    return (await input.count()) > 0 ? input.first().evaluate(inputKind) : null;
  }

  /** A 3DS or quick-pay page: the card entered where the page shows its field (the spec does not say what it asks). */
  async #fillPresent(form: FormRef, card: PageInput | undefined, names: FieldNames): Promise<void> {
    const challenge = card?.codigoDesafio;
    const fields: [FieldName, string | undefined][] = [...pageValues(card), ...(challenge ? [['codigoDesafio', undefined] as [FieldName, undefined]] : [])];
    const kinds = await form.evaluate(describeTargets, fields.map(([field]) => cssOf(names[field])));
    const entries: Entry[] = [];
    for (const [i, [field, given]] of fields.entries()) {
      const kind = kinds[i] ?? (await this.#kindThroughBrowser(form, names[field]));
      if (!kind) continue; // not asked by this page
      // A code the page shows is read from it; a selector that matches nothing leaves the field as the page has it.
      const value = field === 'codigoDesafio' ? await this.#challengeCode(form, challenge!) : given;
      if (value === undefined) continue;
      const pick = kind.options ? (chooseOption(field, value, kind.options, this.#options.optionValues) ?? value) : value;
      entries.push(entryOf(field, names[field], pick, kind, kinds[i] !== null));
    }
    await this.#enterAll(form, entries);
  }

  /** The challenge's answer: given, or read where the page shows it (undefined where nothing matches). */
  async #challengeCode(form: FormRef, challenge: NonNullable<PageInput['codigoDesafio']>): Promise<string | undefined> {
    if ('code' in challenge) return challenge.code;
    const text = await form.page.evaluate(textOf, challenge.shownIn);
    if (text !== false) return text ?? undefined;
    const shown = form.page.locator(challenge.shownIn).first();
    return (await shown.count()) > 0 ? (await shown.innerText({ timeout: this.#stepMs })).trim() : undefined;
  }

  /** Enters the payment as a customer would, then the forged fields (set or added as a customer's devtools could). */
  async #fill(form: FormRef, where: string, payment: CardPayment, forged: Partial<Record<FieldName, string>>, discovered: FieldMapping): Promise<void> {
    const values = paymentValues(payment);
    // The form's own inputs (not the page's), for the quantity or amount placed by elimination.
    const present = new Set(await form.evaluate((f) => [...(f as HTMLFormElement).elements].flatMap((el) => (el.getAttribute('name') ? [el.getAttribute('name')!] : el.id ? [`#${el.id}`] : [])), undefined));
    const mapping = placeByElimination(discovered, values.map(([field]) => field), (target) => present.has(target) || !isInputName(target));
    const { names } = mapping;
    // What each field is, read at once.
    const kinds = await form.evaluate(describeTargets, values.map(([field]) => cssOf(names[field])));
    // Every field the page cannot take is named at once: those not found, and the options that mean none of the values.
    const missing: FieldName[] = [];
    const unmatched: UnmatchedOption[] = [];
    const entries: Entry[] = [];
    for (const [i, [field, value]] of values.entries()) {
      const kind = kinds[i] ?? (await this.#kindThroughBrowser(form, names[field]));
      if (!kind) {
        missing.push(field);
        continue;
      }
      const pick = kind.options ? chooseOption(field, value, kind.options, this.#options.optionValues) : value;
      if (pick === undefined) unmatched.push({ field, target: names[field], value, offered: describeOptions(kind.options!) });
      else entries.push(entryOf(field, names[field], pick, kind, kinds[i] !== null));
    }
    if (missing.length > 0 || unmatched.length > 0) throw new FieldsNotFoundError(cannotDriveMessage(`the payment screen at ${bare(where)}`, missing, unmatched, mapping));
    await this.#enterAll(form, entries);
    for (const [field, value] of Object.entries(forged) as [FieldName, string | undefined][]) {
      if (value === undefined) continue;
      const target = names[field];
      if ((await form.locator(cssOf(target)).count()) > 0) await setValue(form.locator(cssOf(target)).first(), value);
      else if (isInputName(target)) await form.evaluate(addHidden, [target, value] as const);
      else throw new PayerError(`cannot forge ${field}: the selector ${target} matches nothing on the screen`);
    }
  }

  /**
   * Enters the values in order, as many as the page takes at once in one call (each field focused, its value set
   * and its input and change events fired, as typing does); a field not ready yet (hidden, disabled, an option not
   * there yet, a shadow root) is entered through the browser's own waits, then the rest go on at once.
   */
  async #enterAll(form: FormRef, entries: Entry[]): Promise<void> {
    let next = 0;
    while (next < entries.length) {
      next += await form.evaluate(enterInPage, entries.slice(next).map((e) => (e.inDom ? ([e.selector, e.how, e.value] as [string, Entry['how'], string]) : null)));
      if (next >= entries.length) break;
      const slow = entries[next]!;
      const input = form.locator(slow.selector).first();
      if (slow.how === 'select') await input.selectOption(slow.value, { timeout: this.#stepMs });
      else if (slow.how === 'set') await setValue(input, slow.value);
      else await input.fill(slow.value, { timeout: this.#stepMs });
      next++;
    }
  }

  /**
   * Presses the form's submit button once (or submits it when it has none) and waits for the outcome, timed from
   * `openedAt`; an answer other than a refusal marks the screen's origin as one whose pages this payer drives.
   */
  async #submit(session: Session, form: FormRef, stop: Stop, screen: Screen, openedAt: number): Promise<PaymentOutcome> {
    const outcome = await this.#submitted(session, form, stop, screen.form, openedAt);
    if (outcome.kind !== 'refused') payableOrigins.add(screen.url);
    return outcome;
  }

  async #submitted(session: Session, form: FormRef, stop: Stop, submitted: ScreenForm | undefined, openedAt: number): Promise<PaymentOutcome> {
    session.stop = stop;
    // The answer's document parsed is enough: its form (or #estado) is in it; a page moving on is waited for below.
    const loaded = session.page.waitForEvent('domcontentloaded', { timeout: session.stepMs }).then(
      () => undefined,
      () => {
        if (!session.outcome) session.error ??= `no outcome ${session.stepMs} ms after the payment was submitted (once: it is never re-sent)`;
      },
    );
    const submittedAt = Date.now();
    // One call: the page's input hints off (the service is under test: what the HTTP payer would send reaches the
    // server), then its submit button pressed (its click handlers run), else the form submitted. The navigation it
    // starts may end the call's context: that is the submission going out.
    const pressed = await form.evaluate(pressSubmit, SUBMIT).catch((err: Error) => {
      if (!MOVED_ON.test(err.message)) throw err;
      return true;
    });
    // A button not ready yet (disabled, hidden): pressed through the browser's waits, bounded like a page load.
    if (!pressed) await form.locator(SUBMIT).first().click({ timeout: session.stepMs });
    await Promise.race([session.settled(), loaded]);
    if (!session.outcome && !session.error) {
      // A page that moves on by itself (an intermediate page): give it a moment to reach the outcome.
      // (A page showing its outcome in #estado has arrived.)
      const final = await session.page.evaluate(() => document.querySelector('#estado') !== null).catch(() => false);
      if (!final) await session.page.waitForLoadState('networkidle', { timeout: 1_500 }).catch(() => undefined);
    }
    if (session.error) throw new PayerError(session.error);
    if (session.outcome) return timed(session.outcome, openedAt, submittedAt);
    const screen = this.#screenOf(session, await this.#html(session));
    // (No form read before: nothing on the answer counts as the same form.)
    return timed(outcomeOf(screen, submitted ?? { action: '', method: 'POST', fields: {}, selects: {}, optionTexts: {} }), openedAt, submittedAt);
  }

  /**
   * Fills and submits (a payment screen: every field of the payment; a 3DS or quick-pay page: the card where it asks
   * for it); the session is closed afterwards, its evidence kept on failure. `html`: the page as just read, when it
   * was (else it is read now: a script may have built its form since).
   */
  async #pay(session: Session, screen: Screen & { openedAt: number }, input: { payment: CardPayment } | { card: PageInput | undefined; kind: PageKind }, stop: Stop, forged: Partial<Record<FieldName, string>> = {}, html?: string): Promise<PaymentOutcome> {
    try {
      // The page as the customer sees it: the same discovery as the HTTP payer's.
      const mapping = mapPage(html ?? (await this.#html(session)), this.#options.fieldNames, 'payment' in input ? 'link screen' : input.kind);
      const form = await this.#form(session, screen, mapping.names);
      if ('payment' in input) await this.#fill(form, screen.url, input.payment, forged, mapping);
      else await this.#fillPresent(form, input.card, mapping.names);
      const outcome = await this.#submit(session, form, stop, screen, screen.openedAt);
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
  #openAndPay(url: string, input: { payment: CardPayment } | { card: PageInput | undefined; kind: PageKind }, stop: Stop): Promise<PaymentOutcome> {
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
    if (!session) throw new PayerError(`the screen at ${bare(screen.url)} was not opened by the browser payer (or was closed: at most ${MAX_OPEN} stay open)`);
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

  complete3ds(urlCompletarPago3Ds: string, { redirectPrefix, card }: { redirectPrefix: string; card?: PageInput }): Promise<PaymentOutcome> {
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

/** The payment form, in the page's own context or through Playwright's selectors (#form). */
interface FormRef {
  page: Page;
  evaluate<R, A>(fn: (form: Element, arg: A) => R, arg: A): Promise<R>;
  /** Playwright's selectors within the form, for what must wait for the page (slow paths). */
  locator(selector: string): Locator;
}

/** `evaluate` of a handle or a locator, typed for functions written against Element (Playwright's own type is generic over the element). */
function evaluateOn(target: ElementHandle | Locator): FormRef['evaluate'] {
  return target.evaluate.bind(target) as FormRef['evaluate'];
}

function entryOf(field: FieldName, target: string, value: string, kind: FieldKind, inDom: boolean): Entry {
  return { field, selector: cssOf(target), value, how: kind.options ? 'select' : kind.type === 'hidden' ? 'set' : 'type', inDom };
}

/** A screen opened: its session (the page still on it), what was read and when it was asked for, its HTML. */
interface Visit {
  session: Session;
  screen: Screen & { openedAt: number };
  html: string;
}

/** A value to enter: where (`inDom`: reachable by the page's querySelector), how, and what. */
interface Entry {
  field: FieldName;
  selector: string;
  value: string;
  how: 'select' | 'set' | 'type';
  inDom: boolean;
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
