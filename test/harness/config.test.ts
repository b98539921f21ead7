import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, embeddedOnlyEnv, loadConfig, redactedConfigSummary } from '../../harness/setup/config.ts';
import { secrets } from '../../harness/record/redact.ts';
import { CONFIG_ROWS, defaultFor, VARIABLES, type Variable } from '../../harness/setup/variables.ts';

const remote = {
  API_BASE_URL: 'https://api.example.test/api/',
  AUTH_URL: 'https://auth.example.test',
  CLIENT_ID: 'my-client',
  CLIENT_SECRET: 'S3cr3t-value-xyz',
};

const load = (env: Record<string, string>) => loadConfig(env, { dotenvPath: null });

function errorOf(env: Record<string, string>): ConfigError {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('gives the embedded defaults when nothing is set', () => {
    const c = load({});
    expect(c.target).toEqual({ kind: 'embedded' });
    expect(c.http).toEqual({ timeoutMs: 15000, retries: 3, maxResponseBytes: 1048576 });
    expect(c.budget).toEqual({ testTimeoutMs: 60000, runTimeoutS: 900, maxWaitS: 0 });
    expect(c.redirectHash).toEqual({ algorithm: 'hmac-sha256', encoding: 'hex', values: 'query', order: 'auto' });
    expect(c.webhook).toEqual({
      signature: 'hmac-sha256',
      signatureHeader: 'x-signature',
      signatureUnkeyed: false,
      signatureEncoding: 'hex',
      timeoutS: 10,
      fieldCase: 'insensitive',
    });
    expect(c.budget.maxWaitS).toBe(0);
    expect(c.fastCheck).toEqual({ numRuns: 50 });
    expect(c.accountAuth).toBe('basic');
    expect(c.receiver).toEqual({ host: '127.0.0.1', port: 0 });
    expect(c.testData.cardNumber).toBe('4111111111111111');
    expect(c.allowDestructive).toEqual([]);
    expect(Object.isFrozen(c) && Object.isFrozen(c.http)).toBe(true);
  });

  it('reads a remote target, discovering by default what the spec does not show, and waiting up to 120 s', () => {
    const c = load(remote);
    expect(c.target).toEqual({
      kind: 'remote',
      baseUrl: 'https://api.example.test/api',
      authUrl: 'https://auth.example.test',
      clientId: 'my-client',
      clientSecret: 'S3cr3t-value-xyz',
    });
    expect(c.redirectHash.algorithm).toBe('auto');
    expect(c.webhook.signature).toBe('auto');
    expect(c.accountAuthAuto).toBe(true);
    expect(c.budget.maxWaitS).toBe(120);
    expect(load({ ...remote, MAX_WAIT_QR_EXPIRY_S: '30' }).budget.maxWaitS).toBe(30);
    expect(load({ ...remote, MAX_WAIT_QR_EXPIRY_S: '30', MAX_WAIT_S: '0' }).budget.maxWaitS).toBe(0);
    expect(c.fastCheck.numRuns).toBe(10);
  });

  it('names each missing remote variable', () => {
    const e = errorOf({ API_BASE_URL: 'https://api.example.test', CLIENT_SECRET: 'x-secret-x' });
    expect(e.message).toContain('AUTH_URL');
    expect(e.message).toContain('CLIENT_ID');
    expect(e.message).not.toMatch(/needs[^:]*CLIENT_SECRET/);
    expect(e.message).not.toContain('x-secret-x');
    expect(e.message).not.toContain('\n');
  });

  it.each([
    [
      { HTTP_TIMEOUT_MS: 'fast' },
      'HTTP_TIMEOUT_MS must be a positive integer number of milliseconds (got "fast"); example: HTTP_TIMEOUT_MS=15000',
    ],
    [{ HTTP_RETRIES: '-1' }, 'HTTP_RETRIES must be a non-negative integer'],
    [{ HTTP_RETRIES: '99' }, 'at most 10'],
    [{ RECEIVER_PORT: '70000' }, 'RECEIVER_PORT must be'],
    [{ ACCOUNT_AUTH: 'digest' }, 'ACCOUNT_AUTH must be one of basic | password-grant'],
    [
      { REDIRECT_HASH: 'crc32' },
      'REDIRECT_HASH must be one of off | auto | hmac-sha256 | hmac-sha512 | hmac-sha1 | hmac-md5 | sha256 | sha512 | sha1 | md5',
    ],
    [{ REDIRECT_HASH_ORDER: 'alpha' }, 'REDIRECT_HASH_ORDER must be one of spec | link | auto'],
    [{ WEBHOOK_FIELD_CASE: 'lower' }, 'WEBHOOK_FIELD_CASE must be one of exact | insensitive'],
    [{ API_BASE_URL: 'not a url' }, 'API_BASE_URL must be an absolute http(s) URL'],
    [{ API_BASE_URL: 'ftp://x.test' }, 'API_BASE_URL must be an absolute http(s) URL'],
    [{ WEBHOOK_PUBLIC_URL: '/relative' }, 'WEBHOOK_PUBLIC_URL must be an absolute http(s) URL'],
    [
      { ALLOW_DESTRUCTIVE: 'account-deletion,everything' },
      'ALLOW_DESTRUCTIVE must be a comma-separated list of destructive tests to allow, from: account-deletion (got unknown "everything")',
    ],
    [{ FC_SEED: '1.5' }, 'FC_SEED must be an integer'],
    [{ FC_NUM_RUNS: '0' }, 'FC_NUM_RUNS must be a positive integer'],
    [{ EXPECTED_FAILURES_FILE: '/nonexistent/xfail.txt' }, 'EXPECTED_FAILURES_FILE must be the path of an existing file'],
    [{ WEBHOOK_SIGNATURE_HEADER: 'x signature' }, 'WEBHOOK_SIGNATURE_HEADER must be an HTTP header name'],
    [{ CLIENT_ID: 'x' }, 'CLIENT_ID is set but API_BASE_URL is not'],
    [{ SANDBOX_MODE: 'staging' }, 'SANDBOX_MODE must be one of development | production'],
    [{ ...remote, SANDBOX_FAULT: 'x' }, 'SANDBOX_FAULT only applies to the embedded sandbox'],
    [{ ...remote, ACCOUNT_USER: 'u@example.test' }, 'ACCOUNT_PASSWORD must be set together with ACCOUNT_USER'],
    [{ ...remote, ALLOW_DESTRUCTIVE: 'account-deletion' }, 'needs DELETION_ACCOUNT_USER and DELETION_ACCOUNT_PASSWORD'],
    [
      {
        ...remote,
        ACCOUNT_USER: 'a@x.test',
        ACCOUNT_PASSWORD: 'pw-main-123',
        DELETION_ACCOUNT_USER: 'a@x.test',
        DELETION_ACCOUNT_PASSWORD: 'pw-del-123',
        ALLOW_DESTRUCTIVE: 'account-deletion',
      },
      'DELETION_ACCOUNT_USER must name a disposable account',
    ],
  ])('rejects %j with one clear line', (env, expected) => {
    const e = errorOf(env as Record<string, string>);
    expect(e.message).toContain(expected);
    expect(e.message).not.toContain('\n');
    expect(e.message).toMatch(/^[A-Z_]+[ =]|^a remote target/);
  });

  it('never quotes a secret value in a message', () => {
    for (const [name, value] of [
      ['TEST_CARD_NUMBER', '4111-1111-1111-1111'],
      ['TEST_CARD_CVV', 'abcde'],
      ['MPOS_TRACK2', 'not hex!'],
    ] as const) {
      const e = errorOf({ [name]: value });
      expect(e.message).toContain(name);
      expect(e.message).toContain(`got a value of ${value.length} characters`);
      expect(e.message).not.toContain(value);
    }
  });

  it('reads .env without overriding real variables, and treats empty values as unset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-config-'));
    const path = join(dir, '.env');
    writeFileSync(path, 'HTTP_TIMEOUT_MS=2000\nHTTP_RETRIES=1\nREPORT_DIR=\n');
    const c = loadConfig({ HTTP_RETRIES: '5' }, { dotenvPath: path });
    expect(c.http.timeoutMs).toBe(2000);
    expect(c.http.retries).toBe(5);
    expect(c.reportDir).toBe('reports');
    expect(() => loadConfig({}, { dotenvPath: join(dir, 'missing.env') })).toThrow(ConfigError);
  });

  it('reads REPORT_DIR/discovered.env below the environment and .env, only for the API_BASE_URL it was written for', () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-config-'));
    const dotenv = join(dir, '.env');
    writeFileSync(dotenv, 'WEBHOOK_SIGNATURE_HEADER=x-from-dotenv\n');
    writeFileSync(
      join(dir, 'discovered.env'),
      'DISCOVERED_FOR=https://api.example.test/api\nREDIRECT_HASH=md5\nWEBHOOK_SIGNATURE_HEADER=x-firma\nACCOUNT_AUTH=password-grant\n',
    );
    const c = loadConfig({ ...remote, REPORT_DIR: dir, ACCOUNT_AUTH: 'basic' }, { dotenvPath: dotenv });
    expect(c.redirectHash.algorithm).toBe('md5');
    expect(c.webhook.signatureHeader).toBe('x-from-dotenv');
    expect(c.accountAuth).toBe('basic');
    // Another target, or discovery itself (npm run discover finds afresh): not applied.
    expect(
      loadConfig({ ...remote, API_BASE_URL: 'https://other.example.test/api', REPORT_DIR: dir }, { dotenvPath: dotenv }).redirectHash
        .algorithm,
    ).toBe('auto');
    expect(loadConfig({ ...remote, REPORT_DIR: dir }, { dotenvPath: dotenv, discovered: false }).redirectHash.algorithm).toBe('auto');
  });

  it('accepts every documented option', () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-config-'));
    const xfail = join(dir, 'xfail.txt');
    writeFileSync(xfail, '');
    const c = load({
      ...remote,
      ACCOUNT_USER: 'merchant@example.test',
      ACCOUNT_PASSWORD: 'acct-pass-123',
      SECOND_CLIENT_ID: 'nompos',
      SECOND_CLIENT_SECRET: 'nompos-secret-1',
      DELETION_ACCOUNT_USER: 'disposable@example.test',
      DELETION_ACCOUNT_PASSWORD: 'del-pass-123',
      ALLOW_DESTRUCTIVE: 'account-deletion',
      ACCOUNT_AUTH: 'password-grant',
      REDIRECT_HASH: 'sha512',
      REDIRECT_HASH_KEY: 'hash-key-123',
      REDIRECT_HASH_ENCODING: 'base64',
      REDIRECT_HASH_ORDER: 'link',
      WEBHOOK_SIGNATURE: 'hmac-sha256',
      WEBHOOK_SIGNATURE_HEADER: 'X-Firma',
      WEBHOOK_FIELD_CASE: 'insensitive',
      FC_SEED: '-7',
      EXPECTED_FAILURES_FILE: xfail,
      WEBHOOK_PUBLIC_URL: 'https://tunnel.example.test/',
    });
    expect(c.target).toMatchObject({
      accountUser: 'merchant@example.test',
      secondClientId: 'nompos',
      deletionAccountUser: 'disposable@example.test',
    });
    expect(c.allowDestructive).toEqual(['account-deletion']);
    expect(c.redirectHash).toEqual({ algorithm: 'sha512', key: 'hash-key-123', encoding: 'base64', values: 'query', order: 'link' });
    expect(c.webhook.signatureHeader).toBe('x-firma');
    expect(c.fastCheck.seed).toBe(-7);
    expect(c.receiver.publicUrl).toBe('https://tunnel.example.test');
    expect(c.expectedFailuresFile).toBe(xfail);
  });
});

