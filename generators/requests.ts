/**
 * Request bodies per operation, as fast-check arbitraries built on generators/bodies.ts:
 *
 *   validBody('purchaseQuickPay')                    // any valid body
 *   violating('createPaymentLink', '4.1-monto-min')  // bodies that break that rule and no other
 *   boundaryValid('purchaseQuickPay', '4.6-idexterno-max-50')   // valid bodies at the rule's edge
 *   catalogue()                                      // every stated rule per operation, with canonical examples
 *
 * A rule id is a clause id of spec/clauses.yaml. Entries of kind `description` (what a value looks like: the ISO
 * codes of 4.3, the card number without spaces) are not rules: a target that takes their violations is observed,
 * never failed (docs/decisions.md, "Severity"). "Breaks no other rule" is checked against the contract by
 * `violatesOnly` (unit tests, and the properties suite before each request and again on a shrunk counterexample).
 * Link bodies carry the identificador LINK_REF; a suite sending them to a target makes it unique first
 * (identificadorEnlaceComercio is "intended to be unique", 4.1), so that the generated values stay reproducible.
 */
import fc from 'fast-check';
import type { Contract, Violation } from '../harness/api/contract.ts';
import type { OperationId } from '../spec/types.ts';
import {
  defaultTestData,
  futureExpiry,
  paymentLinkMinimal,
  purchase3ds,
  purchaseMposBanda,
  purchasePagoQr,
  purchaseQuickPay,
  purchaseWallet,
  type TestData,
  uniqueRef,
} from './bodies.ts';
import {
  invalidLinkAmount,
  nonPositiveAmount,
  notANumber,
  NUMERIC_STRING_AMOUNTS,
  ordinaryAmount,
  positiveAmount,
  validLinkAmount,
} from './amounts.ts';
import { invalidCvv, spacedCardNumber, validCvvFor } from './cards.ts';
import { invalidMonth, NUMERIC_STRING_MONTHS, ordinaryMonth, validMonth } from './dates.ts';
import {
  allFalseFormaPago,
  invalidCuotas,
  NEAR_MISS_CUOTAS,
  onlyFlag,
  partialFormaPago,
  supportedFormaPago,
  validCuotas,
} from './enums.ts';
import { invalidCountry, invalidRegion } from './formats.ts';
import { longText, sampleText, textLongerThan, textWithin } from './strings.ts';

export type Body = Record<string, unknown>;

/** What the bodies need from the run: the TEST_* data, a redirect URL for 3DS, the MPOS business, the date. */
export interface BodyContext {
  testData: TestData;
  /** urlRedirect of a 3DS purchase (4.3). */
  redirectUrl: string;
  /** idAplicativo an account names in an MPOS purchase (4.7). */
  idAplicativo: string;
  now: Date;
}

export const defaultContext: BodyContext = {
  testData: defaultTestData,
  redirectUrl: 'https://merchant.example/gracias',
  idAplicativo: 'app-dev-1',
  now: new Date(),
};

/** The identificadorEnlaceComercio of generated link bodies; replaced by a unique value when sent. */
export const LINK_REF = 'conf-prop-link';
const WEBHOOK_URL = 'https://merchant.example/webhook';
const EMAILS = 'conformance@example.com';

export type RuleOperation = 'createPaymentLink' | 'purchase3ds' | 'purchaseQuickPay' | 'purchaseMposBanda';

export const RULE_IDS = [
  '4.1-monto-min',
  '4.1-identificador-max-500',
  '4.1-nombre-producto-max-500',
  '4.1-formapago-one-true',
  '4.1-formapago-all-fields',
  '4.1-cuotas-enum',
  '4.1-notificar-required',
  '4.1-notification-target',
  '2.4-descripcion-unbounded',
  '4.3-card-fields',
  '4.3-card-formats',
  '4.3-id-pais-iso',
  '4.3-id-region-iso',
  '4.6-monto-positive',
  '4.6-idexterno-max-50',
  '4.7-mes-range',
  '4.7-monto-positive',
  '4.7-idaplicativo-conditional',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export interface Example {
  /** The value in words, for test titles: `monto 0`, `nombreProducto of 500 characters`. */
  label: string;
  body: Body;
}

export interface RuleEntry {
  operationId: RuleOperation;
  rule: RuleId;
  /**
   * The kind of the clause (spec/clauses.yaml): a `rule` the spec states, whose violations are rejected (a target that
   * takes one FAILs), or a `description` of what the value looks like, whose violations are only observed (WARN).
   */
  kind: 'rule' | 'description';
  /** The rule in the spec's words. */
  statement: string;
  /** JSON pointer of the field the rule is about; what a response or the link record may echo. */
  field: string;
  /** The caller that makes the body break the rule: 4.7 idAplicativo is required only of an account. */
  auth?: 'account';
  /** The contract sees the violation in the body alone (false for 4.7 idAplicativo, which depends on the caller). */
  inBody: boolean;
  /** Where an accepted body's fields come back: the success response, or the link record (2.1, read through activar). */
  echo?: { in: 'response' | 'record'; fields: string[] };
  /**
   * Fixed examples: violating ones break the rule under every reading; boundary ones are valid. `nearMiss`: inputs
   * next to the rule where the spec leaves the verdict open (a common server takes them), sent for an observation only.
   */
  canonical: { violating: Example[]; boundary: Example[]; nearMiss?: Example[] };
  /** Absent when the spec states only a freedom (2.4: descripcionProducto is unbounded). */
  violating?: fc.Arbitrary<Body>;
  boundary: fc.Arbitrary<Body>;
}

// --- body editing --------------------------------------------------------------------------------------------

const pointerKeys = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));

