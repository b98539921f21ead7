/**
 * Pays hosted screens as a browser would (spec 4.1 urlEnlace, 4.3 urlCompletarPago3Ds, 4.6 urlQR): a cookie jar,
 * redirects followed (at most 10), HTML parsed with node-html-parser, hidden fields kept, inputs filled by name,
 * select options picked. Every request goes through the harness http, so it is recorded and redacted.
 *
 *   const payer = createPayer({ http });
 *   const outcome = await payer.payLink(urlEnlace, { numeroTarjeta, cvv, mesVencimiento: 12, anioVencimiento: 2030,
 *     redirectPrefix: receiver.redirectUrl() });
 *   if (outcome.kind === 'redirect') outcome.params.hash;   // the redirect itself is never fetched
 *   const screen = await payer.openScreen(urlEnlace);           // … time passes (validity tests) …
 *   await payer.submitScreen(screen, payment, { monto: '1.00' }); // a field a customer could forge
 *
 * Field names default to the sandbox's screen (docs/decisions.md); a vendor's screen may differ: pass `fieldNames`
 * (SCREEN_FIELD_NAMES). A form submission is sent once and never re-sent, whatever its method (not even on a
 * 307/308): it is a payment.
 */
import { parse, type HTMLElement } from 'node-html-parser';
import { PayerError } from './errors.ts';
import { header, type Exchange, type Http } from './http.ts';
import { decodeQrPng, isPng } from './qr.ts';

export type PaymentOutcome =
  | { kind: 'redirect'; location: string; params: Record<string, string> }
  | { kind: 'refused'; status: number; estado?: string; html: string }
  | { kind: 'page'; status: number; estado?: string; html: string };

export interface ScreenForm {
  /** Absolute URL the form submits to. */
  action: string;
  method: 'GET' | 'POST';
  /** Current values, hidden fields included. */
  fields: Record<string, string>;
  /** Option values of each select. */
  selects: Record<string, string[]>;
}

export interface Screen {
  status: number;
  /** Final URL after redirects. */
  url: string;
  html: string;
  form?: ScreenForm;
  /** Text of #estado. */
  estado?: string;
}

export interface CardPayment {
  numeroTarjeta: string;
  cvv: string;
  mesVencimiento: number | string;
  anioVencimiento: number | string;
  nombreTitular?: string;
  email?: string;
  formaPago?: number | string;
  cuotas?: number | string;
  cantidad?: number | string;
  monto?: number | string;
  /** A 3xx to a URL starting with this is the outcome (its query), and is not fetched. */
  redirectPrefix: string;
  /** Also the outcome: a 3xx to a URL this accepts (e.g. the first one leaving the screen's origin). */
  stopWhen?: (url: string) => boolean;
}

/** Fields by the spec's vocabulary. */
export type FieldName = 'numeroTarjeta' | 'cvv' | 'mesVencimiento' | 'anioVencimiento' | 'nombreTitular' | 'email' | 'formaPago' | 'cuotas' | 'cantidad' | 'monto';

/** Names of the payment screen's fields, by the spec's vocabulary. */
export type FieldNames = Record<FieldName, string>;

export const defaultFieldNames: FieldNames = {
  numeroTarjeta: 'numeroTarjeta',
  cvv: 'cvv',
  mesVencimiento: 'mesVencimiento',
  anioVencimiento: 'anioVencimiento',
  nombreTitular: 'nombreTitular',
  email: 'email',
  formaPago: 'formaPago',
  cuotas: 'cuotas',
  cantidad: 'cantidad',
  monto: 'monto',
};

export interface Payer {
  openScreen(url: string): Promise<Screen>;
  payLink(urlEnlace: string, payment: CardPayment): Promise<PaymentOutcome>;
  /**
   * Pays a screen opened earlier (openScreen), as its browser would; `forged` fields are sent whether or not the
   * screen shows them (what a customer could forge). Throws PayerError when the screen has no form.
   */
  submitScreen(screen: Screen, payment: CardPayment, forged?: Partial<Record<FieldName, string>>): Promise<PaymentOutcome>;
  complete3ds(urlCompletarPago3Ds: string, options: { redirectPrefix: string }): Promise<PaymentOutcome>;
  payQuickPay(urlQR: string, options?: { redirectPrefix?: string }): Promise<PaymentOutcome>;
  fetchImage(url: string): Promise<{ status: number; contentType: string; isPng: boolean; bytes: Buffer }>;
}

