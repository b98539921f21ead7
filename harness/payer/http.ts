/**
 * Pays hosted screens as a browser would, without one (spec 4.1 urlEnlace, 4.3 urlCompletarPago3Ds, 4.6 urlQR): a
 * cookie jar per customer (each payment, each screen opened), redirects followed (at most 10), HTML parsed with node-html-parser, hidden fields kept, inputs filled
 * by name (SCREEN_FIELD_NAMES; a CSS selector is resolved to the name of the input it matches), select options
 * picked by meaning (chooseOption). A page that refuses (an error status, words of refusal, no form) is a refused
 * outcome; every outcome carries its timing. Every request goes through the harness http, so it is recorded and redacted. A form submission is sent
 * once and never re-sent, whatever its method (not even on a 307/308): it is a payment. A 3DS or quick-pay page gets
 * the card where it shows the card's fields.
 */
import { NoFormError, PayerError } from '../record/errors.ts';
import { noteStep } from '../record/scope.ts';
import { header, type Exchange, type Http } from '../api/http.ts';
import { decodeQrPng, isPng } from './qr.ts';
import { parse } from 'node-html-parser';
import { CookieJar } from './cookies.ts';
import { cannotDriveMessage, FieldsNotFoundError, mapPage, placeByElimination, type PageKind, type UnmatchedOption } from './discovery.ts';
import { chooseOption, describeOptions, pageValues, paymentValues, type Option } from './fields.ts';
import { bare, outcomeOf, payableOrigins, readScreen, timed } from './form.ts';
import type { CardPayment, FieldName, FieldNames, Submission, OptionValues, PageInput, Payer, PaymentOutcome, Screen, ScreenForm } from './types.ts';

const maxRedirects = 10;

type Stop = (url: string) => boolean;
type Navigation = { ex: Exchange; url: string } | { redirect: PaymentOutcome & { kind: 'redirect' } };

/** Where a payment ends: the receiver's prefix, or what the caller's stopWhen accepts. */
export function stopOf(payment: { redirectPrefix?: string | undefined; stopWhen?: Stop | undefined }): Stop {
  return (url) => (payment.redirectPrefix !== undefined && url.startsWith(payment.redirectPrefix)) || payment.stopWhen?.(url) === true;
}

/** What each screen's submission sent (kept for resubmitScreen; the screen object is the key, as the test holds it). */
export const submissions = new WeakMap<Screen, Submission>();

export function noFormMessage(screen: Pick<Screen, 'url' | 'status' | 'estado'>): string {
  return `the screen at ${bare(screen.url)} (status ${screen.status}${screen.estado ? `, "${screen.estado}"` : ''}) shows no form the suite can fill`;
}