/** A copy of `body` with `value` at `pointer` (objects created on the way); `undefined` removes the field. */
export function setAt(body: Body, pointer: string, value: unknown): Body {
  const copy = structuredClone(body);
  const keys = pointerKeys(pointer);
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = node[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as Record<string, unknown>) : {};
  }
  const last = keys.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** The value at a JSON pointer, or undefined. */
export function getAt(body: unknown, pointer: string): unknown {
  let node = body;
  for (const key of pointerKeys(pointer))
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/**
 * The body as a suite sends it to a target: a link's identificadorEnlaceComercio made unique (4.1: "intended to be
 * unique"). LINK_REF becomes a fresh reference; a longer identifier keeps its length in characters, its first ones
 * replaced by the ASCII reference, so that a rule about its length judges it the same. Other bodies are unchanged.
 */
export function withUniqueRef(body: Body): Body {
  const id = body['identificadorEnlaceComercio'];
  if (typeof id !== 'string') return body;
  const ref = uniqueRef('conf');
  if (id === LINK_REF) return { ...body, identificadorEnlaceComercio: ref };
  const chars = [...id];
  return chars.length < ref.length ? body : { ...body, identificadorEnlaceComercio: ref + chars.slice(ref.length).join('') };
}

const withValue = (base: fc.Arbitrary<Body>, pointer: string, value: fc.Arbitrary<unknown>) =>
  fc.tuple(base, value).map(([body, v]) => setAt(body, pointer, v));

// --- valid bodies ----------------------------------------------------------------------------------------------

const notificationTargets: Body[] = [
  { emailsNotificacion: EMAILS },
  { urlWebhook: WEBHOOK_URL },
  { urlWebhook: WEBHOOK_URL, emailsNotificacion: EMAILS },
  { urlWebhook: null, emailsNotificacion: EMAILS },
  { urlWebhook: WEBHOOK_URL, emailsNotificacion: null },
];

const linkConfiguracion: fc.Arbitrary<Body> = fc
  .tuple(fc.constantFrom(...notificationTargets), fc.boolean())
  .map(([target, notificar]) => ({ ...target, notificarTransaccionCliente: notificar }));

function linkBody(): fc.Arbitrary<Body> {
  const optional = fc.record(
    {
      formaPago: supportedFormaPago,
      cantidadMaximaCuotas: validCuotas,
      infoProducto: fc.record({ descripcionProducto: textWithin(1, 200) }),
    },
    { requiredKeys: [] },
  );
  return fc
    .tuple(ordinaryAmount, fc.oneof(fc.constant('Producto de prueba'), textWithin(1, 80)), linkConfiguracion, optional)
    .map(([monto, nombreProducto, configuracion, extra]) => ({
      ...paymentLinkMinimal({ identificadorEnlaceComercio: LINK_REF, monto, nombreProducto }),
      configuracion,
      ...extra,
    }));
}

/** idPais SV, idRegion SV-SS (bodies.ts): which regions a target takes comes from an endpoint the spec does not show. */
function threeDsBody(ctx: BodyContext): fc.Arbitrary<Body> {
  return ordinaryAmount.map((monto) => ({ ...purchase3ds(ctx.redirectUrl, ctx.testData, { monto }) }));
}

function quickPayBody(): fc.Arbitrary<Body> {
  return fc.tuple(ordinaryAmount, textWithin(1, 40)).map(([monto, idExterno]) => ({ ...purchaseQuickPay({ monto, idExterno }) }));
}

/**
 * As the business (idAplicativo taken from the credentials); a year a few years ahead, four digits. Like the other
 * bases, every field keeps away from the edges of the rules, so that a failure points at the rule under test.
 */
function mposBody(ctx: BodyContext): fc.Arbitrary<Body> {
  const { anioVencimiento } = futureExpiry(ctx.now);
  return fc
    .tuple(ordinaryAmount, ordinaryMonth)
    .map(([monto, mesVencimiento]) => ({ ...purchaseMposBanda(ctx.testData, { monto, mesVencimiento, anioVencimiento }) }));
}

/** A valid body of each operation that takes one. PagoQr needs a link's short URL (`urlEnlacePago`). */
export function validBody(
  operationId: OperationId,
  ctx: BodyContext = defaultContext,
  urlEnlacePago = 'https://pay.example/l/abc123',
): fc.Arbitrary<Body> {
  switch (operationId) {
    case 'createPaymentLink':
      return linkBody();
    case 'purchase3ds':
      return threeDsBody(ctx);
    case 'purchaseWallet':
      return fc
        .tuple(ordinaryAmount, textWithin(1, 80))
        .map(([monto, descripcion]) => ({ ...purchaseWallet(ctx.testData, { monto, descripcion, idExterno: 'conf-prop-wallet' }) }));
    case 'purchasePagoQr':
      return fc.constant({ ...purchasePagoQr(urlEnlacePago) });
    case 'purchaseQuickPay':
      return quickPayBody();
    case 'purchaseMposBanda':
      return mposBody(ctx);
    default:
      throw new Error(`${operationId} takes no JSON request body`);
  }
}

// --- the rules --------------------------------------------------------------------------------------------------

/** One fixed valid body per operation, the base of the canonical examples. */
function fixedBody(operationId: RuleOperation, ctx: BodyContext): Body {
  switch (operationId) {
    case 'createPaymentLink':
      return { ...paymentLinkMinimal({ identificadorEnlaceComercio: LINK_REF }) };
    case 'purchase3ds':
      return { ...purchase3ds(ctx.redirectUrl, ctx.testData) };
    case 'purchaseQuickPay':
      return { ...purchaseQuickPay({ idExterno: 'conf-prop-qp' }) };
    case 'purchaseMposBanda':
      return { ...purchaseMposBanda(ctx.testData, { mesVencimiento: 6, anioVencimiento: futureExpiry(ctx.now).anioVencimiento }) };
  }
}

/** Configuraciones with no notification target: both absent or null, other settings present or not. */
const noNotificationTarget = fc
  .tuple(
    fc.constantFrom<Body>({}, { urlWebhook: null }, { emailsNotificacion: null }, { urlWebhook: null, emailsNotificacion: null }),
    fc.boolean(),
    fc.option(fc.constant('50370000000'), { nil: undefined }),
  )
  .map(([target, notificar, telefonos]) => ({
    ...target,
    notificarTransaccionCliente: notificar,
    ...(telefonos === undefined ? {} : { telefonosNotificacion: telefonos }),
  }));

/** Every stated rule of every operation, with the canonical examples and the arbitraries. */
export function catalogue(ctx: BodyContext = defaultContext): RuleEntry[] {
  const link = linkBody();
  const fixedLink = fixedBody('createPaymentLink', ctx);
  const threeDs = threeDsBody(ctx);
  const fixed3ds = fixedBody('purchase3ds', ctx);
  const quickPay = quickPayBody();
  const fixedQuickPay = fixedBody('purchaseQuickPay', ctx);
  const mpos = mposBody(ctx);
  const fixedMpos = fixedBody('purchaseMposBanda', ctx);
  const ex = (label: string, base: Body, pointer: string, value: unknown): Example => ({ label, body: setAt(base, pointer, value) });
  const card = ctx.testData.cardNumber;
  const numericStrings = (base: Body) => NUMERIC_STRING_AMOUNTS.map((m) => ex(`monto "${m}" (a string)`, base, '/monto', m));

  return [
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '4.1-monto-min',
      statement: 'monto is at least 0.01',
      field: '/monto',
      inBody: true,
      echo: { in: 'record', fields: ['/monto'] },
      canonical: {
        violating: [
          ex('monto 0', fixedLink, '/monto', 0),
          ex('monto 0.009', fixedLink, '/monto', 0.009),
          ex('monto "diez" (no number)', fixedLink, '/monto', 'diez'),
        ],
        boundary: [ex('monto 0.01', fixedLink, '/monto', 0.01)],
        nearMiss: numericStrings(fixedLink),
      },
      violating: withValue(link, '/monto', fc.oneof(invalidLinkAmount, notANumber)),
      boundary: withValue(link, '/monto', validLinkAmount),
    },
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '4.1-identificador-max-500',
      statement: 'identificadorEnlaceComercio has at most 500 characters',
      field: '/identificadorEnlaceComercio',
      inBody: true,
      canonical: {
        violating: [ex('identificadorEnlaceComercio of 501 characters', fixedLink, '/identificadorEnlaceComercio', sampleText(501))],
        boundary: [ex('identificadorEnlaceComercio of 500 characters', fixedLink, '/identificadorEnlaceComercio', sampleText(500))],
      },
      violating: withValue(link, '/identificadorEnlaceComercio', textLongerThan(500)),
      // long enough for withUniqueRef to make each one unique when sent
      boundary: withValue(link, '/identificadorEnlaceComercio', textWithin(24, 500)),
    },
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '4.1-nombre-producto-max-500',
      statement: 'nombreProducto has at most 500 characters',
      field: '/nombreProducto',
      inBody: true,
      echo: { in: 'record', fields: ['/nombreProducto'] },
      canonical: {
        violating: [ex('nombreProducto of 501 characters', fixedLink, '/nombreProducto', sampleText(501))],
        boundary: [
          ex('nombreProducto of 500 characters', fixedLink, '/nombreProducto', sampleText(500)),
          ex('nombreProducto of 1 character', fixedLink, '/nombreProducto', 'ñ'),
        ],
      },
      violating: withValue(link, '/nombreProducto', textLongerThan(500)),
      boundary: withValue(link, '/nombreProducto', textWithin(1, 500)),
    },
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '4.1-formapago-one-true',
      statement: 'at least one formaPago flag is true',
      field: '/formaPago',
      inBody: true,
      echo: { in: 'record', fields: ['/formaPago'] },
      canonical: {
        violating: [ex('formaPago with all five flags false', fixedLink, '/formaPago', allFalseFormaPago)],
        boundary: [
          ex('formaPago with only permitirTarjetaCreditoDebido true', fixedLink, '/formaPago', onlyFlag('permitirTarjetaCreditoDebido')),
        ],
      },
      violating: withValue(link, '/formaPago', fc.constant(allFalseFormaPago)),
      boundary: withValue(link, '/formaPago', supportedFormaPago),
    },
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '4.1-formapago-all-fields',
      statement: 'a formaPago sent has all five fields',
      field: '/formaPago',
      inBody: true,
      echo: { in: 'record', fields: ['/formaPago'] },
      canonical: {
        violating: [
          ex('formaPago with only permitirTarjetaCreditoDebido', fixedLink, '/formaPago', { permitirTarjetaCreditoDebido: true }),
        ],
        boundary: [ex('formaPago with all five fields', fixedLink, '/formaPago', onlyFlag('permitirTarjetaCreditoDebido'))],
      },
      violating: withValue(link, '/formaPago', partialFormaPago),
      boundary: withValue(link, '/formaPago', supportedFormaPago),
    },
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '4.1-cuotas-enum',
      statement: 'cantidadMaximaCuotas is Tres, Seis, Nueve or Doce (default account)',
      field: '/cantidadMaximaCuotas',
      inBody: true,
      canonical: {
        violating: [
          ex('cantidadMaximaCuotas "Quince"', fixedLink, '/cantidadMaximaCuotas', 'Quince'),
          ex('cantidadMaximaCuotas true', fixedLink, '/cantidadMaximaCuotas', true),
        ],
        boundary: ['Tres', 'Seis', 'Nueve', 'Doce'].map((c) => ex(`cantidadMaximaCuotas "${c}"`, fixedLink, '/cantidadMaximaCuotas', c)),
        nearMiss: NEAR_MISS_CUOTAS.map((c) => ex(`cantidadMaximaCuotas ${JSON.stringify(c)}`, fixedLink, '/cantidadMaximaCuotas', c)),
      },
      violating: withValue(link, '/cantidadMaximaCuotas', invalidCuotas),
      boundary: withValue(link, '/cantidadMaximaCuotas', validCuotas),
    },
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '4.1-notificar-required',
      statement: 'configuracion.notificarTransaccionCliente is required',
      field: '/configuracion/notificarTransaccionCliente',
      inBody: true,
      echo: { in: 'record', fields: ['/configuracion/notificarTransaccionCliente'] },
      canonical: {
        violating: [
          ex('configuracion without notificarTransaccionCliente', fixedLink, '/configuracion/notificarTransaccionCliente', undefined),
        ],
        boundary: [
          ex('configuracion with notificarTransaccionCliente true', fixedLink, '/configuracion/notificarTransaccionCliente', true),
        ],
      },
      violating: withValue(link, '/configuracion/notificarTransaccionCliente', fc.constant(undefined)),
      boundary: withValue(link, '/configuracion/notificarTransaccionCliente', fc.boolean()),
    },
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '4.1-notification-target',
      statement: 'at least one of urlWebhook and emailsNotificacion is non-null',
      field: '/configuracion',
      inBody: true,
      echo: { in: 'record', fields: ['/configuracion/urlWebhook', '/configuracion/emailsNotificacion'] },
      canonical: {
        violating: [
          ex('configuracion with neither urlWebhook nor emailsNotificacion', fixedLink, '/configuracion', {
            notificarTransaccionCliente: false,
          }),
          ex('configuracion with urlWebhook and emailsNotificacion null', fixedLink, '/configuracion', {
            notificarTransaccionCliente: false,
            urlWebhook: null,
            emailsNotificacion: null,
          }),
        ],
        boundary: [
          ex('configuracion with only urlWebhook (emailsNotificacion null)', fixedLink, '/configuracion', {
            notificarTransaccionCliente: false,
            urlWebhook: WEBHOOK_URL,
            emailsNotificacion: null,
          }),
          ex('configuracion with only emailsNotificacion', fixedLink, '/configuracion', {
            notificarTransaccionCliente: false,
            emailsNotificacion: EMAILS,
          }),
        ],
        // the table marks configuracion optional, yet both notification fields live in it: a target may use the business's
        nearMiss: [ex('a link request without configuracion', fixedLink, '/configuracion', undefined)],
      },
      violating: withValue(link, '/configuracion', noNotificationTarget),
      boundary: withValue(
        link,
        '/configuracion',
        linkConfiguracion.filter((c) => c.urlWebhook == null || c.emailsNotificacion == null),
      ),
    },
    {
      operationId: 'createPaymentLink',
      kind: 'rule',
      rule: '2.4-descripcion-unbounded',
      statement: 'descripcionProducto has no length limit',
      field: '/infoProducto/descripcionProducto',
      inBody: true,
      echo: { in: 'record', fields: ['/infoProducto/descripcionProducto'] },
      canonical: {
        violating: [],
        boundary: [ex('descripcionProducto of 20 000 characters', fixedLink, '/infoProducto/descripcionProducto', sampleText(20_000))],
      },
      boundary: withValue(link, '/infoProducto/descripcionProducto', longText),
    },
    {
      operationId: 'purchase3ds',
      kind: 'rule',
      rule: '4.3-card-fields',
      statement: 'the four card fields are required, mesVencimiento and anioVencimiento ints',
      field: '/tarjetaCreditoDebido',
      inBody: true,
      canonical: {
        violating: [
          ex('card without mesVencimiento', fixed3ds, '/tarjetaCreditoDebido/mesVencimiento', undefined),
          ex('mesVencimiento true (not an int)', fixed3ds, '/tarjetaCreditoDebido/mesVencimiento', true),
        ],
        // the spec's test-mode value 111 (7): a string of digits, so a valid cvv, which 3DS must take
        boundary: [
          ex(
            'a cvv of three digits (four for American Express)',
            fixed3ds,
            '/tarjetaCreditoDebido/cvv',
            /^3[47]/.test(card) ? '1111' : '111',
          ),
        ],
        nearMiss: NUMERIC_STRING_MONTHS.map((m) =>
          ex(`mesVencimiento "${m}" (a string)`, fixed3ds, '/tarjetaCreditoDebido/mesVencimiento', m),
        ),
      },
      violating: fc.oneof(
        fc
          .tuple(threeDs, fc.constantFrom('numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento'))
          .map(([b, f]) => setAt(b, `/tarjetaCreditoDebido/${f}`, undefined)),
        withValue(threeDs, '/tarjetaCreditoDebido/mesVencimiento', fc.constantFrom<unknown>('', 1.5, true)),
        withValue(
          threeDs,
          '/tarjetaCreditoDebido/cvv',
          invalidCvv.filter((c) => typeof c !== 'string'),
        ),
      ),
      boundary: withValue(threeDs, '/tarjetaCreditoDebido/cvv', validCvvFor(card)),
    },
    {
      // "no spaces" and "of digits" describe the values; a server may strip the spaces (docs/decisions.md, "Severity")
      operationId: 'purchase3ds',
      kind: 'description',
      rule: '4.3-card-formats',
      statement: 'numeroTarjeta has no spaces and cvv is a string of digits (described, not a stated rule)',
      field: '/tarjetaCreditoDebido',
      inBody: true,
      canonical: {
        violating: [
          ex('numeroTarjeta with spaces', fixed3ds, '/tarjetaCreditoDebido/numeroTarjeta', card.replace(/(\d{4})(?=\d)/g, '$1 ')),
          ex('cvv with a letter', fixed3ds, '/tarjetaCreditoDebido/cvv', '12a'),
          // Digits with something before or after them: a pattern that forgot an anchor takes these.
          ex('cvv with a letter before its digits', fixed3ds, '/tarjetaCreditoDebido/cvv', 'x123'),
          ex('cvv with a letter after its digits', fixed3ds, '/tarjetaCreditoDebido/cvv', '123x'),
          ex('numeroTarjeta with a space before it', fixed3ds, '/tarjetaCreditoDebido/numeroTarjeta', ` ${card}`),
          ex('numeroTarjeta with a space after it', fixed3ds, '/tarjetaCreditoDebido/numeroTarjeta', `${card} `),
        ],
        boundary: [{ label: 'a card number of digits only and a cvv of digits', body: fixed3ds }],
      },
      violating: fc.oneof(
        withValue(threeDs, '/tarjetaCreditoDebido/numeroTarjeta', spacedCardNumber(card)),
        withValue(
          threeDs,
          '/tarjetaCreditoDebido/cvv',
          invalidCvv.filter((c) => typeof c === 'string'),
        ),
      ),
      boundary: threeDs,
    },
    {
      operationId: 'purchase3ds',
      // 4.3's last column describes the field; section 7 does not list its format among the rules (docs/decisions.md)
      kind: 'description',
      rule: '4.3-id-pais-iso',
      statement: 'idPais is an ISO 3166-1 alpha-2 country code',
      field: '/idPais',
      inBody: true,
      canonical: {
        violating: [
          ex('idPais "SLV" (alpha-3)', fixed3ds, '/idPais', 'SLV'),
          ex('idPais "El Salvador"', fixed3ds, '/idPais', 'El Salvador'),
        ],
        boundary: [{ label: 'idPais "SV" with idRegion "SV-SS"', body: fixed3ds }],
        // ISO writes the codes in capitals; some systems compare them case-blind
        nearMiss: [ex('idPais "sv" (an alpha-2 code in lower case)', fixed3ds, '/idPais', 'sv')],
      },
      violating: withValue(threeDs, '/idPais', invalidCountry),
      boundary: threeDs,
    },
    {
      operationId: 'purchase3ds',
      kind: 'description',
      rule: '4.3-id-region-iso',
      statement: 'idRegion is an ISO 3166-2 region code',
      field: '/idRegion',
      inBody: true,
      canonical: {
        violating: [
          ex('idRegion "San Salvador"', fixed3ds, '/idRegion', 'San Salvador'),
          ex('idRegion "SS" (no country prefix)', fixed3ds, '/idRegion', 'SS'),
          // a code of ISO 3166-2 form followed by more: the subdivision part has at most three characters
          ex('idRegion "SV-SSSS" (four characters after the country)', fixed3ds, '/idRegion', 'SV-SSSS'),
          // a code of ISO 3166-2 form with more before it: a pattern that forgot its start anchor takes it
          ex('idRegion "SLV-SS" (an alpha-3 country before the hyphen)', fixed3ds, '/idRegion', 'SLV-SS'),
        ],
        boundary: [{ label: 'idRegion "SV-SS" with idPais "SV"', body: fixed3ds }],
      },
      violating: withValue(threeDs, '/idRegion', invalidRegion),
      boundary: threeDs,
    },
    {
      operationId: 'purchaseQuickPay',
      kind: 'rule',
      rule: '4.6-monto-positive',
      statement: 'monto is greater than 0',
      field: '/monto',
      inBody: true,
      echo: { in: 'response', fields: ['/monto'] },
      canonical: {
        violating: [ex('monto 0', fixedQuickPay, '/monto', 0), ex('monto -1', fixedQuickPay, '/monto', -1)],
        boundary: [ex('monto 0.01', fixedQuickPay, '/monto', 0.01)],
        nearMiss: numericStrings(fixedQuickPay),
      },
      violating: withValue(quickPay, '/monto', fc.oneof(nonPositiveAmount, notANumber)),
      boundary: withValue(quickPay, '/monto', positiveAmount),
    },
    {
      operationId: 'purchaseQuickPay',
      kind: 'rule',
      rule: '4.6-idexterno-max-50',
      statement: 'idExterno has at most 50 characters',
      field: '/idExterno',
      inBody: true,
      echo: { in: 'response', fields: ['/idExterno'] },
      canonical: {
        violating: [ex('idExterno of 51 characters', fixedQuickPay, '/idExterno', sampleText(51))],
        boundary: [ex('idExterno of 50 characters', fixedQuickPay, '/idExterno', sampleText(50))],
      },
      violating: withValue(quickPay, '/idExterno', textLongerThan(50, 90)),
      boundary: withValue(quickPay, '/idExterno', textWithin(1, 50)),
    },
    {
      operationId: 'purchaseMposBanda',
      kind: 'rule',
      rule: '4.7-mes-range',
      statement: 'mesVencimiento is 1 to 12',
      field: '/mesVencimiento',
      inBody: true,
      canonical: {
        violating: [ex('mesVencimiento 13', fixedMpos, '/mesVencimiento', 13), ex('mesVencimiento 0', fixedMpos, '/mesVencimiento', 0)],
        boundary: [ex('mesVencimiento 12', fixedMpos, '/mesVencimiento', 12), ex('mesVencimiento 1', fixedMpos, '/mesVencimiento', 1)],
        nearMiss: NUMERIC_STRING_MONTHS.map((m) => ex(`mesVencimiento "${m}" (a string)`, fixedMpos, '/mesVencimiento', m)),
      },
      violating: withValue(mpos, '/mesVencimiento', invalidMonth),
      boundary: withValue(mpos, '/mesVencimiento', validMonth),
    },
    {
      operationId: 'purchaseMposBanda',
      kind: 'rule',
      rule: '4.7-monto-positive',
      statement: 'monto is greater than 0',
      field: '/monto',
      inBody: true,
      echo: { in: 'response', fields: ['/monto'] },
      canonical: {
        violating: [ex('monto 0', fixedMpos, '/monto', 0), ex('monto -0.01', fixedMpos, '/monto', -0.01)],
        boundary: [ex('monto 0.01', fixedMpos, '/monto', 0.01)],
        nearMiss: numericStrings(fixedMpos),
      },
      violating: withValue(mpos, '/monto', fc.oneof(nonPositiveAmount, notANumber)),
      boundary: withValue(mpos, '/monto', positiveAmount),
    },
    {
      operationId: 'purchaseMposBanda',
      kind: 'rule',
      rule: '4.7-idaplicativo-conditional',
      statement: 'idAplicativo is required when not logged in as a business',
      field: '/idAplicativo',
      auth: 'account',
      inBody: false,
      canonical: {
        violating: [{ label: 'as the account, without idAplicativo', body: fixedMpos }],
        boundary: [ex('as the account, with the idAplicativo of its business', fixedMpos, '/idAplicativo', ctx.idAplicativo)],
      },
      violating: mpos,
      boundary: withValue(mpos, '/idAplicativo', fc.constant(ctx.idAplicativo)),
    },
  ];
}

