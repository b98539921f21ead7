/**
 * Requests with a JSON body (7): each operation's endpoint, the positive control (a valid request accepted in this
 * run), rejections judged beside it, echoes of what was sent, and the security checks.
 */
import { defaultContext, getAt, type Body, type BodyContext, type RuleEntry } from '../../generators/requests.ts';
import { paymentLinkMinimal, purchase3ds, purchaseMposBanda, purchaseQuickPay, purchaseWallet } from '../../generators/bodies.ts';
import {
  bodyOf,
  type CheckName,
  type ClauseTestSpec,
  describeExchange,
  echoed,
  type Exchange,
  fail,
  field,
  type Need,
  notAccepted,
  PURCHASE_OPERATIONS,
  readInt,
  readResponse,
  rejected,
  type TestHandle,
} from '../../harness/index.ts';
import { activate } from './links.ts';
import { datosAdicionales } from './purchases.ts';
import { businessIdOf } from './tokens.ts';

/** `METHOD /path` of the spec for the operations that take a JSON body (clauseTest's endpoint). */
export const BODY_ENDPOINTS: Record<string, string> = {
  createPaymentLink: 'POST /EnlacePago',
  purchase3ds: 'POST /TransaccionCompra/3DS',
  purchaseWallet: 'POST /TransaccionCompra/Wallet',
  purchasePagoQr: 'POST /TransaccionCompra/PagoQr',
  purchaseQuickPay: 'POST /TransaccionCompra/Quick-pay',
  purchaseMposBanda: 'POST /TransaccionCompra/Mpos/Banda',
};

/**
 * The spec of a test that sends bodies of one operation and judges whether they are accepted (validation rules,
 * properties): its endpoint, purchase flag and needs.
 */
export function bodyTestSpec(on: { operationId: string; auth?: string }, clauses: string[], needs: Need[] = []): ClauseTestSpec {
  const all: Need[] = [...(on.auth === 'account' || on.operationId === 'purchasePagoQr' ? (['account'] as const) : []), ...needs];
  // MPOS purchases need the business's additional permission (4.7); a business without it refuses every body.
  if (on.operationId === 'purchaseMposBanda') all.push('mposPermission');
  return {
    clauses,
    endpoint: BODY_ENDPOINTS[on.operationId]!,
    purchase: PURCHASE_OPERATIONS.has(on.operationId),
    ...(all.length > 0 ? { needs: all } : {}),
  };
}

/** The run's data for generated bodies (generators/requests.ts); the business id (an account names it in MPOS) only when asked. */
export async function bodyContext(t: TestHandle, withBusinessId = false): Promise<BodyContext> {
  const idAplicativo = withBusinessId ? await businessIdOf(t) : defaultContext.idAplicativo;
  return { ...defaultContext, testData: t.run.config.testData, idAplicativo, now: new Date() };
}

/**
 * The positive control of a rejection test: "X is rejected" says something only where the same operation accepts a
 * valid request in this run (a route that is not there rejects everything). One accepted already counts; else the
 * operation's canonical valid request is sent, once per run. Where it is not accepted either, the test is not judged.
 */
export async function acceptsValid(t: TestHandle, operationId: string): Promise<void> {
  if (t.run.accepted.has(operationId)) return;
  const status = await t.run.accepted.control(operationId, () => sendValid(t, operationId));
  if (status >= 200 && status < 300) return;
  // A rate limiter or an unavailable service processed nothing: no verdict on the operation either way.
  if (status === 429 || status === 503) {
    t.skip(
      'rate-limited',
      `not checked: the target answered ${status} to ${operationId}'s canonical valid request (the positive control of a ` +
        'rejection), so it processed nothing; run again with fewer requests at once or when the target is up',
    );
  }
  t.skip(
    'no-positive-control',
    `${operationId} accepted no request in this run, and its canonical valid request answered ${status || 'nothing'}: ` +
      `a rejection says nothing where nothing is accepted; the operation's own tests report why (is API_BASE_URL the ` +
      `API's base, with its path?)`,
  );
}

