/**
 * The variant catalogue, the other half of the fault catalogue (sandbox/faults.ts): spec-valid implementations of
 * what the spec leaves open, each made differently from the sandbox's default. The suite must pass every one
 * (`npm run mutation`: a variant with a FAIL or ERROR is a false positive of the suite).
 * Selected with `options.variant` / SANDBOX_VARIANT / `--variant` as `id[,id…]`; `all` = every variant that composes
 * with the others; `deployed` = those the deployed service shows (PERFIL_DESPLEGADO). Every variant is checked with
 * `variant('<id>')` right beside the behaviour it changes.
 * `settings`: what a vendor would hand the suite with such an implementation (variables of .env.example), applied
 * by the harness where the user set nothing.
 */
export interface VariantEntry {
  id: string;
  area: string;
  description: string;
  /** Suite settings a vendor would give with this implementation (a hash scheme, field names). */
  settings?: Readonly<Record<string, string>>;
  /**
   * False (left out of `all`) when it cannot be combined with others, or needs a setting the suite cannot discover
   * (a key of its own, a code shown on a page): `all` is also what a vendor's run with six variables must pass.
   */
  composes?: false;
}

/** The redirect hash key of variant hash-own-key: a key of its own, handed to the merchant (and the suite). */
export const LLAVE_HASH_VARIANTE = 'sandbox-redirect-hash-key';