function entryOf(operationId: string, ruleId: string, ctx: BodyContext): RuleEntry {
  const entry = catalogue(ctx).find((e) => e.operationId === operationId && e.rule === ruleId);
  if (!entry)
    throw new Error(
      `no rule ${ruleId} for ${operationId}; the catalogue has ${catalogue(ctx)
        .map((e) => `${e.operationId} ${e.rule}`)
        .join(', ')}`,
    );
  return entry;
}

/** Bodies of `operationId` that break rule `ruleId` (a clause id) and no other rule of the contract. */
export function violating(operationId: RuleOperation, ruleId: RuleId, ctx: BodyContext = defaultContext): fc.Arbitrary<Body> {
  const entry = entryOf(operationId, ruleId, ctx);
  if (!entry.violating) throw new Error(`${ruleId} states a freedom, not a restriction: there is no body that violates it`);
  return entry.violating;
}

/** Valid bodies of `operationId` at the edge of rule `ruleId`. */
export function boundaryValid(operationId: RuleOperation, ruleId: RuleId, ctx: BodyContext = defaultContext): fc.Arbitrary<Body> {
  return entryOf(operationId, ruleId, ctx).boundary;
}

/**
 * Why `body` is not a body that breaks exactly `entry.rule`, or undefined when it is: the contract must report
 * violations, all of them of that clause (for a rule the body cannot show, none, and the field must be absent).
 */
