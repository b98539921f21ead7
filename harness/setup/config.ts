/**
 * Configuration of a run, from the environment and `.env` (real environment variables win), each variable read and
 * validated by its row of variables.ts: a bad value throws `ConfigError`, one line naming the variable, what was wrong
 * and an example, never a secret's value. Empty values count as unset. API_BASE_URL unset → the embedded sandbox
 * (`target.kind = 'embedded'`); set → `'remote'`, which needs AUTH_URL, CLIENT_ID and CLIENT_SECRET. The rules between
 * variables are the small functions below.
 *
 *   const config = loadConfig();            // frozen, its secrets registered for redaction
 *   console.log(redactedConfigSummary(config));
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { ConfigError } from './errors.ts';
import { registerSecrets } from './config-view.ts';
import { readReportSettings, reportDirSetting, SettingError } from './report-settings.ts';
import { installHint } from '../payer/chromium.ts';
import type { ChallengeCode, OptionValues } from '../payer/types.ts';
import type { AccountAuth, Budget, Config, Destructive, Remote, ReportSettings, TargetConfig } from './config-types.ts';
// The catalogue only (no fastify): the worker reads a variant's settings, the sandbox itself runs elsewhere.
import { variantSettings } from '../../sandbox/variants.ts';
import { networkSettings } from '../../sandbox/network.ts';
import { faultSettings } from '../../sandbox/faults.ts';
import { CONFIG_ROWS, Reader, VARIABLE_NAMES, variable, type ConfigVariable } from './variables.ts';
import { assertNotCut } from './env-file.ts';

export { ConfigError } from './errors.ts';
export { redactedConfigSummary } from './config-view.ts';
export { TEST_TIMEOUT_MS_DEFAULT } from './variables.ts';
export type {
  AccountAuth,
  Budget,
  Config,
  Destructive,
  DigestName,
  RedirectHashAlgorithm,
  ReportSettings,
  TargetConfig,
} from './config-types.ts';

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
  const network = env.SANDBOX_NETWORK?.trim();
  if ((!selected && !fault && !network) || env.API_BASE_URL?.trim()) return env;
  let settings: Record<string, string>;
  try {
    settings = variantSettings(selected);
  } catch (err) {
    const why = (err as Error).message;
    throw new ConfigError(
      `SANDBOX_VARIANT must be "all", "deployed" or ids of sandbox/variants.ts separated by commas, or unset (${why})`,
      'SANDBOX_VARIANT',
    );
  }
  // A fault that is a vendor's own convention (another token audience) comes with the setting that vendor would give,
  // so that only the tests of its clause see it (npm run mutation localises it).
  try {
    settings = { ...settings, ...faultSettings(fault) };
  } catch (err) {
    throw new ConfigError(
      `SANDBOX_FAULT must be the id of a fault of sandbox/faults.ts, or unset (${(err as Error).message})`,
      'SANDBOX_FAULT',
    );
  }
  // A network's: how late its webhooks come (sandbox/network.ts), as a vendor behind it would say.
  settings = { ...settings, ...networkSettings(network) };
  const filled = { ...env };
  for (const [name, value] of Object.entries(settings)) if (!filled[name]?.trim()) filled[name] = value;
  return filled;
}

function readDotenv(path: string | null | undefined): Env {
  if (path === null) return {};
  const file = path ?? '.env';
  if (!existsSync(file)) {
    if (path === undefined) return {};
    throw new ConfigError(`the .env file "${file}" does not exist; create it from .env.example or pass another path`, 'DOTENV');
  }
  return readEnvFile(file);
}

const TABLE_NAMES: ReadonlySet<string> = new Set(VARIABLE_NAMES);
const isSecret = (name: string) => CONFIG_ROWS.some((v) => v.name === name && v.secret);

/** A .env text read by dotenv, after the check that no setting of the table is cut at a `#` (env-file.ts). */
export function readEnvFile(file: string): Env {
  const text = readFileSync(file, 'utf8');
  assertNotCut(text, file, isSecret, TABLE_NAMES);
  return parseDotenv(text);
}

