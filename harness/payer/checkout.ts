/**
 * The checkout loop, once for both payers: a page filled is pressed, its answer read, and — where the answer is the
 * checkout's next step (a form that is not the same one again, with a button a person presses to go on) — that page
 * is filled with what it asks that the payment has and pressed in turn, up to MAX_STEPS pages. Every transcript line
 * of a checkout's steps is written here, so both payers tell the same story; a driver (http.ts, browser.ts) only
 * sends, presses and reads.
 */
import { PayerError } from './errors.ts';
import { noteStep } from '../record/transcript.ts';
import { bare, outcomeOf, timed, type PayableOrigins } from './form.ts';
import { answerable, goOnButton, headingOf, leftEmpty, MAX_STEPS } from './steps.ts';
import type { CardPayment, PageInput, PaymentOutcome, Screen, ScreenForm } from './types.ts';
import type { PageKind } from './field-mapping.ts';

/** What a checkout's pages are filled with: a link payment, or the card (and challenge) a 3DS or quick-pay page may ask. */
export type StepInput = { payment: CardPayment } | { card: PageInput | undefined; kind: PageKind };

/** A page of the checkout ready to press: its URL, the form it submits (as read), its HTML, and the driver's own handle. */
export interface CheckoutStep<H> {
  url: string;
  form: ScreenForm;
  html: string;
  handle: H;
}

/** The page that answered a press; `quiet`: the driver saw only some change, no answer (the message if it shows the same form). */
export interface Answer<H> {
  screen: Screen;
  handle: H;
  quiet?: string;
}

/** What a payer's driver does for the loop: what is left empty, one press, the next step filled. Waits, cookies and frames are its own. */
export interface CheckoutDriver<H> {
  /** What the driver says was not done when a page cannot be completed ("nothing was sent"). */
  readonly nothingDone: string;
  /** The inputs of the page as it will be sent that are left empty. */
  empty(step: CheckoutStep<H>): Promise<ReadonlySet<string>>;
  /** Presses the page's control once (the step number names it in the transcript): the outcome caught, or the page that answered. */
  press(step: CheckoutStep<H>, n: number): Promise<{ caught: PaymentOutcome } | { answer: Answer<H> }>;
  /** Fills a next-step page with what it asks that the input has; returns it ready to press, what was filled and the control's words. */
  next(
    answer: Answer<H> & { screen: Screen & { form: ScreenForm } },
    input: StepInput,
  ): Promise<{ step: CheckoutStep<H>; filled: string[]; pressed: string }>;
  /** A result page's link back to the merchant carrying the outcome, where the driver follows such links (undefined: none). */
  resultLink?(answer: Screen): string | undefined;
}

/**
 * Presses `first` and follows the checkout to its outcome, timed from `openedAt`. An answer other than a refusal
 * marks the screen's origin (`origin`, the URL first opened) as one whose pages this payer drives (`payable`).
 */
export async function checkout<H>(
  driver: CheckoutDriver<H>,
  first: CheckoutStep<H>,
  run: { input: StepInput; openedAt: number; origin: string; payable: PayableOrigins },
): Promise<PaymentOutcome> {
  const submittedAt = Date.now();
  const done = (outcome: PaymentOutcome): PaymentOutcome => timed(outcome, run.openedAt, submittedAt);
  let current = first;
  for (let n = 1; ; n++) {
    const empty = await driver.empty(current);
    answerable(current.form, empty, bare(current.url), driver.nothingDone);
    const pressed = await driver.press(current, n);
    if ('caught' in pressed) {
      run.payable.add(run.origin);
      return done(pressed.caught);
    }
    const { answer } = pressed;
    const outcome = outcomeOf(answer.screen, current.form);
    if (outcome.kind === 'refused') leftEmpty(outcome, current.form, empty, current.html, answer.screen.html);
    // The same form after a wait that saw no answer (only some other change) is no refusal: nothing was answered.
    if (answer.quiet !== undefined && outcome.kind === 'refused' && outcome.by === 'form-again') throw new PayerError(answer.quiet);
    if (outcome.kind !== 'refused') run.payable.add(run.origin);
    if (outcome.kind !== 'page') return done(outcome);
    const form = answer.screen.form;
    if (form === undefined || goOnButton(form) === undefined) {
      // A result page whose link back to the merchant carries the outcome: a person follows it.
      const back = driver.resultLink?.(answer.screen);
      if (back === undefined) return done(outcome);
      noteStep({
        kind: 'redirect',
        title: `the page after the payment links to the merchant with the outcome: followed as a person would (not fetched): ${back}`,
      });
      return done({ kind: 'redirect', location: back, params: Object.fromEntries(new URL(back).searchParams) });
    }
    if (n >= MAX_STEPS) {
      noteStep({
        kind: 'page',
        title: `checkout step ${n + 1} not taken: a checkout of more than ${MAX_STEPS} steps (a loop, or pages the payer misreads)`,
      });
      return done(outcome);
    }
    const next = await driver.next({ ...answer, screen: { ...answer.screen, form } }, run.input);
    noteStep({
      kind: 'page',
      title:
        `checkout step ${n + 1}: "${headingOf(answer.screen.html) || '(no heading)'}" — ` +
        `${next.filled.length > 0 ? `filled ${next.filled.join(', ')}` : 'nothing to fill'}; pressed "${next.pressed}"`,
    });
    current = next.step;
  }
}
