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
import { checkout, type CheckoutDriver, type StepInput } from './checkout.ts';
import { FieldsNotFoundError, mapPage, type PageKind } from './field-mapping.ts';
import { pageValues, paymentValues } from './fields.ts';
import { bare, outcomeOf, readScreen, timed } from './form.ts';
import type { PayerMemory } from './memory.ts';
import { plan, type Plan, type Policy } from './plan.ts';
import { meansGoOn, meansLeave, metaRefresh } from './steps.ts';
import type {
  CardPayment,
  FieldName,
  FieldNames,
  Followed,
  Submission,
  OptionValues,
  PageInput,
  Payer,
  PaymentInput,
  PaymentOutcome,
  Screen,
  ScreenForm,
} from './types.ts';

const maxRedirects = 10;

type Stop = (url: string) => boolean;
type Navigation = { ex: Exchange; url: string } | { redirect: PaymentOutcome & { kind: 'redirect' } };

/** Where a payment ends: the receiver's prefix, or what the caller's stopWhen accepts. */
export function stopOf(payment: { redirectPrefix?: string | undefined; stopWhen?: Stop | undefined }): Stop {
  return (url) => (payment.redirectPrefix !== undefined && url.startsWith(payment.redirectPrefix)) || payment.stopWhen?.(url) === true;
}

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
  /** What the run's payer learned (shared with the browser payer under PAYER=auto). */
  readonly memory: PayerMemory;

  constructor(options: {
    http: Http;
    memory: PayerMemory;
    fieldNames?: Partial<FieldNames> | Record<string, string>;
    optionValues?: OptionValues;
  }) {
    this.#http = options.http;
    this.memory = options.memory;
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
    const screen = readScreen(ex, url, mapPage(ex.response!.bodyText, this.#configured).names);
    return this.memory.payable.has(url) ? { ...screen, payableSeen: true } : screen;
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
   * Submits a page's planned fields (once: it is a payment) and follows the checkout (checkout.ts) to its outcome,
   * timed from `openedAt`, with the screen's cookies.
   */
  #checkout(
    jar: CookieJar,
    screen: Screen & { form: ScreenForm },
    fields: Record<string, string>,
    stop: Stop,
    label: string,
    openedAt: number,
    input: StepInput,
  ): Promise<PaymentOutcome> {
    const driver: CheckoutDriver<Record<string, string>> = {
      nothingDone: 'nothing was sent',
      empty: async (step) => new Set(Object.keys(step.handle).filter((name) => step.handle[name] === '')),
      press: async (step, n) => {
        const sent = step.handle;
        this.#remember(jar, screen, step.form, sent);
        const url = step.form.method === 'POST' ? step.form.action : withQuery(step.form.action, sent);
        const result = await this.#navigate(
          jar,
          step.form.method,
          url,
          step.form.method === 'POST' ? sent : undefined,
          stop,
          n === 1 ? label : `${label}: step ${n}`,
          true,
        );
        if ('redirect' in result) return { caught: result.redirect };
        return { answer: { screen: this.#read(result.ex, result.url), handle: {} } };
      },
      next: async (answer, stepInput) => {
        const page = answer.screen;
        const planned = this.#plan(page, stepInput, 'payment' in stepInput ? 'link screen' : stepInput.kind, 'lenient');
        return {
          step: { url: page.url, form: page.form, html: page.html, handle: planned.fields },
          filled: planned.entries.map((e) => e.says),
          pressed: planned.press!,
        };
      },
      resultLink: (answer) => linkTo(answer.html, answer.url, stop),
    };
    return checkout(
      driver,
      { url: screen.url, form: screen.form, html: screen.html, handle: fields },
      { input, openedAt, origin: screen.url, payable: this.memory.payable },
    );
  }

  /** What a submission sent, kept for resubmitScreen (the last step's: pressing confirm again is what a double click does). */
  #remember(jar: CookieJar, screen: Screen, form: ScreenForm, fields: Record<string, string>): void {
    const url = form.method === 'POST' ? form.action : withQuery(form.action, fields);
    const cookie = jar.header(url);
    this.memory.submissions.set(screen, {
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

  /**
   * The plan of a page (plan.ts) for `input`: strict on a payment screen (every field of the payment, or
   * FieldsNotFoundError naming what the page lacks), lenient on a 3DS, quick-pay or next-step page. The page's
   * mapping is recorded as the run's for `kind`.
   */
  #plan(
    page: Screen & { form: ScreenForm },
    input: StepInput,
    kind: PageKind,
    policy: Policy,
    forged?: Partial<Record<FieldName, string>>,
  ): Plan {
    const mapping = mapPage(page.html, this.#configured);
    this.memory.fields.record(kind, mapping);
    const planned = plan(
      { url: page.url, html: page.html, form: page.form, mapping },
      {
        values: 'payment' in input ? paymentValues(input.payment) : pageValues(input.card),
        challenge: 'payment' in input ? undefined : input.card?.codigoDesafio,
        forged,
        optionValues: this.#optionValues,
      },
      policy,
    );
    if (planned.problems.length > 0) throw new FieldsNotFoundError(planned.problems.join('; '));
    return planned;
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

  /** A payment of any kind (PaymentInput): its page opened or taken, filled, pressed once, what follows finished. */
  pay(input: PaymentInput): Promise<PaymentOutcome> {
    switch (input.kind) {
      case 'link':
        return this.#payLink(input.url, input.payment);
      case 'opened-screen':
        return this.#payOpenedScreen(input.screen, input.payment, input.forged);
      case '3ds':
        return this.#pay3ds(input.url, input);
      case 'quick-pay':
        return this.#payQuickPay(input.url, input);
      case 'opened-page':
        return this.#payOpenedPage(input.screen, input);
    }
  }

  async #payLink(urlEnlace: string, payment: CardPayment): Promise<PaymentOutcome> {
    const stop = stopOf(payment);
    const jar = new CookieJar();
    const opened = await this.#screenWithForm(jar, urlEnlace, stop);
    if ('outcome' in opened) return opened.outcome;
    const fields = this.#plan(opened.screen, { payment }, 'link screen', 'strict').fields;
    return this.#checkout(jar, opened.screen, fields, stop, 'pay link', opened.screen.openedAt, { payment });
  }

  /**
   * A screen opened earlier: an error status or words of refusal are its outcome; a page with no form at all cannot
   * be submitted (NoFormError).
   */
  async #payOpenedScreen(screen: Screen, payment: CardPayment, forged?: Partial<Record<FieldName, string>>): Promise<PaymentOutcome> {
    const openedAt = screen.openedAt ?? Date.now();
    if (!screen.form || screen.status >= 400) {
      const outcome = outcomeOf(screen);
      if (outcome.kind === 'refused' && outcome.by !== 'no-form') return timed(outcome, openedAt);
      throw new NoFormError(noFormMessage(screen));
    }
    const withForm = screen as Screen & { form: ScreenForm };
    return this.#checkout(
      this.#jars.get(screen) ?? new CookieJar(),
      withForm,
      this.#plan(withForm, { payment }, 'link screen', 'strict', forged).fields,
      stopOf(payment),
      'pay link (screen opened earlier)',
      openedAt,
      { payment },
    );
  }

  async #payOpenedPage(
    screen: Screen,
    options: { card?: PageInput; redirectPrefix?: string; stopWhen?: (url: string) => boolean },
  ): Promise<PaymentOutcome> {
    const openedAt = screen.openedAt ?? Date.now();
    if (!screen.form || screen.status >= 400) {
      const outcome = outcomeOf(screen);
      if (outcome.kind === 'refused' && outcome.by !== 'no-form') return timed(outcome, openedAt);
      throw new NoFormError(noFormMessage(screen));
    }
    const page = screen as Screen & { form: ScreenForm };
    const input: StepInput = { card: options.card, kind: 'quick-pay page' };
    const { fields } = this.#plan(page, input, 'quick-pay page', 'lenient');
    return this.#checkout(
      this.#jars.get(screen) ?? new CookieJar(),
      page,
      fields,
      stopOf(options),
      'a page opened earlier',
      openedAt,
      input,
    );
  }

  resubmitScreen(screen: Screen, stop: { redirectPrefix?: string; stopWhen?: (url: string) => boolean }): Promise<PaymentOutcome> {
    const submission = this.memory.submissions.get(screen);
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

  async #pay3ds(
    urlCompletarPago3Ds: string,
    { redirectPrefix, card }: { redirectPrefix: string; card?: PageInput },
  ): Promise<PaymentOutcome> {
    const stop = stopOf({ redirectPrefix });
    const jar = new CookieJar();
    const opened = await this.#screenWithForm(jar, urlCompletarPago3Ds, stop);
    if ('outcome' in opened) return opened.outcome;
    const input: StepInput = { card, kind: '3DS page' };
    const { fields } = this.#plan(opened.screen, input, '3DS page', 'lenient');
    return this.#checkout(jar, opened.screen, fields, stop, 'complete 3DS', opened.screen.openedAt, input);
  }

  async #payQuickPay(urlQR: string, options: { redirectPrefix?: string; card?: PageInput }): Promise<PaymentOutcome> {
    const page = await this.quickPayPage(urlQR);
    const stop = stopOf(options);
    const jar = new CookieJar();
    const opened = await this.#screenWithForm(jar, page, stop);
    if ('outcome' in opened) return opened.outcome;
    const input: StepInput = { card: options.card, kind: 'quick-pay page' };
    const { fields } = this.#plan(opened.screen, input, 'quick-pay page', 'lenient');
    return this.#checkout(jar, opened.screen, fields, stop, 'pay quick-pay', opened.screen.openedAt, input);
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

function withQuery(action: string, fields: Record<string, string>): string {
  const u = new URL(action);
  u.search = new URLSearchParams(fields).toString();
  return u.href;
}