const withoutEmpty = (env: Env): Env => Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
const definedOnly = (env: Env): Env => Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
/** The fields that are not undefined (optional fields of Config are absent, not undefined). */
const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Defined<T>;
type Defined<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/**
 * REPORT_DIR/discovered.env, written by `npm run discover` for one API_BASE_URL (its DISCOVERED_FOR line): applied
 * only to that target, below the environment and .env. A file for another target is ignored.
 */
function readDiscovered(given: Env): Env {
  const file = `${reportDirSetting({ env: given, dotenv: null })}/discovered.env`;
  if (!existsSync(file)) return {};
  const found = readEnvFile(file);
  const target = given.API_BASE_URL?.trim().replace(/\/+$/, '');
  if (!target || found.DISCOVERED_FOR?.replace(/\/+$/, '') !== target) return {};
  delete found.DISCOVERED_FOR;
  return found;
}

/** Variables that only make sense for a remote target: with the embedded sandbox they would be silently ignored. */
const remoteOnly = CONFIG_ROWS.filter((v) => v.target === 'remote').map((v) => v.name);
const embeddedOnly = CONFIG_ROWS.filter((v) => v.target === 'embedded').map((v) => v.name);

/**
 * The environment of a child run that must test the embedded sandbox whatever the user's `.env` says (npm run
 * mutation, npm run bench): API_BASE_URL and every remote-only variable set empty, which counts as unset and, being
 * a real variable, beats `.env`.
 */
export function embeddedOnlyEnv(env: Env): Env {
  return { ...env, ...Object.fromEntries(['API_BASE_URL', 'ACCOUNT_AUTH', 'TOKEN_AUDIENCE', ...remoteOnly].map((name) => [name, ''])) };
}

