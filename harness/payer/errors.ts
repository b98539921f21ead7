/**
 * Errors of the payer: a page it could not go on with as a browser would, a page with no form it can fill, a page
 * that refused what it sent. Messages quote pages by URL, redacted (a GET form's query carries what was typed).
 */
import { redactUrlsIn } from '../record/redact.ts';

/** The payer could not go on as a browser would (no form, redirect loop, missing field). */
export class PayerError extends Error {
  override name = 'PayerError';
  // Its messages quote the pages it was on, whose query may carry what was typed into a screen submitted by GET.
  constructor(message: string, options?: { cause?: unknown }) {
    super(redactUrlsIn(message), options);
  }
}

/**
 * The page shows no form (or not the field) the payer can fill: raised before anything was submitted, so another
 * payer (PAYER=auto: the browser) may still try, and a screen built by JavaScript is told apart from a fault.
 */
export class NoFormError extends PayerError {
  override name = 'NoFormError';
}

/**
 * A hosted page refused what the payer sent (an error status, or its form shown again): the payment a test needed
 * as its premise did not go through, so what follows is not judged. The message names the page's answer.
 */
export class PaymentRefused extends PayerError {
  override name = 'PaymentRefused';
}
