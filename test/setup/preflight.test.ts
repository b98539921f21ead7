/**
 * The preflight's own findings beside the table of mistakes (test/setup/mistakes.test.ts): the embedded sandbox passes
 * without a request, a right set-up passes, refused account credentials are a warning that skips the account's tests,
 * an unreachable webhook receiver is said at start, names close to a setting are named; and the exit codes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../harness/setup/config.ts';
import { editDistance, preflight, receiverWarning, settingSlips } from '../../harness/setup/preflight.ts';
import { EXIT_CODES_HELP, exitCodeOf } from '../../reporters/exit-codes.ts';
import { summarize, type RunInfo, type ReportedTest } from '../../reporters/records.ts';
import { withBaseline } from '../../reporters/compare.ts';
import { startRemoteSandbox, type RemoteSandbox } from '../../bench/remote-sandbox.ts';

const config = (env: Record<string, string>) => loadConfig(env, { dotenvPath: null });
let target: RemoteSandbox;

beforeAll(async () => {
  target = await startRemoteSandbox({ mode: 'development' });
});
afterAll(() => target?.close());

describe('preflight', () => {
  it('passes the embedded sandbox as it is', async () => {
    expect(await preflight(config({}))).toEqual({ warnings: [] });
  });

  it('passes a right set-up with a token request, one empty-bodied POST and the account on link 0, creating nothing', async () => {
    const before = target.requests.length;
    const links = (await target.stats()).links;
    expect(await preflight(config(target.env))).toEqual({ warnings: [] });
    expect(
      target.requests
        .slice(before)
        .filter((r) => !r.startsWith('GET /__sandbox'))
        .sort(),
    ).toEqual(['POST /auth/connect/token', 'POST /api/EnlacePago', 'PUT /api/EnlacePago/0/activar'].sort());
    expect((await target.stats()).links).toBe(links);
  });

  it('says refused account credentials in one warning, and hands their reason to the tests that need the account', async () => {
    const checked = await preflight(config({ ...target.env, ACCOUNT_PASSWORD: 'wrong-password-0815' }));
    expect(checked.problem).toBeUndefined();
    expect(checked.accountRefused).toMatch(
      /^ACCOUNT_USER\/ACCOUNT_PASSWORD were refused: PUT \S+\/EnlacePago\/0\/activar with HTTP Basic answered 401 .*check ACCOUNT_USER and ACCOUNT_PASSWORD$/,
    );
    expect(checked.warnings).toEqual([`warning: ${checked.accountRefused}; the tests that need the account are skipped`]);
    expect(JSON.stringify(checked)).not.toContain('wrong-password-0815');
  });

  it('warns at start when a target on another host would be given a loopback webhook URL', async () => {
    const remote = { API_BASE_URL: 'https://203.0.113.7/api', AUTH_URL: 'https://203.0.113.7/auth', CLIENT_ID: 'a', CLIENT_SECRET: 'b' };
    expect(await receiverWarning(config(remote))).toMatch(
      /^warning: the target \(203\.0\.113\.7\) is not on this host, .*set WEBHOOK_PUBLIC_URL to a URL the target can reach .*or RECEIVER_HOST/,
    );
    expect(await receiverWarning(config({ ...remote, WEBHOOK_PUBLIC_URL: 'https://tunnel.example.test' }))).toBeUndefined();
    expect(await receiverWarning(config({ ...remote, RECEIVER_HOST: '203.0.113.9' }))).toBeUndefined();
    expect(await receiverWarning(config(target.env))).toBeUndefined();
  });
});

describe('names close to a setting', () => {
  it('are named with the setting meant; unrelated variables are left alone', () => {
    expect(
      settingSlips(['ACOUNT_USER', 'WEBHOOK_PUBLIC_ULR', 'REPORTS_DIR', 'PAGER', 'AZURE_CLIENT_ID', 'HTTP_PROXY', 'NODE_ENV', 'CLIENT_ID']),
    ).toEqual([
      'warning: ACOUNT_USER is not a setting; did you mean ACCOUNT_USER?',
      'warning: WEBHOOK_PUBLIC_ULR is not a setting; did you mean WEBHOOK_PUBLIC_URL?',
      'warning: REPORTS_DIR is not a setting; did you mean REPORT_DIR?',
    ]);
    // A setting behind a prefix of its own is ours only in a settings file.
    expect(settingSlips(['MY_CLIENT_SECRET'], new Set(['MY_CLIENT_SECRET']))).toEqual([
      'warning: MY_CLIENT_SECRET is not a setting; did you mean CLIENT_SECRET?',
    ]);
    expect(editDistance('ULR', 'URL')).toBe(1);
  });
});

describe('exit codes', () => {
  const run: RunInfo = {
    specVersion: '1',
    suiteVersion: '1',
    startedAt: '2025-01-01T00:00:00.000Z',
    durationMs: 1,
    outcome: 'passed',
    notes: [],
  };
  const t = (name: string, status: ReportedTest['status']): ReportedTest => ({
    file: 'suites/a.test.ts',
    name,
    status,
    durationMs: 1,
    clauses: ['1-a'],
    endpoint: 'GET /x',
    observations: [],
  });
  const of = (tests: ReportedTest[], more: Partial<RunInfo> = {}) => summarize({ ...run, ...more }, tests, []);

  it("are 0 conformant, 1 the target failed, 2 the set-up, 3 the suite's own error", () => {
    expect(exitCodeOf(of([t('a', 'pass'), t('b', 'skip')]), 0)).toBe(0);
    expect(exitCodeOf(of([t('a', 'fail'), t('b', 'error')]), 1)).toBe(1);
    expect(exitCodeOf(of([t('a', 'pass'), t('b', 'error')]), 1)).toBe(3);
    expect(
      exitCodeOf(
        of([t('a', 'notRun'), t('run stopped', 'error')], { abort: 'STOPPED: the business is in production mode', outcome: 'failed' }),
        1,
      ),
    ).toBe(2);
    expect(
      exitCodeOf(of([t('a', 'notRun'), t('run stopped', 'error')], { abort: 'the run was interrupted', outcome: 'interrupted' }), 1),
    ).toBe(3);
    // A crash: vitest failed and wrote no summary, or one that shows nothing failed.
    expect(exitCodeOf(undefined, 1)).toBe(3);
    expect(exitCodeOf(of([t('a', 'pass')]), 1)).toBe(3);
  });

  it("with FAIL_ON=new count only a new FAIL as the target's; an ERROR is still the suite's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'exit-codes-'));
    const baseline = join(dir, 'summary.json');
    writeFileSync(baseline, JSON.stringify(of([t('a', 'fail'), t('b', 'pass')])));
    const against = (tests: ReportedTest[]) => withBaseline(of(tests), baseline, 'new');
    expect(exitCodeOf(against([t('a', 'fail'), t('b', 'pass')]), 1)).toBe(0);
    expect(exitCodeOf(against([t('a', 'fail'), t('b', 'fail')]), 1)).toBe(1);
    expect(exitCodeOf(against([t('a', 'fail'), t('b', 'error')]), 1)).toBe(3);
    rmSync(dir, { recursive: true, force: true });
  });

  it('are the same in --help of the command, the README and docs/troubleshooting.md', () => {
    const bin = readFileSync(fileURLToPath(new URL('../../bin/payment-conformance.js', import.meta.url)), 'utf8');
    for (const line of EXIT_CODES_HELP) expect(bin).toContain(line);
    for (const doc of ['../../README.md', '../../docs/troubleshooting.md']) {
      const text = readFileSync(fileURLToPath(new URL(doc, import.meta.url)), 'utf8');
      expect(text, doc).toMatch(/exit codes?/i);
      for (const code of ['`0`', '`1`', '`2`', '`3`']) expect(text, `${doc} ${code}`).toContain(code);
    }
  });
});