export const VARIANTS = [
  // Success statuses (4: "HTTP status codes of success responses are not listed").
  {
    id: 'created-201-location',
    area: 'statuses',
    description: '4.1/4.4/4.5/4.7: creations answer 201 Created with a Location header (the link, the transaction)',
  },
  {
    id: 'pending-202',
    area: 'statuses',
    description: '4.3/4.6: the purchases that wait for the payer (3DS, quick-pay) answer 202 Accepted',
  },
  // Errors (7: "Error response format, error codes and HTTP status codes: not shown").
  { id: 'errors-422', area: 'errors', description: '7: a body that breaks a stated rule is refused with 422 instead of 400' },
  {
    id: 'errors-mensajes',
    area: 'errors',
    description: '7: error bodies are {"mensajes":[…],"servicioError":{…}} instead of {"errores":[…]}',
  },
  { id: 'errors-problem-json', area: 'errors', description: '7: error bodies are RFC 9457 application/problem+json', composes: false },
  // Ids of other shapes (2.1 idEnlace int, 2.2 idTransaccion string).
  { id: 'idenlace-large', area: 'ids', description: '2.1: idEnlace values above 2^32 (4294968296, …)' },
  { id: 'idtransaccion-numeric', area: 'ids', description: '2.2: idTransaccion is a string of 19 digits, not a UUID' },
  // Timestamps (2: DateTimeOffset, ISO 8601).
  { id: 'fechas-offset-6', area: 'timestamps', description: '2: DateTimeOffset values written with the offset -06:00 instead of Z' },
  {
    id: 'fechas-7-digits',
    area: 'timestamps',
    description: '2: DateTimeOffset values with 7 fractional digits (.NET), e.g. 11:23:00.1230000Z',
  },
  // Shapes of the JSON.
  {
    id: 'extra-fields',
    area: 'shapes',
    description: 'responses and webhooks carry fields the spec does not list (codigoRespuesta, moneda, …)',
  },
  { id: 'key-order-reversed', area: 'shapes', description: 'the keys of every response object and webhook body in reverse order' },
  {
    id: 'empty-strings',
    area: 'shapes',
    description: '2: absent string values written "" instead of null (mensaje, codigoAutorizacion, idExterno, …)',
  },
  {
    id: 'codigo-autorizacion-dev-empty',
    area: 'shapes',
    description: '2.2: a development (test) approval carries codigoAutorizacion "" (the code is of an approved real transaction)',
  },
  // Link state the spec does not show (3: "Other link transitions (by validity dates or success limit): not shown").
  { id: 'usable-at-success-limit', area: 'links', description: '3: at the success limit usable stays true (payments are still refused)' },
  { id: 'usable-after-vigencia', area: 'links', description: '3: after vigencia.fechaFin usable stays true (payments are still refused)' },
  {
    id: 'activar-resets-counters',
    area: 'links',
    description:
      '4.2: activar answers the counters as they stood, then starts cantidadIntentoPagoFallidos and cantidadPagosExitosos again from 0',
  },
  // Out of `all`: it would hide the counts activar-resets-counters answers.
  {
    id: 'activar-resets-then-answers',
    area: 'links',
    description:
      '4.2: activar starts cantidadIntentoPagoFallidos again from 0, then answers the record it just reset (the declines ' +
      'stay listed in transacciones)',
    composes: false,
  },
  { id: 'transacciones-newest-first', area: 'links', description: '2.1: transacciones listed newest first' },
  {
    id: 'screen-replay-any-age',
    area: 'links',
    description:
      '4.1: a paid screen submission sent again answers its first outcome whatever its age (past ' +
      'duracionInterfazIntentoMinutos too): the replay is not processed, it charges nothing',
  },
  {
    id: 'urls-deployed',
    area: 'links',
    description:
      '2.1/4.1: idEnlace in the millions, a short urlEnlace, and urlEnlaceLargo a long URL already carrying a query ' +
      '(/pago?e=<id>&h=<token>) that opens the screen',
  },
  {
    id: 'lookup-deployed-shape',
    area: 'shapes',
    description:
      '2.2/4.8: lookups and link records carry montoOriginal null, datosBitcoin null, mensaje "AUTORIZADO" on ' +
      'approvals, and datosAdicionales with keys the service adds (Apellidos, CantidadCompra, Celular)',
  },
  {
    id: 'nulls-omitted',
    area: 'types',
    description: '2.2/2.6/2.7: response fields whose value is null are left out (a serializer ignoring nulls)',
  },
  {
    id: 'lenient-types',
    area: 'shapes',
    description:
      '7: request bodies are coerced both ways (a number where a string is described, a numeric string where a number ' +
      'is); the stated rules still apply after coercion; JSON is also read as application/json-patch+json',
  },
  // Redirect of the customer's browser (6.3).
  { id: 'redirect-302', area: 'redirect', description: '6.3: the hosted pages send the customer to urlRedirect with 302 instead of 303' },
  { id: 'redirect-301', area: 'redirect', description: '6.3: the hosted pages (and the short URL) redirect with 301', composes: false },
  {
    id: 'query-booleans-capitalised',
    area: 'redirect',
    description: '6.3: esReal and esAprobada written True/False in the redirect query (and so hashed)',
  },
  { id: 'monto-shortest', area: 'redirect', description: '6.3: monto in its shortest form in the redirect query and hash (10, 10.5)' },
  {
    id: 'redirect-no-link-ids',
    area: 'redirect',
    description:
      "4.1/6.3: a link payment's redirect carries the outcome and the hash only, not the link's idEnlace nor identificadorEnlaceComercio",
  },
  {
    id: 'hash-hmac-sha512-base64',
    area: 'redirect',
    description: '6.3: the redirect hash is HMAC-SHA512 in base64 (keyed with the client secret)',
    settings: { REDIRECT_HASH: 'hmac-sha512', REDIRECT_HASH_ENCODING: 'base64' },
  },
  // A key the suite cannot guess: it verifies only when told (out of `all`, whose run discovers the scheme unaided).
  {
    id: 'hash-own-key',
    area: 'redirect',
    description: '6.3: the redirect hash is keyed with a redirect key of its own (the merchant is told it)',
    settings: { REDIRECT_HASH_KEY: LLAVE_HASH_VARIANTE },
    composes: false,
  },
  // Webhooks (6: "Full webhook payload fields: not shown. Webhook signature, retries and delivery guarantees: not shown").
  { id: 'webhook-sent-once', area: 'webhook', description: '6: a webhook is sent once; a failed delivery is never retried' },
  { id: 'webhook-late', area: 'webhook', description: '6: the webhook is sent 1.5 s after the payment (not at once)' },
  {
    id: 'webhook-signature-header',
    area: 'webhook',
    description: '6: the webhook signature travels in x-payment-signature',
    settings: { WEBHOOK_SIGNATURE_HEADER: 'x-payment-signature' },
  },
  // After webhook-signature-header: with both, this header (and its setting) wins.
  {
    id: 'webhook-vendor-header',
    area: 'webhook',
    description:
      '6: the webhook signature travels in a header named after the vendor, sandbox_hash (lowercase hex HMAC-SHA256 of ' +
      'the raw body), and no other',
    settings: { WEBHOOK_SIGNATURE_HEADER: 'sandbox_hash' },
  },
  {
    id: 'webhook-pairs-nested',
    area: 'webhook',
    description:
      "6: the purchase's datosAdicionales pairs travel inside another object, cliente: {nombre, email, …pairs}, not under datosAdicionales",
  },
  {
    id: 'webhook-pairs-top-level',
    area: 'webhook',
    description: "6: the purchase's datosAdicionales pairs travel at the top level of the webhook body (no datosAdicionales key)",
    composes: false,
  },
  { id: 'webhook-no-esaprobada', area: 'webhook', description: '6: the webhook body has no esAprobada (only successes are notified)' },
  // Spec conventions: JSON names as in the examples (camelCase); 6.1 shows no payload, so PascalCase is read by default.
  {
    id: 'webhook-pascalcase',
    area: 'webhook',
    description: '6: webhook fields in PascalCase (IdTransaccion, Monto, EsProductiva), as deployed services of this family send them',
    settings: { WEBHOOK_FIELD_CASE: 'insensitive' },
  },
  {
    id: 'webhook-wrapped',
    area: 'webhook',
    description: '6: the webhook body wraps the transaction: {"evento":…,"fecha":…,"transaccion":{…}}',
  },
  {
    id: 'screen-numbers-untrimmed',
    area: 'pages',
    description: 'the payment screen refuses a number posted with white space around it (" 2"), as its own inputs never send one',
  },
  {
    id: 'business-notifies-customer',
    area: 'notifications',
    description:
      "4.3: the business's own settings e-mail the customer (notificarTransaccionCliente true at the business level); a purchase's or link's false still wins",
  },
  // MPOS and authentication.
  { id: 'mpos-contactless', area: 'mpos', description: '4.7: MPOS purchases answer tipoTransaccion 5 (MPosContactless) instead of 4' },
  { id: 'token-ttl-short', area: 'auth', description: '5.2: access tokens live 120 s (expires_in 120) instead of an hour' },
  // Hosted pages (spec 1, 4.1, 4.3, 4.6: the pages' layout, fields and language are not shown). sandbox/card-fields.ts.
  // No settings: the suite finds the inputs by their autofill tokens (harness/payer/field-mapping.ts).
  {
    id: 'pages-autofill-names',
    area: 'pages',
    description:
      '1/4.1: the card inputs of every hosted page are named by their HTML autofill tokens (cc-number, cc-csc, ' +
      'cc-exp-month, cc-exp-year, cc-name, email, one-time-code)',
  },
  // Out of `all`: it would take the autofill tokens pages-autofill-names brings.
  {
    id: 'pages-opaque-names',
    area: 'pages',
    description:
      '1/4.1: the card inputs of every hosted page have opaque names (f1, f2, …), no autofill token and no ' +
      'placeholder: only their Spanish labels say what they are',
    composes: false,
  },
  {
    id: 'pages-english',
    area: 'pages',
    description:
      '1/4.1: the hosted pages speak English (lang="en"), with other labels and another field order: e-mail and name ' +
      'first, then the card (expiry year before month), then the payment method',
  },
  {
    id: 'pages-session-token',
    area: 'pages',
    description: '1/4.1: every hosted page sets a session cookie and its form must send back the matching hidden token (else 403)',
  },
  {
    id: 'screen-unavailable-200',
    area: 'pages',
    description:
      '4.1: a link that can no longer be paid (limits, vigencia, an attempt past duracionInterfazIntentoMinutos) ' +
      'answers its screen with a 200 page "Este enlace de pago no está disponible", no form',
  },
  {
    id: 'pages-deployed-form',
    area: 'pages',
    description:
      '1/4.1: the hosted form as deployed: Spanish labels, autofill tokens on card number, cvv and name, month and ' +
      'year as selects (01…12, four-digit years), the payment form a select "Método" of names (PagoNormal…), ' +
      'quantity "Unidades" under an opaque name, amount "Valor a pagar"',
  },
  {
    id: 'pages-expiry-joined',
    area: 'pages',
    description:
      '1/4.1: the card\'s expiry is one text input "Vencimiento" with the placeholder "MM/AA" (no autofill token), ' +
      'as many hosted checkouts ask it; a value not MM/AA shows the form again with the error (400)',
    composes: false,
  },
  {
    id: 'pages-billing-details',
    area: 'pages',
    description:
      "1/4.1: the payment screen also asks the payer's last name, phone and address (required inputs named " +
      'apellidoCliente, telefonoCliente, direccionCliente; only their labels say what they are): a form without them ' +
      'is shown again with the errors (400)',
    composes: false,
  },
  {
    id: 'pages-email-confirmation',
    area: 'pages',
    description:
      '1/4.1: the payment screen asks the e-mail twice ("Confirme su correo electrónico", input emailConfirmacion, no ' +
      'autofill token): a form whose two differ is shown again with the error (400)',
    composes: false,
  },
  {
    id: 'pages-receipt-in-place',
    area: 'pages',
    description:
      '4.6: the quick-pay page posts its form by script and replaces the form with a receipt in place (role="status", ' +
      '"Pago aprobado", the transaction id; no #estado badge), navigating nowhere; without a script the receipt is the page answered',
    composes: false,
  },
  {
    id: 'pages-ask-card',
    area: 'pages',
    description:
      '4.3/4.6: the 3DS page and the quick-pay page ask for the card (number, expiry, cvv); missing or malformed data ' +
      'shows the form again with the errors (422)',
  },
  {
    id: 'threeds-challenge-code',
    area: 'pages',
    description:
      '4.3: the 3DS page is a challenge: it shows a test code (6 digits, per transaction) that must be entered; a ' +
      'wrong or missing code shows the page again with the error (422)',
    settings: { SCREEN_CHALLENGE_CODE: 'shown-in:#codigo-prueba' },
    composes: false,
  },
  // Hosted screens of other kinds (sandbox option screen, context.ts PANTALLAS): each served with its SANDBOX_SCREEN
  // (the frame, payable only by a browser, with PAYER=auto, as its vendor would say). Out of `all`: one screen at a time.
  {
    id: 'screen-steps',
    area: 'pages',
    description:
      '4.1: the payment screen takes two steps: the card page (payment form and instalments as radio buttons, button ' +
      '"Continuar"), then "Paso 2 de 2: confirma tu pago" with a summary and one button "Confirmar y pagar" (a CSRF ' +
      'token bound to a session cookie; the card kept server-side)',
    settings: { SANDBOX_SCREEN: 'steps' },
    composes: false,
  },
  {
    id: 'screen-challenge',
    area: 'pages',
    description:
      '4.3/4.6: the 3DS page is an issuer test page: "Código de prueba: NNNNNN" beside one unnamed-by-meaning input ' +
      '(otp) and a button "Verificar"; a wrong code shows it again (422); the quick-pay page asks the payer to ' +
      'authorise the payment (radio buttons)',
    settings: { SANDBOX_SCREEN: 'challenge' },
    composes: false,
  },
  {
    id: 'screen-frame',
    area: 'pages',
    description:
      '4.1: the payment screen is a script shell with no form: the card inside an iframe of another origin (the other ' +
      'loopback name), tokenised by its vault over postMessage; the shell submits JSON and follows the redirect it ' +
      'answers; "Volver" is a button',
    settings: { SANDBOX_SCREEN: 'frame', PAYER: 'auto' },
    composes: false,
  },
  // Account authentication (5.5: "how account user-and-password authentication is performed: not shown").
  {
    id: 'account-password-grant',
    area: 'auth',
    description:
      "5.5: account endpoints take only account tokens, issued at {auth_url}/connect/token for grant_type=password (username, password, with a business's client credentials); HTTP Basic is refused",
    settings: { ACCOUNT_AUTH: 'password-grant' },
  },
  {
    id: 'token-scope-ignored',
    area: 'auth',
    description: '5.1: a requested scope other than service_api is ignored and the token issued (RFC 6749 3.3 lets an issuer do so)',
  },
  {
    id: '3ds-card-table-spelling',
    area: 'validation',
    description: "4.3: with both tarjetaCreditoDebido and tarjetaCreditoDebito sent, the field table's spelling is the one read",
  },
  // Account deletion (4.9: "delete the account"; what becomes of its businesses' links is not said).
  {
    id: 'deletion-keeps-links',
    area: 'accounts',
    description:
      "4.9: a deleted account's links are kept: their short URL still redirects and their QR image is still served, but their screen answers not found (nothing payable)",
  },
] as const satisfies readonly VariantEntry[];