describe('loadConfig: embedded-only runs, test card data', () => {
  it('refuses ACCOUNT_AUTH=password-grant with the embedded sandbox unless its variant issues account tokens, naming the variable', () => {
    const err = errorOf({ ACCOUNT_AUTH: 'password-grant' });
    expect(err.variable).toBe('ACCOUNT_AUTH');
    expect(err.message).toMatch(
      /^ACCOUNT_AUTH=password-grant needs a target that issues account tokens: a remote target \(API_BASE_URL set\), or the embedded sandbox with SANDBOX_VARIANT=account-password-grant/,
    );
    expect(load({ ...remote, ACCOUNT_AUTH: 'password-grant' }).accountAuth).toBe('password-grant');
    // The variant's own setting fills ACCOUNT_AUTH; set otherwise, it is refused.
    expect(load({ SANDBOX_VARIANT: 'account-password-grant' }).accountAuth).toBe('password-grant');
    expect(load({ SANDBOX_VARIANT: 'account-password-grant', ACCOUNT_AUTH: 'password-grant' }).accountAuth).toBe('password-grant');
    expect(errorOf({ SANDBOX_VARIANT: 'account-password-grant', ACCOUNT_AUTH: 'basic' }).message).toMatch(
      /^ACCOUNT_AUTH=basic does not fit SANDBOX_VARIANT/,
    );
  });

  it('reads SCREEN_CHALLENGE_CODE as a code or the selector where the page shows it; SCREEN_FIELD_NAMES names codigoDesafio', () => {
    expect(load({ SCREEN_CHALLENGE_CODE: '1234' }).challengeCode).toEqual({ code: '1234' });
    expect(load({ SCREEN_CHALLENGE_CODE: 'shown-in:#test-code' }).challengeCode).toEqual({ shownIn: '#test-code' });
    expect(load({}).challengeCode).toBeUndefined();
    expect(load({ SCREEN_FIELD_NAMES: '{"codigoDesafio":"otp"}' }).screenFieldNames).toEqual({ codigoDesafio: 'otp' });
  });

  it('TOKEN_AUDIENCE: service_api by default (empty = unset), its own value on a remote target, a clear error for a bad one', () => {
    expect(load({}).tokenAudience).toBe('service_api');
    expect(load({ ...remote, TOKEN_AUDIENCE: '' }).tokenAudience).toBe('service_api');
    expect(load({ ...remote, TOKEN_AUDIENCE: 'api_pagos' }).tokenAudience).toBe('api_pagos');
    const bad = errorOf({ ...remote, TOKEN_AUDIENCE: 'api pagos' });
    expect(bad.variable).toBe('TOKEN_AUDIENCE');
    expect(bad.message).toMatch(/^TOKEN_AUDIENCE must be the audience sent in every token request/);
    expect(errorOf({ TOKEN_AUDIENCE: 'api_pagos' }).message).toMatch(/only applies to a remote target/);
    expect(load(embeddedOnlyEnv({ TOKEN_AUDIENCE: 'api_pagos' }) as Record<string, string>).tokenAudience).toBe('service_api');
  });

  it('embeddedOnlyEnv beats a remote target named in .env (npm run mutation / bench)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-'));
    const dotenv = join(dir, '.env');
    writeFileSync(
      dotenv,
      [...Object.entries(remote), ['ACCOUNT_USER', 'u@x.test'], ['ACCOUNT_PASSWORD', 'pw'], ['ACCOUNT_AUTH', 'password-grant']]
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
    );
    expect(loadConfig({}, { dotenvPath: dotenv }).target.kind).toBe('remote');
    const c = loadConfig(embeddedOnlyEnv({ PATH: '/bin', REPORT_DIR: 'r' }), { dotenvPath: dotenv });
    expect(c.target).toEqual({ kind: 'embedded' });
    expect(c.reportDir).toBe('r');
  });

  it("registers the test card number (masked even when not Luhn-valid) and the cvv, also under the screen's field names", () => {
    load({ TEST_CARD_NUMBER: '5000111122223333', TEST_CARD_CVV: '4821', SCREEN_FIELD_NAMES: '{"numeroTarjeta":"pan","cvv":"cvc"}' });
    expect(secrets.kindOf('5000111122223333')).toBe('card-number');
    expect(secrets.redactText('card 5000111122223333')).toBe('card 500011******3333');
    expect(secrets.kindOf('4821')).toBe('cvv');
    expect(secrets.fieldKind('PAN')).toBe('card-number');
    expect(secrets.fieldKind('cvc')).toBe('cvv');
  });
});