export function violatesOnly(
  contract: Contract,
  entry: Pick<RuleEntry, 'operationId' | 'rule' | 'inBody' | 'field'>,
  body: unknown,
): string | undefined {
  const violations = contract.validateRequest(entry.operationId, body);
  if (!entry.inBody) {
    if (violations.length > 0) return `the body breaks other rules: ${describeViolations(violations)}`;
    return getAt(body, entry.field) === undefined ? undefined : `${entry.field} is present`;
  }
  if (violations.length === 0) return `the contract finds no violation of ${entry.rule}`;
  const others = violations.filter((v) => !v.clause.includes(entry.rule));
  return others.length === 0 ? undefined : `the body also breaks: ${describeViolations(others)}`;
}

/**
 * The rules section 7 lists as rejected ("at least one FormaPago flag true; at least one of urlWebhook and
 * emailsNotificacion…; monto at least 0.01… greater than 0…; mesVencimiento 1 to 12 for MPOS; idAplicativo required
 * for MPOS…"): a value these clauses judge is judged whatever its JSON type.
 */
export const SECTION_7_RULES: ReadonlySet<string> = new Set([
  '4.1-formapago-one-true',
  '4.1-notification-target',
  '4.1-monto-min',
  '4.6-monto-positive',
  '4.7-monto-positive',
  '4.7-mes-range',
  '4.7-idaplicativo-conditional',
]);

