/**
 * `clauseTest`: how every conformance test is declared. One behaviour per test (as in test262 and the OpenID
 * conformance suite), its clause ids in the name and in the metadata the reporters read (harness/record/meta.ts).
 *
 *   clauseTest({ clauses: '4.1-monto-min', endpoint: 'POST /EnlacePago' }, 'monto 0 is rejected', async (t) => { … })
 *
 * The wrapper fails every test at once with one line when the target is unusable, stops purchases through the
 * interlock, skips with the reason when the target lacks what the test needs, records observations (WARN) and
 * failure evidence, and applies EXPECTED_FAILURES_FILE. A remote target's hosted screen the payer cannot drive
 * (PayerError: the spec does not show a screen's layout) skips the test with the reason; on the embedded sandbox,
 * whose screen contract is known (docs/decisions.md), it is an ERROR — except its script-built screen
 * (SANDBOX_SCREEN=js) without a browser (PAYER=http, or auto without Chromium), skipped with a pointer to PAYER=browser.
 * A page that refused what the payer sent, where the test needed the payment to go through (PaymentRefused), skips the
 * test naming the page's status and text on any target: nothing after an input the page did not take is judged.
 *
 * FAIL or ERROR (docs/decisions.md): a failed named check (or the target not answering within HTTP_TIMEOUT_MS) is the
 * target's failure, with its evidence in the meta; anything else that ends a test (its own budget, a harness
 * exception, a payer or browser crash) is the suite's — the reporters call it ERROR. Either way the test's transcript
 * (every step it made, harness/record/scope.ts) goes into the meta. A test's own budget (TEST_TIMEOUT_MS) starts when its
 * work starts (its tenant, if any, created) and does not count its waits for other tests; vitest's timeout is the
 * run bound.
 *
 * Independence (issue 21). The tests of a run overlap. A test that moves time or counts what its requests created gets
 * its own test-control tenant (`tenant: true`, implied by `needs: ['clock']`, `needs: ['stats']` and `movesClock`): a
 * fresh account and business with their own clock, counters and outbox, so its `t.run` / `t.call` act as that tenant
 * and `t.run.control` moves only its clock and reads only its counters and outbox — no other test can disturb it or be
 * disturbed by it, and nothing orders the tests. On a target without tenants, `needs: ['clock']` / `['stats']` skip
 * with the reason, and a `movesClock` test waits in real time as the primary business. Tests that only read their own
 * resources (outbox entries by unique address, webhooks by idTransaccion) use the primary business. What stays shared,
 * and why: docs/decisions.md "Independent tests".
 */
import { readFileSync } from 'node:fs';
import { it, type TestContext } from 'vitest';
import '../record/meta.ts';
import { getRun, type Call, type Run } from './run.ts';
import { CheckFailure, describeExchange } from '../judge/checks.ts';
import { HttpError, NoFormError, NotJudged, PayerError, PaymentRefused } from '../record/errors.ts';
import { FieldsNotFoundError, fieldMappings } from '../payer/discovery.ts';
import type { Capability } from '../target/target.ts';
import type { Exchange } from '../api/http.ts';
import type { CheckEvidence, Observation } from '../record/meta.ts';
import { curlPreamble } from '../record/curl.ts';
import { currentScopeExchanges, Scope, transcriptOf, withScope } from '../record/scope.ts';
import { loadConfig } from '../target/config.ts';
import { chainLength } from './chains.ts';

/** What a test may need beyond the primary business; missing → skipped with the reason. */
export type Need = Capability | 'account' | 'businessNoMpos' | 'deletion' | 'hash' | 'mposPermission' | 'otherTenant';

export interface ClauseTestSpec {
  clauses: string | string[];
  /** `METHOD /path` as in the spec, or `flow`. */
  endpoint: string;
  needs?: Need[];
  /** A test that pays or purchases: refused by the interlock unless the business is in development. */
  purchase?: boolean;
  /** Runs as its own test-control tenant where the target has them (see "Independence" above); else as the primary business. */
  tenant?: boolean;
  /** Moves the clock where the target has tenants (its own tenant's), else waits in real time. */
  movesClock?: boolean;
}

export interface T {
  run: Run;
  call: Call;
  /** Record what was observed where the spec is silent: WARN in the reports, never a failure. */
  observe(clause: string, message: string): void;
  /** Skip with a reason shown in the reports. */
  skip(reason: string): never;
  /** Sets a fast-check seed / replay command in the metadata, for properties. */
  replay(seed: number, command: string): void;
  /** Adds clause ids learnt while running (the contract testcases cite every clause found violated). */
  cite(clauses: string[]): void;
}

