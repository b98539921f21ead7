/**
 * Every variable the suite reads, one row each: what it means, what it takes, its default, whether it is secret, an
 * example and where the configuration holds it. The Reader below validates a variable by its row (config.ts assembles
 * the configuration and holds the rules between variables); docs/configuration.md is rendered from the rows (npm run
 * docs:config), .env.example is checked against them, the redacted summary and the secret registry walk them, and the
 * preflight's "did you mean" knows their names.
 *
 * A row's meaning is a phrase: an int adds its range, a url "an absolute http(s) URL, " in front. A bad value is
 * told `NAME must be <must or meaning> (got "x"); example: NAME=<example, else the default>`.
 */
import { ConfigError } from './errors.ts';
import { envLine } from './env-file.ts';
import { DEFAULT_CHROMIUM_PATH } from '../payer/chromium.ts';

export type VariableType =
  | { kind: 'url' }
  | { kind: 'int'; min: number; max?: number }
  | { kind: 'oneOf'; values: readonly string[] }
  | { kind: 'pattern'; re: RegExp }
  /** A JSON object keyed by `keys`, each entry a non-empty name or an object of strings. */
  | { kind: 'json'; keys: readonly string[]; entry: 'name' | 'string-map' }
  | { kind: 'string' }
  /** Comma-separated, each one of `items`. */
  | { kind: 'list'; items: readonly string[] };

export interface Variable {
  name: string;
  meaning: string;
  type: VariableType;
  /** The value when unset; per target where the embedded sandbox and a remote target differ. */
  default?: string | { embedded: string; remote: string };
  /** For messages and .env.example where the default is none or not telling. */
  example?: string;
  /** Never quoted in a message nor printed; a string also names the kind it is redacted as in reports. */
  secret?: true | string;
  /** remote: only with API_BASE_URL (set with the embedded sandbox, an error); embedded: an error on a remote target. */
  target?: 'remote' | 'embedded';
  /** What a bad value is told it must be, where the meaning alone does not say it. */
  must?: string;
  /** Read outside the configuration: from the command line's environment, or set by the suite for its own processes. */
  read?: 'command' | 'internal';
  /** A deprecated name, read when the variable it stands for is unset. */
  aliasOf?: string;
  /** Where the configuration holds its value (a path into Config): the summary and the secret registry read it there. */
  at?: string;
}

/** A digest as the settings name it: HMAC keyed with the key, or plain (the key appended). */
export const DIGEST_NAMES = ['hmac-sha256', 'hmac-sha512', 'hmac-sha1', 'hmac-md5', 'sha256', 'sha512', 'sha1', 'md5'] as const;

/** The hosted pages' fields SCREEN_FIELD_NAMES and SCREEN_OPTION_VALUES are keyed by. */
export const SCREEN_FIELDS = [
  'numeroTarjeta',
  'cvv',
  'mesVencimiento',
  'anioVencimiento',
  'nombreTitular',
  'email',
  'formaPago',
  'cuotas',
  'cantidad',
  'monto',
  'codigoDesafio',
] as const;

/** TEST_TIMEOUT_MS's default: the budget a test's own (`clauseTest(…, ms)`) is scaled against. */
export const TEST_TIMEOUT_MS_DEFAULT = 60_000;

const BY_TARGET = (embedded: string, remote: string) => ({ embedded, remote });
const WAIT_WHAT =
  "number of seconds a test may wait in real time for the target's time to pass where the target has no clock control (0 = such tests skip)";
const ENCODINGS = ['hex', 'base64', 'base64url'] as const;

