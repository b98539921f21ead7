/**
 * PAYER=browser: pays hosted screens in headless Chromium, for screens whose form is built by JavaScript. Each
 * screen gets a fresh browser context (a new customer). The main frame's navigations are intercepted: a request
 * to the redirect prefix (or one `stopWhen` accepts) is the outcome and is answered locally, never fetched; a
 * payment is sent once — a second submission of the same form, or a 307/308 asking to re-send it, is refused.
 * Returns the same PaymentOutcome as the HTTP payer, timed; pages are opened and submitted as soon as they can be
 * (DOMContentLoaded, then the form or words of refusal). On failure the error carries the page URL, a screenshot in
 * REPORT_DIR/screens/ and the page's text, card number and cvv removed.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { NoFormError, PayerError } from '../record/errors.ts';
import { waitingFor } from '../record/scope.ts';
import { launchChromium, pageEvidence } from './chromium.ts';
import { cannotDriveMessage, FieldsNotFoundError, mapPage, placeByElimination, type PageKind, type UnmatchedOption } from './discovery.ts';
import { chooseOption, cssOf, describeOptions, fieldNamesOf, isInputName, pageValues, paymentValues, type Option } from './fields.ts';
import { bare, outcomeOf, payableOrigins, readHtml, REFUSAL_WORDS, timed } from './form.ts';
import { noFormMessage, stopOf, submissions, type HttpPayer } from './http.ts';
import type { FieldMapping } from './discovery.ts';
import type { CardPayment, FieldName, FieldNames, OptionValues, PageInput, Payer, PaymentOutcome, Screen, ScreenForm } from './types.ts';
import { MAX_DRIVEN, MAX_IDLE, MAX_OPEN, Session, SUBMIT, Turns, type Stop } from './browser-session.ts';

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
  async #visit(url: string, stop: Stop | undefined): Promise<{ session: Session; screen: Screen & { openedAt: number } }> {
    const session = await this.#acquire();
    session.reset(stop);
    return this.#driven(async () => {
      try {
        const openedAt = Date.now();
        const response = await session.page.goto(url, { waitUntil: 'domcontentloaded', timeout: this.#stepMs });
        session.status = response?.status() ?? session.status;
        if (!session.outcome && session.status < 400) {
          // A script may build the form after the document was parsed (even after fetching its own settings).
          const formShown = `form, ${cssOf(this.#names.numeroTarjeta)}`;
          await session.page
            .waitForFunction(
              ([selector, words]) => {
                if (document.querySelector(selector)) return true;
                const text = (document.body?.innerText ?? '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/\s+/g, ' ');
                return new RegExp(words).test(text);
              },
              [formShown, REFUSAL_WORDS.source] as const,
              { timeout: Math.min(this.#options.timeoutMs, 10_000) },
            )
            .catch(() => undefined);
        }
        return { session, screen: { ...(await this.#screenOf(session)), openedAt } };
      } catch (err) {
        throw await this.#failure(session, 'opening', err);
      }
    });
  }

  /**
   * Runs `fn` on its turn to drive a page (at most MAX_DRIVEN at once). Neither the wait nor the driving is the test's
   * own time: the browser is shared and slows with the machine's load; each of its steps has its own bound (stepMs).
   */
  async #driven<T>(fn: () => Promise<T>): Promise<T> {
    await waitingFor(`a turn to drive a browser page (at most ${MAX_DRIVEN} at once)`, this.#turns.take());
    try {
      return await waitingFor('the browser driving a page (each step bounded by its own timeout)', fn);
    } finally {
      this.#turns.give();
    }
  }

  /** A cleaned page of an earlier screen, else a new context. */
  async #acquire(): Promise<Session> {
    const idle = this.#idle.pop();
    if (idle) return idle;
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

  async #screenOf(session: Session): Promise<Screen> {
    const html = session.outcome ? '' : await session.page.content();
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

  /** The payment form: the one holding the card field, else the first; a page without one cannot be paid. */
  async #form(session: Session, screen: Screen, names: FieldNames): Promise<Locator> {
    const card = cssOf(names.numeroTarjeta);
    const withCard = session.page.locator('form').filter({ has: session.page.locator(card) });
    if ((await withCard.count()) > 0) return withCard.first();
    const any = session.page.locator('form');
    if ((await any.count()) > 0) return any.first();
    throw new NoFormError(noFormMessage(screen));
  }

  /**
   * Enters a value as a customer would: an option picked by meaning (`pick`: chosen already, else chooseOption and,
   * where none fits, the value itself), a hidden field set, an input typed.
   */
  async #enter(input: Locator, field: FieldName, value: string, pick?: string): Promise<void> {
    const kind = await input.evaluate(inputKind);
    if (kind.options) {
      await input.selectOption(pick ?? chooseOption(field, value, kind.options, this.#options.optionValues) ?? value, { timeout: this.#stepMs });
    } else if (kind.type === 'hidden') {
      await setValue(input, value);
    } else {
      await input.fill(value, { timeout: this.#stepMs });
    }
  }

  /** A 3DS or quick-pay page: the card entered where the page shows its field (the spec does not say what it asks). */
  async #fillPresent(form: Locator, card: PageInput | undefined, names: FieldNames): Promise<void> {
    for (const [field, value] of pageValues(card)) {
      const target = names[field];
      if ((await form.locator(cssOf(target)).count()) > 0) await this.#enter(form.locator(cssOf(target)).first(), field, value);
    }
    const challenge = card?.codigoDesafio;
    const field = form.locator(cssOf(names.codigoDesafio));
    if (challenge && (await field.count()) > 0) {
      // A code the page shows is read from it; a selector that matches nothing leaves the field as the page has it.
      const shown = 'code' in challenge ? undefined : form.page().locator(challenge.shownIn).first();
      const code = 'code' in challenge ? challenge.code : (await shown!.count()) > 0 ? (await shown!.innerText({ timeout: this.#stepMs })).trim() : undefined;
      if (code !== undefined) await this.#enter(field.first(), 'codigoDesafio', code);
    }
  }

  /** Enters the payment as a customer would, then the forged fields (set or added as a customer's devtools could). */
  async #fill(form: Locator, where: string, payment: CardPayment, forged: Partial<Record<FieldName, string>>, discovered: FieldMapping): Promise<void> {
    const values = paymentValues(payment);
    // The form's own inputs (not the page's), for the quantity or amount placed by elimination.
    const present = new Set(await form.evaluate((f) => [...(f as HTMLFormElement).elements].flatMap((el) => (el.getAttribute('name') ? [el.getAttribute('name')!] : el.id ? [`#${el.id}`] : []))));
    const mapping = placeByElimination(discovered, values.map(([field]) => field), (target) => present.has(target) || !isInputName(target));
    const { names } = mapping;
    // Every field the page cannot take is named at once: those not found, and the options that mean none of the values.
    const missing: FieldName[] = [];
    const unmatched: UnmatchedOption[] = [];
    const picks = new Map<FieldName, string>();
    for (const [field, value] of values) {
      const input = form.locator(cssOf(names[field]));
      if ((await input.count()) === 0) {
        missing.push(field);
        continue;
      }
      const { options } = await input.first().evaluate(inputKind);
      if (!options) continue;
      const pick = chooseOption(field, value, options, this.#options.optionValues);
      if (pick === undefined) unmatched.push({ field, target: names[field], value, offered: describeOptions(options) });
      else picks.set(field, pick);
    }
    if (missing.length > 0 || unmatched.length > 0) throw new FieldsNotFoundError(cannotDriveMessage(`the payment screen at ${bare(where)}`, missing, unmatched, mapping));
    for (const [field, value] of values) await this.#enter(form.locator(cssOf(names[field])).first(), field, value, picks.get(field));
    for (const [field, value] of Object.entries(forged) as [FieldName, string | undefined][]) {
      if (value === undefined) continue;
      const target = names[field];
      if ((await form.locator(cssOf(target)).count()) > 0) await setValue(form.locator(cssOf(target)).first(), value);
      else if (isInputName(target)) await form.evaluate(addHidden, [target, value] as const);
      else throw new PayerError(`cannot forge ${field}: the selector ${target} matches nothing on the screen`);
    }
  }

  /**
   * Presses the form's submit button once (or submits it when it has none) and waits for the outcome, timed from
   * `openedAt`; an answer other than a refusal marks the screen's origin as one whose pages this payer drives.
   */
  async #submit(session: Session, form: Locator, stop: Stop, screen: Screen, openedAt: number): Promise<PaymentOutcome> {
    const outcome = await this.#submitted(session, form, stop, screen.form, openedAt);
    if (outcome.kind !== 'refused') payableOrigins.add(screen.url);
    return outcome;
  }

  async #submitted(session: Session, form: Locator, stop: Stop, submitted: ScreenForm | undefined, openedAt: number): Promise<PaymentOutcome> {
    session.stop = stop;
    // The answer's document parsed is enough: its form (or #estado) is in it; a page moving on is waited for below.
    const loaded = session.page.waitForEvent('domcontentloaded', { timeout: session.stepMs }).then(
      () => undefined,
      () => {
        if (!session.outcome) session.error ??= `no outcome ${session.stepMs} ms after the payment was submitted (once: it is never re-sent)`;
      },
    );
    // The service is under test, not the page's input hints: what the HTTP payer would send reaches the server.
    await form.evaluate((f) => ((f as HTMLFormElement).noValidate = true));
    const button = form.locator(SUBMIT).first();
    const hasButton = (await form.locator(SUBMIT).count()) > 0;
    const submittedAt = Date.now();
    // Bounded like a page load: on a loaded machine a button can take seconds to become clickable.
    if (hasButton) await button.click({ timeout: session.stepMs });
    else await form.evaluate((f) => (f as HTMLFormElement).requestSubmit());
    await Promise.race([session.settled(), loaded]);
    // A page that moves on by itself (an intermediate page): give it a moment to reach the outcome.
    // (A page showing its outcome in #estado has arrived.)
    const final = await session.page.locator('#estado').count().catch(() => 0);
    if (!session.outcome && !session.error && final === 0) await session.page.waitForLoadState('networkidle', { timeout: 1_500 }).catch(() => undefined);
    if (session.error) throw new PayerError(session.error);
    if (session.outcome) return timed(session.outcome, openedAt, submittedAt);
    const screen = await this.#screenOf(session);
    // (No form read before: nothing on the answer counts as the same form.)
    return timed(outcomeOf(screen, submitted ?? { action: '', method: 'POST', fields: {}, selects: {}, optionTexts: {} }), openedAt, submittedAt);
  }

  /**
   * Fills and submits (a payment screen: every field of the payment; a 3DS or quick-pay page: the card where it asks
   * for it); the session is closed afterwards, its evidence kept on failure.
   */
  #pay(session: Session, screen: Screen & { openedAt: number }, input: { payment: CardPayment } | { card: PageInput | undefined; kind: PageKind }, stop: Stop, forged: Partial<Record<FieldName, string>> = {}): Promise<PaymentOutcome> {
    return this.#driven(async () => {
      try {
        // The page as the customer sees it now (a script may have built its form): the same discovery as the HTTP payer's.
        const mapping = mapPage(await session.page.content(), this.#options.fieldNames, 'payment' in input ? 'link screen' : input.kind);
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
    });
  }

  /**
   * Opens a screen and pays it, unless opening it already ended: an outcome redirect, an error status, a page with
   * no form (its words of refusal, else no form at all).
   */
  async #openAndPay(url: string, input: { payment: CardPayment } | { card: PageInput | undefined; kind: PageKind }, stop: Stop): Promise<PaymentOutcome> {
    const { session, screen } = await this.#visit(url, stop);
    if (session.outcome) {
      const outcome = session.outcome;
      await this.#release(session);
      return timed(outcome, screen.openedAt);
    }
    if (screen.status >= 400 || !screen.form) {
      await this.#release(session);
      return timed(outcomeOf(screen), screen.openedAt);
    }
    return this.#pay(session, screen, input, stop);
  }

  async openScreen(url: string): Promise<Screen> {
    const { session, screen } = await this.#visit(url, undefined);
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
    return this.#pay(session, Object.assign(screen, { openedAt }), { payment }, stopOf(payment), forged);
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


/** What an element is (runs in the page): a select's options with their texts. */
function inputKind(el: Element): { tag: string; type: string; options: Option[] | null } {
  return {
    tag: el.tagName.toLowerCase(),
    type: (el as HTMLInputElement).type,
    options: el instanceof HTMLSelectElement ? [...el.options].map((o) => ({ value: o.value, text: o.text.replace(/\s+/g, ' ').trim() })) : null,
  };
}

/** A forged field the screen does not show, added to its form (runs in the page). */
function addHidden(form: Element, [name, value]: readonly [string, string]): void {
  const input = document.createElement('input');
  input.type = 'hidden';
  input.name = name;
  input.value = value;
  form.appendChild(input);
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
