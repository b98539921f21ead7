/**
 * Target selection: the embedded sandbox when API_BASE_URL is unset, a remote target otherwise; then one probe
 * of what the target is (reachable? test-control API? business mode?) before any test runs.
 * Runs in vitest's global setup (main process); the worker receives the result through `inject('target')`.
 */
import { ConfigError, type Config } from './config.ts';
import { createHttp, type Exchange, type Http } from '../api/http.ts';
import { createTokenCache } from '../api/tokens.ts';
import { AmbiguousAnswerError, NotNowError } from '../api/errors.ts';
import { createPayer, PayerMemory, type Payer } from '../payer/index.ts';
import type { Chromium } from '../payer/chromium.ts';
import { Recorder } from '../record/transcript.ts';
import { secrets } from '../record/redact.ts';
import { asBool, field } from '../judge/read.ts';

export type Capability = 'clock' | 'outbox' | 'stats' | 'reset' | 'tenants';
export type BusinessMode = 'development' | 'production' | 'unknown';

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** The mode the probe learned for one business, and why it is 'unknown' when it is. */
export interface ModeProbe {
  /** How the user names this business (CLIENT_ID, SECOND_CLIENT_ID). */
  variable: string;
  mode: BusinessMode;
  unknownBecause?: string;
  /** The status POST /EnlacePago answered the probe's link (none: nothing answered). */
  status?: number;
  /** The first probe's answer was lost (a 502/504, a timeout, a dropped connection) and a new link was probed: what was lost. */
  lostAnswer?: string;
}

export interface OtherTenant {
  business: Credentials;
  account: { user: string; password: string };
  /** The mode of its business (a link it created), learned by the probe. */
  probe?: ModeProbe;
  /** Remote target: true when OTHER_ACCOUNT_USER activated its business's probe link and saw estaProductivo=false; else why not. */
  accountConfirmed?: true | string;
}

export interface TargetInfo {
  kind: 'embedded' | 'remote';
  baseUrl: string;
  authUrl: string;
  /** The sandbox's test-control API, when the target has one. */
  controlUrl?: string;
  capabilities: Capability[];
  business: Credentials;
  /** A business of the same account without the MPOS permission (spec 4.7), when known. */
  businessNoMpos?: Credentials;
  account?: { user: string; password: string };
  /** A second merchant (another tenant: OTHER_*), for the tenant-isolation checks; its mode is probed like the primary's. */
  other?: OtherTenant;
  /** Credentials that account deletion may destroy: the sandbox's disposable account, or an explicit opt-in. */
  deletion?: { user: string; password: string; business?: Credentials };
  /** The mode of the primary business (CLIENT_ID). */
  mode: BusinessMode;
  /** Why the mode is 'unknown': what the mode probe got instead of estaProductivo. */
  modeUnknownBecause?: string;
  /** The mode of every business the run purchases as (the primary, businessNoMpos), by client id. */
  modes: Record<string, ModeProbe>;
  /**
   * Remote target: set when the account (ACCOUNT_USER) activated the primary business's probe link and the record
   * said estaProductivo=false — the account owns a development business. Otherwise why not.
   */
  accountConfirmed?: true | string;
  /** Epoch ms at which the whole run must end (RUN_TIMEOUT_S counted from the start of the global setup). */
  deadline: number;
  /** ACCOUNT_AUTH=auto: how the account authenticates, as the global setup found it (harness/discovery/account-auth.ts). */
  accountAuth?: { accountAuth: 'basic' | 'password-grant'; found: boolean; evidence: string };
  /** Set when the target cannot be used at all: every test fails with this one line. */
  unreachable?: string;
  /** The preflight saw the account's credentials refused (then `account` is unset): the tests that need it skip with this. */
  accountRefused?: string;
}

declare module 'vitest' {
  interface ProvidedContext {
    target: TargetInfo;
    /** The run's configuration as the global setup read it, its bounds included (harness/run/budget.ts). */
    config: Config;
  }
}

export interface EmbeddedHandle {
  close(): Promise<void>;
}

