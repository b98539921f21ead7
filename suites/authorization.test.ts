/**
 * Who may call what, driven by the contract: each operation's `security` in spec/openapi.yaml (spec 5.5 and each
 * endpoint's "Authentication:") says which credentials it takes. One test per operation sends its valid request with
 * every credential the contract does not allow — none, a garbled bearer token, garbled account credentials, a business
 * token where only the account is named (4.2, 4.5, 4.9: "account user and password") — and each must be refused, and
 * nothing created or changed by it (the tenant's counters where the target has them; the link record through activar).
 * Where the spec is silent (the account's credentials on a "bearer token" endpoint) an acceptance is observed (WARN).
 * Another merchant's credentials on an object of the first are security checks (OWASP API1:2023, as in
 * suites/tenant-isolation.test.ts). A positive control first: the same request with an allowed credential succeeds, so a
 * refusal is about the credential, not the request. DELETE /Cuenta only on the disposable account (need 'deletion'),
 * and never with credentials that could delete another account.
 */
import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import {
  paymentLinkMinimal,
  purchase3ds,
  purchaseMposBanda,
  purchasePagoQr,
  purchaseQuickPay,
  purchaseWallet,
} from '../generators/bodies.ts';
import { BODY_ENDPOINTS, securityCheck } from './flows/bodies.ts';
import { activate, createLink } from './flows/links.ts';
import { buyWallet } from './flows/purchases.ts';
import { freshToken } from './flows/tokens.ts';
import {
  asString,
  type Auth,
  type Call,
  type CallOptions,
  clauseTest,
  createdNothing,
  type Exchange,
  fail,
  field,
  letTimePass,
  loadContract,
  type Need,
  notAccepted,
  type OperationMeta,
  PURCHASE_OPERATIONS,
  readResponse,
  type TestHandle,
  TokenError,
  waitingTimeoutMs,
} from '../harness/index.ts';

const contract = await loadContract();

const is2xx = (ex: Exchange): boolean => {
  const s = ex.response?.status;
  return s !== undefined && s >= 200 && s < 300;
};
const statusText = (ex: Exchange): string => (ex.response ? String(ex.response.status) : 'no response');

/** The kinds the contract allows for an operation (any alternative), and the 5.5 clause that states them. */
function allowedOf(op: OperationMeta): { bearer: boolean; account: boolean; clause: string } {
  const kinds = new Set(op.security.flat());
  const bearer = kinds.has('bearer');
  const account = kinds.has('account');
  return {
    bearer,
    account,
    clause: bearer && account ? '5.5-either-endpoints' : bearer ? '5.5-bearer-endpoints' : '5.5-account-endpoints',
  };
}

/** A request of the operation that only its credentials can make fail, and the link it concerns (if any). */
interface Subject {
  options: CallOptions;
  idEnlace?: number;
}

async function subjectOf(t: TestHandle, operationId: string): Promise<Subject> {
  const receiver = await t.run.receiver();
  const data = t.run.config.testData;
  switch (operationId) {
    case 'createPaymentLink':
      return { options: { json: paymentLinkMinimal() } };
    case 'purchase3ds':
      return { options: { json: purchase3ds(receiver.redirectUrl('authz'), data) } };
    case 'purchaseWallet':
      return { options: { json: purchaseWallet(data) } };
    case 'purchaseQuickPay':
      return { options: { json: purchaseQuickPay() } };
    case 'purchaseMposBanda':
      return { options: { json: purchaseMposBanda(data) } };
    case 'getTransaction': {
      const { response } = await buyWallet(t);
      return { options: { pathParams: { id: String(response['idTransaccion']) } } };
    }
    case 'activatePaymentLink': {
      const { link } = await createLink(t);
      return { options: { pathParams: { id: link.idEnlace } }, idEnlace: link.idEnlace };
    }
    case 'purchasePagoQr': {
      const { link } = await createLink(t);
      return { options: { json: purchasePagoQr(link.urlEnlace) }, idEnlace: link.idEnlace };
    }
    default:
      return t.skip('nothing-to-judge', `no valid request of ${operationId} is known to this suite`);
  }
}

/** The ids listed in a link's record (activar, as the account): what a refused call must leave as it was. */
async function listed(t: TestHandle, idEnlace: number): Promise<{ ids: string[]; ex: Exchange }> {
  const { ex, record } = await activate(t, idEnlace);
  return { ids: (record.transacciones ?? []).map((x) => String(field(x, 'idTransaccion'))), ex };
}

