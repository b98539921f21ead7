/**
 * Pays hosted screens as a browser would, without one (spec 4.1 urlEnlace, 4.3 urlCompletarPago3Ds, 4.6 urlQR): a
 * cookie jar per customer (each payment, each screen opened), redirects followed (at most 10), HTML parsed with
 * node-html-parser, hidden fields kept, inputs filled
 * by name (SCREEN_FIELD_NAMES; a CSS selector is resolved to the name of the input it matches), select options
 * picked by meaning (chooseOption). A page that refuses (an error status, words of refusal, no form) is a refused
 * outcome; every outcome carries its timing. Every request goes through the harness http, so it is recorded and
 * redacted. A form submission is sent
 * once and never re-sent by the payer: a 307/308 the target answers is followed as a browser follows it (the target
 * asked for it), a meta refresh too. A 3DS or quick-pay page gets the card where it shows the card's fields. A
 * checkout with steps is finished as a person would (steps.ts): a review page or an issuer's challenge after a
 * submission is filled with what it asks that the payment has, and its go-on button pressed, up to MAX_STEPS pages.
 */
import { NoFormError, PayerError } from './errors.ts';
import { noteStep } from '../record/transcript.ts';
import { header, type Exchange, type Http } from '../api/http.ts';
import { decodeQrPng, isPng } from './qr.ts';
import { parse, type HTMLElement } from 'node-html-parser';
import { CookieJar } from './cookies.ts';
import {
  cannotDriveMessage,
  FieldsNotFoundError,
  joinExpiry,
  mapPage,
  placeByElimination,
  type PageKind,
  type UnmatchedOption,
} from './field-mapping.ts';
import { chooseOption, describeOptions, pageValues, paymentValues, type Option } from './fields.ts';
import { bare, outcomeOf, payableOrigins, readScreen, timed } from './form.ts';
import {
  answerable,
  consent,
  goOnButton,
  headingOf,
  MAX_STEPS,
  meansGoOn,
  meansLeave,
  metaRefresh,
  personalDetails,
  pressGoOn,
  leftEmpty,
  shownCode,
} from './steps.ts';
import type {
  CardPayment,
  FieldName,
  FieldNames,
  Followed,
  Submission,
  OptionValues,
  PageInput,
  Payer,
  PaymentOutcome,
  Screen,
  ScreenForm,
} from './types.ts';

const maxRedirects = 10;

type Stop = (url: string) => boolean;
/** What a checkout's pages are filled with: a link payment, or the card (and challenge) a 3DS or quick-pay page may ask. */
type StepInput = { payment: CardPayment } | { card: PageInput | undefined; kind: PageKind };
type Navigation = { ex: Exchange; url: string } | { redirect: PaymentOutcome & { kind: 'redirect' } };

/** Where a payment ends: the receiver's prefix, or what the caller's stopWhen accepts. */
export function stopOf(payment: { redirectPrefix?: string | undefined; stopWhen?: Stop | undefined }): Stop {
  return (url) => (payment.redirectPrefix !== undefined && url.startsWith(payment.redirectPrefix)) || payment.stopWhen?.(url) === true;
}

/** What each screen's submission sent (kept for resubmitScreen; the screen object is the key, as the test holds it). */
export const submissions = new WeakMap<Screen, Submission>();

export function noFormMessage(screen: Pick<Screen, 'url' | 'status' | 'estado'>): string {
  return (
    `the screen at ${bare(screen.url)} (status ${screen.status}${screen.estado ? `, "${screen.estado}"` : ''}) ` +
    `shows no form the suite can fill`
  );
}

export class HttpPayer implements Payer {
  readonly #http: Http;
  /** SCREEN_FIELD_NAMES as set: it overrides what discovery finds on each page (harness/payer/field-mapping.ts). */
  readonly #configured: Partial<FieldNames> | Record<string, string>;
  /** Each screen's cookies: every payment is a new customer (a session cookie of one never reaches another's screen). */
  readonly #jars = new WeakMap<Screen, CookieJar>();
  /** SCREEN_OPTION_VALUES: the page's option value for the suite's, per field. */
  readonly #optionValues: OptionValues;