const NEED_REASONS: Record<Need, string> = {
  clock: 'the target has no clock control of its own for a test (no sandbox test-control API with tenants)',
  outbox: 'the target exposes no notification outbox (no sandbox test-control API)',
  stats: 'the target exposes no state counters of its own for a test (no sandbox test-control API with tenants), so "creates nothing" cannot be observed',
  tenants: 'the target cannot create test-control tenants (no sandbox test-control API with tenants)',
  reset: 'the target cannot be reset',
  account: 'no account credentials: set ACCOUNT_USER and ACCOUNT_PASSWORD',
  businessNoMpos: 'no second business without MPOS permission: set SECOND_CLIENT_ID and SECOND_CLIENT_SECRET',
  deletion:
    'account deletion is destructive: it runs only on the embedded sandbox\'s disposable account, or with ALLOW_DESTRUCTIVE=account-deletion and DELETION_ACCOUNT_USER/DELETION_ACCOUNT_PASSWORD',
  mposPermission: 'the CLIENT_ID business lacks the additional MPOS permission of 4.7 (MPOS_PERMITTED=no), so it cannot buy through MPOS',
  otherTenant: 'no second merchant: set OTHER_ACCOUNT_USER, OTHER_ACCOUNT_PASSWORD, OTHER_CLIENT_ID and OTHER_CLIENT_SECRET (the account and a development business of another merchant) to check tenant isolation',
  hash: 'the redirect hash is only observed (REDIRECT_HASH=off): set REDIRECT_HASH=auto to discover its scheme, or the scheme (e.g. hmac-sha256, see .env.example) to verify it',
};

const UNPROCESSED =
  'not checked: the target answered 429 (rate limited) or 503 (unavailable), so it did not process the request; ' +
  'run again with fewer requests at once (a lower FC_NUM_RUNS, fewer suites or a --shard) or when the target is up';

function missing(run: Run, need: Need): boolean {
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

let expectedFailures: Set<string> | undefined;
function isExpectedFailure(run: Run, name: string): boolean {
  if (!expectedFailures) {
    const file = run.config.expectedFailuresFile;
    const lines = file ? readFileSync(file, 'utf8').split('\n') : [];
    expectedFailures = new Set(lines.map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')));
  }
  return expectedFailures.has(name);
}

/**
 * A server error the test did not fail on (e.g. a 500 for an unknown id, where the spec only says "not 2xx"):
 * the spec shows no status codes, so it is an observation, but never a silent one.
 */
function observeServerErrors(t: T, exchanges: readonly Exchange[], already: readonly Observation[]): void {
  for (const ex of exchanges) {
    const status = ex.response?.status;
    const noted = already.some((o) => o.message.includes(String(status)));
    if (status !== undefined && status >= 500 && status !== 503 && !noted) {
      t.observe('7-error-format-not-shown', `${ex.request.method} ${new URL(ex.request.url).pathname} answered ${status} (a server error)`);
    }
  }
}

/** A curl line that needs $ACCESS_TOKEN comes with the lines that fetch it, so it can be pasted as it is. */
function withPreamble(evidence: CheckEvidence, run: Run): CheckEvidence {
  if (!evidence.curl?.includes('$ACCESS_TOKEN') && !evidence.curl?.includes('$ACCOUNT_TOKEN')) return evidence;
  const preamble = curlPreamble({ authUrl: run.target.authUrl, accountAuth: run.config.accountAuth, audience: run.config.tokenAudience });
  return { ...evidence, curl: [...preamble, evidence.curl].join('\n') };
}

export function testName(clauses: string[], title: string): string {
  return `[${clauses.join(' ')}] ${title}`;
}

/**
 * A test's own budget (issue 21): the time its own work may take — from the start of its work (its tenant, if any,
 * created), not counting time spent waiting for what other tests hold (the request cap, a browser page, work another
 * test started: see `waitingFor` in harness/record/scope.ts). `clauseTest(…, timeoutMs)` sets another. Past it the test
 * ends ERROR naming what it was doing. vitest's own timeout is the run bound (RUN_TIMEOUT_S): such waits count there only.
 */
export const TEST_BUDGET_MS = 60_000;

/** The budget of a test: TEST_TIMEOUT_MS, or a test's own (`clauseTest(…, 120_000)`) scaled as TEST_TIMEOUT_MS scales the default. */
function budgetOf(run: Run, own: number | undefined): number {
  const configured = run.config.http.testTimeoutMs;
  return own === undefined ? configured : Math.max(1, Math.round((own * configured) / TEST_BUDGET_MS));
}

let runBound: number | undefined;
function runBoundMs(): number {
  if (runBound === undefined) {
    try {
      runBound = loadConfig().http.runTimeoutS * 1000;
    } catch {
      runBound = 900_000; // a configuration error is reported by getRun(), with the variable to fix
    }
  }
  return runBound;
}

/** The suite's own time ran out (the test's budget): nothing was judged (ERROR, never a FAIL of the target). */
export class TestBudgetError extends Error {
  override name = 'TestBudgetError';
}

/** Rejects with TestBudgetError once `scope` has worked `budgetMs` (its waits not counted), else settles as `work` does. */
function withinBudget<T>(scope: Scope, budgetMs: number, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout;
    const check = () => {
      const now = Date.now();
      const waited = scope.waitedMs(now);
      const used = now - scope.startedAt - waited;
      if (used >= budgetMs && scope.waitingFor === undefined) {
        const doing = scope.doing;
        const last = scope.steps.at(-1);
        const what = doing.length > 0 ? `waiting for the answer to ${doing.join(', ')}` : `running its own code${last ? ` (its last step: ${last.title})` : ' (no request made yet)'}`;
        reject(new TestBudgetError(
          `the suite's own time limit: the test worked ${(used / 1000).toFixed(1)} s, past its budget of ${budgetMs / 1000} s (TEST_TIMEOUT_MS; ` +
            `${(waited / 1000).toFixed(1)} s waiting for other tests not counted), while ${what}; not judged`,
        ));
        return;
      }
      timer = setTimeout(check, Math.max(budgetMs - used, 250));
    };
    timer = setTimeout(check, budgetMs);
    work.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (err: unknown) => (clearTimeout(timer), reject(err)),
    );
  });
}