describe('loadConfig: the second merchant (OTHER_*) and SECURITY_CHECKS', () => {
  const others = {
    OTHER_ACCOUNT_USER: 'other@example.test',
    OTHER_ACCOUNT_PASSWORD: 'other-pass-1',
    OTHER_CLIENT_ID: 'other-app',
    OTHER_CLIENT_SECRET: 'other-secret-1',
  };

  it('takes all four on a remote target, registers the secrets, and defaults SECURITY_CHECKS to fail', () => {
    const c = load({ ...remote, ...others });
    expect(c.target).toMatchObject({ otherAccountUser: 'other@example.test', otherClientId: 'other-app' });
    expect(c.securityChecks).toBe('fail');
    expect(redactedConfigSummary(c)).toContain('OTHER_CLIENT_SECRET=[set]');
    expect(redactedConfigSummary(c)).not.toContain('other-secret-1');
    expect(load({ ...remote, SECURITY_CHECKS: 'observe' }).securityChecks).toBe('observe');
  });

  it('refuses some but not all four, the primary merchant named again, an unknown SECURITY_CHECKS, and OTHER_* without a remote target', () => {
    const { OTHER_CLIENT_SECRET: _s, ...three } = others;
    expect(() => load({ ...remote, ...three })).toThrow(/OTHER_CLIENT_SECRET must be set together with/);
    expect(() => load({ ...remote, ...others, OTHER_CLIENT_ID: remote.CLIENT_ID })).toThrow(
      /another merchant than ACCOUNT_USER and CLIENT_ID/,
    );
    expect(() => load({ SECURITY_CHECKS: 'warn' })).toThrow(/SECURITY_CHECKS must be one of fail \| observe/);
    expect(() => load({ OTHER_CLIENT_ID: 'x' })).toThrow(/OTHER_CLIENT_ID is set but API_BASE_URL is not/);
  });
});

