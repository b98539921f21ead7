/**
 * `clauseTest`: how every conformance test is declared. One behaviour per test (as in test262 and the OpenID
 * conformance suite), its clause ids in the name and in the metadata the reporters read (harness/meta.ts).
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
 * (every step it made, harness/evidence.ts) goes into the meta. A test's own budget (TEST_TIMEOUT_MS) starts when its
 * lock mode is granted and does not count its waits for other tests; vitest's timeout is the run bound.
 *
 * Concurrency (issue 12). The tests of all files run concurrently (harness/runner.ts). Every test holds the run-wide
 * `testLock` (harness/lock.ts) in one of its modes: SHARED by default; TIMELESS — shared, and beside a test that moves
 * the clock — for a test whose outcome does not depend on the target's clock (`timeless: true`: a validation rule, a
 * property over bodies); CLOCK — only timeless tests beside it — for a test that moves the target's clock; QUIET —
 * only other quiet tests in flight, which create nothing when the target is right — for a test that reads the global
 * counters; EXCLUSIVE — nothing else — on request (`exclusive: true`):
 *   - `needs: ['clock']` (or `movesClock: true`, for a test that waits instead on a target without clock control) in
 *     the spec: clock from the start (declare it when the test's earlier steps must not see another test's clock
 *     move either, e.g. a screen opened before the move);
 *   - otherwise the first `t.run.control.advanceClock()` of a test raises it to clock, and its first
 *     `t.run.control.stats()` to quiet (it lets go of its hold, waits for the new mode, and keeps it to its end), so a
 *     clock move or a "before" snapshot is never disturbed by a test that creates things, declared or not;
 *   - a clock move waits until no request of another test is in flight and holds new ones back until it is done,
 *     and the harness forgets its tokens after it: a timeless test's request never straddles a move; a move of more
 *     than 4 minutes is made alone (exclusive; a clock test keeps its hold while it waits for that);
 *   - the requests of a clock or exclusive test go first to the target (harness/http.ts): they are the serial chain;
 *   - a quiet test that fails a check is run again alone (exclusive) and judged by that run: another quiet test's
 *     wrongful creation can move its counters, but only its own requests can fail it alone (one fault, one finding).
 * Tests that only read their own resources (outbox entries by unique address, webhooks by idTransaccion) stay shared.
 * Memoised shared work (a promise kept in a module variable) is safe: whoever asks second awaits the same promise.
 */
import { readFileSync } from 'node:fs';
import { it, type TestContext } from 'vitest';
import './meta.ts';
import { getRun, type Call, type Run } from './run.ts';
import { CheckFailure, describeExchange } from './checks.ts';
import { HttpError, NoFormError, PayerError, PaymentRefused } from './errors.ts';
import type { Capability } from './target.ts';
import type { Exchange } from './http.ts';
import type { CheckEvidence, Observation } from './meta.ts';
import { curlPreamble, currentScopeExchanges, Scope, transcriptOf, waitingFor, withScope } from './evidence.ts';
import { loadConfig } from './config.ts';
import { joinModes, TestLock, type LockMode } from './lock.ts';
import { urgently } from './http.ts';

/** The run-wide test lock (one worker, one module instance: run-wide). New suites use it through the spec, above. */
export const testLock = new TestLock();

/**
 * A test's hold of `testLock`: taken once, raised (to the mode that allows both, never lowered), given back when the
 * test finishes — also when it finishes (times out) while still waiting, so a late grant is returned at once.
 */
class Hold {
  #release: (() => void) | undefined;
  #finished = false;
  constructor(public mode: LockMode) {}

