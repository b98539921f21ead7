/**
 * The conformance run stays trustworthy against a broken target. Each case runs the auth suite (small, yet it calls
 * every endpoint) as a child process against a hostile server and checks what a user relies on: the run ends within
 * its bound, exits with the code that says whose problem it is, says what went wrong in each affected test, writes
 * its reports, and never sends a POST twice (except after a 429 or 503, which processed nothing). The runs go a few at a time, in parallel, in beforeAll; each `it` then judges one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../reporters/exit-codes.ts';
import type { ReportedTest } from '../../reporters/records.ts';
import { startHostile, type Behaviour, type HostileServer } from './server.ts';
import { failureText, listing, runConformance, type ChildRun } from './run.ts';

interface Case {
  behaviour: Behaviour;
  healthy: number;
  breakToken?: boolean;
  /** HTTP_TIMEOUT_MS: short where the behaviour is a timeout, roomy elsewhere so a busy machine cannot time out. */
  timeoutMs: number;
  /** RUN_TIMEOUT_S: short only where the bound is the behaviour judged; ROOMY elsewhere, so load cannot end a run. */
  runTimeoutS: number;
  env?: Record<string, string>;
  /** Suite files run against it (default: the auth suite). */
  files?: string[];
}

const ACCOUNT = { user: 'hostile@example.tst', password: 'hostile-pass-5b3f1' };
const CARD = { number: '4000000000000002', cvv: '947' };

/** A run bound no loaded machine reaches: these runs end by themselves within seconds. */
const ROOMY = 300;

const CASES = {
  'silent API, met by the probe': { behaviour: 'silent', healthy: 0, timeoutMs: 500, runTimeoutS: ROOMY },
  // One request at a time: with several in flight the timeouts overlap and the run ends before its bound. Two files:
  // more timeouts queued than fit in the bound. Their timeouts, one after another, take about 20 s on a quiet machine
  // (longer on a busy one), so a 20-s bound was not always reached; 15 s always is, and a busy machine's start-up still
  // leaves room for some timeouts before it.
  'silent API after the probe, past the run bound': {
    behaviour: 'silent',
    healthy: 1,
    timeoutMs: 500,
    runTimeoutS: 15,
    env: { MAX_CONCURRENCY: '1' },
    files: ['suites/auth.test.ts', 'suites/links.test.ts'],
  },
  // Idem: a 0.5 s timeout must mean the target, not a healthy token request sent beside eight stalled ones.
  'stalled bodies': { behaviour: 'stall-body', healthy: 1, timeoutMs: 500, runTimeoutS: ROOMY, env: { MAX_CONCURRENCY: '1' } },
  'connection resets': { behaviour: 'reset', healthy: 1, timeoutMs: 5000, runTimeoutS: ROOMY },
  '5xx with HTML': { behaviour: 'html-5xx', healthy: 1, timeoutMs: 5000, runTimeoutS: ROOMY },
  '429 on the API': { behaviour: 'rate-limit', healthy: 1, timeoutMs: 5000, runTimeoutS: ROOMY },
  '429 on the token too': { behaviour: 'rate-limit', healthy: 0, breakToken: true, timeoutMs: 5000, runTimeoutS: 3 },
  'non-JSON with a JSON content type': { behaviour: 'non-json', healthy: 1, timeoutMs: 5000, runTimeoutS: ROOMY },
  'truncated JSON': { behaviour: 'truncated-json', healthy: 1, timeoutMs: 5000, runTimeoutS: ROOMY },
  '10 MB bodies': { behaviour: 'huge-body', healthy: 1, timeoutMs: 5000, runTimeoutS: ROOMY },
  'redirect loops': { behaviour: 'redirect-loop', healthy: 1, timeoutMs: 5000, runTimeoutS: ROOMY },
  'echoed credentials and card data': {
    behaviour: 'echo',
    healthy: 1,
    timeoutMs: 5000,
    runTimeoutS: ROOMY,
    env: { ACCOUNT_USER: ACCOUNT.user, ACCOUNT_PASSWORD: ACCOUNT.password, TEST_CARD_NUMBER: CARD.number, TEST_CARD_CVV: CARD.cvv },
  },
} satisfies Record<string, Case>;
type Name = keyof typeof CASES;

const results = new Map<Name, { run: ChildRun; server: HostileServer }>();

