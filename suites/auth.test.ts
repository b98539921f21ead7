/**
 * Spec 5 — authentication: the token issuer (5.1, 5.2), the bearer header (5.3) and which credentials each
 * endpoint takes (5.5). How account user-and-password authentication is performed is not shown (5.5): the harness
 * uses ACCOUNT_AUTH (HTTP Basic by default), and "refused" means not accepted (no 2xx), whatever the status.
 */
import { describe } from 'vitest';
import { paymentLinkMinimal, purchase3ds, purchaseMposBanda, purchaseQuickPay, purchaseWallet } from '../generators/bodies.ts';
import { notAcceptedWhereValidAccepted } from './flows/bodies.ts';
import { createLink } from './flows/links.ts';
import {
  asInt,
  asString,
  bodyOf,
  clauseTest,
  type Exchange,
  field,
  holds,
  type Need,
  notAccepted,
  PURCHASE_OPERATIONS,
  succeeded,
  type TestHandle,
  TokenError,
} from '../harness/index.ts';

/** A token request outside the token cache; its response is contract-observed (types judged by the contract testcase). */
async function requestToken(t: TestHandle, clientSecret: string, audience = t.run.config.tokenAudience): Promise<Exchange> {
  const { business } = t.run.target;
  const ex = await t.run.http.request({
    method: 'POST',
    url: `${t.run.target.authUrl}/connect/token`,
    form: { grant_type: 'client_credentials', audience, client_id: business.clientId, client_secret: clientSecret },
    idempotent: true,
    label: 'token request',
  });
  t.run.observeContract('issueToken', ex);
  return ex;
}

/** The error codes of an OAuth 2.0 token error response (RFC 6749 5.2). */
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
]);

/**
 * Observes how a bearer endpoint refuses: the spec shows no status codes, so anything but 4xx is only noted; a 401
 * names the Bearer scheme of 5.3 in WWW-Authenticate (RFC 6750 3: MUST), which the spec does not show either.
 */
function observeBearerRefusal(t: TestHandle, ex: Exchange): void {
  const s = ex.response?.status;
  if (s !== undefined && (s < 400 || s > 499)) t.observe('7-error-format-not-shown', `refused with status ${s} (a 4xx would be usual)`);
  const challenge = ex.response?.headers['www-authenticate'];
  const challenges = (Array.isArray(challenge) ? challenge.join(', ') : challenge) ?? '';
  if (s === 401 && !/(^|,)\s*Bearer(\s|,|$)/i.test(challenges))
    t.observe(
      '5.3-bearer-header',
      `refused with 401 and WWW-Authenticate ${JSON.stringify(challenge ?? null)}: no Bearer challenge (RFC 6750 3: a 401 of a bearer resource MUST name it)`,
    );
}