  /** Takes the hold in its mode; `replacing`: upgrades the hold it has in that mode, without a gap. */
  async take(replacing?: LockMode): Promise<void> {
    const release = await testLock.acquire(this.mode, replacing);
    if (this.#finished) release();
    else this.#release = release;
  }

  async raise(mode: LockMode): Promise<void> {
    const next = joinModes(this.mode, mode);
    if (next === this.mode) return;
    const from = this.mode;
    this.mode = next;
    // A clock test going on alone keeps its hold while it waits: no other clock test moves the clock meanwhile.
    // (Only a clock hold may upgrade: there is one at a time, so two upgrades never wait for each other.)
    if (from === 'clock' && this.#release) return this.take(from);
    this.#release?.();
    this.#release = undefined;
    await this.take();
  }

  finish(): void {
    this.#finished = true;
    this.#release?.();
    this.#release = undefined;
  }
}

/**
 * The longest clock move made beside timeless tests. A longer one could outlive a token another test fetched a
 * moment before it and sends a moment after (tokens usually live an hour; even a 5-minute token outlives this):
 * such a move is made alone (exclusive).
 */
const TIMELESS_MOVE_S = 240;

/** The run as one test sees it: moving the clock takes the clock mode (and the target alone), reading the global counters quiet. */
function runFor(run: Run, h: Hold): Run {
  const control = run.control;
  if (!control) return run;
  return {
    ...run,
    control: {
      ...control,
      // Waiting for the lock's mode, or for the other tests' requests to drain, is not this test's own time.
      advanceClock: async (seconds) => {
        await waitingFor('the test lock (clock mode)', () => h.raise(seconds > TIMELESS_MOVE_S ? 'exclusive' : 'clock'));
        await waitingFor('the other tests\' requests to end (a clock move)', () => run.http.alone(() => control.advanceClock(seconds)));
      },
      stats: async () => (await waitingFor('the test lock (quiet mode)', () => h.raise('quiet')), control.stats()),
    },
  };
}

/** What a test may need beyond the primary business; missing → skipped with the reason. */
export type Need = Capability | 'account' | 'businessNoMpos' | 'deletion' | 'hash' | 'mposPermission' | 'otherTenant';

export interface ClauseTestSpec {
  clauses: string | string[];
  /** `METHOD /path` as in the spec, or `flow`. */
  endpoint: string;
  needs?: Need[];
  /** A test that pays or purchases: refused by the interlock unless the business is in development. */
  purchase?: boolean;
  /** Run alone: no other test in flight (see "Concurrency" above). */
  exclusive?: boolean;
  /** The outcome does not depend on the target's clock: another test may move it meanwhile (see "Concurrency" above). */
  timeless?: boolean;
  /** Moves the clock where the target has clock control (else waits): the clock mode from the start there. */
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
  clock: 'the target has no clock control (no sandbox test-control API)',
  outbox: 'the target exposes no notification outbox (no sandbox test-control API)',
  stats: 'the target exposes no state counters (no sandbox test-control API), so "creates nothing" cannot be observed',
  reset: 'the target cannot be reset',
  account: 'no account credentials: set ACCOUNT_USER and ACCOUNT_PASSWORD',
  businessNoMpos: 'no second business without MPOS permission: set SECOND_CLIENT_ID and SECOND_CLIENT_SECRET',
  deletion:
    'account deletion is destructive: it runs only on the embedded sandbox\'s disposable account, or with ALLOW_DESTRUCTIVE=account-deletion and DELETION_ACCOUNT_USER/DELETION_ACCOUNT_PASSWORD',
  mposPermission: 'the CLIENT_ID business lacks the additional MPOS permission of 4.7 (MPOS_PERMITTED=no), so it cannot buy through MPOS',
  otherTenant: 'no second merchant: set OTHER_ACCOUNT_USER, OTHER_ACCOUNT_PASSWORD, OTHER_CLIENT_ID and OTHER_CLIENT_SECRET (the account and a development business of another merchant) to check tenant isolation',
  hash: 'the redirect hash algorithm and key are not shown by the spec: set REDIRECT_HASH (e.g. hmac-sha256) and REDIRECT_HASH_KEY to verify it',
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
 * A test's own budget (issue 21): the time its own work may take — from the grant of its lock mode, not counting
 * time spent waiting for what other tests hold (the request cap, a raise of its lock mode, a browser page: see
 * `waitingFor` in harness/evidence.ts). `clauseTest(…, timeoutMs)` sets another. Past it the test ends ERROR naming
 * what it was doing. vitest's own timeout is the run bound (RUN_TIMEOUT_S): waiting for the lock counts there only.
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
    // Its mode (see "Concurrency" above), held until the test ends.
    const clock = spec.needs?.includes('clock') || (spec.movesClock && shared.target.capabilities.includes('clock'));
    const lock = new Hold(spec.exclusive ? 'exclusive' : clock ? 'clock' : spec.timeless ? 'timeless' : 'shared');
    // The transcript of the attempt being judged: what a failed or errored test carries as its evidence.
    let scope: Scope | undefined;
    ctx.onTestFinished(() => {
      lock.finish();
      if (scope) scope.closed = true;
    });
    // Also when vitest ends the test (the run bound): the transcript shows how far it got.
    ctx.onTestFailed(({ task }) => {
      if (scope && !ctx.task.meta.transcript) {
        ctx.task.meta.transcript = transcriptOf(scope, { failingExchangeId: ctx.task.meta.failure?.exchangeId, end: task.result?.errors?.[0]?.message ?? 'the test failed' });
      }
    });
    await lock.take();
    const run = runFor(shared, lock);
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
    // A clock or exclusive test's requests go to the target first (harness/http.ts). Each attempt has its own scope
    // (its transcript) and its own budget, which starts now: the lock is granted.
    const attempt = () => {
      const mine = new Scope(name);
      scope = mine;
      const work = urgently(() => lock.mode === 'clock' || lock.mode === 'exclusive', () => withScope(mine, async () => {
        await fn(t);
        const exchanges = currentScopeExchanges();
        observeServerErrors(t, exchanges, observations);
        return exchanges.filter((ex) => ex.response?.status === 429 || ex.response?.status === 503).length;
      }));
      return withinBudget(mine, budgetMs, work);
    };
    try {
      unprocessed = await attempt().catch(async (err: unknown) => {
        // Measured beside other quiet tests: judged again alone, from scratch (see "Concurrency" above).
        if (!(err instanceof CheckFailure) || lock.mode !== 'quiet') throw err;
        await lock.raise('exclusive');
        observations.length = 0;
        delete ctx.task.meta.observations;
        return attempt();
      });
    } catch (err) {
      // The page refused what the payer sent: the test's premise (a payment that went through) does not hold.
      if (err instanceof PaymentRefused) {
        ctx.skip(`not judged: ${err.message}; if the page's inputs are named otherwise, set SCREEN_FIELD_NAMES (see .env.example)`);
      }
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