beforeAll(async () => {
  // Three at a time: enough to keep the folder short, few enough that a 0.5 s timeout means the target, not the CPU.
  const queue = Object.keys(CASES) as Name[];
  await Promise.all(
    [1, 2, 3].map(async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const c: Case = CASES[name];
        const server = await startHostile({ behaviour: c.behaviour, healthy: c.healthy, breakToken: c.breakToken ?? false });
        const run = await runConformance({
          files: c.files ?? ['suites/auth.test.ts'],
          timeoutMs: (c.runTimeoutS + 60) * 1000,
          env: {
            API_BASE_URL: server.baseUrl,
            AUTH_URL: server.authUrl,
            CLIENT_ID: server.credentials.clientId,
            CLIENT_SECRET: server.credentials.clientSecret,
            HTTP_TIMEOUT_MS: String(c.timeoutMs),
            RUN_TIMEOUT_S: String(c.runTimeoutS),
            ...c.env,
          },
        });
        await server.close();
        results.set(name, { run, server });
      }
    }),
  );
}, 600_000);

function result(name: Name): { run: ChildRun; server: HostileServer; tests: ReportedTest[] } {
  const r = results.get(name)!;
  return { ...r, tests: r.run.summary?.tests.filter((t) => t.file !== '') ?? [] };
}

/** What every case must show, whatever the behaviour. */
function judgeRun(name: Name, exit: number): void {
  const { run, server, tests } = result(name);
  // The run ended by itself (the child is killed only 60 s past its bound); how fast is npm run bench's business.
  expect(run.killed, run.output.slice(-2000)).toBe(false);
  // The exit code `npm run conformance` gives a user (the child is vitest itself).
  expect(exitCodeOf(run.summary), listing(run)).toBe(exit);
  expect(Object.keys(run.files)).toEqual(expect.arrayContaining(['junit.xml', 'summary.json', 'summary.md']));
  expect(run.summary?.run.targetUrl).toBe(server.baseUrl);
  expect(tests.length).toBeGreaterThan(10);
  expect(run.files['junit.xml']!.match(/<testcase /g)?.length ?? 0).toBeGreaterThanOrEqual(tests.length);
  expect(server.repeats(), 'a non-idempotent request was sent twice').toEqual([]);
  for (const t of tests.filter((t) => t.status === 'skip' || t.status === 'notRun')) expect(t.reason, t.name).toMatch(/\S/);
}

/**
 * An answer that may hide a processed POST (a timeout, a dropped connection, a 502) is never a FAIL: the tests it met
 * are not judged, each naming it; at least `min` were (the behaviour really bit).
 */
function judgeAmbiguous(name: Name, pattern: RegExp, min: number): void {
  const { run, tests } = result(name);
  const ambiguous = tests.filter((t) => t.status === 'skip' && /^not judged: /.test(t.reason ?? '') && pattern.test(t.reason ?? ''));
  expect(ambiguous.length, listing(run)).toBeGreaterThanOrEqual(min);
  expect(run.output).toMatch(/\d+ ambiguous answers? \(\d+ settled\)/);
}

/** Every test that failed says `pattern`; at least `min` did (the behaviour really bit). */
function judgeFailures(name: Name, pattern: RegExp, min: number): ReportedTest[] {
  const { run, tests } = result(name);
  const failed = tests.filter((t) => t.status === 'fail' || t.status === 'error');
  expect(failed.length, listing(run)).toBeGreaterThanOrEqual(min);
  for (const t of failed) expect(failureText(t), t.name).toMatch(pattern);
  return failed;
}

/**
 * A response body that is not JSON is one contract finding (4-json-bodies), in the contract testcase of each operation
 * that sent one; the tests that needed the body name the same problem; the others judge their own behaviour.
 */
function judgeJsonFinding(name: Name, pattern: RegExp, min: number): void {
  const { run, tests } = result(name);
  const failed = tests.filter((t) => t.status === 'fail' || t.status === 'error');
  expect(failed.length, listing(run)).toBeGreaterThanOrEqual(min);
  const contract = failed.filter((t) => t.file === 'suites/contract.test.ts');
  expect(contract.length, listing(run)).toBeGreaterThan(0);
  for (const t of contract) expect(failureText(t), t.name).toMatch(pattern);
  for (const t of contract) expect(t.clauses, t.name).toContain('4-json-bodies');
  for (const t of failed.filter((t) => t.failure?.check === 'json-object')) expect(failureText(t), t.name).toMatch(pattern);
}

