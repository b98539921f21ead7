/**
 * The payer: pays hosted screens as the customer's browser would (spec 4.1 urlEnlace, 4.3 urlCompletarPago3Ds,
 * 4.6 urlQR). PAYER picks how: `http` (default) parses HTML forms (harness/payer/http.ts); `browser` drives
 * headless Chromium, for screens built by JavaScript (harness/payer/browser.ts); `auto` uses the browser only when
 * the HTTP payer finds no form it can fill, before anything was submitted. Every payer returns the same outcomes.
 *
 *   const payer = createPayer({ http });
 *   const payment = { numeroTarjeta, cvv, mesVencimiento: 12, anioVencimiento: 2030, redirectPrefix: receiver.redirectUrl() };
 *   const outcome = await payer.pay({ kind: 'link', url: urlEnlace, payment });
 *   if (outcome.kind === 'redirect') outcome.params.hash;   // the redirect itself is never fetched
 *   const screen = await payer.openScreen(urlEnlace);       // … time passes (validity tests) …
 *   await payer.pay({ kind: 'opened-screen', screen, payment, forged: { monto: '1.00' } }); // a field a customer could forge
 *   await payer.pay({ kind: '3ds', url: urlCompletarPago3Ds, redirectPrefix });  // also: quick-pay (a QR), opened-page
 *
 * Field names default to the sandbox's screen (docs/decisions.md); a vendor's screen may differ: pass `fieldNames`
 * (SCREEN_FIELD_NAMES: input names or CSS selectors). A payment is sent once and never re-sent. The 3DS and quick-pay
 * pages get `card` (and a challenge's answer) wherever they show those fields. A page that refuses what was sent — an
 * error status, or its form shown again — is a `refused` outcome with `answered: 'submission'`, its status and text.
 * A page that refuses being opened — an error status, words of refusal ("no disponible", "expired"), or no form at
 * all — is a `refused` outcome with `answered: 'opening'` and `by` saying which. Select options are picked by what
 * they mean (chooseOption); `optionValues` (SCREEN_OPTION_VALUES) maps the suite's values to a page's options first.
 * Every outcome carries its `timing` (opened, submitted, answered).
 */
import { NoFormError } from './errors.ts';
import type { Http } from '../api/http.ts';
import { BrowserPayer } from './browser.ts';
import { Chromium, DEFAULT_CHROMIUM_PATH, chromiumAvailable, installHint } from './chromium.ts';
import { outcomeOf } from './form.ts';
import { HttpPayer } from './http.ts';
import { PayerMemory } from './memory.ts';
import type { OptionValues, Payer, PayerKind, PaymentKind, PaymentOutcome } from './types.ts';

export type {
  CardPayment,
  FieldName,
  FieldNames,
  OptionValues,
  Payer,
  PayerKind,
  PaymentInput,
  PaymentKind,
  PaymentOutcome,
  Refusal,
  Screen,
  ScreenForm,
  Timing,
} from './types.ts';
export { defaultFieldNames } from './types.ts';
export { chooseOption } from './fields.ts';
export { outcomeOf as outcomeOfPage, refusalWords } from './form.ts';
export { PayerMemory } from './memory.ts';

export interface PayerOptions {
  http: Http;
  /** What the payer learns during the run (memory.ts); default a new one. */
  memory?: PayerMemory;
  fieldNames?: Record<string, string>;
  /** SCREEN_OPTION_VALUES: per field, the suite's value → the page's option value. */
  optionValues?: OptionValues;
  /** PAYER; default http. */
  kind?: PayerKind;
  /** CHROMIUM_PATH; default /usr/bin/chromium. */
  chromiumPath?: string;
  /** The Chromium the browser payer drives; default one of its own at chromiumPath (tests share one). */
  chromium?: Chromium;
  /** Where the browser payer writes screens/ evidence; default reports. */
  reportDir?: string;
  /** Bound of the target's answer to a navigation; default 15 s. */
  timeoutMs?: number;
  /** Bound of each of the browser's own steps (loading, rendering, clicking); default the larger of timeoutMs and 60 s. */
  browserTimeoutMs?: number;
}

export function createPayer(options: PayerOptions): Payer {
  const http = new HttpPayer({ ...options, memory: options.memory ?? new PayerMemory() });
  const kind = options.kind ?? 'http';
  if (kind === 'http') return plain(http);
  const chromiumPath = options.chromiumPath ?? DEFAULT_CHROMIUM_PATH;
  const browser = new BrowserPayer({
    http,
    chromium: options.chromium ?? new Chromium(chromiumPath),
    reportDir: options.reportDir ?? 'reports',
    timeoutMs: options.timeoutMs ?? 15_000,
    ...(options.browserTimeoutMs ? { browserTimeoutMs: options.browserTimeoutMs } : {}),
    ...(options.fieldNames ? { fieldNames: options.fieldNames } : {}),
    ...(options.optionValues ? { optionValues: options.optionValues } : {}),
  });
  return kind === 'browser' ? plain(browser) : autoPayer(http, browser, chromiumPath);
}

/**
 * For callers that judge outcomes without knowing `no-form`: a page with no form and no words of refusal, on an
 * origin where this process never drove a payable screen (payableSeen false), is a page the payer cannot read, never
 * a verdict (neither an expected refusal nor a FAIL): a NoFormError, with the page's text.
 * A `no-form` refusal with payableSeen true is returned as it is.
 */
