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
import type { BrowserContext } from 'playwright-core';
import { NoFormError, PayerError, PaymentRefused } from './errors.ts';
import { noteStep } from '../record/transcript.ts';
import { beforeDeadline, priorityNow } from '../api/queue-order.ts';
import { currentRecord, waitingFor } from '../record/test-record.ts';
import { pending } from '../record/progress.ts';
import type { Chromium } from './chromium.ts';
import { checkout, type CheckoutDriver, type StepInput } from './checkout.ts';
import { bodyScope, pageHtml, readParts, reread, screenOf, type PageContext, type Part } from './browser-frames.ts';
import { fillPayment, fillPresent } from './browser-fill.ts';
import { controlMeaning, controlToPress, MEANINGS, nothingFollowed, pressAndWait, pressOnce, type Pressing } from './browser-press.ts';
import { FieldsNotFoundError } from './field-mapping.ts';
import { fieldNamesOf, pageValues, paymentValues } from './fields.ts';
import { bare, outcomeOf, readHtml, timed } from './form.ts';
import { stopOf, type HttpPayer } from './http.ts';
import type {
  CardPayment,
  FieldName,
  FieldNames,
  Followed,
  OptionValues,
  PageInput,
  Payer,
  PaymentInput,
  PaymentOutcome,
  Screen,
} from './types.ts';
import { MAX_DRIVEN, MAX_IDLE, MAX_OPEN, RESERVED_FOR_DEADLINES, Session, Turns, type Stop } from './browser-session.ts';
import { controls, emptyInputs } from './in-page.ts';

export interface BrowserPayerOptions {
  /** The Chromium it drives (CHROMIUM_PATH): its browser, launched on first use, and its screenshots. */
  chromium: Chromium;
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
  /** Fetches images (QR codes) as they are: no page needed; its memory is this payer's too. */
  http: HttpPayer;
}

/**
 * A browser step's bound in page openings: an idle machine opens a sandbox page in 50–200 ms, well inside the
 * configured bound; a loaded one taking seconds a page gets a bound this many of its pages long.
 */
export const STEP_COST_FACTOR = 40;

export class BrowserPayer implements Payer {
  readonly #options: BrowserPayerOptions;
  /** What the page functions share (browser-frames.ts): field names, option values, the step bound now. */
  readonly #ctx: PageContext;
  readonly #sessions = new WeakMap<Screen, Session>();
  readonly #open: Screen[] = [];
  readonly #idle: Session[] = [];
  readonly #turns = new Turns(MAX_DRIVEN, RESERVED_FOR_DEADLINES);

  /** The configured bound of a browser step (BROWSER_TIMEOUT_MS); #step() scales it with what a step costs now. */
  readonly #baseStepMs: number;
  /** What opening a page has cost lately on this machine (ms, a moving average): the unit the bounds scale with. */
  #cost = 0;