/** Starts the embedded sandbox (only through its public factory) or describes the remote target from config. */
export async function selectTarget(config: Config): Promise<{ info: TargetInfo; embedded?: EmbeddedHandle }> {
  const deadline = Date.now() + config.budget.runTimeoutS * 1000;
  if (config.target.kind === 'embedded') {
    const { createSandbox } = await import('../../sandbox/index.ts');
    const fault = config.sandbox.fault;
    const variant = config.sandbox.variant;
    const sandbox = await createSandbox({
      mode: config.sandbox.mode,
      screen: config.sandbox.screen,
      quickPayTtlSeconds: config.sandbox.quickPayTtlS,
      ...(fault ? { fault } : {}),
      ...(variant ? { variant } : {}),
      ...(config.sandbox.network ? { network: config.sandbox.network } : {}),
      ...(config.sandbox.networkSeed === undefined ? {} : { networkSeed: config.sandbox.networkSeed }),
    }).catch((err: unknown) => {
      // The sandbox refuses an unknown fault id: a configuration mistake, not a crash.
      if (!fault) throw err;
      throw new ConfigError(
        `SANDBOX_FAULT must be the id of a fault of sandbox/faults.ts, or unset (got "${fault}": ${(err as Error).message})`,
        'SANDBOX_FAULT',
      );
    });
    const c = sandbox.credentials;
    const info: TargetInfo = {
      kind: 'embedded',
      baseUrl: sandbox.baseUrl,
      authUrl: sandbox.authUrl,
      controlUrl: sandbox.controlUrl,
      capabilities: [],
      business: { clientId: c.business.clientId, clientSecret: c.business.clientSecret },
      businessNoMpos: { clientId: c.businessNoMpos.clientId, clientSecret: c.businessNoMpos.clientSecret },
      account: { user: c.account.user, password: c.account.password },
      other: {
        business: { clientId: c.otherBusiness.clientId, clientSecret: c.otherBusiness.clientSecret },
        account: { user: c.otherAccount.user, password: c.otherAccount.password },
      },
      deletion: {
        user: c.disposableAccount.user,
        password: c.disposableAccount.password,
        business: { clientId: c.disposableBusiness.clientId, clientSecret: c.disposableBusiness.clientSecret },
      },
      mode: 'unknown',
      modes: {},
      deadline,
    };
    return { info, embedded: sandbox };
  }
  const t = config.target;
  const info: TargetInfo = {
    kind: 'remote',
    baseUrl: t.baseUrl,
    authUrl: t.authUrl,
    controlUrl: new URL('/__sandbox', t.baseUrl).href,
    capabilities: [],
    business: { clientId: t.clientId, clientSecret: t.clientSecret },
    ...(t.secondClientId && t.secondClientSecret
      ? { businessNoMpos: { clientId: t.secondClientId, clientSecret: t.secondClientSecret } }
      : {}),
    ...(t.accountUser && t.accountPassword ? { account: { user: t.accountUser, password: t.accountPassword } } : {}),
    ...(t.otherAccountUser && t.otherAccountPassword && t.otherClientId && t.otherClientSecret
      ? {
          other: {
            business: { clientId: t.otherClientId, clientSecret: t.otherClientSecret },
            account: { user: t.otherAccountUser, password: t.otherAccountPassword },
          },
        }
      : {}),
    ...(config.allowDestructive.includes('account-deletion') && t.deletionAccountUser && t.deletionAccountPassword
      ? { deletion: { user: t.deletionAccountUser, password: t.deletionAccountPassword } }
      : {}),
    mode: 'unknown',
    modes: {},
    deadline,
  };
  return { info };
}

/**
 * The run's payer as configured (PAYER, CHROMIUM_PATH, SCREEN_FIELD_NAMES, SCREEN_OPTION_VALUES): one wiring for the
 * run and for discover, so both read pages alike. The browser's own steps get the test budget at least. `fields:
 * 'defaults'`: the screen's fields by the default names only (discover finding what SCREEN_FIELD_NAMES should say).
 * `memory`: what the payer learns, kept by the run. `chromium`: one browser shared by payers of one process.
 */
