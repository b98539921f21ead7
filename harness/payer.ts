/**
 * Pays hosted screens as a browser would (spec 4.1 urlEnlace, 4.3 urlCompletarPago3Ds, 4.6 urlQR): a cookie jar,
 * redirects followed (at most 10), HTML parsed with node-html-parser, hidden fields kept, inputs filled by name,
 * select options picked. Every request goes through the harness http, so it is recorded and redacted.
 *
 *   const payer = createPayer({ http });
 *   const outcome = await payer.payLink(urlEnlace, { numeroTarjeta, cvv, mesVencimiento: 12, anioVencimiento: 2030,
 *     redirectPrefix: receiver.redirectUrl() });
 *   if (outcome.kind === 'redirect') outcome.params.hash;   // the redirect itself is never fetched
 *
 * Field names default to the sandbox's screen (docs/decisions.md); a vendor's screen may differ: pass `fieldNames`.
 * The payment POST is sent once and never re-sent (not even on a 307/308).
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
}

/** Names of the payment screen's fields, by the spec's vocabulary. */
export type FieldNames = Record<
  'numeroTarjeta' | 'cvv' | 'mesVencimiento' | 'anioVencimiento' | 'nombreTitular' | 'email' | 'formaPago' | 'cuotas' | 'cantidad' | 'monto',
  string
>;

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
  complete3ds(urlCompletarPago3Ds: string, options: { redirectPrefix: string }): Promise<PaymentOutcome>;
  payQuickPay(urlQR: string, options?: { redirectPrefix?: string }): Promise<PaymentOutcome>;
  fetchImage(url: string): Promise<{ status: number; contentType: string; isPng: boolean; bytes: Buffer }>;
}

const maxRedirects = 10;