export const VARIABLES = [
  // --- The target and its credentials
  {
    name: 'API_BASE_URL',
    at: 'target.baseUrl',
    meaning: 'the {base_url} of the target, or unset for the embedded sandbox',
    type: { kind: 'url' },
    example: 'https://api.example.test/api',
  },
  {
    name: 'AUTH_URL',
    at: 'target.authUrl',
    meaning: 'the {auth_url} of the token issuer (the token is at AUTH_URL/connect/token)',
    type: { kind: 'url' },
    target: 'remote',
    example: 'https://auth.example.test',
  },
  {
    name: 'CLIENT_ID',
    at: 'target.clientId',
    meaning: 'the client id of a development business (remote target; required with API_BASE_URL)',
    type: { kind: 'string' },
    target: 'remote',
    example: 'my-dev-business',
  },
  {
    name: 'CLIENT_SECRET',
    at: 'target.clientSecret',
    meaning: 'its client secret (the API Secret of that business; required with API_BASE_URL)',
    type: { kind: 'string' },
    target: 'remote',
    secret: 'client-secret',
    example: '<the API Secret of that business>',
  },
  {
    name: 'ACCOUNT_USER',
    at: 'target.accountUser',
    meaning: 'account credentials (spec 4.2, 4.5, 4.9); set together with ACCOUNT_PASSWORD',
    type: { kind: 'string' },
    target: 'remote',
    example: 'merchant@example.test',
  },
  {
    name: 'ACCOUNT_PASSWORD',
    at: 'target.accountPassword',
    meaning: 'account credentials (spec 4.2, 4.5, 4.9); set together with ACCOUNT_USER',
    type: { kind: 'string' },
    target: 'remote',
    secret: 'account-password',
    example: '<its password>',
  },
  {
    name: 'SECOND_CLIENT_ID',
    at: 'target.secondClientId',
    meaning: 'credentials of a business without the MPOS permission; set together with SECOND_CLIENT_SECRET',
    type: { kind: 'string' },
    target: 'remote',
    example: 'my-dev-business-nompos',
  },
  {
    name: 'SECOND_CLIENT_SECRET',
    at: 'target.secondClientSecret',
    meaning: 'credentials of a business without the MPOS permission; set together with SECOND_CLIENT_ID',
    type: { kind: 'string' },
    target: 'remote',
    secret: 'second-client-secret',
    example: '<its API Secret>',
  },
  {
    name: 'DELETION_ACCOUNT_USER',
    at: 'target.deletionAccountUser',
    meaning: 'credentials of a disposable account for the deletion test; set together with DELETION_ACCOUNT_PASSWORD',
    type: { kind: 'string' },
    target: 'remote',
    example: 'disposable@example.test',
  },
  {
    name: 'DELETION_ACCOUNT_PASSWORD',
    at: 'target.deletionAccountPassword',
    meaning: 'credentials of a disposable account for the deletion test; set together with DELETION_ACCOUNT_USER',
    type: { kind: 'string' },
    target: 'remote',
    secret: 'deletion-password',
    example: '<its password>',
  },
  {
    name: 'OTHER_ACCOUNT_USER',
    at: 'target.otherAccountUser',
    meaning: 'a second merchant (another tenant) for the tenant-isolation checks: its account user; all four OTHER_* or none',
    type: { kind: 'string' },
    target: 'remote',
    example: 'other-merchant@example.test',
  },
  {
    name: 'OTHER_ACCOUNT_PASSWORD',
    at: 'target.otherAccountPassword',
    meaning: "the second merchant's account password",
    type: { kind: 'string' },
    target: 'remote',
    secret: 'other-account-password',
    example: '<its password>',
  },
  {
    name: 'OTHER_CLIENT_ID',
    at: 'target.otherClientId',
    meaning: 'the client id of a development business of the second merchant',
    type: { kind: 'string' },
    target: 'remote',
    example: 'other-dev-business',
  },
  {
    name: 'OTHER_CLIENT_SECRET',
    at: 'target.otherClientSecret',
    meaning: 'its client secret',
    type: { kind: 'string' },
    target: 'remote',
    secret: 'other-client-secret',
    example: '<its API Secret>',
  },
  {
    name: 'ACCOUNT_AUTH',
    at: 'accountAuth',
    meaning:
      'how account user+password is sent: HTTP Basic, an OAuth2 password grant at AUTH_URL, or auto = try Basic, then the password grant',
    type: { kind: 'oneOf', values: ['basic', 'password-grant', 'auto'] },
    default: BY_TARGET('basic', 'auto'),
  },
  {
    name: 'SANDBOX_VARIANT',
    at: 'sandbox.variant',
    meaning:
      'spec-valid variants of the embedded sandbox (sandbox/variants.ts): ids separated by commas, or all (used by npm run mutation)',
    type: { kind: 'pattern', re: /^[A-Za-z0-9._,-]+$/ },
    target: 'embedded',
    example: 'all',
  },
  {
    name: 'TOKEN_AUDIENCE',
    at: 'tokenAudience',
    meaning: 'the audience sent in every token request (spec 5.1: service_api; a deployed service may use its own), without spaces',
    type: { kind: 'pattern', re: /^[\x21-\x7e]{1,200}$/ },
    default: 'service_api',
  },

  // --- Bounds
  { name: 'HTTP_TIMEOUT_MS', at: 'http.timeoutMs', meaning: 'number of milliseconds', type: { kind: 'int', min: 1 }, default: '15000' },
  {
    name: 'HTTP_RETRIES',
    at: 'http.retries',
    meaning: 'number of extra attempts for idempotent requests',
    type: { kind: 'int', min: 0, max: 10 },
    default: '3',
  },
  {
    name: 'MAX_RESPONSE_BYTES',
    at: 'http.maxResponseBytes',
    meaning: 'number of bytes read of a response body',
    type: { kind: 'int', min: 1 },
    default: '1048576',
  },
  {
    name: 'TEST_TIMEOUT_MS',
    at: 'budget.testTimeoutMs',
    meaning: 'number of milliseconds of its own work a test may take (waits for other tests not counted)',
    type: { kind: 'int', min: 1 },
    default: String(TEST_TIMEOUT_MS_DEFAULT),
  },
  {
    name: 'RUN_TIMEOUT_S',
    at: 'budget.runTimeoutS',
    meaning: 'number of seconds bounding the whole run',
    type: { kind: 'int', min: 1 },
    default: '900',
  },
  // 0 on the embedded sandbox, whose clock the suite moves.
  {
    name: 'MAX_WAIT_S',
    at: 'budget.maxWaitS',
    meaning: WAIT_WHAT,
    type: { kind: 'int', min: 0, max: 3600 },
    default: BY_TARGET('0', '120'),
  },
  {
    name: 'MAX_WAIT_QR_EXPIRY_S',
    meaning: `${WAIT_WHAT}; deprecated: use MAX_WAIT_S`,
    type: { kind: 'int', min: 0, max: 3600 },
    aliasOf: 'MAX_WAIT_S',
    example: '120',
  },

  // --- Webhooks and redirects
  {
    name: 'WEBHOOK_PUBLIC_URL',
    at: 'receiver.publicUrl',
    meaning: 'at which the target reaches the webhook receiver (a tunnel for a remote target)',
    type: { kind: 'url' },
    example: 'https://my-tunnel.example.test',
  },
  {
    name: 'RECEIVER_HOST',
    at: 'receiver.host',
    meaning: 'a host name or IP address the webhook receiver binds to',
    type: { kind: 'pattern', re: /^[A-Za-z0-9.:-]+$/ },
    default: '127.0.0.1',
  },
  {
    name: 'RECEIVER_PORT',
    at: 'receiver.port',
    meaning: 'TCP port of the webhook receiver (0 = any free port)',
    type: { kind: 'int', min: 0, max: 65_535 },
    default: '0',
  },
  {
    name: 'WEBHOOK_SIGNATURE',
    at: 'webhook.signature',
    meaning: 'how the webhook signature header is made (off = only observe it; auto = discover it on the first webhook)',
    type: { kind: 'oneOf', values: ['off', 'auto', ...DIGEST_NAMES] },
    default: BY_TARGET('hmac-sha256', 'auto'),
  },
  {
    name: 'WEBHOOK_SIGNATURE_KEY',
    at: 'webhook.signatureUnkeyed',
    meaning: 'none when the signature is a digest without a key; unset = keyed with the client secret',
    type: { kind: 'oneOf', values: ['none'] },
    example: 'none',
  },
  {
    name: 'WEBHOOK_SIGNATURE_ENCODING',
    at: 'webhook.signatureEncoding',
    meaning: 'the encoding of the webhook signature',
    type: { kind: 'oneOf', values: ENCODINGS },
    default: 'hex',
  },
  {
    name: 'WEBHOOK_SIGNATURE_HEADER',
    at: 'webhook.signatureHeader',
    meaning: 'an HTTP header name carrying the webhook signature',
    type: { kind: 'pattern', re: /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/ },
    default: 'x-signature',
  },
  {
    name: 'WEBHOOK_TIMEOUT_S',
    at: 'webhook.timeoutS',
    meaning: 'number of seconds to wait for a webhook',
    type: { kind: 'int', min: 1 },
    default: '10',
  },
  // 6.1 shows no payload, so a webhook's field names may be cased as the service likes (PascalCase is common).
  {
    name: 'WEBHOOK_FIELD_CASE',
    at: 'webhook.fieldCase',
    meaning: "how webhook field names are matched (insensitive: any casing, as 6.1 shows no payload; exact: the spec's camelCase only)",
    type: { kind: 'oneOf', values: ['exact', 'insensitive'] },
    default: 'insensitive',
  },
  {
    name: 'REDIRECT_HASH_KEY',
    at: 'redirectHash.key',
    meaning: "the key of the redirect hash: unset = the business's client secret, none = no key",
    type: { kind: 'string' },
    secret: 'redirect-hash-key',
    example: 'none',
  },
  {
    name: 'REDIRECT_HASH',
    at: 'redirectHash.algorithm',
    meaning: "the redirect hash algorithm; off = observe, don't verify; auto = discover it on the first redirect",
    type: { kind: 'oneOf', values: ['off', 'auto', ...DIGEST_NAMES] },
    default: BY_TARGET('hmac-sha256', 'auto'),
  },
  {
    name: 'REDIRECT_HASH_ENCODING',
    at: 'redirectHash.encoding',
    meaning: 'the encoding of the redirect hash (hex in either case)',
    type: { kind: 'oneOf', values: ENCODINGS },
    default: 'hex',
  },
  {
    name: 'REDIRECT_HASH_VALUES',
    at: 'redirectHash.values',
    meaning: 'how the values are hashed: as they appear in the query, or normalised (monto with two decimals, booleans lower case)',
    type: { kind: 'oneOf', values: ['query', 'normalised'] },
    default: 'query',
  },
  {
    name: 'REDIRECT_HASH_ORDER',
    at: 'redirectHash.order',
    meaning:
      "the fields of a link payment's hash: spec = the seven of 6.3, link = identificadorEnlaceComercio,idTransaccion,idEnlace,monto, auto = whichever verifies the first",
    type: { kind: 'oneOf', values: ['spec', 'link', 'auto'] },
    default: 'auto',
  },

  // --- Tests that run only when asked, test data
  {
    name: 'ALLOW_DESTRUCTIVE',
    at: 'allowDestructive',
    meaning: 'a comma-separated list of destructive tests to allow, from: account-deletion',
    type: { kind: 'list', items: ['account-deletion'] },
    example: 'account-deletion',
  },
  {
    name: 'REQUIRE',
    at: 'require',
    meaning:
      'a comma-separated list of areas the run must check, from: webhooks, screens, account-deletion; one the settings ' +
      'leave unchecked (no receiver the target reaches, no payer for its pages, deletion not opted in) stops the run ' +
      'with exit 2 before any test',
    type: { kind: 'list', items: ['webhooks', 'screens', 'account-deletion'] },
    example: 'webhooks,screens',
  },
  {
    name: 'FC_SEED',
    at: 'fastCheck.seed',
    meaning: 'fast-check seed (to replay a run)',
    type: { kind: 'int', min: -2_147_483_648, max: 2_147_483_647 },
    example: '42',
  },
  // embedded: 50 keeps suites/properties.test.ts (33 properties) near 3 s; remote: few, not to flood a real sandbox
  {
    name: 'FC_NUM_RUNS',
    at: 'fastCheck.numRuns',
    meaning: 'number of fast-check runs per property',
    type: { kind: 'int', min: 1, max: 100_000 },
    default: BY_TARGET('50', '10'),
  },
  {
    name: 'EXPECTED_FAILURES_FILE',
    at: 'expectedFailuresFile',
    meaning: 'the path of a file listing test names expected to fail, one per line',
    must: 'the path of an existing file listing test names expected to fail, one per line',
    type: { kind: 'string' },
    example: 'expected-failures.txt',
  },
  {
    name: 'TEST_CARD_NUMBER',
    at: 'testData.cardNumber',
    meaning: 'a test card number of 13 to 19 digits, no spaces',
    type: { kind: 'pattern', re: /^\d{13,19}$/ },
    default: '4111111111111111',
    secret: 'card-number',
  },
  {
    name: 'TEST_CARD_CVV',
    at: 'testData.cvv',
    meaning: 'a test cvv of 3 or 4 digits',
    type: { kind: 'pattern', re: /^\d{3,4}$/ },
    default: '123',
    secret: 'cvv',
  },
  {
    name: 'TEST_WALLET_DUI',
    at: 'testData.walletDui',
    meaning: 'the dui (national identifier) of a test wallet account: digits and hyphens',
    type: { kind: 'pattern', re: /^[0-9-]{1,20}$/ },
    default: '00000000-0',
  },
  {
    name: 'MPOS_POS_ID',
    at: 'testData.mpos.posId',
    meaning: 'a POS identifier without spaces',
    type: { kind: 'pattern', re: /^\S{1,100}$/ },
    default: 'POS-0001',
  },
  {
    name: 'MPOS_TRACK2',
    at: 'testData.mpos.track2',
    meaning: 'test encTRACK2 card data from an MPOS device, in hexadecimal',
    type: { kind: 'pattern', re: /^[0-9A-Fa-f]{2,512}$/ },
    default: 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718',
    secret: true,
  },
  {
    name: 'MPOS_KSN',
    at: 'testData.mpos.ksn',
    meaning: 'a test encTRACK KSN key from an MPOS device, in hexadecimal',
    type: { kind: 'pattern', re: /^[0-9A-Fa-f]{2,64}$/ },
    default: 'FFFF9876543210E00001',
  },

  // --- Hosted screens (the vendor's choice: spec 1, "a payment screen hosted by the service") and permissions
  {
    name: 'SCREEN_FIELD_NAMES',
    at: 'screenFieldNames',
    meaning:
      `a JSON object mapping the hosted pages' fields to the input names or CSS selectors of the target's ` +
      `pages, e.g. {"numeroTarjeta":"card_number","cvv":"#cvc"}`,
    must:
      `a JSON object mapping the hosted pages' fields (${SCREEN_FIELDS.join(', ')}) to the input names or CSS ` +
      `selectors of the target's pages (payment screen, 3DS and quick-pay pages)`,
    type: { kind: 'json', keys: SCREEN_FIELDS, entry: 'name' },
    example: '{"numeroTarjeta":"card_number","cvv":"#cvc"}',
  },
  {
    name: 'SCREEN_OPTION_VALUES',
    at: 'screenOptionValues',
    meaning:
      `a JSON object mapping, per field, the suite's value to the option value of the target's select where ` +
      `options are not matched by meaning, e.g. {"mesVencimiento":{"1":"01"},"formaPago":{"0":"TC"}}`,
    must:
      `a JSON object mapping, per field of the hosted pages (${SCREEN_FIELDS.join(', ')}), the suite's values to ` +
      `the option values of the page's select`,
    type: { kind: 'json', keys: SCREEN_FIELDS, entry: 'string-map' },
    example: '{"mesVencimiento":{"1":"01"},"formaPago":{"0":"TC"}}',
  },
  {
    name: 'SCREEN_CHALLENGE_CODE',
    at: 'challengeCode',
    meaning:
      "the answer a 3DS test page's challenge expects: the code itself, or shown-in:<CSS selector> of the element where the page shows it",
    type: { kind: 'pattern', re: /^\S(.*\S)?$/ },
    example: 'shown-in:#test-code',
  },
  {
    name: 'MPOS_PERMITTED',
    at: 'mposPermitted',
    meaning: 'whether the CLIENT_ID business has the additional MPOS permission of 4.7 (no = MPOS purchases as that business are skipped)',
    type: { kind: 'oneOf', values: ['yes', 'no'] },
    default: 'yes',
  },

  // --- The embedded sandbox, the payer
  {
    name: 'SANDBOX_MODE',
    at: 'sandbox.mode',
    meaning: 'the mode the embedded sandbox starts its businesses in',
    type: { kind: 'oneOf', values: ['development', 'production'] },
    default: 'development',
    target: 'embedded',
  },
  {
    name: 'SANDBOX_FAULT',
    at: 'sandbox.fault',
    meaning: "the name of a fault of the sandbox's fault catalogue (used by npm run mutation)",
    type: { kind: 'pattern', re: /^[A-Za-z0-9._-]+$/ },
    target: 'embedded',
    example: '<a fault id of sandbox/faults.ts>',
  },
  {
    name: 'PAYER',
    at: 'payer.kind',
    meaning:
      'how hosted screens are paid: http parses HTML forms, browser drives headless Chromium, auto = the browser only ' +
      'where http finds no form',
    type: { kind: 'oneOf', values: ['http', 'browser', 'auto'] },
    default: 'http',
  },
  {
    name: 'CHROMIUM_PATH',
    at: 'payer.chromiumPath',
    meaning: 'the Chromium (or Chrome) executable PAYER=browser drives',
    type: { kind: 'string' },
    default: DEFAULT_CHROMIUM_PATH,
  },
  {
    name: 'SANDBOX_NETWORK',
    at: 'sandbox.network',
    meaning:
      'the internet the embedded sandbox answers through (sandbox/network.ts): mild = latency 20–300 ms, 429 above 20 ' +
      'requests/s, 1 % 503, connections closed, gzip, webhooks 0.5–8 s late and 10 % twice; rough = latency up to 1.5 s, ' +
      '8 requests/s, 4 % 503, 0.5 % of POSTs 502 after processing, dropped connections, webhooks 1–25 s late and 25 % ' +
      'twice; throttled / unavailable = every API request 429 / 503; unset = answered directly. mild and rough set ' +
      'WEBHOOK_TIMEOUT_S (15, 35) where it is unset',
    type: { kind: 'oneOf', values: ['mild', 'rough', 'throttled', 'unavailable'] },
    target: 'embedded',
    example: 'mild',
  },
  {
    name: 'SANDBOX_NETWORK_SEED',
    at: 'sandbox.networkSeed',
    meaning:
      "the seed of SANDBOX_NETWORK's decisions (the same seed draws the same decisions in the same order), or unset for a random one",
    type: { kind: 'int', min: 0, max: 4294967295 },
    target: 'embedded',
    example: '7',
  },
  {
    name: 'SANDBOX_QUICK_PAY_TTL',
    at: 'sandbox.quickPayTtlS',
    meaning:
      "how many seconds the embedded sandbox's quick-pay QRs stay payable (their fechaVencimiento); short ones, as an " +
      "independent implementation's, prove the suite's deadlines in real time (npm run sandbox -- --quick-pay-ttl)",
    type: { kind: 'int', min: 1 },
    default: '600',
    target: 'embedded',
  },
  {
    name: 'SANDBOX_SCREEN',
    at: 'sandbox.screen',
    meaning:
      'how the embedded sandbox serves its hosted screens: html = plain forms, js = forms built by JavaScript (to test ' +
      'PAYER=browser), steps = the payment screen in two steps, challenge = a 3DS page asking for the code it shows, ' +
      'frame = the card in a cross-origin iframe',
    type: { kind: 'oneOf', values: ['html', 'js', 'steps', 'challenge', 'frame'] },
    default: 'html',
    target: 'embedded',
  },

  // --- Reports and the run's pace
  {
    name: 'REPORT_DIR',
    at: 'reportDir',
    meaning: 'the folder reports are written to (relative to the working directory)',
    type: { kind: 'string' },
    default: 'reports',
  },
  {
    name: 'MAX_CONCURRENCY',
    at: 'maxConcurrency',
    meaning: 'number of requests in flight to the target at once (1 = one at a time)',
    type: { kind: 'int', min: 1, max: 64 },
    default: '8',
  },
  {
    name: 'MAX_RPS',
    at: 'maxRps',
    meaning:
      'number of requests per second sent to the target at most: the run starts at 10, slows on a 429 and speeds up ' +
      "while the target answers, never past this (the default, 10000, is no cap in practice: the target's 429s set " +
      'the pace; set it to the rate the target accepts when it ends a run refusing requests for rate)',
    type: { kind: 'int', min: 1, max: 10000 },
    default: '10000',
    example: '50',
  },
  {
    name: 'SECURITY_CHECKS',
    at: 'securityChecks',
    meaning:
      'what a failed tenant-isolation check (category security, OWASP API1:2023; the spec states no isolation) does: ' +
      'fail the run, or only be reported as a WARN observation',
    type: { kind: 'oneOf', values: ['fail', 'observe'] },
    default: 'fail',
  },
  // Validated with FAIL_ON by harness/setup/report-settings.ts, which the reporters and the shard merge share.
  {
    name: 'BASELINE',
    at: 'reports.baseline',
    meaning: 'the REPORT_DIR of an earlier run, or its summary.json, to compare this run with',
    type: { kind: 'string' },
    example: 'baseline-reports',
  },
  {
    name: 'FAIL_ON',
    at: 'reports.failOn',
    meaning: 'what fails the run: any = any failure; new = only a failure that is not in BASELINE (needs BASELINE)',
    type: { kind: 'oneOf', values: ['any', 'new'] },
    default: 'any',
  },

  // --- Read outside the configuration
  {
    name: 'FC_PATH',
    meaning:
      "a fast-check path: with FC_SEED, replays exactly one counterexample of a property (suites/properties.test.ts); a failing property prints the whole command. Read from the command line's environment only, never from .env.",
    type: { kind: 'pattern', re: /^\d+(:\d+)*$/ },
    example: '4:1:0',
    read: 'command',
  },
  {
    name: 'FC_REPLAY_PATH',
    meaning:
      "fast-check's record of the commands that ran, to replay a shrunk command sequence of a model test (suites/link-model.test.ts, suites/transaction-model.test.ts) with FC_SEED and FC_PATH. A one-off, like FC_PATH.",
    type: { kind: 'string' },
    example: '<as a failing model test prints it>',
    read: 'command',
  },
  {
    name: 'RUN_ID',
    meaning:
      "the id the shards of one run share (recorded in each shard's summary.json; reports:merge refuses reports of different runs); unset = the CI run's own id",
    type: { kind: 'string' },
    example: 'nightly-42',
    read: 'command',
  },
  {
    name: 'CONFORMANCE_FILES',
    meaning: 'the suite files a run takes, comma-separated paths or parts of them (set by npm run conformance from the files it is given)',
    type: { kind: 'string' },
    example: 'suites/links.test.ts',
    read: 'command',
  },
  {
    name: 'CONFORMANCE_SHARD',
    meaning: 'i/n: the shard of the suite this run takes, balanced by test count (set by the --shard=i/n of npm run conformance)',
    type: { kind: 'pattern', re: /^\d+\/\d+$/ },
    example: '1/3',
    read: 'command',
  },
  {
    name: 'CONFORMANCE_NAMES',
    meaning:
      'a JSON array of the exact names of the tests a run takes (set by --name, --failed and a -t given a pasted test name of npm run conformance)',
    type: { kind: 'string' },
    example: '["4.1-monto-min: monto 0 is rejected"]',
    read: 'command',
  },
  {
    name: 'CONFORMANCE_REPORT_SUBDIR',
    meaning: "the folder under REPORT_DIR a run of part of the suite writes its reports to, beside the whole run's (selected)",
    type: { kind: 'string' },
    example: 'selected',
    read: 'internal',
  },
  {
    name: 'CONFORMANCE_PROGRESS',
    meaning:
      'how a run shows the tests waiting in real time: live = one line kept up to date (npm run conformance on a ' +
      'terminal), lines = a line when a wait starts and every 30 s, off = nothing, nor where the time went',
    type: { kind: 'oneOf', values: ['live', 'lines', 'off'] },
    example: 'off',
    read: 'command',
  },
  {
    name: 'PROGRESS_EVERY_S',
    meaning:
      'number of seconds between the progress lines of a run without a terminal (CI): tests done of the total, time ' +
      'waited, the longest wait ahead; from 5 to 300, default 20 (the first after 10 s, so a fast run prints few)',
    type: { kind: 'int', min: 5, max: 300 },
    example: '20',
    read: 'command',
  },
  {
    name: 'PAYMENT_CONFORMANCE_COMMAND',
    meaning: 'the command the user runs, named in printed lines (set by bin/payment-conformance.js)',
    type: { kind: 'string' },
    example: 'npx payment-conformance',
    read: 'internal',
  },
  {
    name: 'CONFORMANCE_RUN_INFO',
    meaning: 'what the global setup tells the reporters of the run (JSON)',
    type: { kind: 'string' },
    example: '{}',
    read: 'internal',
  },
  {
    name: 'CONFORMANCE_PREFLIGHT',
    meaning: 'what npm run conformance found before it started vitest (JSON)',
    type: { kind: 'string' },
    example: '{}',
    read: 'internal',
  },
] as const satisfies readonly Variable[];