/** The canonical valid request of a body operation, sent as the test's own step (its label says why). */
async function sendValid(t: TestHandle, operationId: string): Promise<Exchange> {
  const label = `${operationId}: its canonical valid request (the positive control of a rejection)`;
  const { testData } = t.run.config;
  // Its own pairs: a request of its own, never the same body another test sends (no replay of anyone's purchase).
  const own = { datosAdicionales: datosAdicionales('control') };
  switch (operationId) {
    case 'createPaymentLink':
      return t.call(operationId, { json: paymentLinkMinimal(), label });
    case 'purchase3ds':
      return t.call(operationId, { json: purchase3ds((await t.run.receiver()).redirectUrl('control'), testData, own), label });
    case 'purchaseWallet':
      return t.call(operationId, { json: purchaseWallet(testData, own), label });
    case 'purchaseQuickPay':
      return t.call(operationId, { json: purchaseQuickPay(own), auth: 'bearer', label });
    case 'purchaseMposBanda':
      return t.call(operationId, { json: purchaseMposBanda(testData, own), auth: 'bearer', label });
    case 'purchasePagoQr': {
      const link = await t.call('createPaymentLink', { json: paymentLinkMinimal(), label: 'a link for the positive control of PagoQr' });
      const url = field(link.response?.json, 'urlEnlace');
      return t.call(operationId, { json: { urlEnlacePago: typeof url === 'string' ? url : '', ...own }, auth: 'account', label });
    }
    case 'activatePaymentLink': {
      const link = await t.call('createPaymentLink', { json: paymentLinkMinimal(), label: 'a link for the positive control of activar' });
      return t.call(operationId, { pathParams: { id: String(field(link.response?.json, 'idEnlace') ?? '') }, label });
    }
    case 'getTransaction': {
      const wallet = await t.call('purchaseWallet', {
        json: purchaseWallet(testData, own),
        label: 'a purchase for the positive control of the lookup',
      });
      return t.call(operationId, {
        pathParams: { id: String(field(wallet.response?.json, 'idTransaccion') ?? '') },
        auth: 'bearer',
        label,
      });
    }
    default:
      throw new Error(`no canonical valid request for ${operationId}`);
  }
}

/** A request the rule says is rejected, judged after its positive control (acceptsValid). */
export async function rejectedWhereValidAccepted(
  t: TestHandle,
  ex: Exchange,
  operationId: string,
  clauses: string[],
  rule: string,
): Promise<void> {
  const status = ex.response?.status ?? 0;
  // A 429 processed nothing: the test ends not checked, as any test that met one.
  if (status >= 400 && status <= 499 && status !== 429) await acceptsValid(t, operationId);
  rejected(ex, clauses, rule);
}

/** A request the spec says is not accepted (a refusal: no token, a wrong password…), judged after its positive control. */
export async function notAcceptedWhereValidAccepted(
  t: TestHandle,
  ex: Exchange,
  operationId: string,
  clauses: string | string[],
  what: string,
): Promise<void> {
  const status = ex.response?.status ?? 0;
  if ((status < 200 || status > 299) && status !== 429 && status !== 503) await acceptsValid(t, operationId);
  notAccepted(ex, clauses, what);
}

/** POSTs a body as the business (bearer), or as the account where the endpoint (4.5) or the rule (4.7 idAplicativo) wants it. */
export function sendBody(t: TestHandle, operationId: string, body: unknown, auth?: 'account'): Promise<Exchange> {
  return t.call(operationId, { json: body, auth: auth ?? (operationId === 'purchasePagoQr' ? 'account' : 'bearer') });
}

/** The fields of an accepted body come back as sent, in the success response or in the link record (activar: needs the account). */
export async function echoedBack(
  t: TestHandle,
  entry: Pick<RuleEntry, 'echo'>,
  sent: Body,
  accepted: Exchange,
  clauses: string[],
): Promise<void> {
  if (!entry.echo) return;
  bodyOf(accepted, clauses);
  // read as the contract types it (the label is the operationId): an encoding is the contract testcase's finding
  const operationId = accepted.label ?? '';
  let shown: unknown =
    operationId in t.run.contract.operations ? readResponse(t.run.contract, operationId, accepted) : accepted.response?.json;
  let ex = accepted;
  if (entry.echo.in === 'record') ({ ex, record: shown } = await activate(t, readInt(shown, 'idEnlace', '4.1-response-fields', accepted)));
  for (const field of entry.echo.fields) {
    const value = getAt(sent, field);
    // a field sent as null (a notification target) may come back null or absent: only values are compared
    if (value !== undefined && value !== null) echoed(getAt(shown, field), value, field.slice(1), clauses, ex);
  }
}

/**
 * A security check, its severity chosen here (not a spec clause): FAIL with SECURITY_CHECKS=fail, else a WARN with the
 * same evidence. Returns whether the rule held, so a test stops after a WARN as it would after a FAIL.
 */
export function securityCheck(
  t: TestHandle,
  condition: boolean,
  check: CheckName,
  clause: string,
  expected: string,
  actual: string,
  ex?: Exchange,
): boolean {
  if (condition) return true;
  if (t.run.config.securityChecks === 'fail') fail(check, clause, expected, actual, ex);
  t.observe(
    clause,
    `security check failed (SECURITY_CHECKS=observe, so not failed): expected ${expected}; actual ` +
      `${actual}${ex ? `\n${describeExchange(ex)}` : ''}`,
  );
  return false;
}