describe('5.1 / 5.2 token issuance', () => {
  clauseTest(
    { clauses: ['5.1-token-request', '5.1-grant-type', '5.1-client-credentials', '5.2-token-response'], endpoint: 'POST /connect/token' },
    'client credentials of the business get a Bearer token',
    async (t) => {
      const ex = await requestToken(t, t.run.target.business.clientSecret);
      succeeded(ex, '5.1-token-request', 'the token request');
      const body = bodyOf(ex, '5.2-token-response');
      holds(
        typeof body['access_token'] === 'string' && body['access_token'] !== '',
        'token-issued',
        '5.2-token-response',
        'a non-empty access_token',
        JSON.stringify(typeof body['access_token']),
        ex,
      );
      holds(
        asString(field(body, 'token_type'))?.toLowerCase() === 'bearer',
        'token-type',
        '5.2-token-response',
        'token_type Bearer',
        String(body['token_type']),
        ex,
      );
      const expiresIn = asInt(field(body, 'expires_in'));
      holds(
        expiresIn !== undefined && expiresIn > 0,
        'expires-in',
        ['5.2-token-response', '8-token-lifetime'],
        'expires_in a positive number of seconds',
        String(body['expires_in']),
        ex,
      );
    },
  );

  // RFC 6749 5.1 (5.1's OAuth 2.0 flow): a response with a token MUST carry Cache-Control: no-store and Pragma:
  // no-cache. 5.2 does not show the response's headers, so a missing one is observed.
  clauseTest(
    { clauses: '5.2-token-response', endpoint: 'POST /connect/token' },
    'a token response forbids caching (Cache-Control: no-store, Pragma: no-cache), observed otherwise',
    async (t) => {
      const ex = await requestToken(t, t.run.target.business.clientSecret);
      succeeded(ex, '5.1-token-request', 'the token request');
      const headers = ex.response?.headers ?? {};
      const esperados: [string, RegExp][] = [
        ['cache-control', /\bno-store\b/i],
        ['pragma', /\bno-cache\b/i],
      ];
      for (const [name, value] of esperados) {
        const got = headers[name];
        if (!value.test(String(got ?? '')))
          t.observe(
            '5.2-token-response',
            `the token response has ${name} ${JSON.stringify(got ?? null)} (RFC 6749 5.1: a token response MUST carry ${name === 'pragma' ? 'Pragma: no-cache' : 'Cache-Control: no-store'})`,
          );
      }
    },
  );

  // Judged apart from the token the run uses: a service that wants its own audience (TOKEN_AUDIENCE) deviates from
  // 5.1 once, here, and every other test still runs with the audience it accepts.
  clauseTest({ clauses: '5.1-audience', endpoint: 'POST /connect/token' }, "the spec's audience service_api gets a token", async (t) => {
    const ex = await requestToken(t, t.run.target.business.clientSecret, 'service_api');
    succeeded(ex, '5.1-audience', 'a token request with audience service_api (5.1: "always service_api")');
    if (t.run.config.tokenAudience !== 'service_api')
      t.observe('5.1-audience', `the run's tokens use TOKEN_AUDIENCE=${t.run.config.tokenAudience}; service_api was accepted too`);
  });

  /** 5.1: a token request with a wrong client_secret is answered without an access_token. */
  const noTokenForAWrongSecret = (body: Record<string, unknown> | undefined, ex: Exchange): void =>
    holds(
      !body?.['access_token'],
      'no-token',
      '5.1-client-credentials',
      'no access_token for a wrong secret',
      'an access_token was issued',
      ex,
    );

  clauseTest({ clauses: '5.1-client-credentials', endpoint: 'POST /connect/token' }, 'a wrong client secret gets no token', async (t) => {
    const ex = await requestToken(t, `${t.run.target.business.clientSecret}-wrong`);
    notAccepted(ex, '5.1-client-credentials', 'a token request with a wrong client_secret');
    const body = ex.response?.json as Record<string, unknown> | undefined;
    noTokenForAWrongSecret(body, ex);
    // 5.1's OAuth 2.0 flow answers a refusal with an error code of RFC 6749 5.2 (invalid_client here); 7 shows no
    // error format, so a refusal that names none of them is only observed (any of them passes: servers differ).
    const error = body?.['error'];
    if (!(typeof error === 'string' && OAUTH_ERRORS.has(error)))
      t.observe(
        '7-error-format-not-shown',
        `the refusal of a wrong client_secret names no OAuth 2.0 error code (RFC 6749 5.2, e.g. invalid_client): error ${JSON.stringify(error)}`,
      );
  });

  // RFC 6749 2.3.1: a client may send its credentials by HTTP Basic instead of the form; refused, the 401 MUST name the
  // scheme (5.2). 5.1 shows only the form, so a missing challenge is observed; a token for a wrong secret still fails.
  clauseTest(
    { clauses: '5.1-client-credentials', endpoint: 'POST /connect/token' },
    'a wrong client secret sent by HTTP Basic gets no token, and a 401 names its challenge',
    async (t) => {
      const { business } = t.run.target;
      const credential = `${encodeURIComponent(business.clientId)}:${encodeURIComponent(`${business.clientSecret}-wrong`)}`;
      const ex = await t.run.http.request({
        method: 'POST',
        url: `${t.run.target.authUrl}/connect/token`,
        headers: { authorization: `Basic ${Buffer.from(credential).toString('base64')}` },
        form: { grant_type: 'client_credentials', audience: t.run.config.tokenAudience },
        idempotent: true,
        label: 'token request, wrong secret by HTTP Basic',
      });
      const body = ex.response?.json as Record<string, unknown> | undefined;
      noTokenForAWrongSecret(body, ex);
      if (ex.response?.status === 401 && ex.response.headers['www-authenticate'] === undefined)
        t.observe(
          '5.1-client-credentials',
          'the client authenticated by HTTP Basic was refused with 401 and no WWW-Authenticate header (RFC 6749 5.2: it MUST be included)',
        );
    },
  );

  // RFC 6749 5.2 (5.1's OAuth 2.0 flow) names the answer to a token request with no client authentication at all:
  // invalid_client. 7 shows no error format, so another refusal is observed; a token is a failure.
  clauseTest(
    { clauses: '5.1-client-credentials', endpoint: 'POST /connect/token' },
    'a token request without client credentials gets no token, refused as invalid_client',
    async (t) => {
      const ex = await t.run.http.request({
        method: 'POST',
        url: `${t.run.target.authUrl}/connect/token`,
        form: { grant_type: 'client_credentials', audience: t.run.config.tokenAudience },
        idempotent: true,
        label: 'token request without client credentials',
      });
      notAccepted(ex, '5.1-client-credentials', 'a token request without client_id and client_secret');
      const body = ex.response?.json as Record<string, unknown> | undefined;
      holds(
        !body?.['access_token'],
        'no-token',
        '5.1-client-credentials',
        'no access_token without client credentials',
        'an access_token was issued',
        ex,
      );
      if (body?.['error'] !== 'invalid_client')
        t.observe(
          '7-error-format-not-shown',
          `a token request without client credentials was refused with status ${ex.response?.status}, error ` +
            `${JSON.stringify(body?.['error'])} (RFC 6749 5.2: invalid_client, "no client authentication included")`,
        );
    },
  );

  // 5.1: the token request is form-encoded. A JSON body taken anyway is a lenient reader's near miss (observed, as
  // docs/decisions.md "readers that tolerate"), also when the content type only mentions the form type in a parameter
  // (a reader matching the media type anywhere in the header, as fastify's CVE-2022-41919).
  clauseTest(
    { clauses: '5.1-token-request', endpoint: 'POST /connect/token' },
    'a token request sent as JSON instead of form-encoded is observed when it gets a token',
    async (t) => {
      const { business } = t.run.target;
      t.secret(business.clientSecret, 'client secret');
      const fields = {
        grant_type: 'client_credentials',
        audience: t.run.config.tokenAudience,
        client_id: business.clientId,
        client_secret: business.clientSecret,
      };
      for (const contentType of ['application/json', 'application/json; type=application/x-www-form-urlencoded']) {
        const ex = await t.run.http.request({
          method: 'POST',
          url: `${t.run.target.authUrl}/connect/token`,
          headers: { 'content-type': contentType },
          body: JSON.stringify(fields),
          idempotent: true,
          label: `token request as JSON (${contentType})`,
        });
        const body = ex.response?.json as Record<string, unknown> | undefined;
        const status = ex.response?.status ?? 0;
        if (status >= 200 && status < 300 && body?.['access_token'])
          t.observe(
            '5.1-token-request',
            `a token request with a JSON body (Content-Type: ${contentType}) got a token (${status}); 5.1 sends it form-encoded`,
          );
      }
    },
  );

  // A body the issuer cannot read at all: RFC 6749 5.2 answers invalid_request with 400 (415, the HTTP status of an
  // unsupported media type, passes too); any other refusal is observed, as 7 shows no error format.
  clauseTest(
    { clauses: '5.1-token-request', endpoint: 'POST /connect/token' },
    'a token request in a media type the issuer does not read gets no token, refused as RFC 6749 5.2 says',
    async (t) => {
      const ex = await t.run.http.request({
        method: 'POST',
        url: `${t.run.target.authUrl}/connect/token`,
        headers: { 'content-type': 'application/xml' },
        body: '<token/>',
        idempotent: true,
        label: 'token request as XML',
      });
      notAccepted(ex, '5.1-token-request', 'a token request in XML without credentials');
      const status = ex.response?.status;
      if (status !== 400 && status !== 415)
        t.observe(
          '7-error-format-not-shown',
          `a token request in XML was refused with status ${status} (RFC 6749 5.2: 400 invalid_request)`,
        );
      const error = (ex.response?.json as Record<string, unknown> | undefined)?.['error'];
      if (!(typeof error === 'string' && OAUTH_ERRORS.has(error)))
        t.observe(
          '7-error-format-not-shown',
          `the refusal of a token request in XML names no OAuth 2.0 error code (RFC 6749 5.2, e.g. invalid_request): error ${JSON.stringify(error)}`,
        );
    },
  );

  // RFC 6749 5.2 (5.1's OAuth 2.0 flow) names invalid_request, with 400, for a request missing a required parameter,
  // repeating one, or authenticating the client by more than one method, and shows its error answer with
  // Cache-Control: no-store. 5.1 only describes the request and 7 shows no error format: each deviation is observed.
  clauseTest(
    { clauses: ['5.1-token-request', '5.1-grant-type', '5.1-client-credentials'], endpoint: 'POST /connect/token' },
    'malformed token requests get no token and the invalid_request answer of RFC 6749 5.2',
    async (t) => {
      const { business } = t.run.target;
      const audience = t.run.config.tokenAudience;
      const basic = Buffer.from(`${encodeURIComponent(business.clientId)}:${encodeURIComponent(business.clientSecret)}`).toString('base64');
      t.secret(business.clientSecret, 'client-secret');
      t.secret(basic, 'client-secret');
      const sinCliente = Buffer.from(`:${encodeURIComponent(business.clientSecret)}`).toString('base64');
      t.secret(sinCliente, 'client-secret');
      const credentials = { client_id: business.clientId, client_secret: business.clientSecret };
      const cases: { clause: string; what: string; headers?: Record<string, string>; form?: Record<string, string>; body?: string }[] = [
        { clause: '5.1-grant-type', what: 'without grant_type', form: { audience, ...credentials } },
        // Each parameter of 5.1 repeated with its own value: RFC 6749 3.2 "MUST NOT be included more than once".
        ...Object.entries({ grant_type: 'client_credentials', audience, ...credentials }).map(([name, value]) => ({
          clause: name.startsWith('client_') ? '5.1-client-credentials' : '5.1-token-request',
          what: `with ${name} twice`,
          body: `${new URLSearchParams({ [name]: value })}&${new URLSearchParams({ grant_type: 'client_credentials', audience, ...credentials })}`,
        })),
        {
          clause: '5.1-client-credentials',
          what: 'authenticating the client twice, by HTTP Basic and in the form',
          headers: { authorization: `Basic ${basic}` },
          form: { grant_type: 'client_credentials', audience, ...credentials },
        },
        {
          clause: '5.1-client-credentials',
          what: 'with HTTP Basic and the client_secret in the form as well',
          headers: { authorization: `Basic ${basic}` },
          form: { grant_type: 'client_credentials', audience, client_secret: business.clientSecret },
        },
        {
          // RFC 7617 lets the user-id be empty: a Basic header naming no client is still a second method.
          clause: '5.1-client-credentials',
          what: 'with HTTP Basic naming an empty client id and the credentials in the form',
          headers: { authorization: `Basic ${sinCliente}` },
          form: { grant_type: 'client_credentials', audience, ...credentials },
        },
      ];
      for (const c of cases) {
        const ex = await t.run.http.request({
          method: 'POST',
          url: `${t.run.target.authUrl}/connect/token`,
          headers: { ...c.headers, ...(c.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
          ...(c.body === undefined ? { form: c.form } : { body: c.body }),
          idempotent: true,
          label: `token request ${c.what}`,
        });
        const status = ex.response?.status ?? 0;
        const body = ex.response?.json as Record<string, unknown> | undefined;
        if (status >= 200 && status < 300 && body?.['access_token']) {
          t.observe(c.clause, `a token request ${c.what} got a token (${status}); RFC 6749 5.2 answers it invalid_request`);
          continue;
        }
        if (status !== 400 || body?.['error'] !== 'invalid_request')
          t.observe(
            '7-error-format-not-shown',
            `a token request ${c.what} was refused with status ${status}, error ${JSON.stringify(body?.['error'])} (RFC 6749 5.2: 400 invalid_request)`,
          );
        const cacheControl = ex.response?.headers['cache-control'];
        if (!/\bno-store\b/i.test(String(cacheControl ?? '')))
          t.observe(
            '7-error-format-not-shown',
            `the refusal of a token request ${c.what} has Cache-Control ${JSON.stringify(cacheControl ?? null)}, not no-store (as RFC 6749 5.2 shows the error answer)`,
          );
      }
    },
  );

  // 5.1 sends no scope; a client that names the one 5.2 gives every token (scope service_api, or the audience the run
  // asked for) asks for nothing else. RFC 6749 3.3 lets an issuer refuse an unknown scope (invalid_scope), not say
  // which it must take: a refusal of this one is only observed.
  clauseTest(
    { clauses: ['5.1-token-request', '5.2-token-response'], endpoint: 'POST /connect/token' },
    'a token request that also names the scope a token gets (service_api) is observed when refused',
    async (t) => {
      const { business } = t.run.target;
      t.secret(business.clientSecret, 'client-secret');
      const audience = t.run.config.tokenAudience;
      const ex = await t.run.http.request({
        method: 'POST',
        url: `${t.run.target.authUrl}/connect/token`,
        form: {
          grant_type: 'client_credentials',
          audience,
          scope: audience,
          client_id: business.clientId,
          client_secret: business.clientSecret,
        },
        idempotent: true,
        label: `token request with scope ${audience}`,
      });
      const body = ex.response?.json as Record<string, unknown> | undefined;
      const status = ex.response?.status ?? 0;
      if (!(status >= 200 && status < 300 && body?.['access_token']))
        t.observe(
          '5.2-token-response',
          `a token request naming scope=${audience}, the scope 5.2 says a token has, got no token (${status}, error ${JSON.stringify(body?.['error'])})`,
        );
    },
  );

  // 5.1: the audience is "always service_api" (or the one the run's issuer takes, TOKEN_AUDIENCE). The spec does not
  // say that another audience is refused, so a token for one is observed: the issuer did not read the audience.
  clauseTest(
    { clauses: '5.1-audience', endpoint: 'POST /connect/token' },
    'a token request for an audience other than service_api is observed when it gets a token',
    async (t) => {
      const other = `${t.run.config.tokenAudience}-otra`;
      const ex = await requestToken(t, t.run.target.business.clientSecret, other);
      const body = ex.response?.json as Record<string, unknown> | undefined;
      const status = ex.response?.status ?? 0;
      if (status >= 200 && status < 300 && body?.['access_token'])
        t.observe('5.1-audience', `a token request with audience=${other} got a token (${status}): 5.1's audience is always service_api`);
    },
  );

  clauseTest(
    { clauses: ['5.2-token-reuse', '5.3-bearer-header'], endpoint: 'POST /EnlacePago' },
    'one token serves several requests until it expires',
    async (t) => {
      const ex = await requestToken(t, t.run.target.business.clientSecret);
      const token = String(bodyOf(ex, '5.2-token-response')['access_token']);
      for (const attempt of [1, 2, 3]) {
        const created = await t.call('createPaymentLink', {
          json: paymentLinkMinimal(),
          auth: { header: `Bearer ${token}` },
          label: `reuse ${attempt}`,
        });
        succeeded(created, '5.2-token-reuse', `request ${attempt} with the same token`);
      }
    },
  );
});

/** A valid body for each endpoint, so that only the credentials can make the request fail. */
async function validRequest(t: TestHandle, operationId: string): Promise<{ json?: unknown; pathParams?: Record<string, string | number> }> {
  const receiver = await t.run.receiver();
  switch (operationId) {
    case 'createPaymentLink':
      return { json: paymentLinkMinimal() };
    case 'purchase3ds':
      return { json: purchase3ds(receiver.redirectUrl('auth'), t.run.config.testData) };
    case 'purchaseWallet':
      return { json: purchaseWallet(t.run.config.testData) };
    case 'purchaseQuickPay':
      return { json: purchaseQuickPay() };
    case 'purchaseMposBanda':
      return { json: purchaseMposBanda(t.run.config.testData) };
    case 'getTransaction':
      return { pathParams: { id: '00000000-0000-4000-8000-000000000000' } };
    case 'activatePaymentLink': {
      const { link } = await createLink(t);
      return { pathParams: { id: link.idEnlace } };
    }
    case 'purchasePagoQr': {
      const { link } = await createLink(t);
      return { json: { urlEnlacePago: link.urlEnlace } };
    }
    default:
      throw new Error(`no valid request for ${operationId}`);
  }
}

const ENDPOINT: Record<string, string> = {
  createPaymentLink: 'POST /EnlacePago',
  purchase3ds: 'POST /TransaccionCompra/3DS',
  purchaseWallet: 'POST /TransaccionCompra/Wallet',
  purchaseQuickPay: 'POST /TransaccionCompra/Quick-pay',
  purchaseMposBanda: 'POST /TransaccionCompra/Mpos/Banda',
  getTransaction: 'GET /TransaccionCompra/{id}',
  activatePaymentLink: 'PUT /EnlacePago/{id}/activar',
  purchasePagoQr: 'POST /TransaccionCompra/PagoQr',
};

describe('5.5 bearer endpoints refuse requests without a valid token', () => {
  for (const op of ['createPaymentLink', 'purchase3ds', 'purchaseWallet']) {
    const spec = { clauses: ['5.5-bearer-endpoints', '5.3-bearer-header'], endpoint: ENDPOINT[op]!, purchase: PURCHASE_OPERATIONS.has(op) };
    clauseTest(spec, `${op} without an authorization header is refused`, async (t) => {
      const ex = await t.call(op, { ...(await validRequest(t, op)), auth: 'none' });
      await notAcceptedWhereValidAccepted(t, ex, op, spec.clauses, `${op} without a token`);
      observeBearerRefusal(t, ex);
    });
    clauseTest(spec, `${op} with an invalid bearer token is refused`, async (t) => {
      const ex = await t.call(op, { ...(await validRequest(t, op)), auth: { header: 'Bearer conformance-invalid-token' } });
      await notAcceptedWhereValidAccepted(t, ex, op, spec.clauses, `${op} with an invalid token`);
      observeBearerRefusal(t, ex);
    });
  }
});

// 5.3: the header is `Bearer <ACCESS_TOKEN>`, one token. A header whose first token is the business's token and the
// rest something else is not that header; a reader taking only the first token accepts it. The spec does not say
// such a header is refused: observed, as its Basic analogue below.
describe('5.3 the bearer header holds one token', () => {
  clauseTest(
    { clauses: ['5.3-bearer-header', '5.5-bearer-endpoints'], endpoint: ENDPOINT['createPaymentLink']! },
    'createPaymentLink with the token followed by another word in one Bearer header is observed when accepted',
    async (t) => {
      const token = String(bodyOf(await requestToken(t, t.run.target.business.clientSecret), '5.2-token-response')['access_token']);
      t.secret(token, 'access-token');
      const ex = await t.call('createPaymentLink', {
        json: paymentLinkMinimal(),
        auth: { header: `Bearer ${token} conformance-invalid-token` },
      });
      const status = ex.response?.status ?? 0;
      if (status >= 200 && status < 300)
        t.observe(
          '5.3-bearer-header',
          `an Authorization header "Bearer <the business's token> conformance-invalid-token" was accepted (${status}): only its first token was read`,
        );
    },
  );
});

// 5.3: the header is `Bearer <ACCESS_TOKEN>`. Another scheme whose name merely holds the word is not it; one more space
// before the token still is (RFC 6750 2.1 and RFC 9110 11.4: 1*SP). The spec states neither: both are observed.
describe('5.3 the bearer header names the Bearer scheme', () => {
  clauseTest(
    { clauses: ['5.3-bearer-header', '5.5-bearer-endpoints'], endpoint: ENDPOINT['createPaymentLink']! },
    'createPaymentLink with the token under another scheme (NotBearer) is observed when accepted',
    async (t) => {
      const token = String(bodyOf(await requestToken(t, t.run.target.business.clientSecret), '5.2-token-response')['access_token']);
      t.secret(token, 'access-token');
      const ex = await t.call('createPaymentLink', { json: paymentLinkMinimal(), auth: { header: `NotBearer ${token}` } });
      const status = ex.response?.status ?? 0;
      if (status >= 200 && status < 300)
        t.observe(
          '5.3-bearer-header',
          `an Authorization header "NotBearer <the business's token>" was accepted (${status}): not the Bearer scheme`,
        );
    },
  );
  clauseTest(
    { clauses: ['5.3-bearer-header', '5.5-bearer-endpoints'], endpoint: ENDPOINT['createPaymentLink']! },
    'createPaymentLink with two spaces between Bearer and the token is observed when refused',
    async (t) => {
      const token = String(bodyOf(await requestToken(t, t.run.target.business.clientSecret), '5.2-token-response')['access_token']);
      t.secret(token, 'access-token');
      const control = await t.call('createPaymentLink', { json: paymentLinkMinimal(), auth: { header: `Bearer ${token}` } });
      succeeded(control, '5.3-bearer-header', 'createPaymentLink with the same token after one space');
      const ex = await t.call('createPaymentLink', { json: paymentLinkMinimal(), auth: { header: `Bearer  ${token}` } });
      const status = ex.response?.status ?? 0;
      if (status < 200 || status > 299)
        t.observe(
          '5.3-bearer-header',
          `an Authorization header "Bearer  <token>" (two spaces) was refused (${status}) where one space was accepted: RFC 6750 2.1 allows 1*SP`,
        );
    },
  );
});

describe('5.5 account endpoints refuse missing and wrong account credentials', () => {
  for (const op of ['activatePaymentLink', 'purchasePagoQr']) {
    const spec = {
      clauses: '5.5-account-endpoints',
      endpoint: ENDPOINT[op]!,
      needs: ['account' as const],
      purchase: PURCHASE_OPERATIONS.has(op),
    };
    clauseTest(spec, `${op} without credentials is refused`, async (t) => {
      const ex = await t.call(op, { ...(await validRequest(t, op)), auth: 'none' });
      await notAcceptedWhereValidAccepted(t, ex, op, '5.5-account-endpoints', `${op} without credentials`);
      // ACCOUNT_AUTH=auto: how the account authenticates was found by the run's probe (harness/discovery/account-auth.ts).
      const found = t.run.target.accountAuth;
      if (found && op === 'activatePaymentLink') {
        t.observe(
          '5.5-account-auth-not-shown',
          found.found
            ? `account authentication discovered: ${found.accountAuth} (${found.evidence})`
            : `account authentication not discovered, HTTP Basic used: ${found.evidence}`,
        );
      }
    });
    clauseTest(spec, `${op} with a wrong account password is refused`, async (t) => {
      // Built as the run's account calls are (ACCOUNT_AUTH), so a password grant is tested the same way as Basic.
      // A business only where the account's token comes from it: the run's client cache is keyed by business and user.
      const business = t.run.config.accountAuth === 'password-grant' ? t.run.target.business : undefined;
      const wrong = t.run.callAs(business, { user: t.run.target.account!.user, password: 'conformance-wrong-password' });
      const request = await validRequest(t, op);
      try {
        await notAcceptedWhereValidAccepted(
          t,
          await wrong(op, { ...request, auth: 'account' }),
          op,
          '5.5-account-endpoints',
          `${op} with a wrong password`,
        );
      } catch (err) {
        // ACCOUNT_AUTH=password-grant: the token issuer refused the wrong password, so it got no access at all.
        if (!(err instanceof TokenError)) throw err;
      }
    });
  }
  // HTTP Basic is the harness's reading of "account user and password" (5.5 does not show it): one token68 after the
  // scheme (RFC 7617). A header whose first token is the account's credential and the rest another, wrong one, is not
  // the account's user and password; a reader taking only the first token accepts it (observed: 5.5 shows no scheme).
  clauseTest(
    { clauses: ['5.5-account-endpoints', '5.5-account-auth-not-shown'], endpoint: ENDPOINT['activatePaymentLink']!, needs: ['account'] },
    'activatePaymentLink with the account credential followed by a wrong one in one Basic header is observed when accepted',
    async (t) => {
      const { user, password } = t.run.target.account!;
      const right = Buffer.from(`${user}:${password}`).toString('base64');
      const wrong = Buffer.from(`${user}:conformance-wrong-password`).toString('base64');
      t.secret(right, 'account credential');
      const ex = await t.call('activatePaymentLink', {
        ...(await validRequest(t, 'activatePaymentLink')),
        auth: { header: `Basic ${right} ${wrong}` },
      });
      const status = ex.response?.status ?? 0;
      if (status >= 200 && status < 300)
        t.observe(
          '5.5-account-auth-not-shown',
          `an Authorization header "Basic <the account's credential> <a wrong one>" was accepted (${status}): only its first token was read`,
        );
    },
  );
  // The Basic scheme of RFC 7617 is "Basic" 1*SP token68 (RFC 9110 11.4): another scheme whose name merely ends in
  // the word is not it, and two spaces before the credential still are. 5.5 shows no scheme: both are observed.
  clauseTest(
    { clauses: ['5.5-account-endpoints', '5.5-account-auth-not-shown'], endpoint: ENDPOINT['activatePaymentLink']!, needs: ['account'] },
    'activatePaymentLink with the account credential under another scheme (NotBasic) is observed when accepted',
    async (t) => {
      const { user, password } = t.run.target.account!;
      const right = Buffer.from(`${user}:${password}`).toString('base64');
      t.secret(right, 'account credential');
      const ex = await t.call('activatePaymentLink', {
        ...(await validRequest(t, 'activatePaymentLink')),
        auth: { header: `NotBasic ${right}` },
      });
      const status = ex.response?.status ?? 0;
      if (status >= 200 && status < 300)
        t.observe(
          '5.5-account-auth-not-shown',
          `an Authorization header "NotBasic <the account's credential>" was accepted (${status}): not the Basic scheme`,
        );
    },
  );
  clauseTest(
    { clauses: ['5.5-account-endpoints', '5.5-account-auth-not-shown'], endpoint: ENDPOINT['activatePaymentLink']!, needs: ['account'] },
    'activatePaymentLink with two spaces between Basic and the account credential is observed when refused where one is accepted',
    async (t) => {
      const { user, password } = t.run.target.account!;
      const right = Buffer.from(`${user}:${password}`).toString('base64');
      t.secret(right, 'account credential');
      const request = await validRequest(t, 'activatePaymentLink');
      const control = await t.call('activatePaymentLink', { ...request, auth: { header: `Basic ${right}` } });
      const ok = (s: number): boolean => s >= 200 && s < 300;
      // A target that takes no HTTP Basic at all (5.5 shows no scheme) has nothing to compare.
      if (!ok(control.response?.status ?? 0))
        return t.skip(
          'nothing-to-judge',
          `the account credential by HTTP Basic with one space was refused (${control.response?.status}): nothing to judge`,
        );
      const ex = await t.call('activatePaymentLink', { ...request, auth: { header: `Basic  ${right}` } });
      const status = ex.response?.status ?? 0;
      if (!ok(status))
        t.observe(
          '5.5-account-auth-not-shown',
          `an Authorization header "Basic  <the account's credential>" (two spaces) was refused (${status}) where one space was accepted: RFC 9110 11.4 allows 1*SP`,
        );
    },
  );
  clauseTest(
    { clauses: '5.5-account-endpoints', endpoint: 'DELETE /Cuenta', needs: ['deletion'] },
    'deleteAccount without credentials is refused',
    async (t) => {
      const ex = await t.call('deleteAccount', { auth: 'none' });
      notAccepted(ex, '5.5-account-endpoints', 'DELETE /Cuenta without credentials');
    },
  );
});

describe('5.5 "account or business" endpoints accept both and refuse neither', () => {
  for (const op of ['purchaseQuickPay', 'purchaseMposBanda', 'getTransaction']) {
    const purchase = PURCHASE_OPERATIONS.has(op);
    // An MPOS purchase of the CLIENT_ID business (directly, or by the account naming it) needs its permission (4.7).
    const mpos: Need[] = op === 'purchaseMposBanda' ? ['mposPermission'] : [];
    clauseTest(
      { clauses: '5.5-either-endpoints', endpoint: ENDPOINT[op]!, purchase, needs: mpos },
      `${op} accepts the business's bearer token`,
      async (t) => {
        const req = await validRequest(t, op);
        const ex = op === 'getTransaction' ? await existingTransactionLookup(t, 'bearer') : await t.call(op, { ...req, auth: 'bearer' });
        succeeded(ex, '5.5-either-endpoints', `${op} as the business`);
      },
    );
    clauseTest(
      { clauses: '5.5-either-endpoints', endpoint: ENDPOINT[op]!, purchase, needs: ['account', ...mpos] },
      `${op} accepts the account's credentials`,
      async (t) => {
        const req = await validRequest(t, op);
        const body = op === 'purchaseMposBanda' ? { json: { ...(req.json as object), idAplicativo: await businessId(t) } } : req;
        const ex = op === 'getTransaction' ? await existingTransactionLookup(t, 'account') : await t.call(op, { ...body, auth: 'account' });
        succeeded(ex, '5.5-either-endpoints', `${op} as the account`);
      },
    );
    clauseTest(
      { clauses: '5.5-either-endpoints', endpoint: ENDPOINT[op]!, purchase },
      `${op} without credentials is refused`,
      async (t) => {
        const ex =
          op === 'getTransaction'
            ? await existingTransactionLookup(t, 'none')
            : await t.call(op, { ...(await validRequest(t, op)), auth: 'none' });
        await notAcceptedWhereValidAccepted(t, ex, op, '5.5-either-endpoints', `${op} without credentials`);
      },
    );
  }
});

/** A lookup of a transaction that exists (a wallet purchase), so that only the credentials decide the answer. */
async function existingTransactionLookup(t: TestHandle, auth: 'bearer' | 'account' | 'none'): Promise<Exchange> {
  t.run.interlock.assertMayPay();
  const purchase = await t.call('purchaseWallet', { json: purchaseWallet(t.run.config.testData) });
  succeeded(purchase, '4.4-endpoint', 'the wallet purchase used for the lookup');
  const id = String(bodyOf(purchase, '4.4-response-fields')['idTransaccion']);
  return t.call('getTransaction', { pathParams: { id }, auth });
}

/** The idAplicativo of the primary business, learned from a created link (spec 2.1 via activar). */
async function businessId(t: TestHandle): Promise<string> {
  const { link } = await createLink(t);
  const ex = await t.call('activatePaymentLink', { pathParams: { id: link.idEnlace } });
  succeeded(ex, '4.2-endpoint', 'reading the link record');
  return String(bodyOf(ex, '2.1-payment-link-types')['idAplicativo']);
}