/**
 * A body whose only stated violations are JSON types: what a lenient server made of them, else undefined.
 * Section 7 lists the rules whose violations are rejected, and types are not among them, so such a body accepted is
 * observed (WARN), not failed (docs/decisions.md, "Severity"). A number and a numeric string are read as each other
 * ("05" for the int 5), and the body so read must break no stated rule ("13" is still a month out of 1–12); any other
 * type (true, 1.5, "" for an int) is left as sent, unless the field's value is one a rule of section 7 judges.
 */
export function onlyCoercibleTypes(contract: Contract, operationId: OperationId, body: unknown): string | undefined {
  const stated = contract.validateRequest(operationId, body).filter((v) => v.severity === 'fail');
  if (stated.length === 0 || stated.some((v) => v.keyword !== 'type')) return undefined;
  let coerced = body as Body;
  const shown: string[] = [];
  const asSent = new Set<string>();
  for (const v of stated) {
    const value = getAt(coerced, v.path);
    const wanted = /^must be (\w+)/.exec(v.message)?.[1];
    const numeric = typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : undefined;
    const as =
      typeof value === 'number' && wanted === 'string'
        ? String(value)
        : numeric !== undefined && (wanted === 'number' || (wanted === 'integer' && Number.isInteger(numeric)))
          ? numeric
          : undefined;
    if (as !== undefined) {
      coerced = setAt(coerced, v.path, as);
      shown.push(`${v.path}: a ${typeof value === 'number' ? 'JSON number' : 'numeric string'} where the spec types a ${typeof as}`);
      continue;
    }
    if (v.clause.some((c) => SECTION_7_RULES.has(c))) return undefined;
    asSent.add(v.path);
    shown.push(`${v.path}: ${JSON.stringify(value)} (${v.message}), a type no rule of section 7 covers`);
  }
  const left = contract
    .validateRequest(operationId, coerced)
    .filter((v) => v.severity === 'fail' && !(v.keyword === 'type' && asSent.has(v.path)));
  return left.length > 0 ? undefined : shown.join(', ');
}

