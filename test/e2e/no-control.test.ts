/**
 * End to end: the suite against the sandbox as a vendor's service (`createSandbox({ control: false })`,
 * as `npm run sandbox -- --no-control --variant all`), given only the six variables a new user has. What the spec
 * does not show is discovered (hash, signature, account authentication) and time limits are waited for in real time
 * (MAX_WAIT_S, default 120): 0 FAIL, 0 ERROR, skips only where the test-control API or more credentials are needed, or
 * a wait beyond MAX_WAIT_S; the run takes at most MAX_WAIT_S + 60 s. Slow (about two minutes): its own timeout.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../sandbox/index.ts';
import { ROOT, runConformance, type ChildRun } from '../hostile/run.ts';

const MAX_WAIT_S = 120;
let sandbox: Sandbox;
let run: ChildRun;
let discovered: string;

beforeAll(
  async () => {
    // A quick-pay QR valid 25 s, as an independent implementation's: both sides of its limit are waited for in real time,
    // and a payment the suite makes too late (a loaded machine) is left unjudged, never failed.
    sandbox = await createSandbox({ control: false, variant: 'all', quickPayTtlSeconds: 25 });
    const c = sandbox.credentials;
    const env = {
      API_BASE_URL: sandbox.baseUrl,
      AUTH_URL: sandbox.authUrl,
      CLIENT_ID: c.business.clientId,
      CLIENT_SECRET: c.business.clientSecret,
      ACCOUNT_USER: c.account.user,
      ACCOUNT_PASSWORD: c.account.password,
    };
    // npm run discover first, into its own REPORT_DIR (its file is for a later run; this run discovers by itself).
    const reportDir = mkdtempSync(join(tmpdir(), 'discover-'));
    const blank = Object.fromEntries(
      [...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^# ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => [m[1]!, '']),
    );
    const parent = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && !name.startsWith('TINYPOOL')),
    );
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/discover.ts'], {
      cwd: ROOT,
      env: { ...parent, ...blank, ...env, REPORT_DIR: reportDir },
      timeout: 120_000,
      // Exit 1 = something not found: what was found is still written, and judged below.
    }).catch((err: { code?: unknown }) => {
      if (err.code !== 1) throw err;
    });
    discovered = readFileSync(join(reportDir, 'discovered.env'), 'utf8');
    run = await runConformance({ env, timeoutMs: (MAX_WAIT_S + 240) * 1000 });
    const tests = run.summary?.tests ?? [];
    const skips = new Map<string, number>();
    for (const t of tests.filter((t) => t.status === 'skip')) skips.set(t.reason ?? '', (skips.get(t.reason ?? '') ?? 0) + 1);
    // The figures of a run without clock control, in the test's output.
    console.log(
      [
        `no-control run: ${run.summary?.totals ? JSON.stringify(run.summary.totals) : 'no summary'} in ` +
          `${Math.round(run.durationMs / 1000)} s`,
        ...[...skips].map(([reason, n]) => `  ${n} skipped: ${reason}`),
      ].join('\n'),
    );
  },
  (MAX_WAIT_S + 300) * 1000,
);

afterAll(async () => {
  await sandbox?.close();
});

describe('the suite against a sandbox without its test-control API, with six variables', () => {
  it('has no FAIL and no ERROR', () => {
    expect(run.killed).toBe(false);
    const bad = (run.summary?.tests ?? []).filter((t) => t.status === 'fail' || t.status === 'error').map((t) => `${t.status} ${t.name}`);
    expect(bad, run.output.slice(-3000)).toEqual([]);
    expect(run.code, run.output.slice(-3000)).toBe(0);
  });

  it('skips only for the control API, credentials not given, or a wait beyond MAX_WAIT_S — never for a setting it can discover', () => {
    const reasons = (run.summary?.tests ?? []).filter((t) => t.status === 'skip').map((t) => t.reason ?? '');
    const allowed =
      /no notification outbox|no state counters|no clock control|account deletion is destructive|no second business|no second merchant|more than MAX_WAIT_S|covers these clauses|not waited in real time|nothing to judge|was not judged|verified no webhook|no webhook signature scheme|the suite was too late/;
    expect(reasons.filter((r) => !allowed.test(r))).toEqual([]);
    expect(reasons.filter((r) => /REDIRECT_HASH|WEBHOOK_SIGNATURE|ACCOUNT_AUTH|SCREEN_FIELD_NAMES/.test(r))).toEqual([]);
  });

  it('discovers the redirect hash, the webhook signature and the account authentication, and waits for the time limits', () => {
    const named = (pattern: RegExp) => (run.summary?.tests ?? []).find((t) => pattern.test(t.name));
    const observed = (pattern: RegExp) => JSON.stringify(named(pattern)?.observations ?? []);
    expect(observed(/the hash verifies over idTransaccion/)).toMatch(/redirect hash scheme discovered/);
    expect(observed(/the webhook signature verifies/)).toMatch(/webhook signature discovered/);
    expect(observed(/activatePaymentLink without credentials is refused/)).toMatch(/account authentication discovered: password-grant/);
    for (const title of [
      /a screen is paid within duracionInterfazIntentoMinutos/,
      /paid until vigencia.fechaFin/,
      /vigencia.fechaInicio and is paid once it has come/,
    ]) {
      expect(named(title)?.status, String(title)).toMatch(/^(pass|warn)$/);
    }
  });

  it('npm run discover names the hash scheme, the webhook signature and the account authentication, with evidence', () => {
    expect(discovered).toContain(`DISCOVERED_FOR=${sandbox.baseUrl}`);
    // `all` holds the variants account-password-grant, hash-hmac-sha512-base64 and webhook-vendor-header (its
    // sandbox_hash header wins over webhook-signature-header's).
    expect(discovered).toMatch(/^ACCOUNT_AUTH=password-grant$/m);
    expect(discovered).toMatch(/^REDIRECT_HASH=hmac-sha512$/m);
    expect(discovered).toMatch(/^WEBHOOK_SIGNATURE_HEADER=sandbox_hash$/m);
    expect(discovered).toMatch(/# the redirect hash \(REDIRECT_HASH\): found\n# {3}evidence: .*HMAC-SHA-512/);
    // The variant's inputs are named by their autofill tokens: the mapping found is written.
    expect(discovered).toMatch(/^SCREEN_FIELD_NAMES=.*"numeroTarjeta":"cc-number"/m);
    expect(discovered).toMatch(
      /# the payment screen's fields \(SCREEN_FIELD_NAMES\): found\n# {3}evidence: .*cvv → cc-csc \(autocomplete\)/,
    );
    expect(discovered).not.toContain(sandbox.credentials.business.clientSecret);
  });
});