  constructor(options: { http: Http; fieldNames?: Partial<FieldNames> | Record<string, string>; optionValues?: OptionValues }) {
    this.#http = options.http;
    this.#configured = options.fieldNames ?? {};
    this.#optionValues = options.optionValues ?? {};
  }

  /** `submission`: a form sent by the customer — a payment, never retried by http whatever its method. */
  async #send(
    jar: CookieJar,
    method: 'GET' | 'POST',
    url: string,
    form: Record<string, string> | undefined,
    label: string,
    submission: boolean,
  ): Promise<Exchange> {
    const cookie = jar.header(url);
    const ex = await this.#http.request({
      method,
      url,
      headers: cookie ? { cookie } : {},
      ...(form ? { form } : {}),
      idempotent: method === 'GET' && !submission,
      // A submission's 503 page is the screen's answer (a refusal), read as such: a payment is never sent twice.
      ...(submission ? { notNow: 'answer' as const } : {}),
      label,
    });
    jar.store(url, ex.response?.headers['set-cookie']);
    return ex;
  }

  /**
   * Sends a request and follows redirects as a browser does (303/301/302 → GET), stopping at a Location that
   * `stop` accepts. Returns the last exchange, or the redirect outcome.
   */
  async #navigate(
    jar: CookieJar,
    method: 'GET' | 'POST',
    url: string,
    form: Record<string, string> | undefined,
    stop: Stop | undefined,
    label: string,
    submission = false,
  ): Promise<Navigation> {
    const visited = [url];
    let ex = await this.#send(jar, method, url, form, label, submission);
    let current = url;
    for (;;) {
      const res = ex.response!;
      const location = header(res, 'location');
      const redirected = res.status >= 300 && res.status <= 399 && location !== undefined;
      // A page that sends the browser on by itself (meta refresh) is followed as a redirect is.
      const refresh = !redirected && res.status < 300 && /html/i.test(res.contentType) ? metaRefresh(res.bodyText, current) : undefined;
      if (!redirected && refresh === undefined) return { ex, url: current };
      const next = refresh ?? new URL(location!, current).href;
      const how = refresh === undefined ? String(res.status) : 'meta refresh';
      if (stop?.(next)) {
        noteStep({ kind: 'redirect', title: `redirect caught by the payer (not followed): ${how} to ${next}` });
        return { redirect: { kind: 'redirect', location: next, params: Object.fromEntries(new URL(next).searchParams) } };
      }
      if (visited.length > maxRedirects) {
        const loop = visited.includes(next) ? `a redirect loop (${bare(next)} repeats)` : `more than ${maxRedirects} redirects`;
        throw new PayerError(`${loop} starting at ${bare(url)}: ${[...visited.slice(0, 4), '…', next].map(bare).join(' → ')}`);
      }
      visited.push(next);
      current = next;
      // A 307/308 keeps the method and body, as a browser does: the target asked for it (not a retry of the payer's).
      const keep = refresh === undefined && (res.status === 307 || res.status === 308) && ex.request.method !== 'GET';
      if (keep)
        noteStep({
          kind: 'page',
          title: `the target answered ${res.status} to the submission: sent on to ${bare(next)} as a browser does`,
        });
      ex = keep
        ? await this.#send(jar, 'POST', next, form, `${label} (${res.status} to ${bare(next)})`, submission)
        : await this.#send(jar, 'GET', next, undefined, `${label} (${how === 'meta refresh' ? 'meta refresh' : 'redirect'})`, false);
    }
  }

  #read(ex: Exchange, url: string): Screen {
    return readScreen(ex, url, mapPage(ex.response!.bodyText, this.#configured).names);
  }

  async openScreen(url: string): Promise<Screen> {
    const jar = new CookieJar();
    const openedAt = Date.now();
    const result = await this.#navigate(jar, 'GET', url, undefined, undefined, 'hosted screen');
    if ('redirect' in result) throw new PayerError(`unexpected redirect outcome while opening ${url}`);
    const screen: Screen = { ...this.#read(result.ex, result.url), openedAt };
    this.#jars.set(screen, jar);
    return screen;
  }

  /**
   * Submits a screen's form (once: it is a payment) and turns the answer into an outcome, timed from `openedAt`. An
   * answer that is the checkout's next step (a form that is not the same one again, with a button that goes on) is
   * filled with what it asks that the payment has and submitted in turn, up to MAX_STEPS pages; each step is noted
   * in the transcript. An answer other than a refusal marks the screen's origin as one whose pages this payer drives.
   */
  async #submit(
    jar: CookieJar,
    screen: Screen & { form: ScreenForm },
    fields: Record<string, string>,
    stop: Stop,
    label: string,
    openedAt: number,
    input: StepInput,
  ): Promise<PaymentOutcome> {
    const submittedAt = Date.now();
    let current: Screen & { form: ScreenForm } = screen;
    let sent = fields;
    for (let step = 1; ; step++) {
      const empty = new Set(Object.keys(sent).filter((name) => sent[name] === ''));
      answerable(current.form, empty, bare(current.url), 'nothing was sent');
      this.#remember(jar, screen, current.form, sent);
      const url = current.form.method === 'POST' ? current.form.action : withQuery(current.form.action, sent);
      const result = await this.#navigate(
        jar,
        current.form.method,
        url,
        current.form.method === 'POST' ? sent : undefined,
        stop,
        step === 1 ? label : `${label}: step ${step}`,
        true,
      );
      if ('redirect' in result) {
        payableOrigins.add(screen.url);
        return timed(result.redirect, openedAt, submittedAt);
      }
      const answer = this.#read(result.ex, result.url);
      const outcome = outcomeOf(answer, current.form);
      if (outcome.kind === 'refused') leftEmpty(outcome, current.form, empty, current.html, answer.html);
      if (outcome.kind !== 'refused') payableOrigins.add(screen.url);
      if (outcome.kind !== 'page') return timed(outcome, openedAt, submittedAt);
      const next = answer.form ? this.#nextStep(answer as Screen & { form: ScreenForm }, input) : undefined;
      if (next === undefined) {
        // A result page whose link back to the merchant carries the outcome: a person follows it.
        const back = linkTo(answer.html, answer.url, stop);
        if (back === undefined) return timed(outcome, openedAt, submittedAt);
        noteStep({
          kind: 'redirect',
          title: `the page after the payment links to the merchant with the outcome: followed as a person would (not fetched): ${back}`,
        });
        return timed({ kind: 'redirect', location: back, params: Object.fromEntries(new URL(back).searchParams) }, openedAt, submittedAt);
      }
      if (step >= MAX_STEPS) {
        noteStep({
          kind: 'page',
          title: `checkout step ${step + 1} not taken: a checkout of more than ${MAX_STEPS} steps (a loop, or pages the payer misreads)`,
        });
        return timed(outcome, openedAt, submittedAt);
      }
      noteStep({
        kind: 'page',
        title:
          `checkout step ${step + 1}: "${headingOf(answer.html) || '(no heading)'}" — ` +
          `${next.filled.length > 0 ? `filled ${next.filled.join(', ')}` : 'nothing to fill'}; pressed "${next.pressed}"`,
      });
      current = answer as Screen & { form: ScreenForm };
      sent = next.fields;
    }
  }

  /** What a submission sent, kept for resubmitScreen (the last step's: pressing confirm again is what a double click does). */
  #remember(jar: CookieJar, screen: Screen, form: ScreenForm, fields: Record<string, string>): void {
    const url = form.method === 'POST' ? form.action : withQuery(form.action, fields);
    const cookie = jar.header(url);
    submissions.set(screen, {
      method: form.method,
      url,
      ...(form.method === 'POST' ? { body: new URLSearchParams(fields).toString() } : {}),
      headers: {
        ...(form.method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...(cookie ? { cookie } : {}),
      },
    });
  }

  /**
   * The next step of a checkout, when `page` is one: its form filled with what it asks that the payment has (the
   * card, the payment form, a code the page shows) and the button that goes on pressed. Undefined when the page
   * has no button a person would press to go on (a result page the payer cannot read).
   */
  #nextStep(
    page: Screen & { form: ScreenForm },
    input: StepInput,
  ): { fields: Record<string, string>; filled: string[]; pressed: string } | undefined {
    if (goOnButton(page.form) === undefined) return undefined;
    const { fields, filled } = this.#fillPresent(page, input, 'payment' in input ? 'link screen' : input.kind);
    const pressed = pressGoOn(page.form, fields)!;
    return { fields, filled, pressed };
  }

  /**
   * Opens a screen; a redirect that `stop` accepts, an error status, or a page without a form (its words of
   * refusal, else no form at all: PAYER=auto then tries the browser) is the outcome itself, timed.
   */
  async #screenWithForm(
    jar: CookieJar,
    url: string,
    stop: Stop,
  ): Promise<{ screen: Screen & { form: ScreenForm; openedAt: number } } | { outcome: PaymentOutcome }> {
    const openedAt = Date.now();
    const result = await this.#navigate(jar, 'GET', url, undefined, stop, 'hosted screen');
    if ('redirect' in result) return { outcome: timed(result.redirect, openedAt) };
    const screen = this.#read(result.ex, result.url);
    if (screen.status >= 400 || !screen.form) return { outcome: timed(outcomeOf(screen), openedAt) };
    return { screen: { ...screen, openedAt } as Screen & { form: ScreenForm; openedAt: number } };
  }

  /** The form's fields with the payment entered as a customer would; `forged` set whether or not the screen shows them. */
  #filled(
    screen: Screen & { form: ScreenForm },
    payment: CardPayment,
    forged: Partial<Record<FieldName, string>> = {},
  ): Record<string, string> {
    const { form } = screen;
    const fields = { ...form.fields };
    const asked = paymentValues(payment);
    // A radio group none of whose buttons is checked is a field too (it submits nothing until one is).
    const present = (name: string): boolean => name in fields || name in form.selects;
    const mapping = placeByElimination(
      mapPage(screen.html, this.#configured, 'link screen'),
      asked.map(([field]) => field),
      present,
    );
    const values = joinExpiry(asked, mapping);
    const names = mapping.names;
    // Every field the page cannot take is named at once: those not found, and the options that mean none of the values.
    const missing = values.filter(([field]) => !present(names[field])).map(([field]) => field);
    const unmatched: UnmatchedOption[] = [];
    const chosen: [string, string][] = [];
    for (const [field, value] of values) {
      const name = names[field];
      if (!present(name)) continue;
      const options = optionsOf(form, name);
      const pick = options ? chooseOption(field, value, options, this.#optionValues) : value;
      if (pick === undefined) unmatched.push({ field, target: name, value, offered: describeOptions(options!) });
      else chosen.push([name, pick]);
    }
    if (missing.length > 0 || unmatched.length > 0)
      throw new FieldsNotFoundError(cannotDriveMessage(`the payment screen at ${bare(screen.url)}`, missing, unmatched, mapping));
    for (const [name, value] of chosen) fields[name] = value;
    for (const [field, value] of Object.entries(forged)) if (value !== undefined) fields[names[field as FieldName]] = value;
    const placed = new Set(chosen.map(([name]) => name));
    consent(form, fields, placed);
    personalDetails(form, fields, placed);
    pressGoOn(form, fields);
    return fields;
  }

  /**
   * A page's fields with what it asks that the payment has, each where the page shows its field (the spec does not
   * say what a 3DS, quick-pay or review page asks): the card, the payment's choices, and a challenge's code — the
   * one configured (SCREEN_CHALLENGE_CODE), else the one the page shows (shownCode), typed into the code field or,
   * where none is named so, the one empty input left. Never a code the page does not show.
   */
  #fillPresent(
    screen: Screen & { form: ScreenForm },
    input: StepInput,
    kind: PageKind,
  ): { fields: Record<string, string>; filled: string[] } {
    const mapping = mapPage(screen.html, this.#configured, kind);
    const names = mapping.names;
    const fields = { ...screen.form.fields };
    const present = (name: string): boolean => name in fields || name in screen.form.selects;
    const filled: string[] = [];
    const values = joinExpiry('payment' in input ? paymentValues(input.payment) : pageValues(input.card), mapping);
    for (const [field, value] of values) {
      if (!present(names[field])) continue;
      const options = optionsOf(screen.form, names[field]);
      const pick = options ? chooseOption(field, value, options, this.#optionValues) : value;
      if (options && pick === undefined) continue;
      fields[names[field]] = pick ?? value;
      filled.push(field);
    }
    const challenge = 'payment' in input ? undefined : input.card?.codigoDesafio;
    const placed = new Set(filled.map((f) => names[f as FieldName]));
    for (const name of consent(screen.form, fields, placed)) filled.push(`${name} (agreed)`);
    for (const { name, asks } of personalDetails(screen.form, fields, placed)) filled.push(`${name} ("${asks}", as a person would)`);
    const emptyInputs = (screen.form.visible ?? []).filter((n) => !placed.has(n) && fields[n] === '' && !(n in screen.form.selects));
    const codeField = present(names.codigoDesafio) ? names.codigoDesafio : emptyInputs.length === 1 ? emptyInputs[0] : undefined;
    if (codeField !== undefined) {
      // A selector that matches nothing leaves the field as the page has it.
      const code = challenge
        ? 'code' in challenge
          ? challenge.code
          : shownText(screen.html, challenge.shownIn)
        : shownCode(screen.html)?.code;
      if (code !== undefined) {
        fields[codeField] = code;
        filled.push(`${codeField} (the code ${challenge ? 'configured' : 'the page shows'})`);
      }
    }
    return { fields, filled };
  }

  /**
   * Where the screen's control meaning `meaning` leads, read from its HTML (a link's href, a button's formaction or
   * its form's action); a control that navigates by script (no address, `#`, `javascript:`) is one this payer cannot
   * follow: not found, saying what the screen shows.
   */
  async follow(screen: Screen, meaning: 'back' | 'cancel' | 'go-on'): Promise<Followed> {
    const root = parse(screen.html);
    const words = (el: HTMLElement): string =>
      (el.text || el.getAttribute('value') || el.getAttribute('aria-label') || el.getAttribute('title') || '').replace(/\s+/g, ' ').trim();
    const means = (w: string): boolean =>
      meaning === 'go-on' ? meansGoOn(w) : meaning === 'cancel' ? /cancel|anular/i.test(w) : meansLeave(w);
    const controls = root.querySelectorAll('a, button, input[type=submit], input[type=button]').filter((el) => means(words(el)));
    for (const el of controls) {
      const form = el.closest('form');
      const target =
        el.getAttribute('href') ??
        el.getAttribute('formaction') ??
        (el.tagName === 'A' ? undefined : (form?.getAttribute('action') ?? undefined));
      if (
        target === undefined ||
        target === '' ||
        target.startsWith('#') ||
        /^javascript:/i.test(target) ||
        !URL.canParse(target, screen.url)
      )
        continue;
      return { url: new URL(target, screen.url).href, control: words(el) };
    }
    const seen = controls.map((el) => `"${words(el)}"`).join(', ');
    return {
      notFound:
        controls.length > 0
          ? `the control(s) ${seen} lead nowhere the HTML says (a script drives them): PAYER=browser presses them`
          : `no link or button whose words mean ${meaning} on the screen at ${bare(screen.url)}`,
    };
  }

  async fetchImage(url: string): Promise<{ status: number; contentType: string; isPng: boolean; bytes: Buffer }> {
    const result = await this.#navigate(new CookieJar(), 'GET', url, undefined, undefined, 'QR image');
    if ('redirect' in result) throw new PayerError(`unexpected redirect outcome while fetching ${url}`);
    const res = result.ex.response!;
    const bytes = res.bytes ?? Buffer.alloc(0);
    return { status: res.status, contentType: res.contentType, isPng: isPng(bytes), bytes };
  }

  async payLink(urlEnlace: string, payment: CardPayment): Promise<PaymentOutcome> {
    const stop = stopOf(payment);
    const jar = new CookieJar();
    const opened = await this.#screenWithForm(jar, urlEnlace, stop);
    if ('outcome' in opened) return opened.outcome;
    return this.#submit(jar, opened.screen, this.#filled(opened.screen, payment), stop, 'pay link', opened.screen.openedAt, { payment });
  }

  /**
   * A screen opened earlier: an error status or words of refusal are its outcome; a page with no form at all cannot
   * be submitted (NoFormError).
   */
  async submitScreen(screen: Screen, payment: CardPayment, forged?: Partial<Record<FieldName, string>>): Promise<PaymentOutcome> {
    const openedAt = screen.openedAt ?? Date.now();
    if (!screen.form || screen.status >= 400) {
      const outcome = outcomeOf(screen);
      if (outcome.kind === 'refused' && outcome.by !== 'no-form') return timed(outcome, openedAt);
      throw new NoFormError(noFormMessage(screen));
    }
    const withForm = screen as Screen & { form: ScreenForm };
    return this.#submit(
      this.#jars.get(screen) ?? new CookieJar(),
      withForm,
      this.#filled(withForm, payment, forged),
      stopOf(payment),
      'pay link (screen opened earlier)',
      openedAt,
      { payment },
    );
  }

  async submitPage(
    screen: Screen,
    options: { card?: PageInput; redirectPrefix?: string; stopWhen?: (url: string) => boolean } = {},
  ): Promise<PaymentOutcome> {
    const openedAt = screen.openedAt ?? Date.now();
    if (!screen.form || screen.status >= 400) {
      const outcome = outcomeOf(screen);
      if (outcome.kind === 'refused' && outcome.by !== 'no-form') return timed(outcome, openedAt);
      throw new NoFormError(noFormMessage(screen));
    }
    const page = screen as Screen & { form: ScreenForm };
    const input: StepInput = { card: options.card, kind: 'quick-pay page' };
    const { fields } = this.#fillPresent(page, input, 'quick-pay page');
    pressGoOn(page.form, fields);
    return this.#submit(this.#jars.get(screen) ?? new CookieJar(), page, fields, stopOf(options), 'a page opened earlier', openedAt, input);
  }

  resubmitScreen(screen: Screen, stop: { redirectPrefix?: string; stopWhen?: (url: string) => boolean }): Promise<PaymentOutcome> {
    const submission = submissions.get(screen);
    if (!submission) throw new PayerError(`the screen at ${bare(screen.url)} was not submitted by this payer: nothing to send again`);
    return this.resend(submission, stopOf(stop));
  }

  /** One more send of a payment as it went (a replay a test asks for: never retried, redirects not followed). */
  async resend(submission: Submission, stop: Stop): Promise<PaymentOutcome> {
    const sentAt = Date.now();
    const ex = await this.#http.request({
      method: submission.method,
      url: submission.url,
      headers: submission.headers,
      ...(submission.body === undefined ? {} : { body: submission.body }),
      idempotent: false,
      notNow: 'answer',
      label: 'the same payment sent again (a replay the test asks for)',
    });
    const res = ex.response!;
    const location = header(res, 'location');
    if (res.status >= 300 && res.status <= 399 && location !== undefined) {
      const next = new URL(location, submission.url).href;
      if (stop(next))
        return timed({ kind: 'redirect', location: next, params: Object.fromEntries(new URL(next).searchParams) }, sentAt, sentAt);
      return timed({ kind: 'page', status: res.status, html: '', text: `a redirect to ${bare(next)}` }, sentAt, sentAt);
    }
    return timed(outcomeOf(this.#read(ex, submission.url)), sentAt, sentAt);
  }

  async complete3ds(
    urlCompletarPago3Ds: string,
    { redirectPrefix, card }: { redirectPrefix: string; card?: PageInput },
  ): Promise<PaymentOutcome> {
    const stop = stopOf({ redirectPrefix });
    const jar = new CookieJar();
    const opened = await this.#screenWithForm(jar, urlCompletarPago3Ds, stop);
    if ('outcome' in opened) return opened.outcome;
    const input: StepInput = { card, kind: '3DS page' };
    const { fields } = this.#fillPresent(opened.screen, input, '3DS page');
    pressGoOn(opened.screen.form, fields);
    return this.#submit(jar, opened.screen, fields, stop, 'complete 3DS', opened.screen.openedAt, input);
  }

  async payQuickPay(urlQR: string, options: { redirectPrefix?: string; card?: PageInput } = {}): Promise<PaymentOutcome> {
    const page = await this.quickPayPage(urlQR);
    const stop = stopOf(options);
    const jar = new CookieJar();
    const opened = await this.#screenWithForm(jar, page, stop);
    if ('outcome' in opened) return opened.outcome;
    const input: StepInput = { card: options.card, kind: 'quick-pay page' };
    const { fields } = this.#fillPresent(opened.screen, input, 'quick-pay page');
    pressGoOn(opened.screen.form, fields);
    return this.#submit(jar, opened.screen, fields, stop, 'pay quick-pay', opened.screen.openedAt, input);
  }

  /** The page a quick-pay QR leads to: the PNG fetched and decoded. */
  async quickPayPage(urlQR: string): Promise<string> {
    const image = await this.fetchImage(urlQR);
    if (image.status < 200 || image.status > 299 || !image.isPng) {
      throw new PayerError(
        `the quick-pay QR at ${urlQR} is not a PNG image the suite can decode (status ${image.status}, ` +
          `${image.contentType || 'no content type'})`,
      );
    }
    const qr = decodeQrPng(image.bytes);
    if (qr.text === undefined) throw new PayerError(`the quick-pay QR at ${urlQR} could not be read: ${qr.reason}`);
    return new URL(qr.text, urlQR).href;
  }
}

/**
 * The first link of a page that ends the payment (`stop`: the merchant's urlRedirect) and carries an outcome in its
 * query (idTransaccion or esAprobada, any case), resolved; a plain link back to the merchant is not an outcome.
 */
function linkTo(html: string, pageUrl: string, stop: Stop): string | undefined {
  for (const a of parse(html).querySelectorAll('a[href]')) {
    const href = a.getAttribute('href')!;
    if (!URL.canParse(href, pageUrl)) continue;
    const url = new URL(href, pageUrl);
    const keys = [...url.searchParams.keys()].map((k) => k.toLowerCase());
    if (stop(url.href) && (keys.includes('idtransaccion') || keys.includes('esaprobada'))) return url.href;
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

/** A select's options (value and text), undefined for an input. */
function optionsOf(form: ScreenForm, name: string): Option[] | undefined {
  const values = form.selects[name];
  return values?.map((value, i) => ({ value, text: form.optionTexts[name]?.[i] ?? value }));
}

function withQuery(action: string, fields: Record<string, string>): string {
  const u = new URL(action);
  u.search = new URLSearchParams(fields).toString();
  return u.href;
}