/** Why `body` is not a valid body, or undefined when the contract accepts it. */
export function validProblem(contract: Contract, operationId: OperationId, body: unknown): string | undefined {
  const violations = contract.validateRequest(operationId, body);
  return violations.length === 0 ? undefined : describeViolations(violations);
}

function describeViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.path || '/'} ${v.message} [${v.clause.join(' ')}]`).join('; ');
}

/**
 * Required fields of each request, as the spec's tables mark them, with the clause a missing one breaks. 4.3
 * urlRedirect is left out: the table says "yes (in the basic example)", which does not make it required always.
 * 4.1 configuracion is "no" (optional) in the table; without it the notification-target rule cannot hold, which
 * the link suites observe. 4.7 idAplicativo is conditional (the catalogue's 4.7-idaplicativo-conditional).
 */
export const REQUIRED_FIELDS: Record<
  Exclude<OperationId, 'activatePaymentLink' | 'getTransaction' | 'deleteAccount' | 'issueToken'>,
  { field: string; clause: string }[]
> = {
  createPaymentLink: [
    ...['identificadorEnlaceComercio', 'monto', 'nombreProducto'].map((f) => ({ field: `/${f}`, clause: '4.1-request-fields' })),
    { field: '/configuracion/notificarTransaccionCliente', clause: '4.1-notificar-required' },
  ],
  purchase3ds: [
    ...[
      'tarjetaCreditoDebido',
      'monto',
      'nombre',
      'apellido',
      'email',
      'ciudad',
      'direccion',
      'idPais',
      'idRegion',
      'codigoPostal',
      'telefono',
    ].map((f) => ({
      field: `/${f}`,
      clause: '4.3-request-fields',
    })),
    ...['numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento'].map((f) => ({
      field: `/tarjetaCreditoDebido/${f}`,
      clause: '4.3-card-fields',
    })),
  ],
  purchaseWallet: ['monto', 'dui', 'descripcion'].map((f) => ({ field: `/${f}`, clause: '4.4-request-fields' })),
  purchasePagoQr: [{ field: '/urlEnlacePago', clause: '4.5-request-fields' }],
  purchaseQuickPay: [{ field: '/monto', clause: '4.6-request-fields' }],
  purchaseMposBanda: ['posId', 'numeroTarjeta', 'mesVencimiento', 'anioVencimiento', 'monto', 'tarjetaBan', 'llaveTarjetaBan'].map((f) => ({
    field: `/${f}`,
    clause: '4.7-request-fields',
  })),
};
