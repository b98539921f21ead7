/**
 * The configuration's shape: what the variables (variables.ts) say once config.ts has read and validated them. Apart
 * from the reader so that what shows and guards the configuration (config-view.ts) needs only its type, not the
 * reader that calls it.
 */
import type { ChallengeCode, OptionValues } from '../payer/types.ts';
import type { DIGEST_NAMES, ValueOf } from './variables.ts';

export type AccountAuth = 'basic' | 'password-grant';
/** A digest as the settings name it: HMAC keyed with the key, or plain (the key appended). */
export type DigestName = (typeof DIGEST_NAMES)[number];
/** off = observe the hash; auto = discover the scheme on the first redirect (harness/discovery/). */
export type RedirectHashAlgorithm = 'off' | 'auto' | DigestName;
export type Destructive = 'account-deletion';
export type Encoding = 'hex' | 'base64' | 'base64url';

/** A remote target's fields are the variables held at `target.…` (variables.ts); the optional ones come in pairs. */
export type TargetConfig =
  | { kind: 'embedded' }
  | {
      kind: 'remote';
      /** {base_url} and {auth_url}, without a trailing slash; the token endpoint is `${authUrl}/connect/token`. */
      baseUrl: string;
      authUrl: string;
      clientId: string;
      clientSecret: string;
      accountUser?: string;
      accountPassword?: string;
      /** A business of the same account without the MPOS permission. */
      secondClientId?: string;
      secondClientSecret?: string;
      /** A disposable account that account deletion may destroy (only with ALLOW_DESTRUCTIVE=account-deletion). */
      deletionAccountUser?: string;
      deletionAccountPassword?: string;
      /** A second merchant (another tenant) for the tenant-isolation checks. */
      otherAccountUser?: string;
      otherAccountPassword?: string;
      otherClientId?: string;
      otherClientSecret?: string;
    };
export type Remote = Extract<TargetConfig, { kind: 'remote' }>;

/** The run's bounds: TEST_TIMEOUT_MS (harness/run/budget.ts), RUN_TIMEOUT_S, MAX_WAIT_S (0 = tests that wait skip). */
export type Budget = { testTimeoutMs: number; runTimeoutS: number; maxWaitS: number };

/** What the variables (variables.ts) say, validated; each field names its variable where the name does not. */
export interface Config {
  target: TargetConfig;
  accountAuth: AccountAuth;
  /** ACCOUNT_AUTH=auto: the probe tries HTTP Basic, then a password grant (harness/discovery/account-auth.ts); 'basic' until then. */
  accountAuthAuto: boolean;
  tokenAudience: string;
  http: { timeoutMs: number; retries: number; maxResponseBytes: number };
  /** Read once by the global setup and provided to the worker with the configuration (`inject('config')`). */
  budget: Budget;
  reportDir: string;
  receiver: { host: string; port: number; publicUrl?: string };
  webhook: {
    signature: 'off' | 'auto' | DigestName;
    /** Lower case. */
    signatureHeader: string;
    /** true: the body is signed without a key (WEBHOOK_SIGNATURE_KEY=none); else with the client secret. */
    signatureUnkeyed: boolean;
    signatureEncoding: Encoding;
    timeoutS: number;
    fieldCase: 'exact' | 'insensitive';
  };
  redirectHash: {
    algorithm: RedirectHashAlgorithm;
    /** undefined = the business's client secret; '' = no key (REDIRECT_HASH_KEY=none). */
    key?: string;
    encoding: Encoding;
    values: 'query' | 'normalised';
    order: 'spec' | 'link' | 'auto';
  };
  /** Lowered on 429/503 during the run. */
  maxConcurrency: number;
  /** The cap of the adaptive rate pacing (harness/api/pacing.ts): requests per second at most. */
  maxRps: number;
  allowDestructive: readonly Destructive[];
  /** REQUIRE: the areas a run must check, else exit 2 before any test (harness/setup/areas.ts). */
  require: readonly ('webhooks' | 'screens' | 'account-deletion')[];
  fastCheck: { seed?: number; numRuns: number };
  expectedFailuresFile?: string;
  testData: { cardNumber: string; cvv: string; walletDui: string; mpos: { posId: string; track2: string; ksn: string } };
  /** SCREEN_FIELD_NAMES, SCREEN_OPTION_VALUES, SCREEN_CHALLENGE_CODE: a vendor's hosted screens. */
  screenFieldNames: Record<string, string>;
  screenOptionValues: OptionValues;
  challengeCode?: ChallengeCode;
  mposPermitted: boolean;
  securityChecks: 'fail' | 'observe';
  /** Options of the embedded sandbox (setting them with a remote target is an error). */
  sandbox: {
    mode: 'development' | 'production';
    fault?: string;
    variant?: string;
    screen: ValueOf<'SANDBOX_SCREEN'>;
    /** SANDBOX_NETWORK / SANDBOX_NETWORK_SEED: the simulated internet in front of it. */
    network?: ValueOf<'SANDBOX_NETWORK'>;
    networkSeed?: number;
    /** SANDBOX_QUICK_PAY_TTL: seconds its quick-pay QRs stay payable. */
    quickPayTtlS: number;
  };
  payer: { kind: 'http' | 'browser' | 'auto'; chromiumPath: string };
  /** BASELINE and FAIL_ON. */
  reports: ReportSettings;
}

export type ReportSettings = { baseline?: string; failOn: 'any' | 'new' };
