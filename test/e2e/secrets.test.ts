/**
 * End to end: after full conformance runs, no secret is found in REPORT_DIR (index.html included) or on
 * the console.
 *
 * A green run writes little but test names, so a search of its reports would prove little: each run gets a fault
 * of the sandbox's catalogue that makes tests fail and write their requests and responses as evidence.
 * - The embedded sandbox (its seeded credentials are those every sandbox is seeded with), with
 *   `deleted-account-still-works`: the evidence holds DELETE /Cuenta with the disposable account's Basic
 *   credentials and the deleted account's record with its businesses' client secrets.
 * - A sandbox started here and used as a REMOTE target, with every credential set and deletion allowed, so the
 *   access tokens it issues are seen on the wire; with `esreal-as-number`, the evidence holds 3DS purchases with
 *   their bearer tokens, card numbers and cvvs.
 * The test card and cvv are unusual values, so that finding them means something.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { loadClauses } from '../../spec/clauses.ts';
import { runConformance, type ChildRun } from '../hostile/run.ts';
import { startRemoteSandbox, type RemoteSandbox } from '../../bench/remote-sandbox.ts';
import { chromiumAvailable, installHint } from '../../harness/payer/chromium.ts';
import { chromiumPathSetting } from '../../harness/setup/report-settings.ts';

const CARD = { TEST_CARD_NUMBER: '4000000000000002', TEST_CARD_CVV: '947' };

let target: RemoteSandbox;
let embedded: ChildRun;
let remote: ChildRun;

beforeAll(async () => {
  target = await startRemoteSandbox({ mode: 'development', fault: 'esreal-as-number' });
  const d = target.sandbox.credentials.disposableAccount;
  const common = { ...CARD, FC_NUM_RUNS: '5', RUN_TIMEOUT_S: '240' };
  [embedded, remote] = await Promise.all([
    runConformance({ env: { ...common, SANDBOX_FAULT: 'deleted-account-still-works' }, timeoutMs: 300_000 }),
    runConformance({
      env: {
        ...common,
        ...target.env,
        ALLOW_DESTRUCTIVE: 'account-deletion',
        DELETION_ACCOUNT_USER: d.user,
        DELETION_ACCOUNT_PASSWORD: d.password,
        // Verify (not only observe) hash and signature, so the secret they are keyed with is used.
        REDIRECT_HASH: 'hmac-sha256',
        WEBHOOK_SIGNATURE: 'hmac-sha256',
      },
      timeoutMs: 300_000,
    }),
  ]);
}, 320_000);

afterAll(async () => {
  await target?.close();
});

function secretsOf(target: RemoteSandbox): Record<string, string> {
  const c = target.sandbox.credentials;
  const basic = (a: { user: string; password: string }) => Buffer.from(`${a.user}:${a.password}`).toString('base64');
  return {
    'client secret': c.business.clientSecret,
    'second client secret': c.businessNoMpos.clientSecret,
    'disposable client secret': c.disposableBusiness.clientSecret,
    'account password': c.account.password,
    'disposable account password': c.disposableAccount.password,
    'account Basic credential': basic(c.account),
    'disposable Basic credential': basic(c.disposableAccount),
    'card number': CARD.TEST_CARD_NUMBER,
  };
}

/** The secrets are nowhere; `shown` (what their redacted forms look like) is there, so they were in play. */
function expectNoSecrets(run: ChildRun, secrets: Record<string, string>, shown: string[]): void {
  expect(Object.keys(run.files)).toEqual(expect.arrayContaining(['junit.xml', 'summary.json', 'summary.md', 'index.html']));
  // index.html holds the evidence as JSON with <, > and & escaped: scanned as written and as the browser reads it.
  const page = run.files['index.html']!.replaceAll('\\u003c', '<').replaceAll('\\u003e', '>').replaceAll('\\u0026', '&');
  for (const form of shown) {
    expect(run.files['junit.xml'], `evidence with ${form}`).toContain(form);
    expect(page, `index.html evidence with ${form}`).toContain(form);
  }
  for (const [where, text] of Object.entries({ console: run.output, ...run.files, 'index.html (unescaped)': page })) {
    for (const [what, value] of Object.entries(secrets)) expect(text.includes(value), `${what} found in ${where}`).toBe(false);
    // A 3-digit cvv means something only next to its field name (JSON, form, escaped JSON, query).
    expect(text, `cvv found in ${where}`).not.toMatch(new RegExp(`cvv[\\\\"':= ]{0,12}${CARD.TEST_CARD_CVV}`, 'i'));
  }
}

