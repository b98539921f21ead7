import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type Operation } from '../../harness/api/client.ts';
import { TokenError, TokenRefusedEarly } from '../../harness/api/errors.ts';
import { Recorder } from '../../harness/record/transcript.ts';
import { secrets } from '../../harness/record/redact.ts';
import { createHttp, type Http } from '../../harness/api/http.ts';
import { createTokenCache, earlyRefusals } from '../../harness/api/tokens.ts';
import { startFixture, type Fixture } from './server.ts';

let fixture: Fixture | undefined;
let http: Http | undefined;

afterEach(async () => {
  await http?.close();
  await fixture?.close();
  http = undefined;
  fixture = undefined;
});

const operations: Record<string, Operation> = {
  createPaymentLink: { method: 'POST', path: '/EnlacePago', server: 'base', security: [['bearer']] },
  activatePaymentLink: { method: 'PUT', path: '/EnlacePago/{id}/activar', server: 'base', security: [['account']] },
  getTransaction: { method: 'GET', path: '/TransaccionCompra/{id}', server: 'base', security: [['account'], ['bearer']] },
};

/**
 * A token issuer + API: tokens are `tok-<n>`; `accepted` lists the tokens the API takes (the latest one by default).
 * `expiresIn` and `refuse` shape the token answer.
 */
async function startTarget(options: { expiresIn?: number; refuse?: boolean; acceptOnly?: () => string[] } = {}) {
  let issued = 0;
  const apiCalls: string[] = [];
  fixture = await startFixture((req, res, body) => {
    if (req.url === '/auth/connect/token') {
      const form = new URLSearchParams(body.toString());
      if (options.refuse || form.get('client_secret') !== 'the-client-secret') {
        return res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      }
      issued++;
      return res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: `tok-${issued}-${'x'.repeat(10)}`,
          expires_in: options.expiresIn ?? 3600,
          token_type: 'Bearer',
          scope: 'service_api',
        }),
      );
    }
    const auth = req.headers.authorization ?? '';
    apiCalls.push(`${req.method} ${req.url} ${auth}`);
    const accepted = options.acceptOnly?.() ?? [`Bearer tok-${issued}-${'x'.repeat(10)}`];
    const ok = (accepted.includes(auth) || auth.startsWith('Basic ')) && req.headers['x-answer'] !== '401';
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(ok ? '{"ok":true}' : '{}');
  });
  http = createHttp({ timeoutMs: 2000, retries: 2, maxResponseBytes: 65536, recorder: new Recorder(), maxBackoffMs: 10 });
  return { url: fixture.url, http, apiCalls, issued: () => issued };
}

const cacheFor = (t: { url: string; http: Http }, extra: { now?: () => number; clientSecret?: string } = {}) =>
  createTokenCache({
    http: t.http,
    tokenUrl: `${t.url}/auth/connect/token`,
    clientId: 'the-client',
    clientSecret: extra.clientSecret ?? 'the-client-secret',
    audience: 'service_api',
    ...(extra.now ? { now: extra.now } : {}),
  });

