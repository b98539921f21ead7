/**
 * The preflight: before any test is judged, the set-up is proved to be one the run can work with. A remote target's
 * token endpoint must accept the credentials, its API must answer at API_BASE_URL, and the account's credentials (where
 * given) must be taken; a wrong one is one line naming the variable, never a verdict on the target. Nothing is
 * created: the API is probed with an empty body (invalid, so rejected) and the account on link 0. The embedded
 * sandbox passes without a request. Slips in the settings' names and an unreachable webhook receiver are warnings.
 * `npm run conformance` (scripts/conformance.ts) runs it before it starts vitest and hands its findings to the global
 * setup (CONFORMANCE_PREFLIGHT); vitest started directly skips it, as its probes would change what a test target sees:
 * there a refused token, or a POST /EnlacePago that is not there for the global setup's own probe, stops the run.
 *
 *   const checked = await preflight(config);
 *   if (checked.problem) { console.error(checked.problem); process.exit(2); }
 */
import { lookup } from 'node:dns/promises';
import { networkInterfaces, hostname } from 'node:os';
import { createHttp, type Exchange, type Http } from '../api/http.ts';
import { Recorder } from '../record/transcript.ts';
import { secrets } from '../record/redact.ts';
import type { Config } from './config.ts';
import { VARIABLE_NAMES } from './variables.ts';

export interface Preflight {
  /** The set-up cannot work: one line naming the variable to fix. The run ends with exit 2, nothing judged. */
  problem?: string;
  /** Lines for the start of the run; the run goes on. */
  warnings: string[];
  /** The account's credentials were refused: why. The tests that need the account skip with it. */
  accountRefused?: string;
}

type RemoteTarget = Extract<Config['target'], { kind: 'remote' }>;

/** The probes of a remote target; the embedded sandbox is the suite's own and passes as it is. */
export async function preflight(config: Config): Promise<Preflight> {
  if (config.target.kind !== 'remote') return { warnings: [] };
  const found = await probe(config);
  return {
    ...found,
    ...(found.problem ? { problem: withoutPasswords(found.problem) } : {}),
    ...(found.accountRefused ? { accountRefused: withoutPasswords(found.accountRefused) } : {}),
    warnings: found.warnings.map(withoutPasswords),
  };
}

/** A password in a URL's user part (https://user:pass@host) is never printed. */
function withoutPasswords(line: string): string {
  return line.replace(/(\/\/[^/\s:@]+):[^@\s/]+@/g, '$1:REDACTED@');
}

async function probe(config: Config): Promise<Preflight> {
  if (config.target.kind !== 'remote') return { warnings: [] };
  const target = config.target;
  // A receiver the target cannot reach is said as an area left unchecked (harness/setup/areas.ts).
  const warnings: string[] = [];
  // One retry at most, quickly: a probe that cannot get through says so at once rather than after the backoffs.
  const http = createHttp({
    timeoutMs: config.http.timeoutMs,
    retries: Math.min(config.http.retries, 1),
    maxBackoffMs: 500,
    maxResponseBytes: config.http.maxResponseBytes,
    recorder: new Recorder({ limit: 0 }),
  });
  try {
    const token = await tokenProbe(http, config, target);
    if ('problem' in token) return { problem: token.problem, warnings };
    const api = await apiProbe(http, target.baseUrl, token.token);
    if (api) return { problem: api, warnings };
    const account = await accountProbe(http, config, target);
    if (!account) return { warnings };
    return { warnings: [...warnings, `warning: ${account}; the tests that need the account are skipped`], accountRefused: account };
  } finally {
    await http.close();
  }
}

/** The answer's status and body on one line, secrets and tokens redacted, cut short. */
function answered(ex: Exchange): string {
  const res = ex.response!;
  const body = secrets.redactText(res.bodyText).replace(/\s+/g, ' ').trim();
  return `${res.status}${body ? ` ${body.length > 160 ? `${body.slice(0, 160)}…` : body}` : ''}`;
}

