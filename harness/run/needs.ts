/**
 * What a test may need beyond the primary business (`needs` of clauseTest), whether the run lacks it, and the reason
 * a test that needs it is skipped with.
 */
import type { Run } from './run.ts';
import type { Capability } from '../setup/target.ts';
import type { SkipKind } from '../record/skips.ts';

/** What a test may need beyond the primary business; missing → skipped with the reason. */
export type Need = Capability | 'account' | 'businessNoMpos' | 'deletion' | 'hash' | 'mposPermission' | 'otherTenant';

/** The kind of skip each missing need is. */
export const NEED_KINDS: Record<Need, SkipKind> = {
  clock: 'capability-missing',
  outbox: 'capability-missing',
  stats: 'capability-missing',
  tenants: 'capability-missing',
  reset: 'capability-missing',
  mposPermission: 'capability-missing',
  account: 'credential-missing',
  businessNoMpos: 'credential-missing',
  otherTenant: 'credential-missing',
  deletion: 'opt-in-destructive',
  hash: 'setting-off',
};

export const NEED_REASONS: Record<Need, string> = {
  clock: 'the target has no clock control of its own for a test (no sandbox test-control API with tenants)',
  outbox: 'the target exposes no notification outbox (no sandbox test-control API)',
  stats:
    'the target exposes no state counters of its own for a test (no sandbox test-control API with tenants), so ' +
    '"creates nothing" cannot be observed',
  tenants: 'the target cannot create test-control tenants (no sandbox test-control API with tenants)',
  reset: 'the target cannot be reset',
  account: 'no account credentials: set ACCOUNT_USER and ACCOUNT_PASSWORD',
  businessNoMpos: 'no second business without MPOS permission: set SECOND_CLIENT_ID and SECOND_CLIENT_SECRET',
  deletion:
    "account deletion is destructive: it runs only on the embedded sandbox's disposable account, or with ALLOW_DESTRUCTIVE=account-deletion and DELETION_ACCOUNT_USER/DELETION_ACCOUNT_PASSWORD",
  mposPermission: 'the CLIENT_ID business lacks the additional MPOS permission of 4.7 (MPOS_PERMITTED=no), so it cannot buy through MPOS',
  otherTenant:
    'no second merchant: set OTHER_ACCOUNT_USER, OTHER_ACCOUNT_PASSWORD, OTHER_CLIENT_ID and OTHER_CLIENT_SECRET (the ' +
    'account and a development business of another merchant) to check tenant isolation',
  hash:
    'the redirect hash is only observed (REDIRECT_HASH=off): set REDIRECT_HASH=auto to discover its scheme, or the ' +
    'scheme (e.g. hmac-sha256, see .env.example) to verify it',
};

/** Why a test that needs `need` is skipped: the account's credentials refused at start say so, not "no credentials". */
export function needReason(run: Run, need: Need): string {
  return need === 'account' && run.target.accountRefused ? run.target.accountRefused : NEED_REASONS[need];
}

/** Whether `run` lacks `need`. */
export function missing(run: Run, need: Need): boolean {
  switch (need) {
    case 'account':
      return !run.target.account;
    case 'businessNoMpos':
      return !run.target.businessNoMpos;
    case 'deletion':
      return !run.target.deletion;
    case 'hash':
      return !run.hash;
    case 'mposPermission':
      return !run.config.mposPermitted;
    case 'otherTenant':
      return !run.target.other;
    case 'clock':
    case 'stats':
      // Only ever a tenant's (harness/run/run.ts): checked again on the tenant's run once it is created.
      return run.tenantId === undefined ? !run.tenant : !run.target.capabilities.includes(need);
    default:
      return !run.target.capabilities.includes(need);
  }
}
