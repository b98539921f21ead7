/**
 * TOKEN_AUDIENCE discovery: spec 5.1 says the audience is "always service_api", but a deployed service
 * may issue tokens only for an audience of its own name. When the configured audience is refused, the audiences
 * the issuer itself publishes are tried: its OpenID discovery document (`{auth_url}/.well-known/openid-configuration`,
 * `scopes_supported`, as IdentityServer publishes its API scopes), then names read off the hosts. Only token requests
 * are sent (no purchase). The audience found is a setting for the run; refusing service_api stays a finding of 5.1.
 */
import type { Http } from '../api/http.ts';

export interface AudienceProbe {
  http: Http;
  authUrl: string;
  baseUrl: string;
  business: { clientId: string; clientSecret: string };
  /** The audience configured (TOKEN_AUDIENCE, else service_api): tried first. */
  audience: string;
}

export interface AudienceFound {
  /** The first audience that got a token; undefined when none did. */
  audience?: string;
  /** What each attempt answered, for the report (no secrets: statuses only). */
  evidence: string;
}

/** Scopes every OpenID provider lists that are not an API's audience. */
const OIDC_SCOPES = new Set(['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'roles']);

/** Pure: the candidates after the configured one, in order: published scopes first, then names from the hosts. */
export function audienceCandidates(configured: string, published: readonly string[], hosts: readonly string[]): string[] {
  const fromHosts = hosts.flatMap((host) => {
    const labels = host
      .toLowerCase()
      .split('.')
      .filter((l) => l !== '' && !/^(www|api|auth|login|id|sso|sandbox|dev|test|com|net|org|io|\d+)$/.test(l));
    return labels.slice(0, 2).flatMap((l) => [`${l}_api`, l, `${l}-api`]);
  });
  const all = [configured, ...published.filter((s) => !OIDC_SCOPES.has(s)), ...fromHosts, 'api'];
  return [...new Set(all.filter((a) => /^[\x21-\x7e]{1,200}$/.test(a)))];
}

/** The scopes an issuer publishes in its discovery document, or [] when it publishes none. */
async function publishedScopes(http: Http, authUrl: string): Promise<string[]> {
  try {
    const ex = await http.request({
      method: 'GET',
      url: `${authUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`,
      idempotent: true,
      label: 'audience discovery (openid-configuration)',
    });
    const scopes = (ex.response?.json as { scopes_supported?: unknown } | undefined)?.scopes_supported;
    return ex.response?.status === 200 && Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** Tries the configured audience, then the candidates, until one gets a token (at most 12 token requests). */
export async function discoverAudience(p: AudienceProbe): Promise<AudienceFound> {
  const hosts = [p.authUrl, p.baseUrl].flatMap((u) => (URL.canParse(u) ? [new URL(u).hostname] : []));
  const tried: string[] = [];
  let candidates = [p.audience];
  for (let round = 0; round < 2; round++) {
    for (const audience of candidates) {
      if (tried.some((t) => t.startsWith(`${audience} `)) || tried.length >= 12) continue;
      const ex = await p.http.request({
        method: 'POST',
        url: `${p.authUrl}/connect/token`,
        form: { grant_type: 'client_credentials', audience, client_id: p.business.clientId, client_secret: p.business.clientSecret },
        idempotent: true,
        label: 'audience discovery (token)',
      });
      const status = ex.response?.status;
      const token = (ex.response?.json as { access_token?: unknown } | undefined)?.access_token;
      tried.push(`${audience} → ${status ?? 'no answer'}`);
      if (status !== undefined && status >= 200 && status < 300 && typeof token === 'string' && token !== '') {
        return { audience, evidence: `token requests: ${tried.join('; ')}` };
      }
    }
    if (round === 0) candidates = audienceCandidates(p.audience, await publishedScopes(p.http, p.authUrl), hosts);
  }
  return { evidence: `no audience got a token: ${tried.join('; ')}` };
}