export class HttpPayer implements Payer {
  readonly #http: Http;
  /** SCREEN_FIELD_NAMES as set: it overrides what discovery finds on each page (harness/payer/discovery.ts). */
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
  async #send(jar: CookieJar, method: 'GET' | 'POST', url: string, form: Record<string, string> | undefined, label: string, submission: boolean): Promise<Exchange> {
    const cookie = jar.header(url);
    const ex = await this.#http.request({
      method,
      url,
      headers: cookie ? { cookie } : {},
      ...(form ? { form } : {}),
      idempotent: method === 'GET' && !submission,
      label,
    });
    jar.store(url, ex.response?.headers['set-cookie']);
    return ex;
  }

  /**
   * Sends a request and follows redirects as a browser does (303/301/302 → GET), stopping at a Location that
   * `stop` accepts. Returns the last exchange, or the redirect outcome.
   */
  async #navigate(jar: CookieJar, method: 'GET' | 'POST', url: string, form: Record<string, string> | undefined, stop: Stop | undefined, label: string, submission = false): Promise<Navigation> {
    const visited = [url];
    let ex = await this.#send(jar, method, url, form, label, submission);
    let current = url;
    for (;;) {
      const res = ex.response!;
      const location = header(res, 'location');
      if (res.status < 300 || res.status > 399 || location === undefined) return { ex, url: current };
      const next = new URL(location, current).href;
      if (stop?.(next)) {
        noteStep({ kind: 'redirect', title: `redirect caught by the payer (not followed): ${res.status} to ${next}` });
        return { redirect: { kind: 'redirect', location: next, params: Object.fromEntries(new URL(next).searchParams) } };
      }
      if ((res.status === 307 || res.status === 308) && ex.request.method === 'POST') {
        throw new PayerError(`${bare(current)} answered ${res.status} to the payment POST, asking to send it again to ${bare(next)}; a payment is never re-sent`);
      }
      if (visited.length > maxRedirects) {
        const loop = visited.includes(next) ? `a redirect loop (${bare(next)} repeats)` : `more than ${maxRedirects} redirects`;
        throw new PayerError(`${loop} starting at ${bare(url)}: ${[...visited.slice(0, 4), '…', next].map(bare).join(' → ')}`);
      }
      visited.push(next);
      current = next;
      ex = await this.#send(jar, 'GET', next, undefined, `${label} (redirect)`, false);
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
   * answer other than a refusal marks the screen's origin as one whose pages this payer drives (payableOrigins).
   */
  async #submit(jar: CookieJar, screen: Screen & { form: ScreenForm }, fields: Record<string, string>, stop: Stop, label: string, openedAt: number): Promise<PaymentOutcome> {
    const { form } = screen;
    const submittedAt = Date.now();
    const url = form.method === 'POST' ? form.action : withQuery(form.action, fields);
    const cookie = jar.header(url);
    submissions.set(screen, {
      method: form.method,
      url,
      ...(form.method === 'POST' ? { body: new URLSearchParams(fields).toString() } : {}),
      headers: { ...(form.method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(cookie ? { cookie } : {}) },
    });
    const result =
      form.method === 'POST'
        ? await this.#navigate(jar, 'POST', form.action, fields, stop, label, true)
        : await this.#navigate(jar, 'GET', withQuery(form.action, fields), undefined, stop, label, true);
    const outcome = timed('redirect' in result ? result.redirect : outcomeOf(this.#read(result.ex, result.url), form), openedAt, submittedAt);
    if (outcome.kind !== 'refused') payableOrigins.add(screen.url);
    return outcome;
  }

  /**
   * Opens a screen; a redirect that `stop` accepts, an error status, or a page without a form (its words of
   * refusal, else no form at all: PAYER=auto then tries the browser) is the outcome itself, timed.
   */
  async #screenWithForm(jar: CookieJar, url: string, stop: Stop): Promise<{ screen: Screen & { form: ScreenForm; openedAt: number } } | { outcome: PaymentOutcome }> {
    const openedAt = Date.now();
    const result = await this.#navigate(jar, 'GET', url, undefined, stop, 'hosted screen');
    if ('redirect' in result) return { outcome: timed(result.redirect, openedAt) };
    const screen = this.#read(result.ex, result.url);
    if (screen.status >= 400 || !screen.form) return { outcome: timed(outcomeOf(screen), openedAt) };
    return { screen: { ...screen, openedAt } as Screen & { form: ScreenForm; openedAt: number } };
  }

  /** The form's fields with the payment entered as a customer would; `forged` set whether or not the screen shows them. */
  #filled(screen: Screen & { form: ScreenForm }, payment: CardPayment, forged: Partial<Record<FieldName, string>> = {}): Record<string, string> {
    const { form } = screen;
    const fields = { ...form.fields };
    const values = paymentValues(payment);
    const mapping = placeByElimination(mapPage(screen.html, this.#configured, 'link screen'), values.map(([field]) => field), (name) => name in fields);
    const names = mapping.names;
    // Every field the page cannot take is named at once: those not found, and the options that mean none of the values.
    const missing = values.filter(([field]) => !(names[field] in fields)).map(([field]) => field);
    const unmatched: UnmatchedOption[] = [];
    const chosen: [string, string][] = [];
    for (const [field, value] of values) {
      const name = names[field];
      if (!(name in fields)) continue;
      const options = optionsOf(form, name);
      const pick = options ? chooseOption(field, value, options, this.#optionValues) : value;
      if (pick === undefined) unmatched.push({ field, target: name, value, offered: describeOptions(options!) });
      else chosen.push([name, pick]);
    }
    if (missing.length > 0 || unmatched.length > 0) throw new FieldsNotFoundError(cannotDriveMessage(`the payment screen at ${bare(screen.url)}`, missing, unmatched, mapping));
    for (const [name, value] of chosen) fields[name] = value;
    for (const [field, value] of Object.entries(forged)) if (value !== undefined) fields[names[field as FieldName]] = value;
    return fields;
  }

  /** A 3DS or quick-pay page's fields with the card entered where the page asks for it (the spec does not say what it asks). */
  #filledPage(screen: Screen & { form: ScreenForm }, card: PageInput | undefined, kind: PageKind): Record<string, string> {
    const names = mapPage(screen.html, this.#configured, kind).names;
    const fields = { ...screen.form.fields };
    for (const [field, value] of pageValues(card)) {
      if (!(names[field] in fields)) continue;
      const options = optionsOf(screen.form, names[field]);
      fields[names[field]] = (options && chooseOption(field, value, options, this.#optionValues)) ?? value;
    }
    const challenge = card?.codigoDesafio;
    if (challenge && names.codigoDesafio in fields) {
      // A code the page shows is read from it; a selector that matches nothing leaves the field as the page has it.
      const code = 'code' in challenge ? challenge.code : shownText(screen.html, challenge.shownIn);
      if (code !== undefined) fields[names.codigoDesafio] = code;
    }
    return fields;
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
    return this.#submit(jar, opened.screen, this.#filled(opened.screen, payment), stop, 'pay link', opened.screen.openedAt);
  }

  /** A screen opened earlier: an error status or words of refusal are its outcome; a page with no form at all cannot be submitted (NoFormError). */
  async submitScreen(screen: Screen, payment: CardPayment, forged?: Partial<Record<FieldName, string>>): Promise<PaymentOutcome> {
    const openedAt = screen.openedAt ?? Date.now();
    if (!screen.form || screen.status >= 400) {
      const outcome = outcomeOf(screen);
      if (outcome.kind === 'refused' && outcome.by !== 'no-form') return timed(outcome, openedAt);
      throw new NoFormError(noFormMessage(screen));
    }
    const withForm = screen as Screen & { form: ScreenForm };
    return this.#submit(this.#jars.get(screen) ?? new CookieJar(), withForm, this.#filled(withForm, payment, forged), stopOf(payment), 'pay link (screen opened earlier)', openedAt);
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
      label: 'the same payment sent again (a replay the test asks for)',
    });
    const res = ex.response!;
    const location = header(res, 'location');
    if (res.status >= 300 && res.status <= 399 && location !== undefined) {
      const next = new URL(location, submission.url).href;
      if (stop(next)) return timed({ kind: 'redirect', location: next, params: Object.fromEntries(new URL(next).searchParams) }, sentAt, sentAt);
      return timed({ kind: 'page', status: res.status, html: '', text: `a redirect to ${bare(next)}` }, sentAt, sentAt);
    }
    return timed(outcomeOf(this.#read(ex, submission.url)), sentAt, sentAt);
  }

  async complete3ds(urlCompletarPago3Ds: string, { redirectPrefix, card }: { redirectPrefix: string; card?: PageInput }): Promise<PaymentOutcome> {
    const stop = stopOf({ redirectPrefix });
    const jar = new CookieJar();
    const opened = await this.#screenWithForm(jar, urlCompletarPago3Ds, stop);
    if ('outcome' in opened) return opened.outcome;
    return this.#submit(jar, opened.screen, this.#filledPage(opened.screen, card, '3DS page'), stop, 'complete 3DS', opened.screen.openedAt);
  }

  async payQuickPay(urlQR: string, options: { redirectPrefix?: string; card?: PageInput } = {}): Promise<PaymentOutcome> {
    const page = await this.quickPayPage(urlQR);
    const stop = stopOf(options);
    const jar = new CookieJar();
    const opened = await this.#screenWithForm(jar, page, stop);
    if ('outcome' in opened) return opened.outcome;
    return this.#submit(jar, opened.screen, this.#filledPage(opened.screen, options.card, 'quick-pay page'), stop, 'pay quick-pay', opened.screen.openedAt);
  }

  /** The page a quick-pay QR leads to: the PNG fetched and decoded. */
  async quickPayPage(urlQR: string): Promise<string> {
    const image = await this.fetchImage(urlQR);
    if (image.status < 200 || image.status > 299 || !image.isPng) {
      throw new PayerError(`the quick-pay QR at ${urlQR} is not a PNG image the suite can decode (status ${image.status}, ${image.contentType || 'no content type'})`);
    }
    const qr = decodeQrPng(image.bytes);
    if (qr.text === undefined) throw new PayerError(`the quick-pay QR at ${urlQR} could not be read: ${qr.reason}`);
    return new URL(qr.text, urlQR).href;
  }
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