/** The exchange, or a transport failure (refused, unresolved, no answer) as its one-line reason. */
async function send(http: Http, req: Parameters<Http['request']>[0]): Promise<{ ex: Exchange } | { failed: string }> {
  try {
    return { ex: await http.request(req) };
  } catch (err) {
    return { failed: (err as Error).message };
  }
}

const notThere = (status: number) => status === 404 || status === 405;

async function tokenProbe(http: Http, config: Config, t: RemoteTarget): Promise<{ token: string } | { problem: string }> {
  const request = (authUrl: string) =>
    send(http, {
      method: 'POST',
      url: `${authUrl}/connect/token`,
      form: { grant_type: 'client_credentials', audience: config.tokenAudience, client_id: t.clientId, client_secret: t.clientSecret },
      idempotent: true,
      label: 'preflight: token',
    });
  const url = `${t.authUrl}/connect/token`;
  const got = await request(t.authUrl);
  const fixAuthUrl = 'set AUTH_URL to the {auth_url} of the token issuer (the token is at AUTH_URL/connect/token)';
  if ('failed' in got)
    return { problem: `set-up error: AUTH_URL=${t.authUrl}: no token endpoint answers at ${url}: ${got.failed}; ${fixAuthUrl}` };
  const res = got.ex.response!;
  if (notThere(res.status)) {
    const meant = await firstAnswering(authCandidates(t.authUrl), async (candidate) => {
      const r = await request(candidate);
      return 'ex' in r && !notThere(r.ex.response!.status);
    });
    const hint = meant ? `did you mean AUTH_URL=${meant}?` : fixAuthUrl;
    return { problem: `set-up error: AUTH_URL=${t.authUrl} has no token endpoint: POST ${url} answered ${answered(got.ex)}; ${hint}` };
  }
  const token = (res.json as { access_token?: unknown } | undefined)?.access_token;
  if (res.status >= 200 && res.status < 300 && typeof token === 'string' && token !== '') {
    secrets.add(token, 'access-token');
    return { token };
  }
  if (res.status >= 200 && res.status < 300)
    return {
      problem: `set-up error: AUTH_URL=${t.authUrl}: POST ${url} answered ${answered(got.ex)} without an access_token; ${fixAuthUrl}`,
    };
  if (res.status >= 500 || res.status === 429)
    return {
      problem:
        `set-up error: the token endpoint cannot issue a token now: POST ${url} answered ${answered(got.ex)}; ` +
        `run again when the target is up (AUTH_URL=${t.authUrl})`,
    };
  // The issuer may refuse another audience than its own (spec 5.1 says service_api).
  const audience = /audience|invalid_target|invalid_scope/i.test(res.bodyText)
    ? ` (or TOKEN_AUDIENCE=${config.tokenAudience}, if the issuer wants another audience)`
    : '';
  return {
    problem:
      `set-up error: the token endpoint refused CLIENT_ID/CLIENT_SECRET: POST ${url} answered ` +
      `${answered(got.ex)}; check CLIENT_ID and CLIENT_SECRET${audience}: the App ID and API Secret of a development business`,
  };
}

/** Same-origin places a token endpoint often is, for "did you mean": the secret goes nowhere else. */
function authCandidates(authUrl: string): string[] {
  const origin = new URL(authUrl).origin;
  const stripped = authUrl.replace(/\/connect(\/token)?$/, '');
  return unique([stripped, `${origin}/auth`, `${authUrl}/auth`], authUrl);
}

/**
 * Is the API at baseUrl? A link POSTed with an empty body must be refused as invalid (or unauthorised), never answered
 * 404/405: those say the route is not there. (A 404 for an unknown transaction would be the route's own answer, so
 * only an operation that must exist tells.) Where a likely prefix answers, it is named.
 */
