/**
 * API client by operation id (docs/decisions.md): builds the URL from the operation's path, adds the
 * authentication asked for, and returns the Exchange (statuses never throw).
 *
 *   const api = createApiClient({ http, baseUrl, authUrl, operations: contract.operations, tokens, account, accountAuth: 'basic' });
 *   const ex = await api.call('getTransaction', { pathParams: { id } });            // default auth from the operation
 *   await api.call('createPaymentLink', { json: body, auth: 'none' });               // negative test
 *   await api.call('getTransaction', { pathParams: { id }, auth: { header: 'Bearer nope' } });
 *
 * A bearer call answered 401 with a token still inside its lifetime is checked (the same token on a lookup of an id
 * that exists nowhere): accepted there, the 401 was this request's own answer and is returned as is; refused, the
 * token died early (5.2), which is recorded (`earlyRefusals`) for one run-wide testcase. Then the token is dropped
 * and the request re-sent once with a new token ONLY when idempotent (GET/HEAD); a POST is never re-sent: after an
 * early refusal its test is not judged (TokenRefusedEarly), after an expired token's 401 it is returned as is. A
 * request whose token expired
 * (by a clock move) while it waited for its turn is not sent at all (`stillValid`): it is prepared again with a new token.
 */
import { quoted, testcase } from '../record/testcase.ts';
import { StaleRequestError, TokenRefusedEarly } from './errors.ts';
import { noteStep } from '../record/transcript.ts';
import { currentRecord } from '../record/test-record.ts';
import { secrets } from '../record/redact.ts';
import type { Exchange, Http } from './http.ts';
import { earlyRefusals, type TokenCache } from './tokens.ts';

/** The testcase that judges tokens refused inside their lifetime (suites/contract.test.ts). */
export const EARLY_REFUSAL_TESTCASE = testcase(
  ['5.2-token-reuse', '8-token-lifetime'],
  'no token was refused inside its expires_in during the run',
);
import type { AuthKind, OperationMeta } from './contract.ts';

/** What the client needs of an operation: the first security alternative's first scheme is the default auth. */
export type Operation = Pick<OperationMeta, 'method' | 'path' | 'server' | 'security'>;

export type Auth = 'bearer' | 'account' | 'none' | { header: string };

export interface CallOptions {
  pathParams?: Record<string, string | number>;
  json?: unknown;
  /** A raw body (malformed-input tests: text, or bytes that are not UTF-8); give its content-type in `headers`. */
  body?: string | Buffer;
  headers?: Record<string, string>;
  auth?: Auth;
  label?: string;
}

export interface ApiClientOptions {
  http: Http;
  baseUrl: string;
  authUrl?: string;
  operations: Record<string, Operation>;
  /** Business token cache; needed for bearer calls. */
  tokens?: TokenCache | undefined;
  account: { user: string; password: string } | undefined;
  accountAuth: 'basic' | 'password-grant';
  /** Account token cache, for accountAuth 'password-grant'. */
  accountTokens?: TokenCache;
  /**
   * The credentials of the disposable account, which a test of the run deletes: a 401 to them may be the deletion's
   * doing, at any moment, so it is returned as is and never judged a token refused early.
   */
  deletable?: boolean;
}

export interface ApiClient {
  call(operationId: string, options?: CallOptions): Promise<Exchange>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { http, operations, tokens, account, accountAuth, accountTokens } = options;
  if (account) secrets.add(account.password, 'account-password');

  /** The authorization header for a scheme, and the cache that issued it (to invalidate on 401). */
  async function authorization(auth: Auth): Promise<{ header?: string; cache?: TokenCache; token?: string }> {
    if (auth === 'none') return {};
    if (typeof auth === 'object') return { header: auth.header };
    if (auth === 'bearer') {
      if (!tokens)
        throw new Error('a bearer call needs business credentials (CLIENT_ID / CLIENT_SECRET), and none were given to this client');
      const token = await tokens.get();
      return { header: `Bearer ${token}`, cache: tokens, token };
    }
    if (!account) throw new Error('an account call needs ACCOUNT_USER and ACCOUNT_PASSWORD, which are not configured');
    if (accountAuth === 'basic') {
      return { header: `Basic ${Buffer.from(`${account.user}:${account.password}`).toString('base64')}` };
    }
    if (!accountTokens)
      throw new Error('ACCOUNT_AUTH=password-grant needs an account token cache (accountTokens), and none was given to this client');
    const token = await accountTokens.get();
    return { header: `Bearer ${token}`, cache: accountTokens, token };
  }

