/**
 * Principle 3, end to end: account deletion never reaches a REMOTE target without the explicit opt-in, and the
 * skip says how to opt in. The whole suite runs against a sandbox started here and used as a remote target (with
 * account credentials, so only the opt-in is missing); a second run of the deletion suite with the opt-in shows
 * that the watch on the wire does see a DELETE /Cuenta when one is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../harness/setup/config.ts';
import { listing, runConformance, type ChildRun } from '../hostile/run.ts';
import { startRemoteSandbox, type RemoteSandbox } from '../../bench/remote-sandbox.ts';

const HOW_TO_OPT_IN = 'ALLOW_DESTRUCTIVE=account-deletion and DELETION_ACCOUNT_USER/DELETION_ACCOUNT_PASSWORD';

let without: { target: RemoteSandbox; run: ChildRun };
let withOptIn: { target: RemoteSandbox; run: ChildRun };

beforeAll(async () => {
  const [a, b] = await Promise.all([startRemoteSandbox({ mode: 'development' }), startRemoteSandbox({ mode: 'development' })]);
  const d = b.sandbox.credentials.disposableAccount;
  const [runA, runB] = await Promise.all([
    runConformance({ env: { ...a.env, FC_NUM_RUNS: '5', RUN_TIMEOUT_S: '240' }, timeoutMs: 300_000 }),
    runConformance({
      files: ['suites/account-deletion.test.ts'],
      env: { ...b.env, ALLOW_DESTRUCTIVE: 'account-deletion', DELETION_ACCOUNT_USER: d.user, DELETION_ACCOUNT_PASSWORD: d.password },
      timeoutMs: 120_000,
    }),
  ]);
  without = { target: a, run: runA };
  withOptIn = { target: b, run: runB };
}, 320_000);

afterAll(async () => {
  await without?.target.close();
  await withOptIn?.target.close();
});

const deletes = (target: RemoteSandbox) => target.requests.filter((r) => r === 'DELETE /api/Cuenta');

describe('account deletion against a remote target', () => {
  it('without ALLOW_DESTRUCTIVE: no DELETE /Cuenta reaches the target, whatever the suites do', async () => {
    const { target, run } = without;
    expect(run.killed).toBe(false);
    expect(run.summary?.tests.length, run.output.slice(-2000)).toBeGreaterThan(50);
    expect(deletes(target)).toEqual([]);
    expect(target.requests.filter((r) => r.startsWith('DELETE '))).toEqual([]);
    // The run itself went ahead: account calls were made, so only the deletion was held back.
    expect(target.requests.some((r) => r.startsWith('PUT /api/EnlacePago/'))).toBe(true);
    // Every seeded account is still there, beside the accounts of the test-control tenants the run created.
    const tenants = target.requests.filter((r) => r === 'POST /__sandbox/tenants').length;
    expect((await target.stats()).accounts).toBe(3 + tenants);
  });

  it('every deletion test is skipped with a reason that says how to opt in', () => {
    const { run } = without;
    const deletion = run.summary?.tests.filter((t) => t.endpoint === 'DELETE /Cuenta') ?? [];
    expect(deletion.length, listing(run)).toBeGreaterThan(0);
    for (const t of deletion) {
      expect(t.status, t.name).toBe('skip');
      expect(t.reason, t.name).toContain(HOW_TO_OPT_IN);
    }
    expect(run.files['junit.xml']).toContain(HOW_TO_OPT_IN);
  });

  it('with the opt-in, the deletion is sent (to the disposable account only), so the watch above can see one', async () => {
    const { target, run } = withOptIn;
    expect(deletes(target).length, listing(run)).toBeGreaterThan(0);
    expect((await target.stats()).accounts).toBe(2);
    const stillThere = await fetch(`${target.sandbox.baseUrl}/EnlacePago/1/activar`, {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from(`${target.env.ACCOUNT_USER}:${target.env.ACCOUNT_PASSWORD}`).toString('base64')}` },
    });
    expect(stillThere.status).not.toBe(401);
  });

  it('the opt-in on a remote target needs a disposable account, and the message says which variables to set', () => {
    const remote = {
      API_BASE_URL: 'https://api.example.test/api',
      AUTH_URL: 'https://auth.example.test',
      CLIENT_ID: 'c',
      CLIENT_SECRET: 's',
    };
    expect(() => loadConfig({ ...remote, ALLOW_DESTRUCTIVE: 'account-deletion' }, { dotenvPath: null })).toThrow(ConfigError);
    expect(() => loadConfig({ ...remote, ALLOW_DESTRUCTIVE: 'account-deletion' }, { dotenvPath: null })).toThrow(
      /DELETION_ACCOUNT_USER and DELETION_ACCOUNT_PASSWORD/,
    );
  });
});