async function apiProbe(http: Http, baseUrl: string, token: string): Promise<string | undefined> {
  const probe = (base: string) =>
    send(http, {
      method: 'POST',
      url: `${base}/EnlacePago`,
      headers: { authorization: `Bearer ${token}` },
      json: {},
      label: 'preflight: api',
    });
  const got = await probe(baseUrl);
  if ('failed' in got)
    return `set-up error: nothing answers at API_BASE_URL=${baseUrl}: ${got.failed}; check API_BASE_URL and that the target is up`;
  if (!notThere(got.ex.response!.status)) return undefined;
  const meant = await firstAnswering(apiCandidates(baseUrl), async (candidate) => {
    const r = await probe(candidate);
    return 'ex' in r && !notThere(r.ex.response!.status);
  });
  const hint = meant
    ? `did you mean API_BASE_URL=${meant}?`
    : "set API_BASE_URL to the {base_url} under which the spec's paths (/EnlacePago, /TransaccionCompra/…) are served";
  return (
    `set-up error: API_BASE_URL=${baseUrl} does not serve the API: POST ${baseUrl}/EnlacePago (an empty body, to ` +
    `be refused as invalid) answered ${answered(got.ex)}; ${hint}`
  );
}

function apiCandidates(baseUrl: string): string[] {
  const u = new URL(baseUrl);
  const parent = u.pathname.replace(/\/[^/]*\/?$/, '');
  return unique(
    [`${baseUrl}/api`, `${baseUrl}/v1`, `${u.origin}/api`, ...(u.pathname.length > 1 ? [`${u.origin}${parent}`] : [])],
    baseUrl,
  );
}

function unique(candidates: string[], besides: string): string[] {
  return [...new Set(candidates.map((c) => c.replace(/\/+$/, '')))].filter((c) => c !== besides && /^https?:\/\/[^/]+/.test(c));
}

/** The first candidate, in order, for which `answers` holds; they are asked side by side. */
async function firstAnswering(candidates: string[], answers: (candidate: string) => Promise<boolean>): Promise<string | undefined> {
  const results = await Promise.all(candidates.map((c) => answers(c).catch(() => false)));
  return candidates[results.indexOf(true)];
}

/**
 * The account's credentials on link 0 (no link is created, none is changed): 401 to HTTP Basic, and (ACCOUNT_AUTH
 * password-grant or auto) a refused password grant, mean the credentials are wrong. Anything else passes: the route
 * may look the link up first, and the tests judge the rest.
 */
async function accountProbe(http: Http, config: Config, t: RemoteTarget): Promise<string | undefined> {
  if (!t.accountUser || !t.accountPassword) return undefined;
  const url = `${t.baseUrl}/EnlacePago/0/activar`;
  let basic: Exchange | undefined;
  if (config.accountAuth === 'basic') {
    const got = await send(http, {
      method: 'PUT',
      url,
      headers: { authorization: `Basic ${Buffer.from(`${t.accountUser}:${t.accountPassword}`).toString('base64')}` },
      label: 'preflight: account',
    });
    if ('failed' in got || got.ex.response!.status !== 401) return undefined;
    basic = got.ex;
    if (!config.accountAuthAuto)
      return (
        `ACCOUNT_USER/ACCOUNT_PASSWORD were refused: PUT ${url} with HTTP Basic answered ${answered(basic)}; ` +
        `check ACCOUNT_USER and ACCOUNT_PASSWORD`
      );
  }
  const grant = await send(http, {
    method: 'POST',
    url: `${t.authUrl}/connect/token`,
    form: {
      grant_type: 'password',
      audience: config.tokenAudience,
      client_id: t.clientId,
      client_secret: t.clientSecret,
      username: t.accountUser,
      password: t.accountPassword,
    },
    idempotent: true,
    label: 'preflight: account token',
  });
  if ('failed' in grant) return undefined;
  const res = grant.ex.response!;
  const token = (res.json as { access_token?: unknown } | undefined)?.access_token;
  if (typeof token === 'string' && token !== '') {
    secrets.add(token, 'account-token');
    return undefined;
  }
  if (res.status >= 500) return undefined;
  const byBasic = basic ? `PUT ${url} with HTTP Basic answered ${answered(basic)} and ` : '';
  return (
    `ACCOUNT_USER/ACCOUNT_PASSWORD were refused: ${byBasic}the password grant at ${t.authUrl}/connect/token ` +
    `answered ${answered(grant.ex)}; check ACCOUNT_USER and ACCOUNT_PASSWORD${basic ? '' : ' (and ACCOUNT_AUTH)'}`
  );
}