/**
 * The tenant's counters now, and the soft check that nothing was created since (judged where the target counts, else
 * nothing: the link record and the lookups say the rest).
 */
async function countsNow(t: TestHandle): Promise<(clause: string, what: string) => Promise<void>> {
  const stats = t.run.control && t.run.target.capabilities.includes('stats') ? t.run.control : undefined;
  const before = await stats?.stats();
  return async (clause, what) => {
    if (!before || !stats) return;
    const after = await stats.stats();
    t.soft(() => createdNothing(before, after, clause, undefined, what));
  };
}

/** A credential the operation must refuse, or (silent) one whose acceptance is only observed. */
interface Attempt {
  kind: string;
  auth: Auth;
  silent?: true;
}

const garbledBasic = (): Auth => ({
  header: `Basic ${Buffer.from(`conformance-nobody-${randomUUID().slice(0, 8)}@example.invalid:wrong`).toString('base64')}`,
});
const garbledBearer = (): Auth => ({ header: `Bearer conformance-garbled-${randomUUID().replaceAll('-', '')}` });

function attemptsFor(op: OperationMeta): Attempt[] {
  const { bearer, account } = allowedOf(op);
  return [
    { kind: 'no credentials', auth: 'none' },
    { kind: 'a garbled bearer token', auth: garbledBearer() },
    { kind: 'garbled account credentials', auth: garbledBasic() },
    ...(!bearer ? [{ kind: "the business's bearer token (the spec names the account user and password)", auth: 'bearer' as const }] : []),
    ...(!account
      ? [{ kind: "the account's credentials (the spec names a bearer token)", auth: 'account' as const, silent: true as const }]
      : []),
  ];
}

/** The other merchant's calls (its business token; its account for account operations). */
function other(t: TestHandle): Call | undefined {
  const o = t.run.target.other;
  return o && t.run.callAs(o.business, o.account);
}

/** Another merchant's credentials on the first merchant's object (the lookup, activar): security clauses. */
async function otherMerchant(t: TestHandle, operationId: string, options: CallOptions): Promise<void> {
  const call = other(t);
  if (!call) return;
  const rows: [Auth, string, string][] =
    operationId === 'getTransaction'
      ? [
          ['bearer', 'business token', 'security-tenant-transaction-read'],
          ['account', 'account', 'security-tenant-transaction-read'],
        ]
      : operationId === 'activatePaymentLink'
        ? [['account', 'account', 'security-tenant-link-activate']]
        : [];
  for (const [auth, who, clause] of rows) {
    if (auth === 'account' && !t.run.target.other?.account) continue;
    const ex = await call(operationId, { ...options, auth, label: `${operationId} (other merchant's ${who})` });
    t.soft(() =>
      securityCheck(
        t,
        !is2xx(ex),
        'tenant-isolation',
        clause,
        `${operationId} of the first merchant's object with the other merchant's ${who} is refused (OWASP API1:2023)`,
        `answered ${statusText(ex)}`,
        ex,
      ),
    );
  }
}

const operations = Object.entries(contract.operations).filter(([, op]) => op.server === 'base' && op.security.length > 0);