export function createRunPayer(
  config: Config,
  http: Http,
  options: { fields?: 'configured' | 'defaults'; memory?: PayerMemory; chromium?: Chromium } = {},
): Payer {
  return createPayer({
    http,
    memory: options.memory ?? new PayerMemory(),
    ...(options.fields === 'defaults' ? {} : { fieldNames: config.screenFieldNames, optionValues: config.screenOptionValues }),
    kind: config.payer.kind,
    chromiumPath: config.payer.chromiumPath,
    ...(options.chromium ? { chromium: options.chromium } : {}),
    reportDir: config.reportDir,
    timeoutMs: config.http.timeoutMs,
    browserTimeoutMs: Math.max(config.http.timeoutMs, config.budget.testTimeoutMs),
  });
}

const KNOWN_CAPABILITIES: readonly Capability[] = ['clock', 'outbox', 'stats', 'reset', 'tenants'];

/** The run's HTTP client as configured, bounded by the run's deadline; each test's scope keeps its own evidence. */
export function createRunHttp(config: Config, deadline: number): Http {
  return createHttp({
    timeoutMs: config.http.timeoutMs,
    retries: config.http.retries,
    maxResponseBytes: config.http.maxResponseBytes,
    deadline,
    runTimeoutS: config.budget.runTimeoutS,
    // One client per process, one worker and one test file per run: the cap is run-wide (MAX_CONCURRENCY).
    maxConcurrency: config.maxConcurrency,
    // The adaptive rate pacing's cap (harness/api/pacing.ts), run-wide as the request cap.
    maxRps: config.maxRps,
    recorder: new Recorder({ limit: 0 }),
  });
}

/**
 * Learns what the target is: whether a token can be had, whether it has a test-control API, and the mode of every
 * business the run purchases as (estaProductivo of a link each creates — spec 4.1; a link is no purchase, so this is
 * safe in production). On a remote target the account, whose purchases act as its first business, is confirmed by
 * activating the primary's probe link with its credentials (spec 4.2: the record's estaProductivo).
 * `account`: how the account authenticates, when it is still being found (ACCOUNT_AUTH=auto, beside this probe), and
 * the answer of the activation that showed it (then the account's mode is read from it, not asked again).
 */
export async function probeTarget(
  info: TargetInfo,
  config: Config,
  account: Promise<{ config: Config; activation?: { status: number; json: unknown } }> = Promise.resolve({ config }),
): Promise<TargetInfo> {
  // The probe is part of the run: RUN_TIMEOUT_S bounds it too (a rate limiter's Retry-After must not stall setup).
  const http = createRunHttp(config, info.deadline);
  secrets.add(info.business.clientSecret, 'client-secret');
  // Probes that do not depend on each other go side by side: against a target 100 ms away every round trip one
  // after another is a tenth of a second before the first test. Each settles without throwing.
  const capabilities = probeControl(http, info.controlUrl);
  const second = info.businessNoMpos ? probeBusiness(http, info, info.businessNoMpos, 'SECOND_CLIENT_ID', config.tokenAudience) : undefined;
  // How the account authenticates may still be being found (ACCOUNT_AUTH=auto): the account steps wait for it.
  const other = info.other ? account.then((a) => probeOther(http, info, a.config, info.other!)) : undefined;
  try {
    const tokenUrl = `${info.authUrl}/connect/token`;
    const tokens = createTokenCache({
      http,
      tokenUrl,
      clientId: info.business.clientId,
      clientSecret: info.business.clientSecret,
      audience: config.tokenAudience,
    });
    let token: string;
    try {
      token = await tokens.get();
    } catch (err) {
      return {
        ...info,
        capabilities: await capabilities,
        // A target that answers "not now" to every attempt is the set-up's: its own one line (exit 2).
        unreachable: err instanceof NotNowError ? err.setupLine : `cannot obtain a token from ${tokenUrl}: ${(err as Error).message}`,
      };
    }
    const primary = await probeLink(http, info.baseUrl, token, 'CLIENT_ID');
    const modes: Record<string, ModeProbe> = { [info.business.clientId]: primary.probe };
    let accountConfirmed: true | string | undefined;
    if (info.kind === 'remote' && info.account) {
      const { config: withAuth, activation } = await account;
      accountConfirmed = activation
        ? accountModeOf(activation.status, activation.json, 'ACCOUNT_USER')
        : await confirmAccount(http, info, withAuth, primary.idEnlace);
    }
    if (second) modes[info.businessNoMpos!.clientId] = await second;
    const otherProbed = await other;
    const { mode, unknownBecause } = primary.probe;
    return {
      ...info,
      ...(otherProbed ? { other: otherProbed } : {}),
      capabilities: await capabilities,
      mode,
      ...(unknownBecause ? { modeUnknownBecause: unknownBecause } : {}),
      modes,
      ...(accountConfirmed === undefined ? {} : { accountConfirmed }),
    };
  } catch (err) {
    return { ...info, unreachable: (err as Error).message };
  } finally {
    // Whatever is still in flight (an early return) ends here; each of those probes settles without throwing.
    await Promise.allSettled([capabilities, second, other]);
    await http.close();
  }
}