/** Behaviours no API test can survive: every test that calls the API fails (token-only tests may pass). */
function judgeNothingPasses(name: Name): void {
  const { run, tests } = result(name);
  const passed = tests.filter((t) => (t.status === 'pass' || t.status === 'warn') && t.endpoint !== 'POST /connect/token');
  expect(
    passed.map((t) => t.name),
    listing(run),
  ).toEqual([]);
}

/** The probe met the behaviour: one ERROR line says why, and every test is reported not run with that reason. */
function judgeUnreachable(name: Name, reason: RegExp): void {
  const { run, tests } = result(name);
  const stop = run.summary?.tests.find((t) => t.file === '' && t.status === 'error');
  expect(failureText(stop!), listing(run)).toMatch(reason);
  for (const t of tests) {
    expect(t.status, t.name).toBe('notRun');
    expect(t.reason, t.name).toMatch(reason);
  }
}

describe.concurrent('a conformance run against a hostile target', () => {
  it('silent API met by the probe: every test reports the one-line reason, and the probe POST is sent once', () => {
    judgeRun('silent API, met by the probe', 2);
    judgeUnreachable(
      'silent API, met by the probe',
      /^(run stopped: )?no response within 0\.5 s from POST \/EnlacePago, after the request was sent: it is never sent again/,
    );
    expect(result('silent API, met by the probe').server.counts()['POST /EnlacePago']).toBe(1);
  });

  it('silent API after the probe: requests time out one by one, then the whole-run bound stops the rest', () => {
    const name = 'silent API after the probe, past the run bound';
    // The bound is the suite's: the tests it stopped are ERROR (exit 3), never the target's FAIL.
    judgeRun(name, 3);
    judgeNothingPasses(name);
    const failed = judgeFailures(name, /the whole-run bound of 15 s was reached (before|during) (POST|GET|PUT|DELETE) \//, 5);
    expect(failed.every((t) => t.status === 'error')).toBe(true);
  });

  it('stalled response bodies time out with the request named', () => {
    // A POST answered too late may have been processed: not judged, never re-sent; nothing was judged a FAIL.
    judgeRun('stalled bodies', 0);
    judgeNothingPasses('stalled bodies');
    judgeAmbiguous('stalled bodies', /no response within 0\.5 s from POST \/(EnlacePago|TransaccionCompra\/)/, 5);
  });

  it('connection resets are named and never make a POST go twice', () => {
    judgeRun('connection resets', 0);
    judgeNothingPasses('connection resets');
    judgeAmbiguous('connection resets', /the connection was dropped during POST \/.* \(ECONNRESET\)/, 5);
  });

  it('5xx HTML pages: a 500 fails the tests that need a success, a 502 is not judged, a 503 is sent again', () => {
    judgeRun('5xx with HTML', 1);
    judgeFailures('5xx with HTML', /actual:?\s+500\b[\s\S]*< 500 text\/html/, 1);
    judgeAmbiguous('5xx with HTML', /answered 502: a gateway's answer/, 1);
    expect(result('5xx with HTML').run.output).toMatch(/\d+ retries · \d+ × 503/);
  });

  it('429 is sent again after its delay, then the run stops as the set-up (exit 2) naming MAX_RPS; none passes on it', () => {
    const name = '429 on the API';
    judgeRun(name, 2);
    judgeNothingPasses(name);
    expect(result(name).tests.filter((t) => t.status === 'fail')).toEqual([]);
    const stop = result(name).run.summary?.tests.find((t) => t.file === '' && t.status === 'error');
    expect(failureText(stop!)).toMatch(/the target refused \d+ requests in a row for rate \(429\), each sent \d+ times .*set MAX_RPS=/);
    // A refusal that was only the rate limiter is no pass: it is reported not checked, saying why.
    const notChecked = result(name).tests.filter(
      (t) => t.status === 'skip' && /^not checked: the target answered 429/.test(t.reason ?? ''),
    );
    expect(notChecked.length, listing(result(name).run)).toBeGreaterThan(3);
  });

  it('429 on the token endpoint: the probe honours the run bound instead of waiting out Retry-After', () => {
    const name = '429 on the token too';
    judgeRun(name, 2);
    judgeUnreachable(name, /the target answered 429 \(rate limited\) to POST \/auth\/connect\/token/);
    // Retry-After: 30 (capped at 5 s per wait) fits no 3 s bound, so the token is asked for once and the optional
    // capability probe is not retried at all.
    const counts = result(name).server.counts();
    expect(counts['POST /auth/connect/token']).toBe(1);
    expect(counts['GET /__sandbox']).toBe(1);
  });

  it('non-JSON with a JSON content type is named as such', () => {
    judgeRun('non-JSON with a JSON content type', 1);
    // requests that only need a 2xx (a token accepted) pass: the body is the contract testcases' finding
    judgeJsonFinding('non-JSON with a JSON content type', /a JSON response body[\s\S]*application\/json; .*is not valid JSON/, 5);
  });

  it('truncated JSON is named as a parse error', () => {
    judgeRun('truncated JSON', 1);
    // requests that only need a 2xx (a token accepted) pass: the body is the contract testcases' finding
    judgeJsonFinding('truncated JSON', /a JSON response body[\s\S]*application\/json; .*(Unterminated string|end of JSON)/, 5);
  });

  it('10 MB bodies are cut at MAX_RESPONSE_BYTES and named as truncated', () => {
    judgeRun('10 MB bodies', 1);
    // requests that only need a 2xx (a token accepted) pass: the body is the contract testcases' finding
    judgeJsonFinding('10 MB bodies', /body truncated at 1048576 bytes; not parsed/, 5);
    const { server } = result('10 MB bodies');
    const sends = Object.entries(server.counts())
      .filter(([k]) => k.startsWith('POST /') && !k.startsWith('POST /auth/'))
      .reduce((n, [, v]) => n + v, 0);
    expect(server.hugeBytesWritten()).toBeLessThan(sends * 10 * 1024 * 1024);
  });

  it('redirect loops are not followed by API calls: each request goes once and fails naming the 302', () => {
    judgeRun('redirect loops', 1);
    judgeFailures('redirect loops', /actual:?\s+302\b/, 3);
    const followed = Object.keys(result('redirect loops').server.counts()).filter((k) => k.startsWith('GET ') && k !== 'GET /__sandbox');
    expect(followed).toEqual([]);
  });

  it('a configuration error stops the run with one line naming the variable, in the reports too', async () => {
    // Run directly by vitest (as npm test does), not through npm run conformance, which checks the configuration first.
    const run = await runConformance({
      files: ['suites/auth.test.ts'],
      env: { API_BASE_URL: 'http://127.0.0.1:9/api', AUTH_URL: 'http://127.0.0.1:9', CLIENT_ID: 'c' },
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(1);
    expect(run.output).toContain('ConfigError: a remote target (API_BASE_URL is set) also needs CLIENT_SECRET');
    const stop = run.summary?.tests.find((t) => t.status === 'error');
    expect(stop && failureText(stop)).toMatch(
      /^(run stopped: )?configuration error: a remote target \(API_BASE_URL is set\) also needs CLIENT_SECRET: CLIENT_SECRET = its client secret/,
    );
    expect(run.files['junit.xml']).toContain('configuration error');
  });

  it('a target echoing credentials and card data gets none of them into the reports or the console', () => {
    const { run, server } = result('echoed credentials and card data');
    judgeRun('echoed credentials and card data', 1);
    // The echoes did reach the reports (so the search below means something), redacted.
    expect(run.files['summary.json']).toContain('recibido');
    expect(run.files['summary.json']).toContain('[REDACTED');
    expect(server.tokens.length).toBeGreaterThanOrEqual(2);
    const secrets: Record<string, string> = {
      'client secret': server.credentials.clientSecret,
      'account password': ACCOUNT.password,
      'Basic credential': Buffer.from(`${ACCOUNT.user}:${ACCOUNT.password}`).toString('base64'),
      'card number': CARD.number,
      ...Object.fromEntries(server.tokens.map((t, i) => [`access token ${i + 1}`, t])),
    };
    for (const [where, text] of Object.entries({ console: run.output, ...run.files })) {
      for (const [what, value] of Object.entries(secrets)) expect(text.includes(value), `${what} in ${where}`).toBe(false);
      // A 3-digit cvv is only meaningful next to its field name (plain, or escaped inside an echoed string).
      expect(text, `cvv in ${where}`).not.toMatch(new RegExp(`cvv[\\\\"':= ]{0,12}${CARD.cvv}`, 'i'));
    }
  });
});
