/**
 * ACCOUNT_AUTH=password-grant against a REMOTE target whose account endpoints take only account tokens (the sandbox's
 * account-password-grant variant): every account client — the primary account, the disposable account given
 * without a business of its own (its grant made with the primary business's client), the other merchant's account —
 * gets its token by a password grant, so the deletion and tenant-isolation tests run and pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ChildRun } from '../hostile/run.ts';
import { startRemoteSandbox, type RemoteSandbox } from '../../bench/remote-sandbox.ts';

let target: RemoteSandbox;
let run: ChildRun;

beforeAll(async () => {
  target = await startRemoteSandbox({ mode: 'development', variant: 'account-password-grant' });
  const c = target.sandbox.credentials;
  run = await runConformance({
    files: ['suites/account-deletion.test.ts', 'suites/tenant-isolation.test.ts', 'suites/auth.test.ts'],
    env: {
      ...target.env,
      ACCOUNT_AUTH: 'password-grant',
      ALLOW_DESTRUCTIVE: 'account-deletion',
      DELETION_ACCOUNT_USER: c.disposableAccount.user,
      DELETION_ACCOUNT_PASSWORD: c.disposableAccount.password,
      OTHER_ACCOUNT_USER: c.otherAccount.user,
      OTHER_ACCOUNT_PASSWORD: c.otherAccount.password,
      OTHER_CLIENT_ID: c.otherBusiness.clientId,
      OTHER_CLIENT_SECRET: c.otherBusiness.clientSecret,
      RUN_TIMEOUT_S: '120',
    },
    timeoutMs: 150_000,
  });
}, 180_000);

afterAll(async () => {
  await target?.close();
});

describe('ACCOUNT_AUTH=password-grant on a target that issues account tokens', () => {
  it('runs the deletion and tenant-isolation tests (none skipped) and nothing fails', () => {
    const tests = run.summary?.tests ?? [];
    const bad = tests
      .filter((t) => t.status === 'fail' || t.status === 'error')
      .map((t) => `${t.name}: ${t.error ?? t.failure?.actual ?? ''}`);
    expect(bad, run.output.slice(-3000)).toEqual([]);
    const judged = tests.filter((t) => /4\.9-|security-tenant/.test(t.name));
    expect(judged.length).toBeGreaterThanOrEqual(8);
    expect(judged.filter((t) => t.status === 'skip' || t.status === 'notRun').map((t) => t.name)).toEqual([]);
    // The variant refuses HTTP Basic, so every account call above passed with a token of a password grant.
    expect(target.requests.filter((r) => r === 'POST /auth/connect/token').length).toBeGreaterThan(3);
  });
});