  constructor(options: BrowserPayerOptions) {
    this.#options = options;
    this.#baseStepMs = options.browserTimeoutMs ?? Math.max(options.timeoutMs, 60_000);
    this.#ctx = {
      names: fieldNamesOf(options.fieldNames),
      fieldNames: options.fieldNames,
      optionValues: options.optionValues,
      fields: options.http.memory.fields,
      step: () => this.#step(),
    };
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
    session.stepMs = this.#ctx.step();
    try {
      const openedAt = Date.now();
      const response = await session.page.goto(url, { waitUntil: 'domcontentloaded', timeout: this.#ctx.step() });
      this.#costs(Date.now() - openedAt);
      session.status = response?.status() ?? session.status;
      // A script may build the form after the document was parsed (even after fetching its own settings).
      const waitMs = session.status < 400 ? Math.min(this.#options.timeoutMs, 10_000) : 0;
      const html = session.outcome ? '' : await pageHtml(this.#ctx, session, waitMs);
      const payableSeen = this.#options.http.memory.payable.has(session.page.url()) ? { payableSeen: true } : {};
      if (session.outcome)
        return {
          session,
          screen: { ...readHtml(session.status, session.page.url(), html, this.#ctx.names), openedAt, ...payableSeen },
          html,
        };
      // A page whose fields are in no form of its own (a shell with frames): read with its frames, once they show inputs.
      const formless = !/<form[\s>]/i.test(html);
      // Frames render on this machine's time: the browser's own step bound (the wait ends as soon as they show).
      const parts = formless ? await readParts(this.#ctx, session, html, 'inputs', this.#ctx.step()) : undefined;
      return { session, screen: { ...(await screenOf(this.#ctx, session, html, parts)), openedAt, ...payableSeen }, html };
    } catch (err) {
      throw await this.#failure(session, 'opening', err);
    }
  }

  /**
   * Runs `fn` on its turn to drive a page (at most MAX_DRIVEN at once). Neither the wait nor the driving is the test's
   * own time: the browser is shared and slows with the machine's load; each of its steps has its own bound (stepMs).
   */
  async #driven<T>(fn: (hold: (session: Session) => void) => Promise<T>): Promise<T> {
    const release = await waitingFor(
      `a turn to drive a browser page (at most ${MAX_DRIVEN} at once, ${RESERVED_FOR_DEADLINES} more for work before a deadline)`,
      this.#turns.take(priorityNow(), beforeDeadline()),
    );
    // A page that stops answering (a hung or crashed renderer: a call into the page has no bound of its own) must not
    // keep the turn, or every later payment waits for it: its context is closed and the test ends ERROR.
    const bound = this.#ctx.step() * 3;
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
      release();
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
      const browser = await this.#options.chromium.launch();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    } catch (err) {
      throw new PayerError(
        `the browser payer could not start Chromium at ${this.#options.chromium.path}: ${(err as Error).message.split('\n')[0]}`,
      );
    }
    return Session.open(context, this.#options.timeoutMs, this.#ctx.step());
  }

  /** A screen done with: kept for the next one when it can be cleaned, else closed. */
  async #release(session: Session): Promise<void> {
    if (this.#idle.length < MAX_IDLE && (await session.clean())) this.#idle.push(session);
    else await session.close();
  }

  /** The error to throw, with the page's evidence; the session is closed. */
  async #failure(session: Session, doing: string, err: unknown): Promise<Error> {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    const evidence = await this.#options.chromium.evidence(session.page, {
      reportDir: this.#options.reportDir,
      label: `payer-${doing}-${URL.canParse(session.page.url()) ? new URL(session.page.url()).pathname : ''}`,
      cardTarget: this.#ctx.names.numeroTarjeta,
      cvvTarget: this.#ctx.names.cvv,
      secretTargets: [...session.secretTargets],
    });
    await session.close();
    // No `cause`: a browser error may quote a URL whose query holds what was typed; the message is redacted.
    // The most specific kind first (FieldsNotFoundError is a NoFormError): how the test is classified depends on it.
    const Kind = [FieldsNotFoundError, NoFormError, PaymentRefused].find((k) => err instanceof k) ?? PayerError;
    return new Kind(`${message} (${evidence})`);
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
    const driver: CheckoutDriver<Pressable> = {
      nothingDone: 'nothing was pressed',
      empty: async (step) => new Set((await Promise.all(step.handle.parts.map((p) => p.scope.evaluate(emptyInputs, undefined)))).flat()),
      press: async (step) => {
        const { pressing } = step.handle;
        const what = await pressAndWait(this.#ctx, session, pressing);
        if (session.error) throw new PayerError(session.error);
        if (session.outcome) return { caught: session.outcome };
        const answer = await reread(this.#ctx, session);
        // A wait that saw only some other change: the same form then is no refusal (checkout.ts).
        const quiet = what === 'the page changed' ? { quiet: nothingFollowed(pressing.text, session.stepMs) } : {};
        return { answer: { screen: answer.screen, handle: { parts: answer.parts, pressing }, ...quiet } };
      },
      next: async (answer, stepInput) => {
        const values = 'payment' in stepInput ? paymentValues(stepInput.payment) : pageValues(stepInput.card);
        const challenge = 'payment' in stepInput ? undefined : stepInput.card?.codigoDesafio;
        const { parts: now } = answer.handle;
        const filled = await fillPresent(this.#ctx, session, now, values, challenge, undefined, true);
        const pressing = await controlToPress(this.#ctx, now);
        // Pressing the step's button is the payer's own submission, not the page sending the last one again.
        session.nextSubmission();
        return {
          step: { url: session.page.url(), form: answer.screen.form, html: answer.screen.html, handle: { parts: now, pressing } },
          filled,
          pressed: pressing.text,
        };
      },
    };
    const pressing = await controlToPress(this.#ctx, parts);
    const form = screen.form ?? { action: '', method: 'POST', fields: {}, selects: {}, optionTexts: {} };
    return checkout(
      driver,
      { url: session.page.url(), form, html: screen.html, handle: { parts, pressing } },
      { input, openedAt, origin: screen.url, payable: this.#options.http.memory.payable },
    );
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
    session.stepMs = this.#ctx.step();
    try {
      // The page as the customer sees it (its frames too): the same discovery as the HTTP payer's.
      const needsCard = 'payment' in input || input.card?.numeroTarjeta !== undefined;
      const parts = await readParts(
        this.#ctx,
        session,
        html ?? (await pageHtml(this.#ctx, session)),
        needsCard ? 'card' : undefined,
        this.#ctx.step(),
      );
      if ('payment' in input) await fillPayment(this.#ctx, session, parts, screen.url, input.payment, forged);
      else await fillPresent(this.#ctx, session, parts, pageValues(input.card), input.card?.codigoDesafio, input.kind, false);
      const outcome = await this.#submitted(session, parts, stop, screen, screen.openedAt, input);
      if (session.submission) this.#options.http.memory.submissions.set(screen, session.submission);
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
    // Kept while its test runs; beyond MAX_OPEN (screens opened outside a test, or tests holding many) the oldest goes.
    currentRecord()?.atEnd(() => void this.#close(screen).catch(() => {}));
    if (this.#open.length > MAX_OPEN) await this.#close(this.#open[0]!);
    return screen;
  }

  /** The session of a screen kept open, taken to be paid (once), or why there is none. */
  #take(screen: Screen, what: 'screen' | 'page'): Session {
    const session = this.#sessions.get(screen);
    if (!session)
      throw new PayerError(
        `the ${what} at ${bare(screen.url)} was not opened by the browser payer (or was closed: its test ended, or more than ${MAX_OPEN} were open)`,
      );
    this.#sessions.delete(screen);
    this.#open.splice(this.#open.indexOf(screen), 1);
    return session;
  }

  /** A screen kept open that will not be paid: forgotten first, so paying it says so, then its session released. */
  async #close(screen: Screen): Promise<void> {
    if (this.#sessions.has(screen)) await this.#release(this.#take(screen, 'screen'));
  }

  /** A payment of any kind (PaymentInput): its page opened or taken, filled, pressed once, what follows finished. */
  pay(input: PaymentInput): Promise<PaymentOutcome> {
    switch (input.kind) {
      case 'link':
        return this.#openAndPay(input.url, { payment: input.payment }, stopOf(input.payment));
      case 'opened-screen':
        return this.#payOpenedScreen(input.screen, input.payment, input.forged);
      case '3ds':
        return this.#openAndPay(input.url, { card: input.card, kind: '3DS page' }, stopOf({ redirectPrefix: input.redirectPrefix }));
      case 'quick-pay':
        return this.#payQuickPay(input.url, input);
      case 'opened-page':
        return this.#payOpenedPage(input.screen, input);
    }
  }

  async #payOpenedScreen(screen: Screen, payment: CardPayment, forged?: Partial<Record<FieldName, string>>): Promise<PaymentOutcome> {
    const session = this.#take(screen, 'screen');
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

  async #payOpenedPage(
    screen: Screen,
    options: { card?: PageInput; redirectPrefix?: string; stopWhen?: (url: string) => boolean },
  ): Promise<PaymentOutcome> {
    const session = this.#take(screen, 'page');
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
    const owned = this.#sessions.has(screen) ? this.#take(screen, 'screen') : undefined;
    return this.#driven(async (hold) => {
      let session = owned;
      if (session) hold(session);
      else session = (await this.#visit(screen.url, undefined, hold)).session;
      try {
        const origin = new URL(session.page.url()).origin;
        const body = await bodyScope(this.#ctx, session.page.mainFrame());
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
        await pressOnce(this.#ctx, session, { scope: body, mode: 'page', index, text });
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
    const submission = this.#options.http.memory.submissions.get(screen);
    if (!submission) throw new PayerError(`the screen at ${bare(screen.url)} was not submitted by this payer: nothing to send again`);
    return this.#options.http.resend(submission, stopOf(stop));
  }

  /** Whether this payer opened the screen (PAYER=auto sends it back here). */
  owns(screen: Screen): boolean {
    return this.#sessions.has(screen);
  }

  async #payQuickPay(urlQR: string, options: { redirectPrefix?: string; card?: PageInput }): Promise<PaymentOutcome> {
    return this.#openAndPay(await this.#options.http.quickPayPage(urlQR), { card: options.card, kind: 'quick-pay page' }, stopOf(options));
  }

  fetchImage(url: string): Promise<{ status: number; contentType: string; isPng: boolean; bytes: Buffer }> {
    return this.#options.http.fetchImage(url);
  }
}

/** A checkout's page as the browser holds it: its parts, and the control to press. */
interface Pressable {
  parts: Part[];
  pressing: Pressing;
}

/** A screen opened: its session (the page still on it), what was read and when it was asked for, its HTML. */
interface Visit {
  session: Session;
  screen: Screen & { openedAt: number };
  html: string;
}
