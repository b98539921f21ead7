/**
 * Token cache (spec 5.1–5.2): one token request per credential set, shared by concurrent callers, reused until
 * shortly before `expires_in` runs out (skew = min(60 s, 10 % of expires_in)), counted from when the request that got
 * it was sent, however slow its answer; a request that waited (the request cap, pacing, a Retry-After) past that is not
 * sent with it (`isCurrent`, checked at the send: http.ts `stillValid`) but prepared again with a new one.
 *
 *   const tokens = createTokenCache({ http, tokenUrl: `${authUrl}/connect/token`, clientId, clientSecret, audience: 'service_api' });
 *   const token = await tokens.get();
 *   tokens.invalidate(token);     // after a 401: the next get() asks for a new one
 *
 * With `password` it asks for an OAuth2 password grant instead (ACCOUNT_AUTH=password-grant). The client secret,
 * the password and every issued token are registered for redaction.
 */
import { TokenError } from './errors.ts';
import type { Http } from './http.ts';
import { secrets } from '../record/redact.ts';
import { waitingFor } from '../record/test-record.ts';

export interface TokenCache {
  get(): Promise<string>;
  /** Forgets `token` if it is the cached one (a stale caller cannot drop a newer token). */
  invalidate(token: string): void;
  /**
   * The target's clock was moved `seconds` ahead: the cached token's expiry comes that much nearer (a 120-s token
   * does not outlive a 180-s move; an hour's token outlives many).
   */
  clockMoved(seconds: number): void;
  /** A move of the target's clock is on its way (clockMoved follows, with 0 when it failed): see moves. */
  clockMoving(): void;
  /**
   * Clock moves started and ended so far: a 401 met while one was on its way, or across one, may be the move's doing
   * (the target moved, the cache not yet), never a token refused early.
   */
  readonly moves: { started: number; ended: number };
  /** Is `token` still the one this cache hands out, and still usable by the target's clock? */
  isCurrent(token: string): boolean;
  /** Token requests sent so far. */
  readonly requests: number;
  /** How old `token` is and the expires_in it was issued with (seconds, by the target's clock as the cache knows it). */
  lifetime(token: string): { ageS: number; expiresInS: number } | undefined;
}

/**
 * Tokens the target refused (401) while still inside their expires_in (5.2: "reused until it expires"), confirmed by
 * a second request with the same token: run-wide, for the one testcase that judges it (suites/contract.test.ts).
 * The request that met it is re-sent only when idempotent; otherwise its test is not judged.
 */
export interface EarlyRefusal {
  operationId: string;
  ageS: number;
  expiresInS: number;
  /** The token endpoint's URL and the kind of token (business or account). */
  kind: 'access-token' | 'account-token';
  /** The test that met it: the evidence that tells the target's early refusal from the suite's own doing (a deletion, a clock move). */
  test?: string;
}
export const earlyRefusals: EarlyRefusal[] = [];

export interface TokenCacheOptions {
  http: Http;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** spec 5.1: service_api (TOKEN_AUDIENCE). */
  audience: string;
  /** Seconds before expiry at which a token is no longer used; default min(60, 10 % of expires_in). */
  skewSeconds?: number;
  /** Password grant (account tokens) instead of client credentials. */
  password?: { username: string; password: string };
  /** Clock (ms), for tests. */
  now?: () => number;
}

/** When expires_in is missing or not a positive number (the spec says it is an int), reuse the token this long. */
const fallbackLifetimeS = 60;

export function createTokenCache(options: TokenCacheOptions): TokenCache {
  const { http, tokenUrl, clientId, clientSecret, audience, password } = options;
  const now = options.now ?? Date.now;
  const tokenKind = password ? 'account-token' : 'access-token';
  secrets.add(clientSecret, 'client-secret');
  if (password) secrets.add(password.password, 'account-password');

  let cached: { token: string; usableUntil: number } | undefined;
  // Every token issued: when (by the target's clock as far as clock moves tell) and for how long.
  const issued = new Map<string, { at: number; expiresInS: number }>();
  let moved = 0;
  const moves = { started: 0, ended: 0 };
  let inFlight: Promise<string> | undefined;
  let requests = 0;

  // Bumped by clockMoved(): a token fetched across a clock move is handed to its callers but never cached (its
  // expiry is not ours to know); they find it stale (isCurrent) and ask again.
  let epoch = 0;

  async function fetchToken(): Promise<string> {
    requests++;
    const fetchedIn = epoch;
    const form: Record<string, string> = password
      ? {
          grant_type: 'password',
          audience,
          client_id: clientId,
          client_secret: clientSecret,
          username: password.username,
          password: password.password,
        }
      : { grant_type: 'client_credentials', audience, client_id: clientId, client_secret: clientSecret };
    const ex = await http.request({ method: 'POST', url: tokenUrl, form, idempotent: true, label: 'issueToken' });
    const res = ex.response!;
    const body = res.json as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (res.status < 200 || res.status > 299 || typeof body?.access_token !== 'string' || body.access_token === '') {
      const shown = secrets.redactText(res.bodyText.slice(0, 300));
      const why = res.status >= 200 && res.status <= 299 ? `answered ${res.status} without an access_token` : `was refused: ${res.status}`;
      throw new TokenError(`token request to ${tokenUrl} ${why} ${shown}`.trimEnd());
    }
    const token = body.access_token;
    secrets.add(token, tokenKind);
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : fallbackLifetimeS;
    const skew = options.skewSeconds ?? Math.min(60, lifetime * 0.1);
    // Its lifetime runs from when the target issued it, which may be as early as the (last) request was sent: a slow
    // answer (a long tail, a trickling body) must not stretch the token past its expires_in.
    const inTransit = ex.sentAt !== undefined && ex.answeredAt !== undefined ? Math.max(0, ex.answeredAt - ex.sentAt) : 0;
    const issuedAt = now() - inTransit;
    if (fetchedIn === epoch) cached = { token, usableUntil: issuedAt + (lifetime - skew) * 1000 };
    issued.set(token, { at: issuedAt + moved * 1000, expiresInS: lifetime });
    return token;
  }

  return {
    get() {
      if (cached && now() < cached.usableUntil) return Promise.resolve(cached.token);
      // Another test's token request already on its way: waiting for it is not this test's own time.
      if (inFlight) return waitingFor('a token another test asked for', inFlight);
      inFlight = fetchToken().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    invalidate(token) {
      if (cached?.token === token) cached = undefined;
    },
    clockMoving() {
      moves.started++;
    },
    get moves() {
      return { ...moves };
    },
    clockMoved(seconds) {
      moves.ended++;
      epoch++;
      moved += seconds;
      if (cached) cached = { ...cached, usableUntil: cached.usableUntil - seconds * 1000 };
    },
    isCurrent(token) {
      return cached?.token === token && now() < cached.usableUntil;
    },
    get requests() {
      return requests;
    },
    lifetime(token) {
      const t = issued.get(token);
      return t && { ageS: (now() + moved * 1000 - t.at) / 1000, expiresInS: t.expiresInS };
    },
  };
}
