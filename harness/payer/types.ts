/**
 * What every payer (HTTP, browser, auto) takes and returns, so the suites never know which one paid a screen.
 * Field names are the spec's vocabulary; SCREEN_FIELD_NAMES maps them to a vendor screen's input names or CSS
 * selectors (see fieldTarget).
 */
export type PaymentOutcome =
  | { kind: 'redirect'; location: string; params: Record<string, string>; settled?: Settled; timing?: Timing }
  | Refusal
  | { kind: 'page'; status: number; estado?: string; html: string; text: string; settled?: Settled; timing?: Timing };

/**
 * The outcome of a redirect that does not say it (no esAprobada: a deviation of 6.3 judged once, by its own test),
 * learnt from the source of truth instead: the transaction lookup (4.8). `esAprobada` is 'true' or 'false'.
 */
export interface Settled {
  esAprobada: 'true' | 'false';
  from: 'lookup';
  /** The transaction looked up (a page's outcome: the purchase the page paid, or the id the page shows). */
  idTransaccion?: string;
}

/**
 * When the payer did what (epoch ms), so a verdict can tell the suite's own lateness from the target's answer:
 * the page requested, the payment sent (form posted, submit clicked; absent when nothing was submitted), the answer.
 */
export interface Timing {
  openedAt: number;
  submittedAt?: number;
  answeredAt: number;
}

/**
 * A hosted page that did not take the payment. `by` says how it refused: `status` an error status (4xx/5xx) on
 * opening or submitting; `form-again` the same form shown again after a submission (it refused what was entered);
 * `words` a page with no payment form whose text says it refuses ("no disponible", "expired"…); `no-form` a page
 * with no way to pay and no such words (a refusal only if the payer can read this target's pages: payableSeen).
 * `text` is what the page says (its error or status text, card data masked), so a report names the page's answer.
 */
export interface Refusal {
  kind: 'refused';
  status: number;
  estado?: string;
  html: string;
  text: string;
  /** What the page refused: being opened, or the payer's submission (`formAgain`: answered with the same form). */
  answered: 'opening' | 'submission';
  by: 'status' | 'form-again' | 'words' | 'no-form';
  formAgain?: boolean;
  /**
   * by 'no-form' only: this process already drove (filled and submitted) a payable screen of the same origin, so
   * the payer reads this target's pages and a page without a form is the target refusing, not the payer's limit.
   */
  payableSeen?: boolean;
  timing?: Timing;
}

export interface ScreenForm {
  /** Absolute URL the form submits to. */
  action: string;
  method: 'GET' | 'POST';
  /** Current values, hidden fields included. */
  fields: Record<string, string>;
  /** Option values of each select. */
  selects: Record<string, string[]>;
  /** Option texts of each select, parallel to selects (an option matched by what it says: chooseOption). */
  optionTexts: Record<string, string[]>;
  /** Radio groups among `selects` (a choice entered by checking one, not by a value typed). */
  radios?: string[];
  /** Names of the inputs a customer fills (not hidden, not buttons): tells the same form shown again from a next step. */
  visible?: string[];
  /** Text inputs left empty: what each asks (its label, aria-label, placeholder), for the details a person types. */
  asked?: Record<string, string>;
  /** Text inputs the page marks required (required, aria-required). */
  required?: string[];
  /** Checkboxes not ticked: what each says (its label) and the value it submits when ticked. */
  checkboxes?: { name: string; value: string; text: string }[];
  /** The form's submit buttons in page order: what each says, and what it submits when pressed. */
  buttons?: { name?: string; value: string; text: string }[];
}

export interface Screen {
  status: number;
  /** Final URL after redirects. */
  url: string;
  html: string;
  form?: ScreenForm;
  /** Text of #estado. */
  estado?: string;
  /** When the payer requested it (epoch ms): a later payment's (opened-screen, opened-page) timing.openedAt. */
  openedAt?: number;
  /** Set by the payer that read it: this run had already paid a payable page of its origin (memory.ts). */
  payableSeen?: boolean;
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

/**
 * What a 3DS or quick-pay page may ask for (the spec does not say): the card of the purchase, and the answer to a
 * challenge. Each is entered only where the page shows its field.
 */
export interface PageInput {
  /** The answer to the page's challenge (field codigoDesafio): SCREEN_CHALLENGE_CODE. */
  codigoDesafio?: ChallengeCode;
  numeroTarjeta?: string;
  cvv?: string;
  mesVencimiento?: number | string;
  anioVencimiento?: number | string;
  nombreTitular?: string;
  email?: string;
}

/**
 * What a 3DS test page's challenge expects (SCREEN_CHALLENGE_CODE): a fixed code a vendor documents, or the code the
 * page itself shows (as issuers' test pages do), read from the element a CSS selector names.
 */
export type ChallengeCode = { code: string } | { shownIn: string };

/** Fields by the spec's vocabulary (codigoDesafio: the answer to a 3DS page's challenge). */
export type FieldName =
  | 'numeroTarjeta'
  | 'cvv'
  | 'mesVencimiento'
  | 'anioVencimiento'
  | 'nombreTitular'
  | 'email'
  | 'formaPago'
  | 'cuotas'
  | 'cantidad'
  | 'monto'
  | 'codigoDesafio';

/**
 * SCREEN_OPTION_VALUES: per field, the suite's value → the page's option value (`{"formaPago":{"0":"TC"}}`), tried
 * before an option is matched by meaning.
 */
export type OptionValues = Partial<Record<FieldName, Record<string, string>>>;

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
  codigoDesafio: 'codigoDesafio',
};