describe('no secrets in reports or console output', () => {
  it('after a full run against the embedded sandbox', () => {
    expect(embedded.killed).toBe(false);
    expect(embedded.summary?.run.targetKind).toBe('embedded');
    expect(embedded.summary?.tests.length).toBeGreaterThan(50);
    expectNoSecrets(embedded, secretsOf(target), [
      '[REDACTED:client-secret]',
      'authorization: Basic [REDACTED]',
      '$DELETION_ACCOUNT_PASSWORD',
    ]);
  });

  it('after a full run against a sandbox as remote target, the access tokens it issued included', () => {
    expect(remote.killed).toBe(false);
    expect(remote.summary?.run.targetKind).toBe('remote');
    expect(remote.summary?.tests.length).toBeGreaterThan(50);
    expect(target.tokens.length).toBeGreaterThan(1);
    expect(target.requests).toContain('DELETE /api/Cuenta');
    const tokens = Object.fromEntries(target.tokens.map((t, i) => [`access token ${i + 1}`, t]));
    expectNoSecrets(remote, { ...secretsOf(target), ...tokens }, ['authorization: Bearer [REDACTED]', '$ACCESS_TOKEN', '400000******0002']);
  });
});

// The same full run (with failures, so failure evidence is in it) checked as CI and people read it.
describe('the reports of a full run against the embedded sandbox', () => {
  it('junit.xml validates against the JUnit schema, and every testcase names its clauses', async () => {
    const xml = embedded.files['junit.xml']!;
    const xsd = readFileSync(new URL('../../reporters/schema/junit-10.xsd', import.meta.url), 'utf8');
    const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [xsd] });
    expect(result.errors).toEqual([]);
    const testcases = xml.split('<testcase ').slice(1);
    expect(testcases.length).toBe(embedded.summary?.tests.length);
    for (const tc of testcases)
      expect(tc.slice(0, tc.indexOf('</testcase>')), tc.slice(0, 120)).toMatch(/<property name="clause" value="[^"]+"/);
  });

  it('summary.md lists every clause of spec/clauses.yaml', () => {
    const md = embedded.files['summary.md']!;
    for (const clause of loadClauses()) expect(md, clause.id).toContain(clause.id);
  });
});

// The browser payer's failure evidence (screenshots and page text in REPORT_DIR/screens/) holds neither.
// The payments fail after the card and cvv were typed: the screen has no input "correo" for the e-mail.
describe("no secrets in the browser payer's evidence", () => {
  const chromium = chromiumPathSetting();
  let browserRun: ChildRun | undefined;

  beforeAll(async () => {
    if (!chromiumAvailable(chromium)) return;
    browserRun = await runConformance({
      files: ['suites/link-lifecycle.test.ts'],
      args: ['-t', 'cvv 111 on the screen declines'],
      env: { ...CARD, PAYER: 'browser', SANDBOX_SCREEN: 'js', CHROMIUM_PATH: chromium, SCREEN_FIELD_NAMES: '{"email":"correo"}' },
      timeoutMs: 120_000,
    });
  }, 130_000);

  it('screenshots and page text of a failed browser payment, and the reports', (ctx) => {
    if (!browserRun) ctx.skip(installHint(chromium));
    const run = browserRun!;
    expect(run.killed).toBe(false);
    const screens = Object.keys(run.files).filter((f) => f.startsWith('screens/'));
    expect(
      screens.some((f) => f.endsWith('.png')),
      'a screenshot was taken',
    ).toBe(true);
    expect(
      screens.some((f) => f.endsWith('.txt')),
      'the page text was kept',
    ).toBe(true);
    expect(run.files['junit.xml']).toContain('has no field');
    for (const [where, text] of Object.entries({ console: run.output, ...run.files })) {
      expect(text.includes(CARD.TEST_CARD_NUMBER), `card number found in ${where}`).toBe(false);
      expect(text, `cvv found in ${where}`).not.toMatch(new RegExp(`cvv[\\\\"':= ]{0,12}${CARD.TEST_CARD_CVV}`, 'i'));
    }
  });
});