  return {
    async call(operationId, callOptions = {}) {
      const operation = operations[operationId];
      if (!operation) throw new Error(`unknown operation id "${operationId}"; known: ${Object.keys(operations).join(', ')}`);
      const method = operation.method.toUpperCase();
      const url = buildUrl(options, operation, callOptions.pathParams ?? {}, operationId);
      const auth = callOptions.auth ?? defaultAuth(operation);
      const idempotent = method === 'GET' || method === 'HEAD';

      const prepareAndSend = async () => {
        const { header, cache, token } = await authorization(auth);
        const movesBefore = cache?.moves;
        const ex = await http.request({
          ...(cache && token ? { stillValid: () => cache.isCurrent(token) } : {}),
          method,
          url,
          headers: { ...(header === undefined ? {} : { authorization: header }), ...callOptions.headers },
          ...(callOptions.json === undefined ? {} : { json: callOptions.json }),
          ...(callOptions.body === undefined ? {} : { body: callOptions.body }),
          label: callOptions.label ?? operationId,
        });
        if (ex.response?.status !== 401 || !cache || !token) return { ex, retry: false };
        if (options.deletable) {
          cache.invalidate(token);
          return { ex, retry: false };
        }
        // A clock move on its way, or made meanwhile (by another test of the same clock), may have ended the token at
        // the target before the cache knew: refused for the suite's own move, the request is prepared again, once.
        const after = cache.moves;
        if (
          movesBefore &&
          (after.started !== movesBefore.started || movesBefore.started !== movesBefore.ended || after.started !== after.ended)
        ) {
          cache.invalidate(token);
          noteStep({ kind: 'token', title: `${operationId} answered 401 while the target's clock was moved: sent again with a new token` });
          return { ex, retry: true, early: false, moved: true };
        }
        // A 401 with a token inside its lifetime is either this request's answer (a resource not this caller's) or the
        // token refused early (5.2): a lookup of an unknown id with the same token tells them apart.
        const inLifetime = cache.isCurrent(token);
        if (inLifetime && !(await tokenRefused(header!))) return { ex, retry: false };
        const life = cache.lifetime(token);
        if (inLifetime) {
          const asking = currentRecord();
          earlyRefusals.push({
            operationId,
            ageS: Math.round(life?.ageS ?? 0),
            expiresInS: life?.expiresInS ?? 0,
            kind: cache === accountTokens ? 'account-token' : 'access-token',
            ...(asking ? { test: asking.name } : {}),
          });
          noteStep({
            kind: 'token',
            title:
              `the target refused a token ${Math.round(life?.ageS ?? 0)} s old with expires_in ` +
              `${life?.expiresInS ?? '?'} (5.2: reused until it expires); a new one is fetched`,
          });
        }
        // The target no longer accepts it: the next call asks for a new one.
        cache.invalidate(token);
        return { ex, retry: true, early: inLifetime };
      };
      /** The same token refused by a lookup of an id that exists nowhere (any other answer: the token works). */
      const tokenRefused = async (authorizationHeader: string): Promise<boolean> => {
        const probe = operations['getTransaction'];
        if (!probe) return true;
        const ex = await http.request({
          method: 'GET',
          url: buildUrl(options, probe, { id: '00000000-0000-4000-8000-00000000dead' }, 'getTransaction'),
          headers: { authorization: authorizationHeader },
          idempotent: true,
          label: 'is the token still accepted? (after a 401)',
        });
        return ex.response?.status === 401;
      };
      // A token taken before a clock move is never sent after it (a 120-s token would be refused): prepare again.
      const send = async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await prepareAndSend();
          } catch (err) {
            if (!(err instanceof StaleRequestError) || attempt >= 20) throw err;
          }
        }
      };

      const first = await send();
      // A 401 answers before anything is done: after the suite's own clock move, any request is sent again.
      if (first.retry && (idempotent || ('moved' in first && first.moved))) return (await send()).ex;
      // A payment or creation is never re-sent: what the refused token stopped is not judged (5.2 is, once).
      if (first.early) {
        throw new TokenRefusedEarly(
          `the target refused (401) a token inside its expires_in on ${method} ${operation.path}, which is never ` +
            `re-sent; judged once by ${quoted(EARLY_REFUSAL_TESTCASE)}`,
        );
      }
      return first.ex;
    },
  };
}

/** The auth a call uses when it names none: the operation's first scheme (spec 5.5), none for the token endpoint. */
export function defaultAuth(operation: Operation): AuthKind | 'none' {
  return operation.security[0]?.[0] ?? 'none';
}

function buildUrl(options: ApiClientOptions, operation: Operation, params: Record<string, string | number>, operationId: string): string {
  const server = operation.server === 'auth' ? options.authUrl : options.baseUrl;
  if (server === undefined) throw new Error(`operation ${operationId} is on the auth server, but no authUrl was given to the client`);
  const path = operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`operation ${operationId} needs the path parameter "${name}"`);
    return encodeURIComponent(String(value));
  });
  return `${server.replace(/\/+$/, '')}${path}`;
}
