/**
 * Configuration of a run, from the environment and `.env` (real environment variables win). Every variable is
 * validated; a bad value throws `ConfigError` with one line naming the variable, what it means, what was wrong and
 * an example. Secret values never appear in a message. Empty values count as unset.
 *
 *   const config = loadConfig();            // frozen
 *   console.log(redactedConfigSummary(config));
 *
 * API_BASE_URL unset → `target.kind = 'embedded'` (credentials and URLs come from the embedded sandbox later);
 * set → `'remote'`, which needs AUTH_URL, CLIENT_ID and CLIENT_SECRET. Every variable is documented in .env.example.
 * The secrets read here (client secrets, passwords, hash key) are registered for redaction.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { ConfigError } from '../record/errors.ts';
import { secrets } from '../record/redact.ts';
import { readReportSettings, SettingError } from '../record/report-settings.ts';
import { DEFAULT_CHROMIUM_PATH, installHint } from '../payer/chromium.ts';
import { isInputName } from '../payer/fields.ts';
import type { ChallengeCode, OptionValues } from '../payer/types.ts';
// The catalogue only (no fastify): the worker reads a variant's settings, the sandbox itself runs elsewhere.
import { variantSettings } from '../../sandbox/variants.ts';
import { faultSettings } from '../../sandbox/faults.ts';

export { ConfigError } from '../record/errors.ts';

export type AccountAuth = 'basic' | 'password-grant';
/** A digest as the settings name it: HMAC keyed with the key, or plain (the key appended). */
export type DigestName = `${'hmac-' | ''}${'md5' | 'sha1' | 'sha256' | 'sha512'}`;
const DIGEST_NAMES: readonly DigestName[] = ['hmac-sha256', 'hmac-sha512', 'hmac-sha1', 'hmac-md5', 'sha256', 'sha512', 'sha1', 'md5'];
/** off = observe the hash; auto = discover the scheme on the first redirect (harness/discovery/). */
export type RedirectHashAlgorithm = 'off' | 'auto' | DigestName;
export type Destructive = 'account-deletion';

export type TargetConfig =
  | { kind: 'embedded' }
  | {
      kind: 'remote';
      /** {base_url}, without a trailing slash. */
      baseUrl: string;
      /** {auth_url}; the token endpoint is `${authUrl}/connect/token`. */
      authUrl: string;
      clientId: string;
      clientSecret: string;
      accountUser?: string;
      accountPassword?: string;
      /** A business of the same account without the MPOS permission. */
      secondClientId?: string;
      secondClientSecret?: string;
      /** A disposable account that account deletion may destroy (only with ALLOW_DESTRUCTIVE=account-deletion). */
      deletionAccountUser?: string;
      deletionAccountPassword?: string;
      /** A second merchant (another tenant) for the tenant-isolation checks: all four or none. */
      otherAccountUser?: string;
      otherAccountPassword?: string;
      otherClientId?: string;
      otherClientSecret?: string;
    };

/** TEST_TIMEOUT_MS's default: a test's own budget, the one a test's own budget (`clauseTest(…, ms)`) is scaled against. */
export const TEST_TIMEOUT_MS_DEFAULT = 60_000;

/** The run's bounds. */
export interface Budget {
  /** TEST_TIMEOUT_MS: a test's own budget (harness/run/budget.ts), waits for other tests not counted. */
  testTimeoutMs: number;
  /** RUN_TIMEOUT_S: bounds the whole run (vitest's timeout of each test, and the HTTP client's deadline). */
  runTimeoutS: number;
  /**
   * MAX_WAIT_S: the longest a test waits in real time for the target's time to pass where it has no clock control
   * (a link's vigencia, a screen's validity, a token's lifetime, a quick-pay QR); 0 = such tests skip.
   */
  maxWaitS: number;
}

export interface Config {
  target: TargetConfig;
  accountAuth: AccountAuth;
  /** ACCOUNT_AUTH=auto: the probe tries HTTP Basic, then a password grant (harness/discovery/account-auth.ts); accountAuth is 'basic' until then. */
  accountAuthAuto: boolean;
  /** The audience of every token request (spec 5.1: service_api; TOKEN_AUDIENCE for a service that uses its own). */
  tokenAudience: string;
  http: { timeoutMs: number; retries: number; maxResponseBytes: number };
  /** The run's bounds, read once by the global setup and provided to the worker with the configuration (`inject('config')`, harness/run/budget.ts). */
  budget: Budget;
  reportDir: string;
  receiver: { host: string; port: number; publicUrl?: string };
  webhook: {
    /** 'off' = observe the signature header, don't verify it; 'auto' = discover header and scheme on the first webhook. */
    signature: 'off' | 'auto' | DigestName;
    /** Lower case. */
    signatureHeader: string;
    /** true: the body is signed without a key (WEBHOOK_SIGNATURE_KEY=none); else with the client secret. */
    signatureUnkeyed: boolean;
    signatureEncoding: 'hex' | 'base64' | 'base64url';
    timeoutS: number;
    fieldCase: 'exact' | 'insensitive';
  };
  redirectHash: {
    /** 'off' = observe the hash, don't verify it. */
    algorithm: RedirectHashAlgorithm;
    /** undefined = the business's client secret; '' = no key (REDIRECT_HASH_KEY=none). */
    key?: string;
    encoding: 'hex' | 'base64' | 'base64url';
    /** The values hashed as they appear in the query, or normalised (monto with two decimals, booleans lower case). */
    values: 'query' | 'normalised';
    /**
     * The fields of a link payment's hash: spec = the seven of 6.3; link = identificadorEnlaceComercio, idTransaccion,
     * idEnlace, monto; auto = whichever verifies the first link payment's redirect (an API payment's is always spec).
     */
    order: 'spec' | 'link' | 'auto';
  };
  // --- issue 12: remote speed ---
  /** MAX_CONCURRENCY: requests in flight to the target at most, across the whole run (lowered on 429/503). */
  maxConcurrency: number;
  allowDestructive: readonly Destructive[];
  fastCheck: { seed?: number; numRuns: number };
  expectedFailuresFile?: string;
  testData: { cardNumber: string; cvv: string; walletDui: string; mpos: { posId: string; track2: string; ksn: string } };
  /** Names of the hosted payment screen's fields where they differ from the sandbox's (SCREEN_FIELD_NAMES). */
  screenFieldNames: Record<string, string>;
  /** Per field, the suite's value → the screen's option value, where options are not matched by meaning (SCREEN_OPTION_VALUES). */
  screenOptionValues: OptionValues;
  /** The answer a 3DS test page's challenge expects (SCREEN_CHALLENGE_CODE): a fixed code, or where the page shows it. */
  challengeCode?: ChallengeCode;
  /** The CLIENT_ID business has the MPOS permission (MPOS_PERMITTED). */
  mposPermitted: boolean;
  /** Tenant-isolation checks (category security, not spec clauses): fail the run, or only be observed (SECURITY_CHECKS). */
  securityChecks: 'fail' | 'observe';
  /** Options of the embedded sandbox (ignored by a remote target, where setting them is an error). */
  sandbox: { mode: 'development' | 'production'; fault?: string; variant?: string; screen: 'html' | 'js' | 'steps' | 'challenge' | 'frame' };
  /** How hosted screens are paid (PAYER) and the Chromium the browser payer drives (CHROMIUM_PATH). */
  payer: { kind: 'http' | 'browser' | 'auto'; chromiumPath: string };
  /** The earlier run this one is compared with (BASELINE), and what fails the run (FAIL_ON). */
  reports: ReportSettings;
}