type Row = (typeof VARIABLES)[number];
export type VariableName = Row['name'];
/** The variables the configuration reads (loadConfig). */
export type ConfigVariable = Exclude<Row, { read: string }>['name'];
export type RowOf<N extends VariableName> = Extract<Row, { name: N }>;

type Parsed<T> = T extends { kind: 'int' }
  ? number
  : T extends { kind: 'oneOf'; values: readonly (infer V)[] }
    ? V
    : T extends { kind: 'list' }
      ? string[]
      : T extends { kind: 'json' }
        ? Record<string, unknown>
        : string;
/** What reading a variable gives: unset is the default, else undefined (a list or JSON object: empty). */
export type ValueOf<N extends VariableName> =
  RowOf<N> extends { default: unknown } | { type: { kind: 'list' | 'json' } }
    ? Parsed<RowOf<N>['type']>
    : Parsed<RowOf<N>['type']> | undefined;

const byName = new Map<string, Variable>(VARIABLES.map((v) => [v.name, v]));

export function variable(name: VariableName): Variable {
  return byName.get(name)!;
}

/** The default of a variable for a kind of target ('' = none). */
export function defaultFor(v: Variable, kind: 'embedded' | 'remote'): string {
  return typeof v.default === 'object' ? v.default[kind] : (v.default ?? '');
}