function parseConfig(env: Env): Config {
  const baseUrl = new Reader(env, 'embedded').read('API_BASE_URL');
  const remote = baseUrl !== undefined;
  const r = new Reader(env, remote ? 'remote' : 'embedded');
  const target = remote ? remoteTarget(r, baseUrl) : embeddedTarget(r);
  const accountAuth = r.read('ACCOUNT_AUTH');
  if (!remote && accountAuth !== 'auto') checkEmbeddedAccountAuth(accountAuth, r.raw('SANDBOX_VARIANT'));
  const tokenAudience = parseTokenAudience(r);
  const http = { timeoutMs: r.read('HTTP_TIMEOUT_MS'), retries: r.read('HTTP_RETRIES'), maxResponseBytes: r.read('MAX_RESPONSE_BYTES') };
  const budget: Budget = { testTimeoutMs: r.read('TEST_TIMEOUT_MS'), runTimeoutS: r.read('RUN_TIMEOUT_S'), maxWaitS: parseMaxWait(r) };
  const publicUrl = r.read('WEBHOOK_PUBLIC_URL');
  const receiver = { host: r.read('RECEIVER_HOST'), port: r.read('RECEIVER_PORT'), ...defined({ publicUrl }) };
  const webhook = {
    signature: r.read('WEBHOOK_SIGNATURE'),
    signatureUnkeyed: r.read('WEBHOOK_SIGNATURE_KEY') === 'none',
    signatureEncoding: r.read('WEBHOOK_SIGNATURE_ENCODING'),
    signatureHeader: r.read('WEBHOOK_SIGNATURE_HEADER').toLowerCase(),
    timeoutS: r.read('WEBHOOK_TIMEOUT_S'),
    fieldCase: r.read('WEBHOOK_FIELD_CASE'),
  };
  const hashKey = r.read('REDIRECT_HASH_KEY');
  const redirectHash = {
    algorithm: r.read('REDIRECT_HASH'),
    ...(hashKey === undefined ? {} : { key: hashKey === 'none' ? '' : hashKey }),
    encoding: r.read('REDIRECT_HASH_ENCODING'),
    values: r.read('REDIRECT_HASH_VALUES'),
    order: r.read('REDIRECT_HASH_ORDER'),
  };
  const allowDestructive = r.read('ALLOW_DESTRUCTIVE') as Destructive[];
  if (remote && allowDestructive.includes('account-deletion')) checkDeletionCredentials(r);
  const fastCheck = { ...defined({ seed: r.read('FC_SEED') }), numRuns: r.read('FC_NUM_RUNS') };
  const expectedFailuresFile = r.read('EXPECTED_FAILURES_FILE');
  if (expectedFailuresFile !== undefined && !(existsSync(expectedFailuresFile) && statSync(expectedFailuresFile).isFile())) {
    r.fail('EXPECTED_FAILURES_FILE', `got "${expectedFailuresFile}", which is not a file`);
  }
  const testData = { cardNumber: r.read('TEST_CARD_NUMBER'), cvv: r.read('TEST_CARD_CVV'), walletDui: r.read('TEST_WALLET_DUI') };
  const mpos = { posId: r.read('MPOS_POS_ID'), track2: r.read('MPOS_TRACK2'), ksn: r.read('MPOS_KSN') };
  const screenFieldNames = r.read('SCREEN_FIELD_NAMES') as Record<string, string>;
  const screenOptionValues = r.read('SCREEN_OPTION_VALUES') as OptionValues;
  const challengeCode = parseChallengeCode(r.read('SCREEN_CHALLENGE_CODE'));
  const mposPermitted = r.read('MPOS_PERMITTED') === 'yes';
  const sandbox = {
    mode: r.read('SANDBOX_MODE'),
    quickPayTtlS: r.read('SANDBOX_QUICK_PAY_TTL'),
    ...defined({
      fault: r.read('SANDBOX_FAULT'),
      variant: r.read('SANDBOX_VARIANT'),
      network: r.read('SANDBOX_NETWORK'),
      networkSeed: r.read('SANDBOX_NETWORK_SEED'),
    }),
  };
  const payer = parsePayer(r);
  const screen = r.read('SANDBOX_SCREEN');
  for (const name of remote ? embeddedOnly : []) {
    if (r.isSet(name))
      throw new ConfigError(
        `${name} only applies to the embedded sandbox, but API_BASE_URL is set; unset ${name} to test the remote target`,
        name,
      );
  }
  return {
    target,
    accountAuth: accountAuth === 'auto' ? 'basic' : accountAuth,
    accountAuthAuto: accountAuth === 'auto',
    tokenAudience,
    http,
    budget,
    reportDir: r.read('REPORT_DIR'),
    receiver,
    webhook,
    redirectHash,
    maxConcurrency: r.read('MAX_CONCURRENCY'),
    maxRps: r.read('MAX_RPS'),
    allowDestructive,
    require: r.read('REQUIRE') as Config['require'],
    fastCheck,
    ...defined({ expectedFailuresFile }),
    testData: { ...testData, mpos },
    screenFieldNames,
    screenOptionValues,
    ...defined({ challengeCode }),
    mposPermitted,
    securityChecks: r.read('SECURITY_CHECKS'),
    sandbox: { ...sandbox, screen },
    payer,
    reports: parseReportSettings(r),
  };
}

/**
 * The embedded sandbox takes account credentials as HTTP Basic, unless a variant issues account tokens (its settings
 * say ACCOUNT_AUTH=password-grant): any other pairing would fail every account test, blaming the sandbox.
 */
function checkEmbeddedAccountAuth(accountAuth: AccountAuth, selected: string | undefined): void {
  const variantAuth = settingsOf(() => variantSettings(selected))['ACCOUNT_AUTH'] === 'password-grant' ? 'password-grant' : 'basic';
  if (accountAuth === variantAuth) return;
  throw new ConfigError(
    variantAuth === 'basic'
      ? 'ACCOUNT_AUTH=password-grant needs a target that issues account tokens: a remote target (API_BASE_URL set), or ' +
          'the embedded sandbox with SANDBOX_VARIANT=account-password-grant; unset ACCOUNT_AUTH or set ACCOUNT_AUTH=basic'
      : 'ACCOUNT_AUTH=basic does not fit SANDBOX_VARIANT: its account endpoints take only account tokens ' +
          '(account-password-grant); unset ACCOUNT_AUTH or set ACCOUNT_AUTH=password-grant',
    'ACCOUNT_AUTH',
  );
}