export interface ReportSettings {
  baseline?: string;
  failOn: 'any' | 'new';
}

type Env = Record<string, string | undefined>;

/** Reads `.env` (if present; real variables win) and validates every variable. Throws ConfigError. */
export function loadConfig(env: Env = process.env, options: { dotenvPath?: string | null; discovered?: boolean } = {}): Config {
  const given = { ...readDotenv(options.dotenvPath), ...definedOnly(env) };
  // Settings `npm run discover` found (REPORT_DIR/discovered.env) fill only what the user left unset.
  const discovered = options.dotenvPath === null || options.discovered === false ? {} : readDiscovered(given);
  const merged = withVariantSettings({ ...discovered, ...withoutEmpty(given) });
  return adoptConfig(parseConfig(merged));
}

/**
 * A configuration read elsewhere (the global setup's, provided to the worker: `inject('config')`) made this process's:
 * its secrets registered for redaction, frozen. The run's settings are read once.
 */
export function adoptConfig(config: Config): Config {
  registerSecrets(config);
  return deepFreeze(config);
}

/**
 * The embedded sandbox's variants (SANDBOX_VARIANT) come with the settings a vendor would hand over with such an
 * implementation (a hash scheme, field names): they fill what the user left unset ('' counts as unset).
 */
function withVariantSettings(env: Env): Env {
  const selected = env.SANDBOX_VARIANT?.trim();
  const fault = env.SANDBOX_FAULT?.trim();
  if ((!selected && !fault) || env.API_BASE_URL?.trim()) return env;
  let settings: Record<string, string>;
  try {
    settings = variantSettings(selected);
  } catch (err) {
    throw new ConfigError(`SANDBOX_VARIANT must be "all", "deployed" or ids of sandbox/variants.ts separated by commas, or unset (${(err as Error).message})`, 'SANDBOX_VARIANT');
  }
  // A fault that is a vendor's own convention (another token audience) comes with the setting that vendor would give,
  // so that only the tests of its clause see it (npm run mutation localises it).
  try {
    settings = { ...settings, ...faultSettings(fault) };
  } catch (err) {
    throw new ConfigError(`SANDBOX_FAULT must be the id of a fault of sandbox/faults.ts, or unset (${(err as Error).message})`, 'SANDBOX_FAULT');
  }
  const filled = { ...env };
  for (const [name, value] of Object.entries(settings)) if (!filled[name]?.trim()) filled[name] = value;
  return filled;
}

/** How the embedded sandbox with these variants takes account credentials: what its variants' settings say, else basic. */
function embeddedAccountAuth(selected: string | undefined): AccountAuth {
  let settings: Record<string, string> = {};
  try {
    settings = variantSettings(selected);
  } catch {
    // An unknown variant id is reported by SANDBOX_VARIANT's own check.
  }
  return settings['ACCOUNT_AUTH'] === 'password-grant' ? 'password-grant' : 'basic';
}

function readDotenv(path: string | null | undefined): Env {
  if (path === null) return {};
  const file = path ?? '.env';
  if (!existsSync(file)) {
    if (path === undefined) return {};
    throw new ConfigError(`the .env file "${file}" does not exist; create it from .env.example or pass another path`, 'DOTENV');
  }
  return parseDotenv(readFileSync(file));
}

function withoutEmpty(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
}

function definedOnly(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}

/** A variable as its reader describes it: docs/configuration.md is generated from these (npm run docs:config). */
export interface VariableDoc {
  name: string;
  what?: string;
  /** The default when unset ('' = none). */
  fallback?: string;
  allowed?: readonly string[];
  secret?: boolean;
}

/** While describeVariables() runs: every variable read, with what its reader says of it. */
let described: Map<string, VariableDoc> | undefined;

function describe(name: string, doc: Omit<VariableDoc, 'name'>): void {
  if (!described) return;
  // The first reading that says a thing wins (a raw read says nothing).
  const known = described.get(name) ?? { name };
  described.set(name, { name, what: known.what ?? doc.what, fallback: known.fallback ?? doc.fallback, allowed: known.allowed ?? doc.allowed, secret: known.secret ?? doc.secret });
}

/** What the readers below say without a `what` of their own (variables read raw). */
const RAW_WHAT: Record<string, string> = {
  CLIENT_ID: 'the client id of a development business (remote target; required with API_BASE_URL)',
  CLIENT_SECRET: 'its client secret (the API Secret of that business; required with API_BASE_URL)',
  REDIRECT_HASH_KEY: 'the key of the redirect hash: unset = the business\'s client secret, none = no key',
  ALLOW_DESTRUCTIVE: 'a comma-separated list of destructive tests to allow, from: account-deletion',
  FC_SEED: 'fast-check seed (to replay a run); unset = random',
  EXPECTED_FAILURES_FILE: 'the path of a file listing test names expected to fail, one per line',
  SCREEN_FIELD_NAMES: `a JSON object mapping the hosted pages' fields to the input names or CSS selectors of the target's pages, e.g. {"numeroTarjeta":"card_number","cvv":"#cvc"}`,
  SCREEN_OPTION_VALUES: `a JSON object mapping, per field, the suite's value to the option value of the target's select where options are not matched by meaning, e.g. {"mesVencimiento":{"1":"01"},"formaPago":{"0":"TC"}}`,
  BASELINE: 'the REPORT_DIR of an earlier run, or its summary.json, to compare this run with',
  FAIL_ON: 'what fails the run: any = any failure; new = only a failure that is not in BASELINE (needs BASELINE)',
  REPORT_DIR: 'the folder reports are written to (relative to the working directory)',
  CHROMIUM_PATH: 'the Chromium (or Chrome) executable PAYER=browser drives',
  OTHER_ACCOUNT_USER: 'a second merchant (another tenant) for the tenant-isolation checks: its account user; all four OTHER_* or none',
  OTHER_ACCOUNT_PASSWORD: 'the second merchant\'s account password',
  OTHER_CLIENT_ID: 'the client id of a development business of the second merchant',
  OTHER_CLIENT_SECRET: 'its client secret',
};