describe('token cache', () => {
  it('asks once for 100 concurrent callers and the sequential ones after', async () => {
    const t = await startTarget();
    const tokens = cacheFor(t);
    const concurrent = await Promise.all(Array.from({ length: 100 }, () => tokens.get()));
    for (let i = 0; i < 20; i++) concurrent.push(await tokens.get());
    expect(new Set(concurrent).size).toBe(1);
    expect(tokens.requests).toBe(1);
    expect(t.issued()).toBe(1);
    expect(fixture!.seen.filter((s) => s.includes('/connect/token'))).toHaveLength(1);
    expect(secrets.kindOf(concurrent[0]!)).toBe('access-token');
  });

  it('asks again shortly before expires_in runs out', async () => {
    const t = await startTarget({ expiresIn: 100 });
    let clock = 1_000_000;
    const tokens = cacheFor(t, { now: () => clock });
    const first = await tokens.get();
    clock += 89_000; // skew = min(60, 10 % of 100) = 10 s: still usable at 89 s
    expect(await tokens.get()).toBe(first);
    clock += 2_000; // 91 s
    const second = await tokens.get();
    expect(second).not.toBe(first);
    expect(tokens.requests).toBe(2);
  });

  it("counts a token's lifetime from when its request was sent, however slow the answer", async () => {
    const t = await startTarget({ expiresIn: 100 });
    let clock = 1_000_000;
    const slow: Http = {
      ...t.http,
      request: async (req) => {
        const ex = await t.http.request(req);
        // The answer took 30 s to come back (a heavy tail): the target issued it up to 30 s before we read it.
        clock += 30_000;
        return { ...ex, sentAt: ex.answeredAt! - 30_000 };
      },
    };
    const tokens = createTokenCache({
      http: slow,
      tokenUrl: `${t.url}/auth/connect/token`,
      clientId: 'the-client',
      clientSecret: 'the-client-secret',
      audience: 'service_api',
      now: () => clock,
    });
    const first = await tokens.get();
    clock += 59_000; // 89 s after it was sent: usable (skew 10 s)
    expect(tokens.isCurrent(first)).toBe(true);
    clock += 2_000; // 91 s after it was sent, 61 s after it came back
    expect(tokens.isCurrent(first)).toBe(false);
    expect(await tokens.get()).not.toBe(first);
    expect(tokens.lifetime(first)?.ageS).toBeCloseTo(91 + 30, 0);
  });

  it('throws a clear, redacted error when the token request is refused', async () => {
    const t = await startTarget();
    const tokens = cacheFor(t, { clientSecret: 'wrong-secret-value' });
    await expect(tokens.get()).rejects.toThrow(TokenError);
    await expect(tokens.get()).rejects.toThrow(`token request to ${t.url}/auth/connect/token was refused: 401 {"error":"invalid_client"}`);
    await expect(tokens.get()).rejects.not.toThrow(/wrong-secret-value/);
    // a failed request is not cached: each get() asked again
    expect(tokens.requests).toBe(3);
  });

  it('only forgets the token it is told about', async () => {
    const t = await startTarget();
    const tokens = cacheFor(t);
    const first = await tokens.get();
    tokens.invalidate('some-older-token');
    expect(await tokens.get()).toBe(first);
    tokens.invalidate(first);
    expect(await tokens.get()).not.toBe(first);
  });
});

