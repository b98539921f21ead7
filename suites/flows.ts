/**
 * The few multi-step helpers the suites share: create a link, pay it, read it back through activar.
 * Each returns the exchange it made so a check can show it; none asserts anything a test did not ask for.
 */
import type { T } from '../harness/conformance.ts';
import type { Exchange } from '../harness/http.ts';
import type { CardPayment, PaymentOutcome } from '../harness/payer.ts';
import { bodyOf, succeeded } from '../harness/checks.ts';
import { paymentLinkMinimal } from '../generators/bodies.ts';
import type { PaymentLink, PaymentLinkCreateRequest, PaymentLinkCreated } from '../spec/types.ts';

export interface CreatedLink {
  ex: Exchange;
  link: PaymentLinkCreated;
  request: PaymentLinkCreateRequest;
}

/** POST /EnlacePago with the minimal valid body (plus overrides); fails the test unless it succeeds (4.1). */
export async function createLink(t: T, request: PaymentLinkCreateRequest = paymentLinkMinimal()): Promise<CreatedLink> {
  const ex = await t.call('createPaymentLink', { json: request });
  succeeded(ex, '4.1-endpoint', 'creating a payment link');
  return { ex, link: bodyOf(ex, '4.1-response-fields') as unknown as PaymentLinkCreated, request };
}

/** PUT /EnlacePago/{id}/activar: the only way the spec gives to read a link's full record (4.2). */
export async function activate(t: T, idEnlace: number): Promise<{ ex: Exchange; record: PaymentLink }> {
  const ex = await t.call('activatePaymentLink', { pathParams: { id: idEnlace } });
  succeeded(ex, '4.2-endpoint', 'activating the payment link');
  return { ex, record: bodyOf(ex, '2.1-payment-link-types') as unknown as PaymentLink };
}

/** The configured test card, with an expiry in the future, paying to the suite's redirect receiver. */
export async function testCard(t: T, overrides: Partial<CardPayment> = {}): Promise<CardPayment> {
  const receiver = await t.run.receiver();
  const { cardNumber, cvv } = t.run.config.testData;
  return {
    numeroTarjeta: cardNumber,
    cvv,
    mesVencimiento: 1,
    anioVencimiento: new Date().getUTCFullYear() + 3,
    nombreTitular: 'Prueba Conformidad',
    email: 'cliente@example.com',
    redirectPrefix: receiver.redirectUrl(),
    ...overrides,
  };
}

/** The spec's test-mode decline: cvv "111" on the payment screen (spec 7). */
export const DECLINE_CVV = '111';

/** Pays a link on its hosted screen; the link must redirect to the receiver (configuracion.urlRedirect). */
export async function payOnScreen(t: T, urlEnlace: string, overrides: Partial<CardPayment> = {}): Promise<PaymentOutcome> {
  return t.run.payer.payLink(urlEnlace, await testCard(t, overrides));
}

/** A link body whose redirect and webhook point at the suite's receiver, so outcomes can be observed. */
export async function observedLinkBody(t: T, overrides: Partial<PaymentLinkCreateRequest> = {}): Promise<PaymentLinkCreateRequest> {
  const receiver = await t.run.receiver();
  const base = paymentLinkMinimal();
  return {
    ...base,
    ...overrides,
    configuracion: {
      notificarTransaccionCliente: false,
      urlRedirect: receiver.redirectUrl('link'),
      urlWebhook: receiver.webhookUrl('link'),
      ...overrides.configuracion,
    },
  };
}