/**
 * Every variable the configuration reads, with its meaning, allowed values and defaults, as the readers describe it:
 * the configuration is read for an embedded target and for a remote one with every credential set, and every
 * reading recorded. `defaults` holds the default of each scenario where they differ.
 */
export function describeVariables(): (VariableDoc & { defaults: { embedded?: string; remote?: string } })[] {
  const remoteEnv: Env = {
    API_BASE_URL: 'https://api.example.test/api', AUTH_URL: 'https://auth.example.test', CLIENT_ID: 'a', CLIENT_SECRET: 'b',
    ACCOUNT_USER: 'u', ACCOUNT_PASSWORD: 'p', SECOND_CLIENT_ID: 'c', SECOND_CLIENT_SECRET: 'd',
    DELETION_ACCOUNT_USER: 'x', DELETION_ACCOUNT_PASSWORD: 'y', ALLOW_DESTRUCTIVE: 'account-deletion',
    OTHER_ACCOUNT_USER: 'o', OTHER_ACCOUNT_PASSWORD: 'q', OTHER_CLIENT_ID: 'e', OTHER_CLIENT_SECRET: 'f',
    REDIRECT_HASH_KEY: 'k', FC_SEED: '1', SCREEN_FIELD_NAMES: '{}',
  };
  const scenarios: [('embedded' | 'remote')[], Env][] = [[['embedded'], {}], [['remote'], remoteEnv], [[], { MAX_WAIT_QR_EXPIRY_S: '1' }]];
  const all = new Map<string, VariableDoc & { defaults: { embedded?: string; remote?: string } }>();
  for (const [kinds, env] of scenarios) {
    described = new Map();
    try {
      parseConfig(env);
    } finally {
      const seen = described;
      described = undefined;
      for (const doc of seen.values()) {
        const entry = all.get(doc.name) ?? { ...doc, defaults: {} };
        if (!entry.what && doc.what) entry.what = doc.what;
        if (!entry.allowed && doc.allowed) entry.allowed = doc.allowed;
        for (const kind of kinds) if (doc.fallback !== undefined) entry.defaults[kind] = doc.fallback;
        all.set(doc.name, entry);
      }
    }
  }
  for (const entry of all.values()) entry.what ??= RAW_WHAT[entry.name];
  // Its reader's fallback only satisfies the type: unset means keyed with the client secret.
  const signatureKey = all.get('WEBHOOK_SIGNATURE_KEY');
  if (signatureKey) signatureKey.defaults = {};
  return [...all.values()];
}

/** One variable's reader: knows its name, meaning and an example for messages. */
class Reader {
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    describe(name, {});
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  isSet(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  /** `NAME must be <what> (got "x"); example: NAME=<example>` — secrets are described, never quoted. */
  fail(name: string, what: string, example: string, secret = false, problem?: string): never {
    const value = this.raw(name) ?? '';
    const got = problem ?? (secret ? `got a value of ${value.length} characters` : `got "${value}"`);
    throw new ConfigError(`${name} must be ${what} (${got}); example: ${name}=${example}`, name);
  }

  string(name: string, fallback: string): string {
    describe(name, { fallback });
    return this.raw(name) ?? fallback;
  }

  url(name: string, what: string, example: string): string | undefined {
    describe(name, { what: `an absolute http(s) URL, ${what}` });
    const value = this.raw(name);
    if (value === undefined) return undefined;
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      return this.fail(name, `an absolute http(s) URL, ${what}`, example);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') this.fail(name, `an absolute http(s) URL, ${what}`, example);
    return value.replace(/\/+$/, '');
  }

  int(name: string, what: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    describe(name, { what: `${what} (${min}${max === Number.MAX_SAFE_INTEGER ? ' or more' : `..${max}`})`, fallback: String(fallback) });
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      const kind = min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : 'an integer';
      const range = max === Number.MAX_SAFE_INTEGER ? '' : min > 1 || min < 0 ? `, from ${min} to ${max}` : `, at most ${max}`;
      this.fail(name, `${kind} ${what}${range}`, String(fallback));
    }
    return Number(value);
  }

  oneOf<T extends string>(name: string, what: string, allowed: readonly T[], fallback: T): T {
    describe(name, { what, allowed, fallback });
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.fail(name, `one of ${allowed.join(' | ')} (${what})`, fallback);
    }
    return value as T;
  }

  pattern(name: string, what: string, re: RegExp, fallback: string, options: { example?: string; secret?: boolean } = {}): string {
    describe(name, { what, fallback, ...(options.secret ? { secret: true } : {}) });
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!re.test(value)) this.fail(name, what, options.example ?? fallback, options.secret);
    return value;
  }
}

const allowedDestructive: readonly Destructive[] = ['account-deletion'];

/** The second merchant of the tenant-isolation checks (remote targets): set all four or none. */
const OTHER_TENANT = ['OTHER_ACCOUNT_USER', 'OTHER_ACCOUNT_PASSWORD', 'OTHER_CLIENT_ID', 'OTHER_CLIENT_SECRET'];

/** Variables that only make sense for a remote target: with the embedded sandbox they would be silently ignored. */
const remoteOnly = [
  'AUTH_URL',
  'CLIENT_ID',
  'CLIENT_SECRET',
  'ACCOUNT_USER',
  'ACCOUNT_PASSWORD',
  'SECOND_CLIENT_ID',
  'SECOND_CLIENT_SECRET',
  'DELETION_ACCOUNT_USER',
  'DELETION_ACCOUNT_PASSWORD',
  ...OTHER_TENANT,
];