const maxRedirects = 10;

export function createPayer(options: { http: Http; fieldNames?: Partial<FieldNames> }): Payer {
  const { http } = options;
  const names: FieldNames = { ...defaultFieldNames, ...options.fieldNames };
  const jar = new CookieJar();

  /** `submission`: a form sent by the customer — a payment, never retried by http whatever its method. */
  async function send(method: 'GET' | 'POST', url: string, form: Record<string, string> | undefined, label: string, submission: boolean): Promise<Exchange> {
    const cookie = jar.header(url);
    const ex = await http.request({
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
  async function navigate(
    method: 'GET' | 'POST',
    url: string,
    form: Record<string, string> | undefined,
    stop: ((url: string) => boolean) | undefined,
    label: string,
    submission = false,
  ): Promise<{ ex: Exchange; url: string } | { redirect: PaymentOutcome & { kind: 'redirect' } }> {
    const visited = [url];
    let ex = await send(method, url, form, label, submission);
    let current = url;
    for (;;) {
      const res = ex.response!;
      const location = header(res, 'location');
      if (res.status < 300 || res.status > 399 || location === undefined) return { ex, url: current };
      const next = new URL(location, current).href;
      if (stop?.(next)) {
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
      ex = await send('GET', next, undefined, `${label} (redirect)`, false);
    }
  }

  /** Where a payment ends: the receiver's prefix, or what the caller's stopWhen accepts. */
  const stopOf = (payment: { redirectPrefix?: string | undefined; stopWhen?: ((url: string) => boolean) | undefined }) =>
    (url: string) => (payment.redirectPrefix !== undefined && url.startsWith(payment.redirectPrefix)) || payment.stopWhen?.(url) === true;

  async function openScreen(url: string): Promise<Screen> {
    const result = await navigate('GET', url, undefined, undefined, 'hosted screen');
    if ('redirect' in result) throw new PayerError(`unexpected redirect outcome while opening ${url}`);
    return readScreen(result.ex, result.url, names);
  }

  /** Submits a screen's form (once: it is a payment) and turns the answer into an outcome. */
  async function submit(form: ScreenForm, fields: Record<string, string>, stop: (url: string) => boolean, label: string): Promise<PaymentOutcome> {
    const result =
      form.method === 'POST'
        ? await navigate('POST', form.action, fields, stop, label, true)
        : await navigate('GET', withQuery(form.action, fields), undefined, stop, label, true);
    if ('redirect' in result) return result.redirect;
    return outcomeOf(readScreen(result.ex, result.url, names));
  }

  /**
   * Opens a screen; a redirect that `stop` accepts or an error status is the outcome itself. A page that shows no
   * form cannot be paid by the suite (e.g. a screen that needs JavaScript): PayerError.
   */
  async function screenWithForm(url: string, stop: (url: string) => boolean): Promise<{ form: ScreenForm } | { outcome: PaymentOutcome }> {
    const result = await navigate('GET', url, undefined, stop, 'hosted screen');
    if ('redirect' in result) return { outcome: result.redirect };
    const screen = readScreen(result.ex, result.url, names);
    if (screen.status >= 400) return { outcome: outcomeOf(screen) };
    if (!screen.form) throw new PayerError(`the screen at ${bare(screen.url)} (status ${screen.status}${screen.estado ? `, "${screen.estado}"` : ''}) shows no form the suite can fill`);
    return { form: screen.form };
  }

  /** The form's fields with the payment entered as a customer would; `forged` set whether or not the screen shows them. */
  function filled(form: ScreenForm, where: string, payment: CardPayment, forged: Partial<Record<FieldName, string>> = {}): Record<string, string> {
    const fields = { ...form.fields };
    const fill = (field: FieldName, value: string | number | undefined) => {
      if (value === undefined) return;
      const name = names[field];
      const options = form.selects[name];
      if (!(name in fields)) {
        throw new PayerError(`the payment screen at ${where} has no field "${name}" (${field}), so a customer could not enter it`);
      }
      if (options && !options.includes(String(value))) {
        throw new PayerError(`the payment screen offers ${name} ${options.join(', ') || '(no option)'}, not ${value}`);
      }
      fields[name] = String(value);
    };
    fill('numeroTarjeta', payment.numeroTarjeta);
    fill('cvv', payment.cvv);
    fill('mesVencimiento', payment.mesVencimiento);
    fill('anioVencimiento', payment.anioVencimiento);
    fill('nombreTitular', payment.nombreTitular);
    fill('email', payment.email);
    fill('formaPago', payment.formaPago);
    fill('cuotas', payment.cuotas);
    fill('cantidad', payment.cantidad);
    fill('monto', payment.monto);
    for (const [field, value] of Object.entries(forged)) if (value !== undefined) fields[names[field as FieldName]] = value;
    return fields;
  }

  async function fetchImage(url: string): Promise<{ status: number; contentType: string; isPng: boolean; bytes: Buffer }> {
    const result = await navigate('GET', url, undefined, undefined, 'QR image');
    if ('redirect' in result) throw new PayerError(`unexpected redirect outcome while fetching ${url}`);
    const res = result.ex.response!;
    const bytes = res.bytes ?? Buffer.alloc(0);
    return { status: res.status, contentType: res.contentType, isPng: isPng(bytes), bytes };
  }

  return {
    openScreen,

    async payLink(urlEnlace, payment) {
      const stop = stopOf(payment);
      const opened = await screenWithForm(urlEnlace, stop);
      if ('outcome' in opened) return opened.outcome;
      return submit(opened.form, filled(opened.form, urlEnlace, payment), stop, 'pay link');
    },

    async submitScreen(screen, payment, forged) {
      if (!screen.form) throw new PayerError(`the screen at ${bare(screen.url)} (status ${screen.status}${screen.estado ? `, "${screen.estado}"` : ''}) shows no form the suite can fill`);
      return submit(screen.form, filled(screen.form, screen.url, payment, forged), stopOf(payment), 'pay link (screen opened earlier)');
    },

    async complete3ds(urlCompletarPago3Ds, { redirectPrefix }) {
      const stop = stopOf({ redirectPrefix });
      const opened = await screenWithForm(urlCompletarPago3Ds, stop);
      if ('outcome' in opened) return opened.outcome;
      return submit(opened.form, opened.form.fields, stop, 'complete 3DS');
    },

    async payQuickPay(urlQR, quickPayOptions = {}) {
      const image = await fetchImage(urlQR);
      if (image.status < 200 || image.status > 299 || !image.isPng) {
        throw new PayerError(`the quick-pay QR at ${urlQR} is not a PNG image the suite can decode (status ${image.status}, ${image.contentType || 'no content type'})`);
      }
      const qr = decodeQrPng(image.bytes);
      if (qr.text === undefined) throw new PayerError(`the quick-pay QR at ${urlQR} could not be read: ${qr.reason}`);
      const stop = stopOf(quickPayOptions);
      const opened = await screenWithForm(new URL(qr.text, urlQR).href, stop);
      if ('outcome' in opened) return opened.outcome;
      return submit(opened.form, opened.form.fields, stop, 'pay quick-pay');
    },

    fetchImage,
  };
}

function outcomeOf(screen: Screen): PaymentOutcome {
  const base = { status: screen.status, html: screen.html, ...(screen.estado === undefined ? {} : { estado: screen.estado }) };
  return screen.status >= 400 && screen.status <= 499 ? { kind: 'refused', ...base } : { kind: 'page', ...base };
}

/** A URL without its query, for messages: a GET form's query holds the card. */
function bare(url: string): string {
  return url.replace(/[?#].*$/, '');
}

function withQuery(action: string, fields: Record<string, string>): string {
  const u = new URL(action);
  u.search = new URLSearchParams(fields).toString();
  return u.href;
}

/** The page as the payer reads it; its form is the one holding the card-number field, else the first one. */
function readScreen(ex: Exchange, url: string, names: FieldNames): Screen {
  const res = ex.response!;
  const html = res.bodyText;
  const root = parse(html);
  const estado = root.querySelector('#estado')?.text.trim();
  const forms = root.querySelectorAll('form');
  const formElement = forms.find((f) => f.querySelectorAll('[name]').some((el) => el.getAttribute('name') === names.numeroTarjeta)) ?? forms[0];
  return {
    status: res.status,
    url,
    html,
    ...(formElement ? { form: readForm(formElement, url) } : {}),
    ...(estado === undefined ? {} : { estado }),
  };
}

/** The form as a browser would submit it untouched (the first submit button counts as clicked). */
function readForm(form: HTMLElement, pageUrl: string): ScreenForm {
  const fields: Record<string, string> = {};
  const selects: Record<string, string[]> = {};
  let clicked = false;
  for (const el of form.querySelectorAll('input, select, textarea, button')) {
    const name = el.getAttribute('name');
    if (!name || el.hasAttribute('disabled')) continue;
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') ?? (tag === 'button' ? 'submit' : 'text')).toLowerCase();
    if (tag === 'select') {
      const options = el.querySelectorAll('option');
      selects[name] = options.map((o) => o.getAttribute('value') ?? o.text.trim());
      const chosen = options.find((o) => o.hasAttribute('selected')) ?? options[0];
      if (chosen) fields[name] = chosen.getAttribute('value') ?? chosen.text.trim();
    } else if (tag === 'textarea') {
      fields[name] = el.text;
    } else if (type === 'submit' || type === 'image') {
      if (!clicked) fields[name] = el.getAttribute('value') ?? '';
      clicked = true;
    } else if (type === 'checkbox' || type === 'radio') {
      if (el.hasAttribute('checked')) fields[name] = el.getAttribute('value') ?? 'on';
    } else if (type !== 'button' && type !== 'reset' && type !== 'file') {
      fields[name] = el.getAttribute('value') ?? '';
    }
  }
  const method = (form.getAttribute('method') ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET';
  return { action: new URL(form.getAttribute('action') || pageUrl, pageUrl).href, method, fields, selects };
}

interface Cookie {
  name: string;
  value: string;
  domain: string;
  hostOnly: boolean;
  path: string;
  expires?: number;
}

/** Just enough of RFC 6265 for hosted screens: domain, path, expiry. */
class CookieJar {
  #cookies: Cookie[] = [];

  store(url: string, setCookie: string | string[] | undefined): void {
    if (setCookie === undefined) return;
    const u = new URL(url);
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = {
        name: pair.slice(0, eq).trim(),
        value: pair.slice(eq + 1).trim(),
        domain: u.hostname,
        hostOnly: true,
        path: u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1) || '/',
      };
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const value = rest.join('=').trim();
        const k = key.trim().toLowerCase();
        if (k === 'path' && value.startsWith('/')) cookie.path = value;
        else if (k === 'domain' && value) {
          cookie.domain = value.replace(/^\./, '').toLowerCase();
          cookie.hostOnly = false;
        } else if (k === 'max-age' && /^-?\d+$/.test(value)) cookie.expires = Date.now() + Number(value) * 1000;
        else if (k === 'expires' && cookie.expires === undefined && !Number.isNaN(Date.parse(value))) cookie.expires = Date.parse(value);
      }
      this.#cookies = this.#cookies.filter((c) => !(c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path));
      if (cookie.expires === undefined || cookie.expires > Date.now()) this.#cookies.push(cookie);
    }
  }

  header(url: string): string | undefined {
    const u = new URL(url);
    const now = Date.now();
    this.#cookies = this.#cookies.filter((c) => c.expires === undefined || c.expires > now);
    const matching = this.#cookies.filter(
      (c) =>
        (c.hostOnly ? u.hostname === c.domain : u.hostname === c.domain || u.hostname.endsWith(`.${c.domain}`)) &&
        (u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
    );
    return matching.length === 0 ? undefined : matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }
}