describe('api client', () => {
  const DEAD = '/api/TransaccionCompra/00000000-0000-4000-8000-00000000dead';

  it('a token refused inside its lifetime: confirmed, recorded once per request, a GET re-sent with a new token, a POST never (not judged)', async () => {
    earlyRefusals.length = 0;
    let acceptNothing = true;
    const t = await startTarget({ acceptOnly: () => (acceptNothing ? [] : [`Bearer tok-2-${'x'.repeat(10)}`]) });
    const tokens = cacheFor(t);
    const api = createApiClient({ http: t.http, baseUrl: `${t.url}/api`, operations, tokens, account: undefined, accountAuth: 'basic' });

    await expect(api.call('createPaymentLink', { json: { monto: 1 } })).rejects.toBeInstanceOf(TokenRefusedEarly);
    expect(t.apiCalls.filter((c) => c.startsWith('POST'))).toHaveLength(1);
    // the same token tried on a lookup of an id that exists nowhere: refused too, so the token died early
    expect(t.apiCalls.filter((c) => c.startsWith('GET'))).toEqual([`GET ${DEAD} Bearer tok-1-${'x'.repeat(10)}`]);
    expect(earlyRefusals).toMatchObject([{ operationId: 'createPaymentLink', expiresInS: 3600, kind: 'access-token' }]);

    acceptNothing = false;
    const get = await api.call('getTransaction', { pathParams: { id: 'a/b' }, auth: 'bearer' });
    expect(get.response?.status).toBe(200);
    expect(t.apiCalls.at(-1)).toBe(`GET /api/TransaccionCompra/a%2Fb Bearer tok-2-${'x'.repeat(10)}`);
    expect(tokens.requests).toBe(2);
  });

  it('re-sends a GET whose token was refused inside its lifetime once, with a new token', async () => {
    earlyRefusals.length = 0;
    const t = await startTarget({ acceptOnly: () => [`Bearer tok-2-${'x'.repeat(10)}`] });
    const tokens = cacheFor(t);
    const api = createApiClient({ http: t.http, baseUrl: `${t.url}/api`, operations, tokens, account: undefined, accountAuth: 'basic' });
    const ex = await api.call('getTransaction', { pathParams: { id: 'x' }, auth: 'bearer' });
    expect(ex.response?.status).toBe(200);
    expect(t.apiCalls).toEqual([
      `GET /api/TransaccionCompra/x Bearer tok-1-${'x'.repeat(10)}`,
      `GET ${DEAD} Bearer tok-1-${'x'.repeat(10)}`,
      `GET /api/TransaccionCompra/x Bearer tok-2-${'x'.repeat(10)}`,
    ]);
    expect(earlyRefusals).toHaveLength(1);
  });

  it("a 401 that is the request's own answer (the token still works elsewhere) is returned as is, the token kept", async () => {
    earlyRefusals.length = 0;
    const t = await startTarget();
    const tokens = cacheFor(t);
    const api = createApiClient({ http: t.http, baseUrl: `${t.url}/api`, operations, tokens, account: undefined, accountAuth: 'basic' });
    // the target answers 401 to this one resource only (a resource not this caller's, say)
    const own = await api.call('getTransaction', { pathParams: { id: 'x' }, auth: 'bearer', headers: {} });
    expect(own.response?.status).toBe(200);
    const refusedHere = await api.call('createPaymentLink', { json: { monto: 1 }, auth: 'bearer', headers: { 'x-answer': '401' } });
    expect(refusedHere.response?.status).toBe(401);
    expect(earlyRefusals).toHaveLength(0);
    expect(tokens.requests).toBe(1);
  });

  it('a POST whose token a clock move expired while it waited for its turn is sent once, with a new token', async () => {
    const t = await startTarget({ expiresIn: 120 });
    const capped = createHttp({ timeoutMs: 2000, retries: 0, maxResponseBytes: 65536, recorder: new Recorder(), maxConcurrency: 1 });
    const tokens = createTokenCache({
      http: capped,
      tokenUrl: `${t.url}/auth/connect/token`,
      clientId: 'the-client',
      clientSecret: 'the-client-secret',
      audience: 'service_api',
    });
    const api = createApiClient({ http: capped, baseUrl: `${t.url}/api`, operations, tokens, account: undefined, accountAuth: 'basic' });
    await tokens.get();
    // The one slot is held (as while a clock move runs): the POST takes its token now and its slot after the move.
    await capped.limiter!.acquire();
    const post = api.call('createPaymentLink', { json: { monto: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    tokens.clockMoved(180);
    capped.limiter!.release('none');
    expect((await post).response?.status).toBe(200);
    expect(t.apiCalls).toEqual([`POST /api/EnlacePago Bearer tok-2-${'x'.repeat(10)}`]);
    await capped.close();
  });

  it("a 401 met while the target's clock is being moved is no early refusal: the request is sent again, once, with a new token", async () => {
    earlyRefusals.length = 0;
    // The target has moved its clock (tok-1 ended there); the cache learns it only when the move's answer arrives.
    const t = await startTarget({ acceptOnly: () => [`Bearer tok-2-${'x'.repeat(10)}`] });
    const tokens = cacheFor(t);
    const api = createApiClient({ http: t.http, baseUrl: `${t.url}/api`, operations, tokens, account: undefined, accountAuth: 'basic' });
    await tokens.get();
    tokens.clockMoving();
    const post = await api.call('createPaymentLink', { json: { monto: 1 } });
    tokens.clockMoved(0);
    expect(post.response?.status).toBe(200);
    expect(t.apiCalls).toEqual([
      `POST /api/EnlacePago Bearer tok-1-${'x'.repeat(10)}`,
      `POST /api/EnlacePago Bearer tok-2-${'x'.repeat(10)}`,
    ]);
    expect(earlyRefusals).toEqual([]);
  });

  it("the disposable account's credentials (deleted by a test at any moment): a 401 is returned as is, never an early refusal", async () => {
    earlyRefusals.length = 0;
    const t = await startTarget({ acceptOnly: () => [] });
    const tokens = cacheFor(t);
    const api = createApiClient({
      http: t.http,
      baseUrl: `${t.url}/api`,
      operations,
      tokens,
      account: undefined,
      accountAuth: 'basic',
      deletable: true,
    });
    const ex = await api.call('createPaymentLink', { json: { monto: 1 } });
    expect(ex.response?.status).toBe(401);
    expect(t.apiCalls).toHaveLength(1);
    expect(earlyRefusals).toEqual([]);
  });

  it('sends account calls with HTTP Basic, raw headers as given, and nothing for auth none', async () => {
    const t = await startTarget();
    const api = createApiClient({
      http: t.http,
      baseUrl: `${t.url}/api/`,
      operations,
      tokens: cacheFor(t),
      account: { user: 'merchant@x.test', password: 'acct-pw-1' },
      accountAuth: 'basic',
    });
    await api.call('activatePaymentLink', { pathParams: { id: 7 } });
    await api.call('getTransaction', { pathParams: { id: 'x' }, auth: { header: 'Bearer made-up' } });
    await api.call('createPaymentLink', { json: {}, auth: 'none' });
    expect(t.apiCalls).toEqual([
      `PUT /api/EnlacePago/7/activar Basic ${Buffer.from('merchant@x.test:acct-pw-1').toString('base64')}`,
      'GET /api/TransaccionCompra/x Bearer made-up',
      'POST /api/EnlacePago ',
    ]);
    await expect(api.call('nope')).rejects.toThrow('unknown operation id "nope"');
    await expect(api.call('activatePaymentLink')).rejects.toThrow('needs the path parameter "id"');
  });

  it('says which credentials are missing', async () => {
    const t = await startTarget();
    const api = createApiClient({ http: t.http, baseUrl: `${t.url}/api`, operations, account: undefined, accountAuth: 'basic' });
    await expect(api.call('activatePaymentLink', { pathParams: { id: 1 } })).rejects.toThrow('ACCOUNT_USER and ACCOUNT_PASSWORD');
    await expect(api.call('createPaymentLink', { json: {} })).rejects.toThrow('CLIENT_ID / CLIENT_SECRET');
  });

  it('uses a password-grant token for account calls when asked', async () => {
    const t = await startTarget({ acceptOnly: () => [`Bearer tok-1-${'x'.repeat(10)}`] });
    const accountTokens = createTokenCache({
      http: t.http,
      tokenUrl: `${t.url}/auth/connect/token`,
      clientId: 'the-client',
      clientSecret: 'the-client-secret',
      audience: 'service_api',
      password: { username: 'merchant@x.test', password: 'acct-pw-1' },
    });
    const api = createApiClient({
      http: t.http,
      baseUrl: `${t.url}/api`,
      operations,
      account: { user: 'merchant@x.test', password: 'acct-pw-1' },
      accountAuth: 'password-grant',
      accountTokens,
    });
    const ex = await api.call('activatePaymentLink', { pathParams: { id: 1 } });
    expect(ex.response?.status).toBe(200);
    expect(ex.request.headers.authorization).toBe(`Bearer tok-1-${'x'.repeat(10)}`);
    expect(secrets.kindOf(`tok-1-${'x'.repeat(10)}`)).toBeDefined();
  });
});