/**
 * The environment of a child run that must test the embedded sandbox whatever the user's `.env` says (npm run
 * mutation, npm run bench): API_BASE_URL and every remote-only variable set empty, which counts as unset and, being
 * a real variable, beats `.env`.
 */
export function embeddedOnlyEnv(env: Env): Env {
  return { ...env, ...Object.fromEntries(['API_BASE_URL', 'ACCOUNT_AUTH', 'TOKEN_AUDIENCE', ...remoteOnly].map((name) => [name, ''])) };
}

const requiredRemote: Record<string, string> = {
  AUTH_URL: 'the {auth_url} of the token issuer (AUTH_URL=https://auth.example.test)',
  CLIENT_ID: 'the client id of a development business (CLIENT_ID=my-dev-business)',
  CLIENT_SECRET: 'its client secret (CLIENT_SECRET=<the API Secret of that business>)',
};

function parseConfig(env: Env): Config {
  const r = new Reader(env);

  const baseUrl = r.url('API_BASE_URL', 'the {base_url} of the target, or unset for the embedded sandbox', 'https://api.example.test/api');
  const remote = baseUrl !== undefined;
  const target = remote ? remoteTarget(r, baseUrl) : embeddedTarget(r);

  const accountAuthSetting = r.oneOf('ACCOUNT_AUTH', 'how account user+password is sent: HTTP Basic, an OAuth2 password grant at AUTH_URL, or auto = try Basic, then the password grant', ['basic', 'password-grant', 'auto'] as const, remote ? 'auto' : 'basic');
  const accountAuth: AccountAuth = accountAuthSetting === 'auto' ? 'basic' : accountAuthSetting;
  // The embedded sandbox takes account credentials as HTTP Basic, unless a variant issues account tokens (its
  // settings say ACCOUNT_AUTH=password-grant): any other pairing would fail every account test, blaming the sandbox.
  if (!remote && accountAuthSetting !== 'auto') {
    const variantAuth = embeddedAccountAuth(r.raw('SANDBOX_VARIANT'));
    if (accountAuth !== variantAuth) {
      throw new ConfigError(
        variantAuth === 'basic'
          ? 'ACCOUNT_AUTH=password-grant needs a target that issues account tokens: a remote target (API_BASE_URL set), or the embedded sandbox with SANDBOX_VARIANT=account-password-grant; unset ACCOUNT_AUTH or set ACCOUNT_AUTH=basic'
          : 'ACCOUNT_AUTH=basic does not fit SANDBOX_VARIANT: its account endpoints take only account tokens (account-password-grant); unset ACCOUNT_AUTH or set ACCOUNT_AUTH=password-grant',
        'ACCOUNT_AUTH',
      );
    }
  }

  const tokenAudience = parseTokenAudience(r, remote);

  const http = {
    timeoutMs: r.int('HTTP_TIMEOUT_MS', 'number of milliseconds', 15_000, 1),
    retries: r.int('HTTP_RETRIES', 'number of extra attempts for idempotent requests', 3, 0, 10),
    maxResponseBytes: r.int('MAX_RESPONSE_BYTES', 'number of bytes read of a response body', 1_048_576, 1),
  };
  const budget: Budget = {
    testTimeoutMs: r.int('TEST_TIMEOUT_MS', 'number of milliseconds of its own work a test may take (waits for other tests not counted)', TEST_TIMEOUT_MS_DEFAULT, 1),
    runTimeoutS: r.int('RUN_TIMEOUT_S', 'number of seconds bounding the whole run', 900, 1),
    maxWaitS: parseMaxWait(r, remote),
  };

  const publicUrl = r.url('WEBHOOK_PUBLIC_URL', 'at which the target reaches the webhook receiver (a tunnel for a remote target)', 'https://my-tunnel.example.test');
  const receiver = {
    host: r.pattern('RECEIVER_HOST', 'a host name or IP address the webhook receiver binds to', /^[A-Za-z0-9.:-]+$/, '127.0.0.1'),
    port: r.int('RECEIVER_PORT', 'TCP port of the webhook receiver (0 = any free port)', 0, 0, 65_535),
    ...(publicUrl === undefined ? {} : { publicUrl }),
  };

  const webhook = {
    signature: r.oneOf('WEBHOOK_SIGNATURE', 'how the webhook signature header is made (off = only observe it; auto = discover it on the first webhook)', ['off', 'auto', ...DIGEST_NAMES] as const, remote ? 'auto' : 'hmac-sha256'),
    signatureUnkeyed: r.oneOf('WEBHOOK_SIGNATURE_KEY', 'none when the signature is a digest without a key; unset = keyed with the client secret', ['none'] as const, 'none') === 'none' && r.isSet('WEBHOOK_SIGNATURE_KEY'),
    signatureEncoding: r.oneOf('WEBHOOK_SIGNATURE_ENCODING', 'the encoding of the webhook signature', ['hex', 'base64', 'base64url'] as const, 'hex'),
    signatureHeader: r.pattern('WEBHOOK_SIGNATURE_HEADER', 'an HTTP header name carrying the webhook signature', /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'x-signature').toLowerCase(),
    timeoutS: r.int('WEBHOOK_TIMEOUT_S', 'number of seconds to wait for a webhook', 10, 1),
    // 6.1 shows no payload, so a webhook's field names may be cased as the service likes (PascalCase is common).
    fieldCase: r.oneOf('WEBHOOK_FIELD_CASE', 'how webhook field names are matched (insensitive: any casing, as 6.1 shows no payload; exact: the spec\'s camelCase only)', ['exact', 'insensitive'] as const, 'insensitive'),
  };

  const hashKey = r.raw('REDIRECT_HASH_KEY');
  const redirectHash = {
    algorithm: r.oneOf<RedirectHashAlgorithm>('REDIRECT_HASH', 'the redirect hash algorithm; off = observe, don\'t verify; auto = discover it on the first redirect', ['off', 'auto', ...DIGEST_NAMES], remote ? 'auto' : 'hmac-sha256'),
    ...(hashKey === undefined ? {} : { key: hashKey === 'none' ? '' : hashKey }),
    encoding: r.oneOf('REDIRECT_HASH_ENCODING', 'the encoding of the redirect hash (hex in either case)', ['hex', 'base64', 'base64url'] as const, 'hex'),
    values: r.oneOf('REDIRECT_HASH_VALUES', 'how the values are hashed: as they appear in the query, or normalised (monto with two decimals, booleans lower case)', ['query', 'normalised'] as const, 'query'),
    order: r.oneOf('REDIRECT_HASH_ORDER', 'the fields of a link payment\'s hash: spec = the seven of 6.3, link = identificadorEnlaceComercio,idTransaccion,idEnlace,monto, auto = whichever verifies the first', ['spec', 'link', 'auto'] as const, 'auto'),
  };

  const allowDestructive = parseDestructive(r);
  if (remote && allowDestructive.includes('account-deletion')) checkDeletionCredentials(r);

  const seed = r.raw('FC_SEED') === undefined ? undefined : r.int('FC_SEED', 'fast-check seed (to replay a run)', 42, -2_147_483_648, 2_147_483_647);
  const fastCheck = {
    ...(seed === undefined ? {} : { seed }),
    // embedded: 50 keeps suites/properties.test.ts (33 properties) near 3 s; remote: few, not to flood a real sandbox
    numRuns: r.int('FC_NUM_RUNS', 'number of fast-check runs per property', remote ? 10 : 50, 1, 100_000),
  };

  const expectedFailuresFile = r.raw('EXPECTED_FAILURES_FILE');
  if (expectedFailuresFile !== undefined && !(existsSync(expectedFailuresFile) && statSync(expectedFailuresFile).isFile())) {
    r.fail('EXPECTED_FAILURES_FILE', 'the path of an existing file listing test names expected to fail, one per line', 'expected-failures.txt', false, `got "${expectedFailuresFile}", which is not a file`);
  }

  const testData = {
    cardNumber: r.pattern('TEST_CARD_NUMBER', 'a test card number of 13 to 19 digits, no spaces', /^\d{13,19}$/, '4111111111111111', { secret: true }),
    cvv: r.pattern('TEST_CARD_CVV', 'a test cvv of 3 or 4 digits', /^\d{3,4}$/, '123', { secret: true }),
    walletDui: r.pattern('TEST_WALLET_DUI', 'the dui (national identifier) of a test wallet account: digits and hyphens', /^[0-9-]{1,20}$/, '00000000-0'),
    mpos: {
      posId: r.pattern('MPOS_POS_ID', 'a POS identifier without spaces', /^\S{1,100}$/, 'POS-0001'),
      track2: r.pattern('MPOS_TRACK2', 'test encTRACK2 card data from an MPOS device, in hexadecimal', /^[0-9A-Fa-f]{2,512}$/, 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718', { secret: true }),
      ksn: r.pattern('MPOS_KSN', 'a test encTRACK KSN key from an MPOS device, in hexadecimal', /^[0-9A-Fa-f]{2,64}$/, 'FFFF9876543210E00001'),
    },
  };

  // The hosted screens' field names are the vendor's choice (spec 1: "a payment screen hosted by the service").
  const screenFieldNames = parseFieldNames(r);
  const screenOptionValues = parseOptionValues(r);
  const challengeCode = parseChallengeCode(r);
  const mposPermitted = r.oneOf('MPOS_PERMITTED', 'whether the CLIENT_ID business has the additional MPOS permission of 4.7 (no = MPOS purchases as that business are skipped)', ['yes', 'no'] as const, 'yes') === 'yes';

  const sandboxMode = r.oneOf('SANDBOX_MODE', 'the mode the embedded sandbox starts its businesses in', ['development', 'production'] as const, 'development');
  const fault = r.pattern('SANDBOX_FAULT', 'the name of a fault of the sandbox\'s fault catalogue (used by npm run mutation)', /^[A-Za-z0-9._-]+$/, '', { example: '<a fault id of sandbox/faults.ts>' });
  const variant = r.pattern('SANDBOX_VARIANT', 'spec-valid variants of the embedded sandbox (sandbox/variants.ts): ids separated by commas, or all (used by npm run mutation)', /^[A-Za-z0-9._,-]+$/, '', { example: 'all' });
  const payer = parsePayer(r);
  const sandboxScreen = r.oneOf('SANDBOX_SCREEN', 'how the embedded sandbox serves its hosted screens: html = plain forms, js = forms built by JavaScript (to test PAYER=browser), steps = the payment screen in two steps, challenge = a 3DS page asking for the code it shows, frame = the card in a cross-origin iframe', ['html', 'js', 'steps', 'challenge', 'frame'] as const, 'html');
  if (remote) {
    for (const name of ['SANDBOX_MODE', 'SANDBOX_FAULT', 'SANDBOX_VARIANT', 'SANDBOX_SCREEN']) {
      if (r.isSet(name)) throw new ConfigError(`${name} only applies to the embedded sandbox, but API_BASE_URL is set; unset ${name} to test the remote target`, name);
    }
  }

  return {
    target,
    accountAuth,
    accountAuthAuto: accountAuthSetting === 'auto',
    tokenAudience,
    http,
    budget,
    reportDir: r.string('REPORT_DIR', 'reports'),
    receiver,
    webhook,
    redirectHash,
    maxConcurrency: r.int('MAX_CONCURRENCY', 'number of requests in flight to the target at once (1 = one at a time)', 8, 1, 64),
    allowDestructive,
    fastCheck,
    ...(expectedFailuresFile === undefined ? {} : { expectedFailuresFile }),
    testData,
    screenFieldNames,
    screenOptionValues,
    ...(challengeCode ? { challengeCode } : {}),
    mposPermitted,
    securityChecks: r.oneOf('SECURITY_CHECKS', 'what a failed tenant-isolation check (category security, OWASP API1:2023; the spec states no isolation) does: fail the run, or only be reported as a WARN observation', ['fail', 'observe'] as const, 'fail'),
    sandbox: { mode: sandboxMode, ...(fault === '' ? {} : { fault }), ...(variant === '' ? {} : { variant }), screen: sandboxScreen },
    payer,
    reports: parseReportSettings(r),
  };
}

/**
 * MAX_WAIT_S (default 120 on a remote target, 0 on the embedded one, whose clock the suite moves); the deprecated
 * MAX_WAIT_QR_EXPIRY_S is read as MAX_WAIT_S when that is unset.
 */
function parseMaxWait(r: Reader, remote: boolean): number {
  const what = 'number of seconds a test may wait in real time for the target\'s time to pass where the target has no clock control (0 = such tests skip)';
  if (!r.isSet('MAX_WAIT_S') && r.isSet('MAX_WAIT_QR_EXPIRY_S')) return r.int('MAX_WAIT_QR_EXPIRY_S', `${what}; deprecated: use MAX_WAIT_S`, 120, 0, 3600);
  return r.int('MAX_WAIT_S', what, remote ? 120 : 0, 0, 3600);
}

/**
 * REPORT_DIR/discovered.env, written by `npm run discover` for one API_BASE_URL (its DISCOVERED_FOR line): applied
 * only to that target, below the environment and .env. A file for another target is ignored.
 */
function readDiscovered(given: Env): Env {
  const file = `${given.REPORT_DIR?.trim() || 'reports'}/discovered.env`;
  if (!existsSync(file)) return {};
  const found = parseDotenv(readFileSync(file));
  const target = given.API_BASE_URL?.trim().replace(/\/+$/, '');
  if (!target || found.DISCOVERED_FOR?.replace(/\/+$/, '') !== target) return {};
  delete found.DISCOVERED_FOR;
  return found;
}

// --- Reports: baseline comparison and ratchet (issue 15) ---------------------------------------------------------
function parseReportSettings(r: Reader): ReportSettings {
  try {
    return readReportSettings((name) => r.raw(name));
  } catch (err) {
    if (err instanceof SettingError) throw new ConfigError(err.message, err.variable);
    throw err;
  }
}

/**
 * TOKEN_AUDIENCE: spec 5.1 says service_api; a deployed service may expect its own value. Empty counts as unset, as
 * for every variable (.env.example; the project's own runs blank every variable): the default, service_api.
 */
function parseTokenAudience(r: Reader, remote: boolean): string {
  const what = 'the audience sent in every token request (spec 5.1: service_api; a deployed service may use its own), without spaces';
  const audience = r.pattern('TOKEN_AUDIENCE', what, /^[\x21-\x7e]{1,200}$/, 'service_api');
  // The embedded sandbox issues tokens for service_api, unless a fault of its catalogue uses an audience of its own.
  if (!remote && audience !== 'service_api' && audience !== embeddedAudience(r.raw('SANDBOX_FAULT'))) {
    throw new ConfigError(`TOKEN_AUDIENCE=${audience} only applies to a remote target (API_BASE_URL set): the embedded sandbox issues tokens for service_api (spec 5.1); unset TOKEN_AUDIENCE`, 'TOKEN_AUDIENCE');
  }
  return audience;
}

/** The token audience of the embedded sandbox with this fault: the fault's own, else undefined (service_api). */
function embeddedAudience(fault: string | undefined): string | undefined {
  try {
    return faultSettings(fault)['TOKEN_AUDIENCE'];
  } catch {
    return undefined; // an unknown fault id is reported by SANDBOX_FAULT's own check
  }
}

/** PAYER=browser needs the browser now: without it the run stops here, with how to install it. */
function parsePayer(r: Reader): Config['payer'] {
  const kind = r.oneOf('PAYER', 'how hosted screens are paid: http parses HTML forms, browser drives headless Chromium, auto = the browser only where http finds no form', ['http', 'browser', 'auto'] as const, 'http');
  const chromiumPath = r.string('CHROMIUM_PATH', DEFAULT_CHROMIUM_PATH);
  if (kind === 'browser' && !(existsSync(chromiumPath) && statSync(chromiumPath).isFile())) {
    const variable = r.isSet('CHROMIUM_PATH') ? 'CHROMIUM_PATH' : 'PAYER';
    throw new ConfigError(`PAYER=browser needs Chromium, but there is ${installHint(chromiumPath)} (or use PAYER=http)`, variable);
  }
  return { kind, chromiumPath };
}

const SCREEN_FIELDS = ['numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento', 'nombreTitular', 'email', 'formaPago', 'cuotas', 'cantidad', 'monto', 'codigoDesafio'];

/** SCREEN_CHALLENGE_CODE: `shown-in:<CSS selector>` (the page shows the code there), else the code itself. */
function parseChallengeCode(r: Reader): ChallengeCode | undefined {
  const raw = r.pattern('SCREEN_CHALLENGE_CODE', 'the answer a 3DS test page\'s challenge expects: the code itself, or shown-in:<CSS selector> of the element where the page shows it', /^\S(.*\S)?$/, '', { example: 'shown-in:#test-code' });
  if (raw === '') return undefined;
  return raw.startsWith('shown-in:') ? { shownIn: raw.slice('shown-in:'.length).trim() } : { code: raw };
}

/**
 * A JSON object keyed by the hosted pages' fields (SCREEN_FIELDS), each entry as `valid` says, or a ConfigError naming
 * the variable, what it holds and an example; unset → {}.
 */
function fieldObject(r: Reader, name: string, what: string, example: string, valid: (value: unknown) => boolean, problem: string): Record<string, unknown> {
  const raw = r.raw(name);
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    r.fail(name, what, example, false, 'got text that is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) r.fail(name, what, example, false, 'got JSON that is not an object');
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!SCREEN_FIELDS.includes(key) || !valid(value)) r.fail(name, what, example, false, `got an entry "${key}" that is not one of those fields ${problem}`);
  }
  return parsed as Record<string, unknown>;
}

