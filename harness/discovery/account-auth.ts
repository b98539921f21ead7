/**
 * ACCOUNT_AUTH=auto: how the target takes account user and password (spec 5.5 does not show it). Tried on
 * a link the business creates (a link is no purchase): activar with HTTP Basic, then with a token of an OAuth2
 * password grant at AUTH_URL. The first that is accepted is the run's; when neither is, Basic stays, with the reason.
 */
import type { AccountAuth, Config } from '../setup/config.ts';
import type { Http } from '../api/http.ts';
import { createTokenCache } from '../api/tokens.ts';
import { createRunHttp, type TargetInfo } from '../setup/target.ts';

export interface AccountAuthFound {
  accountAuth: AccountAuth;
  /** What showed it, for the report and discovered.env. */
  evidence: string;
  found: boolean;
  /** The accepted activation's answer: its estaProductivo is the account's mode (the probe need not ask again). */
  activation?: { status: number; json: unknown };
}

export interface AccountProbe {
  http: Http;
  baseUrl: string;
  authUrl: string;
  business: { clientId: string; clientSecret: string };
  account: { user: string; password: string };
  audience: string;
}

/** Pure: which mode the two attempts' statuses show (undefined status = not tried or no answer). */
export function accountAuthFrom(basic: number | undefined, grant: number | undefined, grantRefused?: string): AccountAuthFound {
  const ok = (s: number | undefined) => s !== undefined && s >= 200 && s < 300;
  if (ok(basic)) return { accountAuth: 'basic', found: true, evidence: `PUT /EnlacePago/{id}/activar with HTTP Basic answered ${basic}` };
  if (ok(grant))
    return {
      accountAuth: 'password-grant',
      found: true,
      evidence:
        `PUT /EnlacePago/{id}/activar with HTTP Basic answered ${basic ?? 'nothing'}; with a password-grant ` + `token answered ${grant}`,
    };
  return {
    accountAuth: 'basic',
    found: false,
    evidence:
      `neither was accepted: HTTP Basic answered ${basic ?? 'nothing'}; the password grant ` +
      `${grantRefused ?? `token was refused by activar (${grant ?? 'nothing'})`}`,
  };
}

export async function discoverAccountAuth(p: AccountProbe): Promise<AccountAuthFound> {
  const tokenUrl = `${p.authUrl}/connect/token`;
  const business = createTokenCache({
    http: p.http,
    tokenUrl,
    clientId: p.business.clientId,
    clientSecret: p.business.clientSecret,
    audience: p.audience,
  });
  const created = await p.http.request({
    method: 'POST',
    url: `${p.baseUrl}/EnlacePago`,
    headers: { authorization: `Bearer ${await business.get()}` },
    json: {
      identificadorEnlaceComercio: `conformance-auth-probe-${Date.now()}`,
      monto: 1,
      nombreProducto: 'conformance account-auth probe',
      configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'conformance@example.com' },
    },
    label: 'account auth probe (link)',
  });
  const idEnlace = (created.response?.json as { idEnlace?: unknown } | undefined)?.idEnlace;
  if (typeof idEnlace !== 'number' && typeof idEnlace !== 'string') {
    return {
      accountAuth: 'basic',
      found: false,
      evidence: `the probe link could not be created (POST /EnlacePago answered ${created.response?.status ?? 'nothing'})`,
    };
  }
  const activar = (authorization: string) =>
    p.http.request({
      method: 'PUT',
      url: `${p.baseUrl}/EnlacePago/${encodeURIComponent(String(idEnlace))}/activar`,
      headers: { authorization },
      label: 'account auth probe (activar)',
    });
  const answered = (ex: Awaited<ReturnType<typeof activar>>) => ({ status: ex.response!.status, json: ex.response!.json });
  const byBasic = await activar(`Basic ${Buffer.from(`${p.account.user}:${p.account.password}`).toString('base64')}`);
  const basic = byBasic.response?.status;
  if (basic !== undefined && basic >= 200 && basic < 300) return { ...accountAuthFrom(basic, undefined), activation: answered(byBasic) };
  let token: string;
  try {
    const password = { username: p.account.user, password: p.account.password };
    token = await createTokenCache({
      http: p.http,
      tokenUrl,
      clientId: p.business.clientId,
      clientSecret: p.business.clientSecret,
      audience: p.audience,
      password,
    }).get();
  } catch (err) {
    return accountAuthFrom(basic, undefined, `got no token (${(err as Error).message})`);
  }
  const byGrant = await activar(`Bearer ${token}`);
  const found = accountAuthFrom(basic, byGrant.response?.status);
  return found.found ? { ...found, activation: answered(byGrant) } : found;
}

/** The configuration with ACCOUNT_AUTH=auto resolved to what the probe found (frozen like the original). */
export function withAccountAuth(config: Config, accountAuth: AccountAuth | undefined): Config {
  if (!config.accountAuthAuto || accountAuth === undefined || accountAuth === config.accountAuth) return config;
  return Object.freeze({ ...config, accountAuth });
}

/** The global setup's step: the run's HTTP client for the probe; no account credentials or a probe error → undefined (Basic). */
export async function findAccountAuth(config: Config, target: TargetInfo): Promise<AccountAuthFound | undefined> {
  if (!target.account) return undefined;
  const http = createRunHttp(config, target.deadline);
  try {
    return await discoverAccountAuth({
      http,
      baseUrl: target.baseUrl,
      authUrl: target.authUrl,
      business: target.business,
      account: target.account,
      audience: config.tokenAudience,
    });
  } catch (err) {
    return { accountAuth: 'basic', found: false, evidence: `the probe failed: ${(err as Error).message}` };
  } finally {
    await http.close();
  }
}