describe('5.5 every credential the contract does not allow is refused, and changes nothing', () => {
  for (const [operationId, op] of operations) {
    const { clause } = allowedOf(op);
    const endpoint = `${op.method} ${op.path}`;
    if (operationId === 'deleteAccount') continue; // below: only on the disposable account
    const needs: Need[] = [
      ...(op.security.every((alt) => alt.includes('account')) || operationId === 'activatePaymentLink' || operationId === 'purchasePagoQr'
        ? ['account' as const]
        : []),
      ...(operationId === 'purchaseMposBanda' ? ['mposPermission' as const] : []),
    ];
    const purchase = PURCHASE_OPERATIONS.has(operationId) || operationId === 'getTransaction';
    clauseTest(
      { clauses: [clause, '5.3-bearer-header'], endpoint: BODY_ENDPOINTS[operationId] ?? endpoint, purchase, tenant: true, needs },
      `${operationId}: every credential its security does not list is refused, and the refused calls create or change nothing`,
      async (t) => {
        // The positive control: the request with a credential the contract allows succeeds.
        const allowed: Auth = allowedOf(op).bearer ? 'bearer' : 'account';
        const control = await t.call(operationId, {
          ...(await subjectOf(t, operationId)).options,
          auth: allowed,
          label: `${operationId} (positive control)`,
        });
        if (!is2xx(control))
          t.skip(
            'premise-elsewhere',
            `${operationId} with an allowed credential (${allowed}) answered ${statusText(control)}: its own endpoint ` +
              `test judges it; a refusal here would say nothing of the credentials`,
          );

        const subject = await subjectOf(t, operationId);
        const createdNothingSince = await countsNow(t);
        const linkBefore = subject.idEnlace !== undefined && t.run.target.account ? await listed(t, subject.idEnlace) : undefined;
        const attempts = attemptsFor(op);
        const accepted: string[] = [];
        for (const attempt of attempts.filter((a) => !a.silent)) {
          let ex: Exchange;
          try {
            ex = await t.call(operationId, { ...subject.options, auth: attempt.auth, label: `${operationId} with ${attempt.kind}` });
          } catch (err) {
            if (err instanceof TokenError) continue; // no credential was issued to send: nothing reached the operation
            throw err;
          }
          if (is2xx(ex)) accepted.push(attempt.kind);
          t.soft(() =>
            notAccepted(
              ex,
              clause,
              `${operationId} with ${attempt.kind} (its security: ${op.security.map((alt) => alt.join(' + ')).join(' or ')})`,
            ),
          );
        }
        await createdNothingSince(
          clause,
          `over the ${attempts.filter((a) => !a.silent).length} refused calls of ` +
            `${operationId}${accepted.length ? ` (accepted: ${accepted.join(', ')})` : ''}`,
        );
        if (linkBefore && subject.idEnlace !== undefined) {
          const { ids, ex } = await listed(t, subject.idEnlace);
          const added = ids.filter((id) => !linkBefore.ids.includes(id));
          if (added.length > 0)
            t.soft(() =>
              fail(
                'changed-nothing',
                clause,
                `the link's transacciones unchanged by the refused calls of ${operationId}`,
                `${added.length} transaction(s) added: ${added.join(', ')}`,
                ex,
              ),
            );
        }
        // Where the spec is silent: observed, and after the counts (an accepted call may create what it asks).
        for (const attempt of attempts.filter((a) => a.silent)) {
          if (attempt.auth === 'account' && !t.run.target.account) continue;
          const ex = await t.call(operationId, { ...subject.options, auth: attempt.auth, label: `${operationId} with ${attempt.kind}` });
          if (is2xx(ex)) t.observe(clause, `${operationId} accepted ${attempt.kind}: answered ${statusText(ex)}`);
        }
        await otherMerchant(t, operationId, subject.options);
      },
    );
  }

  const deletion = contract.operations['deleteAccount'];
  if (deletion) {
    clauseTest(
      { clauses: allowedOf(deletion).clause, endpoint: 'DELETE /Cuenta', needs: ['deletion'] },
      "deleteAccount: no credentials, garbled ones and the disposable business's bearer token are refused",
      async (t) => {
        const d = t.run.target.deletion!;
        const attempts = attemptsFor(deletion);
        for (const attempt of attempts.filter((a) => !a.silent)) {
          // Only the disposable account's own business: a token that a broken target might honour deletes nothing else.
          if (attempt.auth === 'bearer' && !d.business) continue;
          const call = attempt.auth === 'bearer' ? t.run.callAs(d.business) : t.call;
          let ex: Exchange;
          try {
            ex = await call('deleteAccount', { auth: attempt.auth, label: `deleteAccount with ${attempt.kind}` });
          } catch (err) {
            if (err instanceof TokenError) continue; // the disposable account is gone (deleted by its own test): no token to send
            throw err;
          }
          t.soft(() => notAccepted(ex, allowedOf(deletion).clause, `DELETE /Cuenta with ${attempt.kind}`));
        }
      },
    );
  }
});