function parseFieldNames(r: Reader): Record<string, string> {
  const what = `a JSON object mapping the hosted pages' fields (${SCREEN_FIELDS.join(', ')}) to the input names or CSS selectors of the target's pages (payment screen, 3DS and quick-pay pages)`;
  return fieldObject(r, 'SCREEN_FIELD_NAMES', what, '{"numeroTarjeta":"card_number","cvv":"#cvc"}', (v) => typeof v === 'string' && v !== '', 'with a non-empty name') as Record<string, string>;
}

/** SCREEN_OPTION_VALUES: per field, an object of the suite's values to the screen's option values. */
function parseOptionValues(r: Reader): OptionValues {
  const what = `a JSON object mapping, per field of the hosted pages (${SCREEN_FIELDS.join(', ')}), the suite's values to the option values of the page's select`;
  const stringMap = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
  return fieldObject(r, 'SCREEN_OPTION_VALUES', what, '{"mesVencimiento":{"1":"01"},"formaPago":{"0":"TC"}}', stringMap, 'with an object of string values') as OptionValues;
}

function embeddedTarget(r: Reader): TargetConfig {
  for (const name of remoteOnly) {
    if (r.isSet(name)) {
      throw new ConfigError(
        `${name} is set but API_BASE_URL is not: set API_BASE_URL (example: API_BASE_URL=https://api.example.test/api) to test a remote target, or unset ${name} to use the embedded sandbox and its seeded credentials`,
        name,
      );
    }
  }
  return { kind: 'embedded' };
}