/** A variant's or fault's settings; {} for an unknown id, which its own variable's check reports. */
function settingsOf(read: () => Record<string, string>): Record<string, string> {
  try {
    return read();
  } catch {
    return {};
  }
}

/** MAX_WAIT_QR_EXPIRY_S, deprecated, stands for MAX_WAIT_S when that is unset. */
function parseMaxWait(r: Reader): number {
  if (!r.isSet('MAX_WAIT_S') && r.isSet('MAX_WAIT_QR_EXPIRY_S')) return r.read('MAX_WAIT_QR_EXPIRY_S')!;
  return r.read('MAX_WAIT_S');
}

/** BASELINE and FAIL_ON are validated with the reporters' own reading, which the shard merge shares. */
function parseReportSettings(r: Reader): ReportSettings {
  try {
    return readReportSettings((name) => r.raw(name as ConfigVariable));
  } catch (err) {
    if (err instanceof SettingError) throw new ConfigError(err.message, err.variable);
    throw err;
  }
}

/**
 * TOKEN_AUDIENCE: spec 5.1 says service_api; a deployed service may expect its own value. The embedded sandbox issues
 * tokens for service_api, unless a fault of its catalogue uses an audience of its own.
 */
function parseTokenAudience(r: Reader): string {
  const audience = r.read('TOKEN_AUDIENCE');
  if (r.target === 'remote' || audience === 'service_api') return audience;
  if (audience === settingsOf(() => faultSettings(r.raw('SANDBOX_FAULT')))['TOKEN_AUDIENCE']) return audience;
  const why = 'the embedded sandbox issues tokens for service_api (spec 5.1); unset TOKEN_AUDIENCE';
  throw new ConfigError(`TOKEN_AUDIENCE=${audience} only applies to a remote target (API_BASE_URL set): ${why}`, 'TOKEN_AUDIENCE');
}

/** PAYER=browser needs the browser now: without it the run stops here, with how to install it. */
function parsePayer(r: Reader): Config['payer'] {
  const kind = r.read('PAYER');
  const chromiumPath = r.read('CHROMIUM_PATH');
  if (kind === 'browser' && !(existsSync(chromiumPath) && statSync(chromiumPath).isFile())) {
    const variable = r.isSet('CHROMIUM_PATH') ? 'CHROMIUM_PATH' : 'PAYER';
    throw new ConfigError(`PAYER=browser needs Chromium, but there is ${installHint(chromiumPath)} (or use PAYER=http)`, variable);
  }
  return { kind, chromiumPath };
}

/** SCREEN_CHALLENGE_CODE: `shown-in:<CSS selector>` (the page shows the code there), else the code itself. */
function parseChallengeCode(raw: string | undefined): ChallengeCode | undefined {
  if (raw === undefined) return undefined;
  if (!raw.startsWith('shown-in:')) return { code: raw };
  const shownIn = raw.slice('shown-in:'.length).trim();
  if (shownIn === '')
    throw new ConfigError(
      `SCREEN_CHALLENGE_CODE=shown-in: names no element: give the CSS selector of the element showing the code, quoted ` +
        `where it holds a "#", e.g. SCREEN_CHALLENGE_CODE='shown-in:#test-code'`,
      'SCREEN_CHALLENGE_CODE',
    );
  return { shownIn };
}

function embeddedTarget(r: Reader): TargetConfig {
  for (const name of remoteOnly) {
    if (!r.isSet(name)) continue;
    const fix =
      `set API_BASE_URL (example: API_BASE_URL=https://api.example.test/api) to test a remote target, or ` +
      `unset ${name} to use the embedded sandbox and its seeded credentials`;
    throw new ConfigError(`${name} is set but API_BASE_URL is not: ${fix}`, name);
  }
  return { kind: 'embedded' };
}