describe('redactedConfigSummary', () => {
  it('shows secrets only as [set]/[unset]', () => {
    const c = load({
      ...remote,
      API_BASE_URL: 'https://user:url-pass-999@api.example.test/api',
      ACCOUNT_USER: 'merchant@example.test',
      ACCOUNT_PASSWORD: 'acct-pass-123',
      REDIRECT_HASH_KEY: 'hash-key-123',
    });
    const summary = redactedConfigSummary(c);
    for (const secret of ['S3cr3t-value-xyz', 'acct-pass-123', 'hash-key-123', 'url-pass-999', '4111111111111111']) {
      expect(summary).not.toContain(secret);
    }
    expect(summary).toContain('CLIENT_SECRET=[set]');
    expect(summary).toContain('ACCOUNT_PASSWORD=[set]');
    expect(summary).toContain('SECOND_CLIENT_SECRET=[unset]');
    expect(summary).toContain('REDIRECT_HASH_KEY=[set]');
    expect(summary).toContain('CLIENT_ID=my-client');
  });
});

// --- BASELINE and FAIL_ON ---------------------------------------------------------------------------------------
describe('loadConfig: BASELINE and FAIL_ON', () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-baseline-'));
  const summary = join(dir, 'summary.json');
  writeFileSync(summary, JSON.stringify({ format: 'conformance-summary/1', run: {}, tests: [], clauses: [] }));
  const notJson = join(dir, 'broken.json');
  writeFileSync(notJson, '{"format":');

  it('accepts a report directory or its summary.json; FAIL_ON defaults to any', () => {
    expect(load({}).reports).toEqual({ failOn: 'any' });
    expect(load({ BASELINE: dir, FAIL_ON: 'new' }).reports).toEqual({ baseline: dir, failOn: 'new' });
    expect(load({ BASELINE: summary }).reports).toEqual({ baseline: summary, failOn: 'any' });
  });

  it.each([
    [
      { BASELINE: '/nonexistent/reports' },
      'BASELINE',
      'BASELINE must be the REPORT_DIR of an earlier run, or its summary.json (got "/nonexistent/reports", which does ' +
        'not exist); example: BASELINE=',
    ],
    [{ BASELINE: tmpdir() }, 'BASELINE', 'a directory without summary.json'],
    [{ BASELINE: notJson }, 'BASELINE', 'which is not valid JSON'],
    [{ BASELINE: join(import.meta.dirname, 'config.test.ts') }, 'BASELINE', 'which is not valid JSON'],
    [{ FAIL_ON: 'new' }, 'FAIL_ON', 'FAIL_ON=new needs BASELINE'],
    [{ FAIL_ON: 'worse', BASELINE: dir }, 'FAIL_ON', 'FAIL_ON must be one of any | new'],
  ])('rejects %j naming the variable', (env, variable, expected) => {
    const e = errorOf(env);
    expect(e.variable).toBe(variable);
    expect(e.message).toContain(expected);
    expect(e.message).not.toContain('\n');
  });
});