function remoteTarget(r: Reader, baseUrl: string): TargetConfig {
  const missing = Object.keys(requiredRemote).filter((name) => !r.isSet(name));
  if (missing.length > 0) {
    const needs = missing.map((name) => `${name} = ${requiredRemote[name]}`).join('; ');
    throw new ConfigError(`a remote target (API_BASE_URL is set) also needs ${missing.join(', ')}: ${needs}`, missing[0]!);
  }
  const authUrl = r.url('AUTH_URL', 'the {auth_url} of the token issuer (the token is at AUTH_URL/connect/token)', 'https://auth.example.test')!;
  return {
    kind: 'remote',
    baseUrl,
    authUrl,
    clientId: r.raw('CLIENT_ID')!,
    clientSecret: r.raw('CLIENT_SECRET')!,
    ...pair(r, 'ACCOUNT_USER', 'ACCOUNT_PASSWORD', 'account credentials (spec 4.2, 4.5, 4.9)', 'accountUser', 'accountPassword'),
    ...pair(r, 'SECOND_CLIENT_ID', 'SECOND_CLIENT_SECRET', 'credentials of a business without the MPOS permission', 'secondClientId', 'secondClientSecret'),
    ...pair(r, 'DELETION_ACCOUNT_USER', 'DELETION_ACCOUNT_PASSWORD', 'credentials of a disposable account for the deletion test', 'deletionAccountUser', 'deletionAccountPassword'),
    ...otherTenant(r),
  };
}

