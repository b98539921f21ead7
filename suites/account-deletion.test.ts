/**
 * Spec 4.9 — DELETE /Cuenta answers the deleted account (2.6) with its businesses (2.7); afterwards the account's
 * credentials and its businesses' client credentials no longer work. Destructive, so only with need 'deletion': the
 * embedded sandbox's disposable account, or ALLOW_DESTRUCTIVE=account-deletion with DELETION_ACCOUNT_USER/PASSWORD.
 * The account is deleted once per run, by whichever test comes first; the others look at the result.
 */
import { describe } from 'vitest';
import { requestToken } from './flows/tokens.ts';
import {
  asString,
  bodyOf,
  type Call,
  clauseTest,
  type Credentials,
  type Exchange,
  field,
  holds,
  notAccepted,
  sharedWork,
  succeeded,
  type TestHandle,
} from '../harness/index.ts';

const ENDPOINT = 'DELETE /Cuenta';

/** The disposable account (and, on the embedded sandbox, its business) — never the account the suite runs with. */
function disposable(t: TestHandle): Call {
  const d = t.run.target.deletion!;
  return t.run.callAs(d.business, { user: d.user, password: d.password });
}

/** ACCOUNT_AUTH=password-grant: a new token request for the disposable account (with the client its calls use). */
async function passwordGrant(t: TestHandle): Promise<Exchange> {
  const d = t.run.target.deletion!;
  const client = d.business ?? t.run.target.business;
  return t.run.http.request({
    method: 'POST',
    url: `${t.run.target.authUrl}/connect/token`,
    form: {
      grant_type: 'password',
      audience: t.run.config.tokenAudience,
      client_id: client.clientId,
      client_secret: client.clientSecret,
      username: d.user,
      password: d.password,
    },
    idempotent: true,
    label: 'password grant (deleted account)',
  });
}

const deletion = sharedWork<Exchange>();

/** DELETE /Cuenta of the disposable account, sent once per run; fails the test unless it succeeded. */
async function deleted(t: TestHandle): Promise<{ ex: Exchange; record: Record<string, unknown> }> {
  const ex = await deletion(() => disposable(t)('deleteAccount', { label: 'DELETE /Cuenta (disposable account)' }));
  succeeded(ex, '4.9-endpoint', 'deleting the disposable account');
  const record = bodyOf(ex, '2.6-account-types');
  for (const b of businessesOf(record)) t.secret(b.clientSecret, 'client-secret');
  return { ex, record };
}

/** The client credentials of the businesses listed in the record (2.7). */
function businessesOf(record: Record<string, unknown>): Credentials[] {
  const list = Array.isArray(record['aplicativos']) ? (record['aplicativos'] as Record<string, unknown>[]) : [];
  return list.map((b) => ({ clientId: String(b['clientIdApi']), clientSecret: String(b['clientSecret']) }));
}

describe('4.9 account deletion', () => {
  clauseTest(
    {
      clauses: ['4.9-endpoint', '2.6-account-types', '2.6-tipo-personeria', '2.7-business-types'],
      endpoint: ENDPOINT,
      needs: ['deletion'],
    },
    'DELETE /Cuenta answers the deleted account with its businesses',
    async (t) => {
      const { ex, record } = await deleted(t);
      const { user, business } = t.run.target.deletion!;
      holds(
        String(record['emailLogin']).toLowerCase() === user.toLowerCase(),
        'account-record',
        '2.6-account-types',
        'emailLogin of the account whose credentials were used',
        `emailLogin ${JSON.stringify(record['emailLogin'])}`,
        ex,
      );
      // 2.6 gives nit as "null or empty" and razonSocial as "(null)"; the account's identifier and names are plain
      // strings with a meaning (the account, its name, its contact's full name, its trade name): empty, observed.
      const empty = ['idCuenta', 'nombreCuenta', 'nombreCompletoContacto', 'nombreComercial'].filter(
        (name) => typeof record[name] === 'string' && (record[name] as string).trim() === '',
      );
      if (empty.length > 0)
        t.observe('2.6-account-types', `the deleted account's ${empty.join(', ')} ${empty.length > 1 ? 'are' : 'is'} empty`);
      const ids = businessesOf(record).map((b) => b.clientId);
      holds(
        ids.length > 0,
        'account-businesses',
        '2.7-business-types',
        'aplicativos lists the businesses of the account',
        'no business listed',
        ex,
      );
      if (business) {
        holds(
          ids.includes(business.clientId),
          'account-businesses',
          '2.7-business-types',
          `aplicativos includes the business ${business.clientId}`,
          `clientIdApi ${ids.join(', ')}`,
          ex,
        );
      }
    },
  );

  clauseTest(
    { clauses: '4.9-deletes-account', endpoint: ENDPOINT, needs: ['deletion'] },
    "afterwards the account's credentials are refused",
    async (t) => {
      await deleted(t);
      if (t.run.config.accountAuth === 'password-grant') {
        // The credentials themselves, not a token issued before the deletion: a new password grant must get no token,
        // or the token it gets must not work.
        const grant = await passwordGrant(t);
        const token =
          grant.response?.status !== undefined && grant.response.status < 300
            ? asString(field(grant.response.json, 'access_token'))
            : undefined;
        if (token === undefined)
          return notAccepted(grant, '4.9-deletes-account', 'a password grant with the credentials of the deleted account');
        t.secret(token, 'account-token');
        const again = await t.call('deleteAccount', {
          auth: { header: `Bearer ${token}` },
          label: 'DELETE /Cuenta with a token of the deleted account',
        });
        return notAccepted(again, '4.9-deletes-account', 'an account call with a token newly granted for the deleted account');
      }
      const again = await disposable(t)('deleteAccount', { label: 'DELETE /Cuenta with the deleted account' });
      notAccepted(again, '4.9-deletes-account', 'an account call with the credentials of the deleted account');
    },
  );

  clauseTest(
    { clauses: '4.9-deletes-account', endpoint: 'POST /connect/token', needs: ['deletion'] },
    'afterwards the businesses of the account get no token',
    async (t) => {
      const { record } = await deleted(t);
      const known = t.run.target.deletion!.business;
      const businesses = [...businessesOf(record), ...(known ? [known] : [])];
      holds(
        businesses.length > 0,
        'account-businesses',
        '4.9-deletes-account',
        'client credentials of a business of the deleted account',
        'none known',
      );
      for (const business of businesses) {
        const ex = await requestToken(t, business);
        notAccepted(ex, '4.9-deletes-account', `a token for ${business.clientId}, a business of the deleted account`);
      }
    },
  );
});