export function unreadPagesThrow(payer: Payer): Payer {
  return aroundPayments(payer, async (paying, pay) => {
    const what = OPENS[paying];
    const o = await pay();
    if (what !== undefined && o.kind === 'refused' && o.by === 'no-form' && !o.payableSeen) {
      throw new NoFormError(
        `${what}: the page (status ${o.status}${o.estado ? `, "${o.estado}"` : ''}) shows no form the suite can fill, ` +
          `and no payable page of its origin was paid in this run: "${o.text || '(no text)'}"`,
      );
    }
    return o;
  });
}

/** The payments that open their page (so may meet one without a form), and what that page is. */
const OPENS: Partial<Record<Paying, string>> = {
  link: 'the payment screen',
  'opened-screen': 'the payment screen',
  '3ds': 'the 3DS page',
  'quick-pay': 'the quick-pay page',
};

/** What pays: a payment of each kind (PaymentInput), and a screen's submission sent again (resubmitScreen). */
export const PAYING = ['link', 'opened-screen', '3ds', 'quick-pay', 'opened-page', 'resubmit'] as const satisfies readonly (
  | PaymentKind
  | 'resubmit'
)[];
export type Paying = (typeof PAYING)[number];

/**
 * The one way a payer is wrapped: each payment passed through `around` (its kind, or `resubmit`; the payment to start;
 * the URL of the page it opens where it names one: a link's, a 3DS page's, a QR's), every other method as it is.
 */
export function aroundPayments(
  payer: Payer,
  around: (paying: Paying, pay: () => Promise<PaymentOutcome>, url: string | undefined) => Promise<PaymentOutcome>,
): Payer {
  return {
    ...plain(payer),
    pay: (input) => around(input.kind, () => payer.pay(input), 'url' in input ? input.url : undefined),
    resubmitScreen: (screen, stop) => around('resubmit', () => payer.resubmitScreen(screen, stop), undefined),
  };
}

/** The methods as own properties (callers spread a payer to wrap some of them). */
function plain(payer: Payer): Payer {
  return {
    openScreen: (...a) => payer.openScreen(...a),
    pay: (...a) => payer.pay(...a),
    resubmitScreen: (...a) => payer.resubmitScreen(...a),
    fetchImage: (...a) => payer.fetchImage(...a),
    ...(payer.follow ? { follow: (...a: Parameters<NonNullable<Payer['follow']>>) => payer.follow!(...a) } : {}),
  };
}

/**
 * PAYER=auto: the HTTP payer first; where it finds no form to fill (a page with no form and no words of refusal, or
 * fields it cannot place: NoFormError; both before any submission) the browser pays instead, so nothing is ever
 * paid twice. A control is followed where the screen was opened; one the HTTP payer does not find (a control driven
 * by script has no href) is pressed in the browser.
 */
function autoPayer(http: HttpPayer, browser: BrowserPayer, chromiumPath: string): Payer {
  const orBrowser = async (first: () => Promise<PaymentOutcome>, second: () => Promise<PaymentOutcome>): Promise<PaymentOutcome> => {
    let outcome: PaymentOutcome;
    try {
      outcome = await first();
    } catch (err) {
      if (!(err instanceof NoFormError)) throw err;
      if (!chromiumAvailable(chromiumPath))
        throw new NoFormError(`${err.message}; PAYER=auto would use a browser, but there is ${installHint(chromiumPath)}`);
      return second();
    }
    if (outcome.kind !== 'refused' || outcome.by !== 'no-form') return outcome;
    if (!chromiumAvailable(chromiumPath))
      throw new NoFormError(
        `the page (status ${outcome.status}, "${outcome.text}") shows no form the suite can fill; PAYER=auto would use ` +
          `a browser, but there is ${installHint(chromiumPath)}`,
      );
    return second();
  };
  return {
    async openScreen(url) {
      const screen = await http.openScreen(url);
      const opened = screen.form ? undefined : outcomeOf(screen);
      // A page that says it refuses is read alike by both payers: only a page with no form at all goes to the browser.
      if (screen.form || opened?.kind !== 'refused' || opened.by !== 'no-form' || !chromiumAvailable(chromiumPath)) return screen;
      return browser.openScreen(url);
    },
    // A screen or page opened earlier is paid by the payer that opened it; a URL by the HTTP payer, else the browser.
    pay: (input) =>
      'screen' in input
        ? (browser.owns(input.screen) ? browser : http).pay(input)
        : orBrowser(
            () => http.pay(input),
            () => browser.pay(input),
          ),
    // Each payer keeps the submissions it sent (one shared record, keyed by the screen): either can send one again.
    resubmitScreen: (screen, stop) => http.resubmitScreen(screen, stop),
    fetchImage: (url) => http.fetchImage(url),
    async follow(screen, meaning) {
      if (browser.owns(screen)) return browser.follow(screen, meaning);
      const read = await (http as Payer).follow?.(screen, meaning);
      if (read && 'url' in read) return read;
      return chromiumAvailable(chromiumPath)
        ? browser.follow(screen, meaning)
        : (read ?? { notFound: `where the screen's controls lead needs a browser: there is ${installHint(chromiumPath)}` });
    },
  };
}