/** OTHER_ACCOUNT_USER/PASSWORD and OTHER_CLIENT_ID/SECRET: a second merchant (an account and one of its development businesses). */
function otherTenant(r: Reader): { otherAccountUser?: string; otherAccountPassword?: string; otherClientId?: string; otherClientSecret?: string } {
  const set = OTHER_TENANT.filter((name) => r.isSet(name));
  if (set.length === 0) return {};
  const unset = OTHER_TENANT.filter((name) => !r.isSet(name));
  if (unset.length > 0) {
    throw new ConfigError(`${unset.join(', ')} must be set together with ${set.join(', ')}: the account and a development business of a second merchant (another tenant) for the tenant-isolation checks; set all four, or none to skip those checks`, unset[0]!);
  }
  if (r.raw('OTHER_ACCOUNT_USER') === r.raw('ACCOUNT_USER') || r.raw('OTHER_CLIENT_ID') === r.raw('CLIENT_ID')) {
    throw new ConfigError('OTHER_ACCOUNT_USER and OTHER_CLIENT_ID must name another merchant than ACCOUNT_USER and CLIENT_ID (got the same): the tenant-isolation checks need two tenants', r.raw('OTHER_ACCOUNT_USER') === r.raw('ACCOUNT_USER') ? 'OTHER_ACCOUNT_USER' : 'OTHER_CLIENT_ID');
  }
  return { otherAccountUser: r.raw('OTHER_ACCOUNT_USER')!, otherAccountPassword: r.raw('OTHER_ACCOUNT_PASSWORD')!, otherClientId: r.raw('OTHER_CLIENT_ID')!, otherClientSecret: r.raw('OTHER_CLIENT_SECRET')! };
}

/** Two variables that go together: both or neither. */
function pair<K1 extends string, K2 extends string>(
  r: Reader,
  first: string,
  second: string,
  what: string,
  key1: K1,
  key2: K2,
): Partial<Record<K1 | K2, string>> {
  describe(first, { what: `${what}; set together with ${second}` });
  describe(second, { what: `${what}; set together with ${first}`, secret: /PASSWORD|SECRET/.test(second) });
  const a = r.raw(first);
  const b = r.raw(second);
  if (a === undefined && b === undefined) return {};
  if (a === undefined || b === undefined) {
    const [set, unset] = a === undefined ? [second, first] : [first, second];
    throw new ConfigError(`${unset} must be set together with ${set} (${what}); set both, or neither to skip the tests that need them`, unset);
  }
  return { [key1]: a, [key2]: b } as Partial<Record<K1 | K2, string>>;
}

function parseDestructive(r: Reader): Destructive[] {
  const value = r.raw('ALLOW_DESTRUCTIVE');
  if (value === undefined) return [];
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const item of items) {
    if (!(allowedDestructive as readonly string[]).includes(item)) {
      r.fail('ALLOW_DESTRUCTIVE', `a comma-separated list of destructive tests to allow, from: ${allowedDestructive.join(', ')}`, 'account-deletion', false, `got unknown "${item}"`);
    }
  }
  return [...new Set(items)] as Destructive[];
}

/** Deleting an account on a remote target needs a separate, disposable account, never the main one. */
function checkDeletionCredentials(r: Reader): void {
  if (!r.isSet('DELETION_ACCOUNT_USER')) {
    throw new ConfigError(
      'ALLOW_DESTRUCTIVE=account-deletion on a remote target needs DELETION_ACCOUNT_USER and DELETION_ACCOUNT_PASSWORD: the credentials of a disposable account that may be deleted (example: DELETION_ACCOUNT_USER=disposable@example.test)',
      'DELETION_ACCOUNT_USER',
    );
  }
  if (r.raw('DELETION_ACCOUNT_USER') === r.raw('ACCOUNT_USER')) {
    throw new ConfigError(
      'DELETION_ACCOUNT_USER must name a disposable account, not the main ACCOUNT_USER (got the same user): account deletion would destroy the account the suite runs with',
      'DELETION_ACCOUNT_USER',
    );
  }
}