/**
 * A payment, by what it pays: each kind opens (or takes) its page, fills it and presses it once, and finishes what
 * follows (a review page, a challenge) up to the outcome.
 */
export type PaymentInput =
  /** Opens the payment screen of a link (4.1 urlEnlace) and pays it with the card. */
  | { kind: 'link'; url: string; payment: CardPayment }
  /**
   * Pays a screen opened earlier (openScreen), as its browser would; `forged` fields are sent whether or not the
   * screen shows them (what a customer could forge). Throws PayerError when the screen has no form.
   */
  | { kind: 'opened-screen'; screen: Screen; payment: CardPayment; forged?: Partial<Record<FieldName, string>> }
  /** Completes the 3DS page (4.3 urlCompletarPago3Ds); `card` fills the card fields it shows (if any), as the payer's browser would. */
  | { kind: '3ds'; url: string; redirectPrefix: string; card?: PageInput }
  /** Pays the quick-pay page a QR leads to (4.6 urlQR, the image); `card` fills the card fields it shows (if any). */
  | { kind: 'quick-pay'; url: string; redirectPrefix?: string; card?: PageInput }
  /**
   * Submits a 3DS or quick-pay page opened earlier (openScreen), filled where it asks (the card, a code it shows, a
   * question agreed to) with its cookies, as its browser would when the customer pays later than it was shown: the
   * door a page's form is, tried after a limit. Steps that follow are finished as a quick-pay payment finishes them.
   */
  | {
      kind: 'opened-page';
      screen: Screen;
      card?: PageInput;
      redirectPrefix?: string;
      stopWhen?: (url: string) => boolean;
    };

/** The kinds of payment (PaymentInput), and the one a payment of kind K is. */
export type PaymentKind = PaymentInput['kind'];
export type PaymentOf<K extends PaymentKind> = Extract<PaymentInput, { kind: K }>;

export interface Payer {
  openScreen(url: string): Promise<Screen>;
  /** Pays: a link, a screen opened earlier, a 3DS page, a quick-pay QR, a page opened earlier (PaymentInput). */
  pay(input: PaymentInput): Promise<PaymentOutcome>;
  /**
   * Sends the submission of a screen paid earlier (an `opened-screen` payment) once more, exactly as it went (its
   * fields, its cookies), as a customer's double click or a browser's resend does: a replay the test asks for, its
   * own step in the transcript, never something a payer does by itself. The answer is the outcome (redirects not
   * followed).
   */
  resubmitScreen(screen: Screen, stop: { redirectPrefix?: string; stopWhen?: (url: string) => boolean }): Promise<PaymentOutcome>;
  fetchImage(url: string): Promise<{ status: number; contentType: string; isPng: boolean; bytes: Buffer }>;
  /**
   * Where the screen's control whose words mean `meaning` leads (the back button and urlRetorno, a cancel, a continue),
   * as a customer pressing it finds out: pressed where a script drives it, its href read where that is all there is.
   * `notFound`: no such control (what was looked for and what the screen shows), a test not judged, never a FAIL.
   * Optional: a payer without it leaves such checks to what the page's HTML says.
   */
  follow?(screen: Screen, meaning: 'back' | 'cancel' | 'go-on'): Promise<Followed>;
}

/**
 * Where a control leads (`url`, the first navigation it starts, not fetched off the screen's origin; `control`: its
 * words), or why none was found.
 */
export type Followed = { url: string; control?: string } | { notFound: string };

/** A payment as it was sent (kept in memory only, for resubmitScreen: it holds what the customer typed). */
export interface Submission {
  method: string;
  url: string;
  body?: string;
  headers: Record<string, string>;
}

/** The payers of PAYER: http parses HTML forms, browser drives headless Chromium, auto = browser only when http cannot. */
export type PayerKind = 'http' | 'browser' | 'auto';
