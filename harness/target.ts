/**
 * Target selection: the embedded sandbox when API_BASE_URL is unset, a remote target otherwise; then one probe
 * of what the target is (reachable? test-control API? business mode?) before any test runs.
 * Runs in vitest's global setup (main process); the worker receives the result through `inject('target')`.
 */
import type { Config } from './config.ts';
import { createHttp, type Exchange } from './http.ts';
import { createTokenCache } from './tokens.ts';
import { Recorder, secrets } from './evidence.ts';

export type Capability = 'clock' | 'outbox' | 'stats' | 'reset';
export type BusinessMode = 'development' | 'production' | 'unknown';

export interface Credentials {
  clientId: string;
  clientSecret: string;
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
  /** Credentials that account deletion may destroy: the sandbox's disposable account, or an explicit opt-in. */
  deletion?: { user: string; password: string; business?: Credentials };
  mode: BusinessMode;
  /** Why the mode is 'unknown': what the mode probe got instead of estaProductivo. */
  modeUnknownBecause?: string;
  /** Epoch ms at which the whole run must end (RUN_TIMEOUT_S counted from the start of the global setup). */
  deadline: number;
  /** Set when the target cannot be used at all: every test fails with this one line. */
  unreachable?: string;
}

declare module 'vitest' {
  interface ProvidedContext {
    target: TargetInfo;
  }
}

export interface EmbeddedHandle {
  close(): Promise<void>;
}

/** Starts the embedded sandbox (only through its public factory) or describes the remote target from config. */
export async function selectTarget(config: Config): Promise<{ info: TargetInfo; embedded?: EmbeddedHandle }> {
  const deadline = Date.now() + config.http.runTimeoutS * 1000;
  if (config.target.kind === 'embedded') {
    const { createSandbox } = await import('../sandbox/index.ts');
    const sandbox = await createSandbox({ mode: config.sandbox.mode, ...(config.sandbox.fault ? { fault: config.sandbox.fault } : {}) });
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
      deletion: {
        user: c.disposableAccount.user,
        password: c.disposableAccount.password,
        business: { clientId: c.disposableBusiness.clientId, clientSecret: c.disposableBusiness.clientSecret },
      },
      mode: 'unknown',
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
    ...(t.secondClientId && t.secondClientSecret ? { businessNoMpos: { clientId: t.secondClientId, clientSecret: t.secondClientSecret } } : {}),
    ...(t.accountUser && t.accountPassword ? { account: { user: t.accountUser, password: t.accountPassword } } : {}),
    ...(config.allowDestructive.includes('account-deletion') && t.deletionAccountUser && t.deletionAccountPassword
      ? { deletion: { user: t.deletionAccountUser, password: t.deletionAccountPassword } }
      : {}),
    mode: 'unknown',
    deadline,
  };
  return { info };
}

const KNOWN_CAPABILITIES: readonly Capability[] = ['clock', 'outbox', 'stats', 'reset'];

/**
 * Learns what the target is: whether a token can be had, whether it has a test-control API, and the business mode
 * (estaProductivo of a created link — spec 4.1; a link is no purchase, so this is safe in production).
 */
export async function probeTarget(info: TargetInfo, config: Config): Promise<TargetInfo> {
  // The probe is part of the run: RUN_TIMEOUT_S bounds it too (a rate limiter's Retry-After must not stall setup).
  const http = createHttp({
    timeoutMs: config.http.timeoutMs,
    retries: config.http.retries,
    maxResponseBytes: config.http.maxResponseBytes,
    deadline: info.deadline,
    runTimeoutS: config.http.runTimeoutS,
    recorder: new Recorder(),
  });
  secrets.add(info.business.clientSecret, 'client-secret');
  try {
    const capabilities = await probeControl(http, info.controlUrl);
    const tokens = createTokenCache({ http, tokenUrl: `${info.authUrl}/connect/token`, clientId: info.business.clientId, clientSecret: info.business.clientSecret, audience: 'service_api' });
    let token: string;
    try {
      token = await tokens.get();
    } catch (err) {
      return { ...info, capabilities, unreachable: `cannot obtain a token from ${info.authUrl}/connect/token: ${(err as Error).message}` };
    }
    const ex = await http.request({
      method: 'POST',
      url: `${info.baseUrl}/EnlacePago`,
      headers: { authorization: `Bearer ${token}` },
      json: {
        identificadorEnlaceComercio: `conformance-mode-probe-${Date.now()}`,
        monto: 1,
        nombreProducto: 'conformance mode probe',
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'conformance@example.com' },
      },
      label: 'mode probe',
    });
    const mode = modeOf(ex);
    return { ...info, capabilities, mode, ...(mode === 'unknown' ? { modeUnknownBecause: `POST /EnlacePago answered ${ex.response?.status ?? 'nothing'} without a boolean estaProductivo` } : {}) };
  } catch (err) {
    return { ...info, unreachable: (err as Error).message };
  } finally {
    await http.close();
  }
}

function modeOf(ex: Exchange): BusinessMode {
  const body = ex.response?.json as { estaProductivo?: unknown } | undefined;
  if (body?.estaProductivo === true) return 'production';
  if (body?.estaProductivo === false) return 'development';
  return 'unknown';
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