function registerSecrets(config: Config): void {
  const t = config.target;
  if (t.kind === 'remote') {
    secrets.add(t.clientSecret, 'client-secret');
    secrets.add(t.accountPassword, 'account-password');
    secrets.add(t.secondClientSecret, 'second-client-secret');
    secrets.add(t.deletionAccountPassword, 'deletion-password');
    secrets.add(t.otherAccountPassword, 'other-account-password');
    secrets.add(t.otherClientSecret, 'other-client-secret');
  }
  secrets.add(config.redirectHash.key, 'redirect-hash-key');
  secrets.add(config.testData.cardNumber, 'card-number');
  secrets.add(config.testData.cvv, 'cvv');
  // A vendor's screen may name its card fields otherwise: their values are removed/masked by those names too.
  // (A CSS selector names no field: such values are still redacted by value.)
  const { numeroTarjeta, cvv } = config.screenFieldNames;
  if (numeroTarjeta && isInputName(numeroTarjeta)) secrets.addField(numeroTarjeta, 'card-number');
  if (cvv && isInputName(cvv)) secrets.addField(cvv, 'cvv');
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The configuration for printing: one `VARIABLE=value` line each; secrets as [set]/[unset]. */
export function redactedConfigSummary(config: Config): string {
  const t = config.target;
  const flag = (v: string | undefined) => (v === undefined ? '[unset]' : '[set]');
  const showUrl = (v: string | undefined) => {
    if (v === undefined) return '[unset]';
    const u = new URL(v);
    if (u.password) u.password = 'REDACTED';
    return u.toString().replace(/\/+$/, '');
  };
  const embedded = '(embedded sandbox)';
  const lines: [string, string][] = [
    ['target', t.kind],
    ['API_BASE_URL', t.kind === 'remote' ? showUrl(t.baseUrl) : embedded],
    ['AUTH_URL', t.kind === 'remote' ? showUrl(t.authUrl) : embedded],
    ['CLIENT_ID', t.kind === 'remote' ? t.clientId : embedded],
    ['CLIENT_SECRET', t.kind === 'remote' ? '[set]' : embedded],
    ['ACCOUNT_USER', t.kind === 'remote' ? (t.accountUser ?? '[unset]') : embedded],
    ['ACCOUNT_PASSWORD', t.kind === 'remote' ? flag(t.accountPassword) : embedded],
    ['ACCOUNT_AUTH', config.accountAuthAuto ? 'auto' : config.accountAuth],
    ['TOKEN_AUDIENCE', config.tokenAudience],
    ['SECOND_CLIENT_ID', t.kind === 'remote' ? (t.secondClientId ?? '[unset]') : embedded],
    ['SECOND_CLIENT_SECRET', t.kind === 'remote' ? flag(t.secondClientSecret) : embedded],
    ['DELETION_ACCOUNT_USER', t.kind === 'remote' ? (t.deletionAccountUser ?? '[unset]') : embedded],
    ['DELETION_ACCOUNT_PASSWORD', t.kind === 'remote' ? flag(t.deletionAccountPassword) : embedded],
    ['OTHER_ACCOUNT_USER', t.kind === 'remote' ? (t.otherAccountUser ?? '[unset]') : embedded],
    ['OTHER_ACCOUNT_PASSWORD', t.kind === 'remote' ? flag(t.otherAccountPassword) : embedded],
    ['OTHER_CLIENT_ID', t.kind === 'remote' ? (t.otherClientId ?? '[unset]') : embedded],
    ['OTHER_CLIENT_SECRET', t.kind === 'remote' ? flag(t.otherClientSecret) : embedded],
    ['SECURITY_CHECKS', config.securityChecks],
    ['ALLOW_DESTRUCTIVE', config.allowDestructive.join(',') || '(none)'],
    ['WEBHOOK_PUBLIC_URL', showUrl(config.receiver.publicUrl)],
    ['RECEIVER_HOST', config.receiver.host],
    ['RECEIVER_PORT', String(config.receiver.port)],
    ['REPORT_DIR', config.reportDir],
    ['BASELINE', config.reports.baseline ?? '[unset]'],
    ['FAIL_ON', config.reports.failOn],
    ['HTTP_TIMEOUT_MS', String(config.http.timeoutMs)],
    ['RUN_TIMEOUT_S', String(config.budget.runTimeoutS)],
    ['TEST_TIMEOUT_MS', String(config.budget.testTimeoutMs)],
    ['HTTP_RETRIES', String(config.http.retries)],
    ['MAX_RESPONSE_BYTES', String(config.http.maxResponseBytes)],
    ['REDIRECT_HASH', config.redirectHash.algorithm],
    ['REDIRECT_HASH_KEY', config.redirectHash.key === undefined ? '[unset: the client secret]' : config.redirectHash.key === '' ? 'none' : '[set]'],
    ['REDIRECT_HASH_ENCODING', config.redirectHash.encoding],
    ['REDIRECT_HASH_VALUES', config.redirectHash.values],
    ['REDIRECT_HASH_ORDER', config.redirectHash.order],
    ['WEBHOOK_SIGNATURE', config.webhook.signature],
    ['WEBHOOK_SIGNATURE_HEADER', config.webhook.signatureHeader],
    ['WEBHOOK_SIGNATURE_KEY', config.webhook.signatureUnkeyed ? 'none' : '[unset: the client secret]'],
    ['WEBHOOK_SIGNATURE_ENCODING', config.webhook.signatureEncoding],
    ['WEBHOOK_TIMEOUT_S', String(config.webhook.timeoutS)],
    ['WEBHOOK_FIELD_CASE', config.webhook.fieldCase],
    ['MAX_WAIT_S', String(config.budget.maxWaitS)],
    ['MAX_CONCURRENCY', String(config.maxConcurrency)],
    ['FC_SEED', config.fastCheck.seed === undefined ? '[unset: random]' : String(config.fastCheck.seed)],
    ['FC_NUM_RUNS', String(config.fastCheck.numRuns)],
    ['EXPECTED_FAILURES_FILE', config.expectedFailuresFile ?? '[unset]'],
    ['TEST_CARD_NUMBER', '[set]'],
    ['TEST_CARD_CVV', '[set]'],
    ['TEST_WALLET_DUI', config.testData.walletDui],
    ['MPOS_POS_ID', config.testData.mpos.posId],
    ['MPOS_TRACK2', '[set]'],
    ['MPOS_KSN', config.testData.mpos.ksn],
    ['SANDBOX_MODE', config.sandbox.mode],
    ['SANDBOX_FAULT', config.sandbox.fault ?? '[unset]'],
    ['SANDBOX_VARIANT', config.sandbox.variant ?? '[unset]'],
    ['SANDBOX_SCREEN', config.sandbox.screen],
    ['PAYER', config.payer.kind],
    ['CHROMIUM_PATH', config.payer.chromiumPath],
  ];
  return lines.map(([name, value]) => `${name}=${value}`).join('\n');
}