describe('loadConfig: the payer and the sandbox screen', () => {
  it('defaults to the HTTP payer, the system Chromium path and plain-HTML sandbox screens', () => {
    const c = load({});
    expect(c.payer).toEqual({ kind: 'http', chromiumPath: '/usr/bin/chromium' });
    expect(c.sandbox.screen).toBe('html');
    expect(load({ PAYER: 'auto', CHROMIUM_PATH: '/nowhere/chromium', SANDBOX_SCREEN: 'js' })).toMatchObject({
      payer: { kind: 'auto', chromiumPath: '/nowhere/chromium' },
      sandbox: { screen: 'js' },
    });
  });

  it('PAYER=browser without Chromium stops the run with one line saying how to install it', () => {
    const err = errorOf({ PAYER: 'browser', CHROMIUM_PATH: '/nowhere/chromium' });
    expect(err.variable).toBe('CHROMIUM_PATH');
    expect(err.message).toContain('apt-get install -y chromium');
    expect(err.message).toContain('/nowhere/chromium');
    expect(err.message).not.toContain('\n');
    // Any existing file will do as the executable to check the config (it is launched only when paying).
    expect(load({ PAYER: 'browser', CHROMIUM_PATH: process.execPath }).payer.kind).toBe('browser');
  });

  it('refuses an unknown PAYER or SANDBOX_SCREEN, and SANDBOX_SCREEN on a remote target', () => {
    expect(errorOf({ PAYER: 'selenium' }).message).toMatch(/^PAYER must be one of http \| browser \| auto/);
    expect(errorOf({ SANDBOX_SCREEN: 'react' }).variable).toBe('SANDBOX_SCREEN');
    expect(errorOf({ ...remote, SANDBOX_SCREEN: 'js' }).message).toMatch(/^SANDBOX_SCREEN only applies to the embedded sandbox/);
  });

  it('SANDBOX_NETWORK and its seed reach the sandbox options; mild and rough bring WEBHOOK_TIMEOUT_S where unset; bad values and a remote target refused', () => {
    const c = load({ SANDBOX_NETWORK: 'rough', SANDBOX_NETWORK_SEED: '7' });
    expect(c.sandbox).toMatchObject({ network: 'rough', networkSeed: 7 });
    expect(c.webhook.timeoutS).toBe(35);
    expect(load({ SANDBOX_NETWORK: 'mild' }).webhook.timeoutS).toBe(15);
    expect(load({ SANDBOX_NETWORK: 'rough', WEBHOOK_TIMEOUT_S: '60' }).webhook.timeoutS).toBe(60);
    expect(load({ SANDBOX_NETWORK: 'throttled' }).webhook.timeoutS).toBe(10);
    expect(load({}).sandbox.network).toBeUndefined();
    expect(errorOf({ SANDBOX_NETWORK: 'flaky' }).variable).toBe('SANDBOX_NETWORK');
    expect(errorOf({ SANDBOX_NETWORK: 'mild', SANDBOX_NETWORK_SEED: '-3' }).variable).toBe('SANDBOX_NETWORK_SEED');
    expect(errorOf({ ...remote, SANDBOX_NETWORK: 'mild' }).message).toMatch(/^SANDBOX_NETWORK only applies to the embedded sandbox/);
  });

  it('SANDBOX_QUICK_PAY_TTL reaches the sandbox options (default 600 s); bad values and a remote target refused', () => {
    expect(load({}).sandbox.quickPayTtlS).toBe(600);
    expect(load({ SANDBOX_QUICK_PAY_TTL: '25' }).sandbox.quickPayTtlS).toBe(25);
    expect(errorOf({ SANDBOX_QUICK_PAY_TTL: '0' }).variable).toBe('SANDBOX_QUICK_PAY_TTL');
    expect(errorOf({ SANDBOX_QUICK_PAY_TTL: 'soon' }).variable).toBe('SANDBOX_QUICK_PAY_TTL');
    expect(errorOf({ ...remote, SANDBOX_QUICK_PAY_TTL: '25' }).message).toMatch(
      /^SANDBOX_QUICK_PAY_TTL only applies to the embedded sandbox/,
    );
  });

  it('takes CSS selectors in SCREEN_FIELD_NAMES; only input names become redacted field names', () => {
    const c = load({ SCREEN_FIELD_NAMES: '{"numeroTarjeta":"#cc-number","cvv":"input[autocomplete=cc-csc]"}' });
    expect(c.screenFieldNames).toEqual({ numeroTarjeta: '#cc-number', cvv: 'input[autocomplete=cc-csc]' });
    expect(secrets.fieldKind('#cc-number')).toBeUndefined();
  });
});

