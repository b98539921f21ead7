/**
 * Tokens (5.1) requested outside the run's cache, and the business id a link record names.
 */
import { asInt, bodyOf, type Credentials, type Exchange, fail, holds, succeeded, type TestHandle } from '../../harness/index.ts';
import { activate, createLink } from './links.ts';

/** POST {auth_url}/connect/token with a business's client credentials (5.1), outside the token cache; contract-observed. */
export async function requestToken(t: TestHandle, business: Credentials): Promise<Exchange> {
  const ex = await t.run.http.request({
    method: 'POST',
    url: `${t.run.target.authUrl}/connect/token`,
    form: {
      grant_type: 'client_credentials',
      audience: t.run.config.tokenAudience,
      client_id: business.clientId,
      client_secret: business.clientSecret,
    },
    idempotent: true,
    label: 'token request',
  });
  t.run.observeContract('issueToken', ex);
  return ex;
}

/** A token of the primary business issued now, outside the run's cache, and the lifetime it announces. */
export async function freshToken(t: TestHandle): Promise<{ token: string; expiresIn: number; issuedAt: number }> {
  const asked = Date.now();
  const ex = await requestToken(t, t.run.target.business);
  succeeded(ex, '5.1-token-request', 'the token request');
  const body = bodyOf(ex, '5.2-token-response');
  // "3600" is read as 3600: how expires_in is written is the contract testcase's finding
  const expiresIn = asInt(body['expires_in']);
  holds(
    expiresIn !== undefined && expiresIn > 0,
    'expires-in',
    '8-token-lifetime',
    'expires_in a positive number of seconds',
    JSON.stringify(expiresIn),
    ex,
  );
  const token = String(body['access_token']);
  t.secret(token, 'access-token');
  // The earliest it may have been issued (when its request went out): its lifetime is counted from there.
  return { token, expiresIn, issuedAt: ex.sentAt ?? asked };
}

/** The idAplicativo of the primary business, read from a new link's record (2.1 via activar: needs the account). */
export async function businessIdOf(t: TestHandle): Promise<string> {
  const { link } = await createLink(t);
  const { ex, record } = await activate(t, link.idEnlace);
  const id = record.idAplicativo;
  if (typeof id !== 'string' || id === '')
    fail('business-id', '2.1-payment-link-types', 'the link record names its business (idAplicativo)', JSON.stringify(id), ex);
  return id;
}