/** The rows the configuration reads (loadConfig). */
export const CONFIG_ROWS = (VARIABLES as readonly Variable[]).filter((v) => !v.read) as readonly (Variable & { name: ConfigVariable })[];

/** Every name the suite reads, for the preflight's "did you mean". */
export const VARIABLE_NAMES: readonly VariableName[] = VARIABLES.map((v) => v.name);

/** What a bad value of `v` is told it must be. */
function mustOf(v: Variable): string {
  const t = v.type;
  if (v.must) return v.must;
  if (t.kind === 'url') return `an absolute http(s) URL, ${v.meaning}`;
  if (t.kind === 'oneOf') return `one of ${t.values.join(' | ')} (${v.meaning})`;
  if (t.kind !== 'int') return v.meaning;
  const kind = t.min === 1 ? 'a positive integer' : t.min === 0 ? 'a non-negative integer' : 'an integer';
  const range = t.max === undefined ? '' : t.min > 1 || t.min < 0 ? `, from ${t.min} to ${t.max}` : `, at most ${t.max}`;
  return `${kind} ${v.meaning}${range}`;
}

/** `NAME=example` as written in .env; an example in <angle brackets> is a description, left as is. */
function exampleLine(name: string, example: string): string {
  return example.startsWith('<') ? `${name}=${example}` : envLine(name, example);
}