export function createPayer(options: { http: Http; fieldNames?: Partial<FieldNames> }): Payer {
  const { http } = options;
  const names: FieldNames = { ...defaultFieldNames, ...options.fieldNames };
  const jar = new CookieJar();

  async function send(method: 'GET' | 'POST', url: string, form: Record<string, string> | undefined, label: string): Promise<Exchange> {
    const cookie = jar.header(url);
    const ex = await http.request({
      method,
      url,
      headers: cookie ? { cookie } : {},
      ...(form ? { form } : {}),
      // A payment form is never sent twice; GETs of screens may be retried by http.
      idempotent: method === 'GET',
      label,
    });
    jar.store(url, ex.response?.headers['set-cookie']);
    return ex;
  }

  /**
   * Sends a request and follows redirects as a browser does (303/301/302 → GET), stopping at a Location that
   * starts with redirectPrefix. Returns the last exchange, or the redirect outcome.
   */
  async function navigate(
    method: 'GET' | 'POST',
    url: string,
    form: Record<string, string> | undefined,
    redirectPrefix: string | undefined,
    label: string,
  ): Promise<{ ex: Exchange; url: string } | { redirect: PaymentOutcome & { kind: 'redirect' } }> {
    const visited = [url];
    let ex = await send(method, url, form, label);
    let current = url;
    for (;;) {
      const res = ex.response!;
      const location = header(res, 'location');
      if (res.status < 300 || res.status > 399 || location === undefined) return { ex, url: current };
      const next = new URL(location, current).href;
      if (redirectPrefix !== undefined && next.startsWith(redirectPrefix)) {
        return { redirect: { kind: 'redirect', location: next, params: Object.fromEntries(new URL(next).searchParams) } };
      }
      if ((res.status === 307 || res.status === 308) && ex.request.method === 'POST') {
        throw new PayerError(`${current} answered ${res.status} to the payment POST, asking to send it again to ${next}; a payment is never re-sent`);
      }
      if (visited.length > maxRedirects) {
        const loop = visited.includes(next) ? `a redirect loop (${next} repeats)` : `more than ${maxRedirects} redirects`;
        throw new PayerError(`${loop} starting at ${url}: ${[...visited.slice(0, 4), '…', next].join(' → ')}`);
      }
      visited.push(next);
      current = next;
      ex = await send('GET', next, undefined, `${label} (redirect)`);
    }
  }

  async function openScreen(url: string): Promise<Screen> {
    const result = await navigate('GET', url, undefined, undefined, 'hosted screen');
    if ('redirect' in result) throw new PayerError(`unexpected redirect outcome while opening ${url}`);
    return readScreen(result.ex, result.url);
  }

  /** Submits a screen's form and turns the answer into an outcome. */
  async function submit(form: ScreenForm, fields: Record<string, string>, redirectPrefix: string | undefined, label: string): Promise<PaymentOutcome> {
    const result =
      form.method === 'POST'
        ? await navigate('POST', form.action, fields, redirectPrefix, label)
        : await navigate('GET', withQuery(form.action, fields), undefined, redirectPrefix, label);
    if ('redirect' in result) return result.redirect;
    return outcomeOf(readScreen(result.ex, result.url));
  }

  /** Opens a screen; a redirect to the prefix, a 4xx or a page without a form is the outcome itself. */
  async function screenWithForm(url: string, redirectPrefix: string | undefined): Promise<{ form: ScreenForm } | { outcome: PaymentOutcome }> {
    const result = await navigate('GET', url, undefined, redirectPrefix, 'hosted screen');
    if ('redirect' in result) return { outcome: result.redirect };
    const screen = readScreen(result.ex, result.url);
    if (screen.status >= 400 || !screen.form) return { outcome: outcomeOf(screen) };
    return { form: screen.form };
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
      const opened = await screenWithForm(urlEnlace, payment.redirectPrefix);
      if ('outcome' in opened) return opened.outcome;
      const { form } = opened;
      const fields = { ...form.fields };
      const fill = (field: keyof FieldNames, value: string | number | undefined) => {
        if (value === undefined) return;
        const name = names[field];
        const options = form.selects[name];
        if (!(name in fields)) {
          throw new PayerError(`the payment screen at ${urlEnlace} has no field "${name}" (${field}), so a customer could not enter it`);
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
      return submit(form, fields, payment.redirectPrefix, 'pay link');
    },

    async complete3ds(urlCompletarPago3Ds, { redirectPrefix }) {
      const opened = await screenWithForm(urlCompletarPago3Ds, redirectPrefix);
      if ('outcome' in opened) return opened.outcome;
      return submit(opened.form, opened.form.fields, redirectPrefix, 'complete 3DS');
    },

    async payQuickPay(urlQR, quickPayOptions = {}) {
      const image = await fetchImage(urlQR);
      if (image.status !== 200 || !image.isPng) {
        throw new PayerError(`the quick-pay QR at ${urlQR} is not a PNG image (status ${image.status}, ${image.contentType || 'no content type'})`);
      }
      const text = decodeQrPng(image.bytes);
      if (text === undefined) throw new PayerError(`the PNG at ${urlQR} holds no readable QR code`);
      const opened = await screenWithForm(new URL(text, urlQR).href, quickPayOptions.redirectPrefix);
      if ('outcome' in opened) return opened.outcome;
      return submit(opened.form, opened.form.fields, quickPayOptions.redirectPrefix, 'pay quick-pay');
    },

    fetchImage,
  };
}

function outcomeOf(screen: Screen): PaymentOutcome {
  const base = { status: screen.status, html: screen.html, ...(screen.estado === undefined ? {} : { estado: screen.estado }) };
  return screen.status >= 400 && screen.status <= 499 ? { kind: 'refused', ...base } : { kind: 'page', ...base };
}

function withQuery(action: string, fields: Record<string, string>): string {
  const u = new URL(action);
  u.search = new URLSearchParams(fields).toString();
  return u.href;
}

function readScreen(ex: Exchange, url: string): Screen {
  const res = ex.response!;
  const html = res.bodyText;
  const root = parse(html);
  const estado = root.querySelector('#estado')?.text.trim();
  const formElement = root.querySelector('form#pago') ?? root.querySelector('form');
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