export type VariantId = (typeof VARIANTS)[number]['id'];
/** True when the sandbox was started with this variant. */
export type Variant = (id: VariantId) => boolean;

/**
 * Profile `deployed`: the deployed service as public client code shows it, every
 * spec-valid choice of it at once (its deviations are fault `deployed` of sandbox/faults.ts).
 */
export const PERFIL_DESPLEGADO = [
  'screen-unavailable-200',
  'pages-deployed-form',
  'webhook-pascalcase',
  'webhook-pairs-nested',
  'webhook-no-esaprobada',
  'webhook-vendor-header',
  'lookup-deployed-shape',
  'urls-deployed',
  'lenient-types',
  'fechas-offset-6',
  'fechas-7-digits',
  'errors-mensajes',
  'query-booleans-capitalised',
  'codigo-autorizacion-dev-empty',
] as const satisfies readonly VariantId[];

/** The ids of a SANDBOX_VARIANT value: `id[,id…]`, `all` or `deployed`; unknown ids throw. */
export function variantIds(selected: string | undefined): VariantId[] {
  if (selected === undefined || selected.trim() === '') return [];
  const entries: readonly VariantEntry[] = VARIANTS;
  if (selected.trim() === 'all') return entries.filter((v) => v.composes !== false).map((v) => v.id as VariantId);
  if (selected.trim() === 'deployed') return [...PERFIL_DESPLEGADO];
  const ids = selected
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = ids.filter((id) => !entries.some((v) => v.id === id));
  if (unknown.length > 0) {
    throw new Error(`unknown sandbox variant "${unknown.join(', ')}"; valid: all, deployed, ${entries.map((v) => v.id).join(', ')}`);
  }
  return ids as VariantId[];
}

export function selectVariants(selected: string | undefined): Variant {
  const ids = new Set<string>(variantIds(selected));
  return (id) => ids.has(id);
}

/** The suite settings of the selected variants (later ones win), as a vendor would give them. */
export function variantSettings(selected: string | undefined): Record<string, string> {
  const entries: readonly VariantEntry[] = VARIANTS;
  const ids = variantIds(selected);
  return Object.assign({}, ...entries.filter((v) => ids.includes(v.id as VariantId)).map((v) => v.settings ?? {}));
}