/**
 * Reads the configuration's variables by their rows: the default for the target's kind when unset, a ConfigError
 * naming the variable when invalid.
 */
export class Reader {
  constructor(
    private readonly env: Record<string, string | undefined>,
    readonly target: 'embedded' | 'remote',
  ) {}

  raw(name: ConfigVariable): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  isSet(name: ConfigVariable): boolean {
    return this.raw(name) !== undefined;
  }

  /** `NAME must be <what> (got "x"); example: NAME=<example>` — secrets are described, never quoted. */
  fail(name: ConfigVariable, problem?: string): never {
    const v = variable(name);
    const value = this.raw(name) ?? '';
    const got = problem ?? (v.secret ? `got a value of ${value.length} characters` : `got "${value}"`);
    const example = v.example ?? defaultFor(v, this.target);
    // The example as it is written in .env (a `#` quoted: env-file.ts).
    throw new ConfigError(`${name} must be ${mustOf(v)} (${got}); example: ${exampleLine(name, example)}`, name);
  }

  read<N extends ConfigVariable>(name: N): ValueOf<N> {
    return this.parse(variable(name), name) as ValueOf<N>;
  }

  private parse(v: Variable, name: ConfigVariable): unknown {
    const t = v.type;
    const value = this.raw(name);
    if (value === undefined) {
      if (t.kind === 'list' || t.kind === 'json') return t.kind === 'list' ? [] : {};
      if (v.default === undefined) return undefined;
      return t.kind === 'int' ? Number(defaultFor(v, this.target)) : defaultFor(v, this.target);
    }
    switch (t.kind) {
      case 'url': {
        let protocol = '';
        try {
          protocol = new URL(value).protocol;
        } catch {
          // reported below
        }
        if (protocol !== 'http:' && protocol !== 'https:') this.fail(name);
        return value.replace(/\/+$/, '');
      }
      case 'int':
        if (!/^-?\d+$/.test(value) || Number(value) < t.min || Number(value) > (t.max ?? Number.MAX_SAFE_INTEGER)) this.fail(name);
        return Number(value);
      case 'oneOf':
        return t.values.includes(value) ? value : this.fail(name);
      case 'pattern':
        return t.re.test(value) ? value : this.fail(name);
      case 'string':
        return value;
      case 'list': {
        const items = value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
        for (const item of items) if (!t.items.includes(item)) this.fail(name, `got unknown "${item}"`);
        return [...new Set(items)];
      }
      case 'json': {
        let parsed: unknown;
        try {
          parsed = JSON.parse(value);
        } catch {
          this.fail(name, 'got text that is not JSON');
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) this.fail(name, 'got JSON that is not an object');
        const strings = (e: unknown) =>
          e !== null && typeof e === 'object' && !Array.isArray(e) && Object.values(e).every((x) => typeof x === 'string');
        const [valid, problem] =
          t.entry === 'name'
            ? [(e: unknown) => typeof e === 'string' && e !== '', 'with a non-empty name']
            : [strings, 'with an object of string values'];
        for (const [key, entry] of Object.entries(parsed as object)) {
          if (!t.keys.includes(key) || !valid(entry)) this.fail(name, `got an entry "${key}" that is not one of those fields ${problem}`);
        }
        return parsed;
      }
    }
  }
}