/**
 * Creates a link with the token; its estaProductivo is the business's mode. An answer lost on the way (a 502/504, a
 * dropped connection) is found out by probing again with a new link: creating one charges nothing, and the probe
 * records what was lost (the report's run notes), never re-sending the same request. No answer within the timeout
 * ends the probe: a silent target would only be waited for twice.
 */
export async function probeLink(
  http: Http,
  baseUrl: string,
  token: string,
  variable: string,
): Promise<{ probe: ModeProbe; idEnlace?: unknown }> {
  const send = (attempt: string) =>
    http.request({
      method: 'POST',
      url: `${baseUrl}/EnlacePago`,
      headers: { authorization: `Bearer ${token}` },
      json: {
        identificadorEnlaceComercio: `conformance-mode-probe-${Date.now()}${attempt}`,
        monto: 1,
        nombreProducto: 'conformance mode probe',
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'conformance@example.com' },
      },
      label: `mode probe (${variable})${attempt}`,
    });
  let ex: Exchange;
  let lostAnswer: string | undefined;
  try {
    ex = await send('');
  } catch (err) {
    if (!(err instanceof AmbiguousAnswerError) || err.silent) throw err;
    lostAnswer = err.answer;
    ex = await send('-again');
  }
  const mode = modeOf(ex);
  const why = `POST /EnlacePago as ${variable} answered ${ex.response?.status ?? 'nothing'} without a boolean estaProductivo`;
  return {
    probe: {
      variable,
      mode,
      ...(mode === 'unknown' ? { unknownBecause: why } : {}),
      ...(ex.response ? { status: ex.response.status } : {}),
      ...(lostAnswer === undefined ? {} : { lostAnswer }),
    },
    idEnlace: (ex.response?.json as { idEnlace?: unknown } | undefined)?.idEnlace,
  };
}

/** Another business's mode; a failure leaves it 'unknown' (its purchases refused), not the whole target unusable. */
async function probeBusiness(http: Http, info: TargetInfo, business: Credentials, variable: string, audience: string): Promise<ModeProbe> {
  try {
    const token = await createTokenCache({
      http,
      tokenUrl: `${info.authUrl}/connect/token`,
      clientId: business.clientId,
      clientSecret: business.clientSecret,
      audience,
    }).get();
    return (await probeLink(http, info.baseUrl, token, variable)).probe;
  } catch (err) {
    return { variable, mode: 'unknown', unknownBecause: `the mode probe as ${variable} failed: ${(err as Error).message}` };
  }
}

/**
 * The second merchant's mode, as the primary's: a link its business creates, and (remote) its account activating
 * that link. The interlock needs both before anything is paid as it (docs/decisions.md, tenant isolation).
 */