function remoteTarget(r: Reader, baseUrl: string): TargetConfig {
  const missing = (['AUTH_URL', 'CLIENT_ID', 'CLIENT_SECRET'] as const).filter((name) => !r.isSet(name));
  if (missing.length > 0) {
    const short = (name: ConfigVariable) => variable(name).meaning.replace(/ \(.*\)$/, ''); // its meaning, less the parenthesis
    const needs = missing.map((name) => `${name} = ${short(name)} (${name}=${variable(name).example})`).join('; ');
    throw new ConfigError(`a remote target (API_BASE_URL is set) also needs ${missing.join(', ')}: ${needs}`, missing[0]!);
  }
  return {
    kind: 'remote',
    baseUrl,
    authUrl: r.read('AUTH_URL')!,
    clientId: r.read('CLIENT_ID')!,
    clientSecret: r.read('CLIENT_SECRET')!,
    ...pair(r, 'ACCOUNT_USER', 'ACCOUNT_PASSWORD'),
    ...pair(r, 'SECOND_CLIENT_ID', 'SECOND_CLIENT_SECRET'),
    ...pair(r, 'DELETION_ACCOUNT_USER', 'DELETION_ACCOUNT_PASSWORD'),
    ...otherTenant(r),
  };
}

/** The second merchant of the tenant-isolation checks (an account and one of its development businesses): all four or none. */
function otherTenant(r: Reader): Partial<Remote> {
  const four = ['OTHER_ACCOUNT_USER', 'OTHER_ACCOUNT_PASSWORD', 'OTHER_CLIENT_ID', 'OTHER_CLIENT_SECRET'] as const;
  const set = four.filter((name) => r.isSet(name));
  if (set.length === 0) return {};
  const unset = four.filter((name) => !r.isSet(name));
  if (unset.length > 0) {
    const what = 'the account and a development business of a second merchant (another tenant) for the tenant-isolation checks';
    throw new ConfigError(
      `${unset.join(', ')} must be set together with ${set.join(', ')}: ${what}; set all four, or none to skip those checks`,
      unset[0]!,
    );
  }
  const sameUser = r.raw('OTHER_ACCOUNT_USER') === r.raw('ACCOUNT_USER');
  if (sameUser || r.raw('OTHER_CLIENT_ID') === r.raw('CLIENT_ID')) {
    const why = 'the tenant-isolation checks need two tenants';
    throw new ConfigError(
      `OTHER_ACCOUNT_USER and OTHER_CLIENT_ID must name another merchant than ACCOUNT_USER and CLIENT_ID (got the same): ${why}`,
      sameUser ? 'OTHER_ACCOUNT_USER' : 'OTHER_CLIENT_ID',
    );
  }
  return Object.fromEntries(four.map((name) => [remoteField(name), r.read(name)]));
}

/** Two variables that go together: both or neither. Their meaning, less "set together with …", says what they are. */
function pair(r: Reader, first: ConfigVariable, second: ConfigVariable): Partial<Remote> {
  const a = r.raw(first);
  const b = r.raw(second);
  if (a === undefined && b === undefined) return {};
  if (a === undefined || b === undefined) {
    const [set, unset] = a === undefined ? [second, first] : [first, second];
    const what = variable(first).meaning.replace(/; set together with .*$/, '');
    throw new ConfigError(
      `${unset} must be set together with ${set} (${what}); set both, or neither to skip the tests that need them`,
      unset,
    );
  }
  return { [remoteField(first)]: a, [remoteField(second)]: b };
}

/** Deleting an account on a remote target needs a separate, disposable account, never the main one. */
function checkDeletionCredentials(r: Reader): void {
  const what = 'the credentials of a disposable account that may be deleted (example: DELETION_ACCOUNT_USER=disposable@example.test)';
  const problem = !r.isSet('DELETION_ACCOUNT_USER')
    ? `ALLOW_DESTRUCTIVE=account-deletion on a remote target needs DELETION_ACCOUNT_USER and DELETION_ACCOUNT_PASSWORD: ${what}`
    : r.raw('DELETION_ACCOUNT_USER') === r.raw('ACCOUNT_USER')
      ? 'DELETION_ACCOUNT_USER must name a disposable account, not the main ACCOUNT_USER (got the same user): account ' +
        'deletion would destroy the account the suite runs with'
      : undefined;
  if (problem) throw new ConfigError(problem, 'DELETION_ACCOUNT_USER');
}

/** Where a remote target holds a variable: its field. */
const remoteField = (name: ConfigVariable) => variable(name).at!.slice('target.'.length);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