/**
 * The target took a request and did not answer it within HTTP_TIMEOUT_MS (or dropped the connection): the target's
 * failure, with its evidence. Every clause the test cites is cited: the test could not get past that request.
 */
function noAnswer(err: HttpError, clauses: string[]): CheckEvidence {
  return {
    check: 'answers',
    clauses,
    expected: 'an answer to the request (within HTTP_TIMEOUT_MS)',
    actual: err.message,
    exchange: describeExchange(err.exchange),
    ...(err.exchange.curl ? { curl: err.exchange.curl } : {}),
    exchangeId: err.exchange.id,
  };
}

/** A failure the target is judged by: a named check, or the target not answering. Anything else is the suite's (ERROR). */
function judged(err: unknown): boolean {
  return err instanceof CheckFailure || (err instanceof HttpError && err.byTarget);
}

export function clauseTest(spec: ClauseTestSpec, title: string, fn: (t: T) => Promise<void>, timeoutMs?: number): void {
  const clauses = Array.isArray(spec.clauses) ? spec.clauses : [spec.clauses];
  const name = testName(clauses, title);
  it(name, { meta: { clauses, endpoint: spec.endpoint }, timeout: Math.max(runBoundMs(), timeoutMs ?? 0) }, async (ctx: TestContext) => {
    const shared = await getRun();
    if (shared.target.unreachable) throw new Error(`target unusable: ${shared.target.unreachable}`);
    for (const need of spec.needs ?? []) if (missing(shared, need)) ctx.skip(NEED_REASONS[need]);
    if (spec.purchase) shared.interlock.assertMayPay();
    // Its own tenant (see "Independence" above) where it moves time or counts, and the target has tenants.
    const own = spec.tenant || spec.movesClock || spec.needs?.some((n) => n === 'clock' || n === 'stats');
    const run = own && shared.tenant ? await shared.tenant() : shared;
    for (const need of spec.needs ?? []) if (run !== shared && missing(run, need)) ctx.skip(NEED_REASONS[need]);
    // The transcript of the attempt being judged: what a failed or errored test carries as its evidence.
    let scope: Scope | undefined;
    ctx.onTestFinished(() => {
      if (!scope) return;
      scope.closed = true;
      ctx.task.meta.requests = scope.madeBefore + scope.exchanges.length;
    });
    // Also when vitest ends the test (the run bound): the transcript shows how far it got.
    ctx.onTestFailed(({ task }) => {
      if (scope && !ctx.task.meta.transcript) {
        ctx.task.meta.transcript = transcriptOf(scope, { failingExchangeId: ctx.task.meta.failure?.exchangeId, end: task.result?.errors?.[0]?.message ?? 'the test failed' });
      }
    });
    const budgetMs = budgetOf(run, timeoutMs);

    const observations: Observation[] = [];
    const t: T = {
      run,
      call: run.call,
      observe(clause, message) {
        observations.push({ clause, message });
        ctx.task.meta.observations = observations;
        void ctx.annotate(`WARN ${clause}: ${message}`, 'warning');
      },
      skip: (reason) => ctx.skip(reason),
      replay(seed, command) {
        ctx.task.meta.seed = seed;
        ctx.task.meta.replay = command;
      },
      cite(more) {
        ctx.task.meta.clauses = [...new Set([...(ctx.task.meta.clauses ?? []), ...more])];
      },
    };

    const expected = isExpectedFailure(run, name);
    let unprocessed: number;
    // The attempt has its own scope (its transcript) and its own budget, which starts now.
    const attempt = () => {
      const mine = new Scope(name);
      // Its tenant's creation was the first request of its chain.
      if (run !== shared) mine.madeBefore = 1;
      mine.expected = chainLength(run.config.reportDir, name);
      scope = mine;
      const work = withScope(mine, async () => {
        await fn(t);
        const exchanges = currentScopeExchanges();
        observeServerErrors(t, exchanges, observations);
        fieldMappings.observeNew((clause, message) => t.observe(clause, message));
        return exchanges.filter((ex) => ex.response?.status === 429 || ex.response?.status === 503).length;
      });
      return withinBudget(mine, budgetMs, work);
    };
    try {
      unprocessed = await attempt();
    } catch (err) {
      // The page refused what the payer sent: the test's premise (a payment that went through) does not hold.
      if (err instanceof PaymentRefused) {
        ctx.skip(`not judged: ${err.message}; if the page's inputs are named otherwise, set SCREEN_FIELD_NAMES (see .env.example)`);
      }
      if (err instanceof NotJudged) ctx.skip(`not judged: ${err.message}`);
      // A page whose fields the payer could not map (harness/payer/discovery.ts): the suite's limit, not the target's.
      if (err instanceof FieldsNotFoundError) ctx.skip(`not judged: ${err.message}; set SCREEN_FIELD_NAMES (see .env.example)`);
      if (err instanceof NoFormError && run.target.kind === 'embedded' && run.config.sandbox.screen === 'js' && run.config.payer.kind !== 'browser') {
        ctx.skip(`the embedded sandbox serves its hosted screens as forms built by JavaScript (SANDBOX_SCREEN=js), which the HTTP payer cannot fill: run with PAYER=browser (or PAYER=auto) to test them (${err.message})`);
      }
      if (err instanceof PayerError && run.target.kind === 'remote') {
        ctx.skip(`hosted screen not drivable by the suite: ${err.message}; if the screen's inputs are named otherwise, set SCREEN_FIELD_NAMES (see .env.example)`);
      }
      // A security check (not a spec clause) only warns with SECURITY_CHECKS=observe: its evidence becomes the WARN.
      if (err instanceof CheckFailure && run.config.securityChecks === 'observe' && clauses.every((c) => c.startsWith('security-'))) {
        t.observe(clauses[0]!, `security check failed (SECURITY_CHECKS=observe, so not failed): expected ${err.evidence.expected}; actual ${err.evidence.actual}${err.evidence.exchange ? `\n${err.evidence.exchange}` : ''}`);
        return;
      }
      if (err instanceof CheckFailure) ctx.task.meta.failure = withPreamble(err.evidence, run);
      if (err instanceof HttpError && err.byTarget) ctx.task.meta.failure = withPreamble(noAnswer(err, ctx.task.meta.clauses ?? clauses), run);
      if (scope) {
        const end = `${err instanceof Error ? err.name : 'Error'}: ${err instanceof Error ? err.message : String(err)}`;
        ctx.task.meta.transcript = transcriptOf(scope, { failingExchangeId: ctx.task.meta.failure?.exchangeId, end });
      }
      // Only a judged failure can be an expected one: the suite's own failure (ERROR) always counts.
      if (expected && judged(err)) {
        ctx.task.meta.expected = 'failed';
        return;
      }
      throw err;
    }
    // A "refused" that was only a rate limiter (429) or an unavailable service (503) says nothing about the rule.
    if (unprocessed > 0) ctx.skip(`${UNPROCESSED} (${unprocessed} request(s) of this test)`);
    if (expected) ctx.task.meta.expected = 'passed';
  });
}