describe('the table of variables (harness/setup/variables.ts)', () => {
  const rows = VARIABLES as readonly Variable[];
  const full = {
    ...remote,
    ACCOUNT_USER: 'merchant@example.test',
    ACCOUNT_PASSWORD: 'acct-pass-123',
    SECOND_CLIENT_ID: 'nompos',
    SECOND_CLIENT_SECRET: 'nompos-secret-1',
    DELETION_ACCOUNT_USER: 'disposable@example.test',
    DELETION_ACCOUNT_PASSWORD: 'del-pass-123',
    OTHER_ACCOUNT_USER: 'other@example.test',
    OTHER_ACCOUNT_PASSWORD: 'other-pass-1',
    OTHER_CLIENT_ID: 'other-app',
    OTHER_CLIENT_SECRET: 'other-secret-1',
    REDIRECT_HASH_KEY: 'hash-key-123',
    TEST_CARD_NUMBER: '5000111122223333',
    TEST_CARD_CVV: '4821',
  };

  it('names each variable once, each with a meaning and an example or a default', () => {
    expect(new Set(rows.map((v) => v.name)).size).toBe(rows.length);
    for (const v of rows) {
      expect(v.meaning, v.name).not.toBe('');
      expect(v.example ?? v.default, v.name).toBeDefined();
    }
  });

  it('refuses a bad value of every validated variable with its meaning and its example (the default where it has none)', () => {
    const bad: Partial<Record<Variable['type']['kind'], string>> = {
      url: 'not a url',
      int: 'x',
      oneOf: 'not-a-value',
      pattern: 'has spaces\tand tabs ',
      list: 'nothing-known',
    };
    for (const v of CONFIG_ROWS) {
      const value = bad[v.type.kind];
      // FAIL_ON is read with BASELINE (report-settings.ts), the sandbox's variant and fault against their catalogues first.
      if (
        value === undefined ||
        ['FAIL_ON', 'SANDBOX_VARIANT', 'SANDBOX_FAULT'].includes(v.name) ||
        (v.type.kind === 'pattern' && v.type.re.test(value.trim()))
      )
        continue;
      const kind = v.target === 'remote' && v.name !== 'AUTH_URL' ? undefined : v.target === 'remote' ? 'remote' : 'embedded';
      if (!kind) continue;
      const e = errorOf({ ...(kind === 'remote' ? remote : {}), [v.name]: value });
      expect(e.variable, v.name).toBe(v.name);
      expect(e.message).toMatch(new RegExp(`^${v.name} must be .*; example: ${v.name}=`));
      expect(e.message.endsWith(`${v.name}=${v.example ?? defaultFor(v, kind)}`), e.message).toBe(true);
    }
  });

  it('the summary has a line for every variable the configuration holds, no secret in it; every secret with a kind is registered', () => {
    const c = load(full);
    const summary = redactedConfigSummary(c);
    const named = summary.split('\n').map((line) => line.slice(0, line.indexOf('=')));
    expect(named).toEqual(['target', ...CONFIG_ROWS.filter((v) => !v.aliasOf).map((v) => v.name)]);
    for (const v of CONFIG_ROWS.filter((row) => row.secret)) {
      const value = (full as Record<string, string>)[v.name] ?? defaultFor(v, 'remote');
      expect(summary, v.name).toContain(`${v.name}=[set]`);
      expect(summary).not.toContain(value);
      if (typeof v.secret === 'string') expect(secrets.kindOf(value), v.name).toBe(v.secret);
    }
    expect(redactedConfigSummary(load({ ...remote, REDIRECT_HASH_KEY: 'none' }))).toContain('REDIRECT_HASH_KEY=none');
    expect(redactedConfigSummary(load({}))).toContain('CLIENT_SECRET=(embedded sandbox)');
  });
});