/** Loopback and "any" addresses: a URL with one of them reaches only this host. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    /^127\./.test(h) ||
    h === '::1' ||
    h === '0.0.0.0' ||
    h === '::' ||
    h === '::ffff:127.0.0.1'
  );
}

/** Whether `host` is this machine: loopback, its name, or an address of one of its interfaces (resolved). */
export async function isThisHost(host: string): Promise<boolean> {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopback(h) || h === hostname().toLowerCase()) return true;
  const own = new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.toLowerCase())));
  if (own.has(h)) return true;
  try {
    const addresses = await lookup(h, { all: true });
    return addresses.length > 0 && addresses.every((a) => isLoopback(a.address) || own.has(a.address.toLowerCase()));
  } catch {
    return false; // unresolved: not this host (the API probe says the rest)
  }
}

/**
 * A target on another host cannot deliver to the receiver's loopback URL (WEBHOOK_PUBLIC_URL unset, RECEIVER_HOST
 * loopback or "any"): said at start, with the fix, so a missing webhook is never a surprise.
 */
export async function receiverWarning(config: Config): Promise<string | undefined> {
  if (config.target.kind !== 'remote' || config.receiver.publicUrl || !isLoopback(config.receiver.host)) return undefined;
  const host = new URL(config.target.baseUrl).hostname;
  if (await isThisHost(host)) return undefined;
  return (
    `warning: the target (${host}) is not on this host, but the webhook receiver's URL is loopback ` +
    `(RECEIVER_HOST=${config.receiver.host}, WEBHOOK_PUBLIC_URL unset): the target cannot deliver webhooks to it; set ` +
    `WEBHOOK_PUBLIC_URL to a URL the target can reach (a tunnel to this host), or RECEIVER_HOST to an address of this ` +
    `host it can reach`
  );
}

/** Common variables of other tools that are one letter from a setting (PAGER and PAYER). */
const NOT_OURS = new Set([
  'PAGER',
  'HOME',
  'PATH',
  'USER',
  'SHELL',
  'TERM',
  'LANG',
  'EDITOR',
  'VISUAL',
  'LOGNAME',
  'HOSTNAME',
  'TMPDIR',
  'PWD',
  'OLDPWD',
  'TZ',
]);

/**
 * Names that look like a setting but are none: a typo (at most two edits, one for short names; a transposition is
 * one) anywhere, or, in a settings file, a setting behind a prefix of its own (MY_CLIENT_SECRET). One warning line each.
 */
export function settingSlips(names: Iterable<string>, fromFile: ReadonlySet<string> = new Set()): string[] {
  const settings: readonly string[] = VARIABLE_NAMES;
  const known = new Set(settings);
  const lines: string[] = [];
  for (const name of new Set(names)) {
    if (known.has(name) || NOT_OURS.has(name) || !/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    let best: { setting: string; distance: number } | undefined;
    for (const setting of settings) {
      const distance = editDistance(name, setting);
      if (distance <= (setting.length <= 6 ? 1 : 2) && (!best || distance < best.distance)) best = { setting, distance };
    }
    const prefixed = fromFile.has(name) ? settings.filter((s) => name.endsWith(`_${s}`)).sort((a, b) => b.length - a.length)[0] : undefined;
    const meant = best?.setting ?? prefixed;
    if (meant) lines.push(`warning: ${name} is not a setting; did you mean ${meant}?`);
  }
  return lines;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