describe('8 a token past its expires_in is refused by every operation that takes one, and changes nothing', () => {
  // POST /EnlacePago is the premise: "8 access token lifetime" (suites/token-lifetime.test.ts) judges a token that
  // lives on everywhere; this test finds the operation that skips the check the others make.
  const others = operations.filter(([operationId, op]) => allowedOf(op).bearer && operationId !== 'createPaymentLink');
  clauseTest(
    { clauses: ['8-token-lifetime', '5.2-token-reuse'], endpoint: 'POST /EnlacePago', purchase: true, movesClock: true },
    `a token past its expires_in, refused by createPaymentLink, is refused by ${others.map(([id]) => id).join(', ')} too, ` +
      'and the refused calls create nothing',
    async (t) => {
      const { token, expiresIn } = await freshToken(t);
      const age = expiresIn + 1;
      const what = `a request with a token ${age} s after it was issued (expires_in ${expiresIn})`;
      await letTimePass(t, age, what, expiresIn);
      const auth: Auth = { header: `Bearer ${token}` };
      const premise = await t.call('createPaymentLink', { json: paymentLinkMinimal(), auth, label: `createPaymentLink with ${what}` });
      if (is2xx(premise))
        t.skip(
          'premise-elsewhere',
          `createPaymentLink accepted ${what}: "8 access token lifetime" reports a token that outlives its expires_in`,
        );
      // The requests are built first (with the run's own, valid token), so the counts below see only the refused calls.
      const judged = others.filter(([operationId]) => operationId !== 'purchaseMposBanda' || t.run.config.mposPermitted);
      const subjects = await Promise.all(judged.map(async ([operationId]) => [operationId, await subjectOf(t, operationId)] as const));
      const createdNothingSince = await countsNow(t);
      const accepted: string[] = [];
      for (const [operationId, subject] of subjects) {
        const ex = await t.call(operationId, { ...subject.options, auth, label: `${operationId} with ${what}` });
        if (is2xx(ex)) accepted.push(operationId);
        t.soft(() => notAccepted(ex, '8-token-lifetime', `${operationId} with ${what}, which createPaymentLink refused`));
      }
      await createdNothingSince(
        '8-token-lifetime',
        `over ${subjects.length} calls with the expired token${accepted.length ? ` (accepted: ${accepted.join(', ')})` : ''}`,
      );
    },
    waitingTimeoutMs(),
  );
});

describe('4.7 a tenant field in the body never moves a request to a tenant the credentials do not name', () => {
  clauseTest(
    {
      clauses: ['4.7-idaplicativo-conditional', '5.5-either-endpoints'],
      endpoint: 'POST /TransaccionCompra/Mpos/Banda',
      purchase: true,
      tenant: true,
      needs: ['mposPermission', 'otherTenant'],
    },
    "an MPOS purchase with a business token naming another merchant's idAplicativo is refused, or charged to the business of the token",
    async (t) => {
      // The other merchant's business id, as its own link record names it.
      const call = other(t)!;
      const created = await call('createPaymentLink', {
        json: paymentLinkMinimal(),
        auth: 'bearer',
        label: 'createPaymentLink (other merchant)',
      });
      const idEnlace = asString(field(created.response?.json, 'idEnlace'));
      const record =
        is2xx(created) && idEnlace !== undefined
          ? await call('activatePaymentLink', {
              pathParams: { id: idEnlace },
              auth: 'account',
              label: 'activatePaymentLink (other merchant, own link)',
            })
          : undefined;
      const idAplicativo =
        record && is2xx(record) ? asString(field(readResponse(t.run.contract, 'activatePaymentLink', record), 'idAplicativo')) : undefined;
      if (!idAplicativo)
        return t.skip(
          'premise-elsewhere',
          `the other merchant's credentials did not show its business id (link ${statusText(created)}, record ` +
            `${record ? statusText(record) : 'not read'}): the tenant-isolation tests judge them`,
        );

      const ex = await t.call('purchaseMposBanda', {
        json: purchaseMposBanda(t.run.config.testData, { idAplicativo }),
        auth: 'bearer',
        label: "purchaseMposBanda (business token, another merchant's idAplicativo)",
      });
      if (!is2xx(ex)) return;
      // Accepted: it must be the token's business's own purchase, which that business looks up.
      const id = asString(field(ex.response?.json, 'idTransaccion')) ?? '';
      const own = await t.call('getTransaction', {
        pathParams: { id },
        auth: 'bearer',
        label: 'getTransaction (the business of the token)',
      });
      if (!is2xx(own) || asString(field(own.response?.json, 'idTransaccion')) !== id) {
        fail(
          'tenant-field-ignored',
          '4.7-idaplicativo-conditional',
          `with a business token idAplicativo is "taken automatically" (4.7): a purchase naming another merchant's ` +
            `${idAplicativo} is refused or charged to the business of the token, which looks it up`,
          `the purchase was accepted (${statusText(ex)}, idTransaccion ${id}) and the token's business's lookup ` +
            `answered ${statusText(own)}: it was charged to another business`,
          own,
        );
      }
    },
  );
});