async function probeOther(http: Http, info: TargetInfo, config: Config, other: OtherTenant): Promise<OtherTenant> {
  secrets.add(other.business.clientSecret, 'other-client-secret');
  secrets.add(other.account.password, 'other-account-password');
  try {
    const token = await createTokenCache({
      http,
      tokenUrl: `${info.authUrl}/connect/token`,
      clientId: other.business.clientId,
      clientSecret: other.business.clientSecret,
      audience: config.tokenAudience,
    }).get();
    const { probe, idEnlace } = await probeLink(http, info.baseUrl, token, 'OTHER_CLIENT_ID');
    if (info.kind !== 'remote') return { ...other, probe };
    return {
      ...other,
      probe,
      accountConfirmed: await confirmAccount(
        http,
        { ...info, account: other.account, business: other.business },
        config,
        idEnlace,
        'OTHER_ACCOUNT_USER',
      ),
    };
  } catch (err) {
    return {
      ...other,
      probe: {
        variable: 'OTHER_CLIENT_ID',
        mode: 'unknown',
        unknownBecause: `the mode probe as OTHER_CLIENT_ID failed: ${(err as Error).message}`,
      },
    };
  }
}

/** true when the account's activation of its business's probe link answered estaProductivo=false; else why not. */
async function confirmAccount(
  http: Http,
  info: TargetInfo,
  config: Config,
  idEnlace: unknown,
  variable = 'ACCOUNT_USER',
): Promise<true | string> {
  const account = info.account!;
  if (typeof idEnlace !== 'number' && typeof idEnlace !== 'string') return 'the mode probe link has no idEnlace to activate';
  try {
    let authorization = `Basic ${Buffer.from(`${account.user}:${account.password}`).toString('base64')}`;
    if (config.accountAuth === 'password-grant') {
      const { clientId, clientSecret } = info.business;
      const password = { username: account.user, password: account.password };
      authorization = `Bearer ${await createTokenCache({ http, tokenUrl: `${info.authUrl}/connect/token`, clientId, clientSecret, audience: config.tokenAudience, password }).get()}`;
    }
    const ex = await http.request({
      method: 'PUT',
      url: `${info.baseUrl}/EnlacePago/${encodeURIComponent(String(idEnlace))}/activar`,
      headers: { authorization },
      label: `mode probe (${variable})`,
    });
    return accountModeOf(ex.response?.status, ex.response?.json, variable);
  } catch (err) {
    return `the account probe failed: ${(err as Error).message}`;
  }
}

/** true when an activation as the account answered estaProductivo=false; else why not. */
function accountModeOf(status: number | undefined, json: unknown, variable: string): true | string {
  const flag = asBool(field(json, 'estaProductivo'));
  if (flag === false) return true;
  return flag === true
    ? 'its business is in production mode'
    : `PUT /EnlacePago/{id}/activar as ${variable} answered ${status ?? 'nothing'} without a boolean estaProductivo`;
}

function modeOf(ex: Exchange): BusinessMode {
  // Read tolerantly ("False" as false): its encoding is the contract's finding, the mode is the interlock's.
  const flag = asBool(field(ex.response?.json, 'estaProductivo'));
  return flag === undefined ? 'unknown' : flag ? 'production' : 'development';
}

async function probeControl(http: ReturnType<typeof createHttp>, controlUrl: string | undefined): Promise<Capability[]> {
  if (!controlUrl) return [];
  try {
    // Optional, so one attempt: retries here would spend the run's time before the token request that matters.
    const ex = await http.request({ method: 'GET', url: controlUrl, idempotent: false, label: 'capability probe' });
    const body = ex.response?.json as { sandbox?: unknown; capabilities?: unknown } | undefined;
    if (ex.response?.status !== 200 || body?.sandbox !== true || !Array.isArray(body.capabilities)) return [];
    return body.capabilities.filter((c): c is Capability => KNOWN_CAPABILITIES.includes(c as Capability));
  } catch {
    return [];
  }
}
