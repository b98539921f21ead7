/**
 * Issue 12: the run-wide request cap (MAX_CONCURRENCY, AIMD on 429/503, the run-wide pause on Retry-After), the
 * urgent requests and `alone`, the test lock (timeless / shared / quiet / clock / exclusive) and the property cases
 * checked ahead.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Recorder, SecretRegistry } from '../../harness/evidence.ts';
import { createHttp, RequestLimiter, urgently, type Http } from '../../harness/http.ts';
import { joinModes, TestLock, type LockMode } from '../../harness/lock.ts';
import { checkAhead } from '../../harness/property-cases.ts';
import { startFixture, type Fixture } from './server.ts';

let fixture: Fixture | undefined;
let http: Http | undefined;
afterEach(async () => {
  await http?.close();
  await fixture?.close();
  http = undefined;
  fixture = undefined;
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const client = (maxConcurrency: number) =>
  createHttp({ timeoutMs: 2000, retries: 2, maxResponseBytes: 65_536, maxBackoffMs: 5000, maxConcurrency, recorder: new Recorder({ registry: new SecretRegistry() }) });

describe('request cap', () => {
  it('never has more than MAX_CONCURRENCY requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    fixture = await startFixture((_req, res) => {
      peak = Math.max(peak, ++inFlight);
      setTimeout(() => (inFlight--, res.writeHead(200).end('ok')), 30);
    });
    http = client(3);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => http!.request({ method: 'GET', url: `${fixture!.url}/${i}` })));
    expect(answers.every((ex) => ex.response?.status === 200)).toBe(true);
    expect(peak).toBe(3);
    expect(http.limiter?.peak).toBe(3);
  });

  it('a 429 with Retry-After halves the cap and pauses every new request; the POST is not re-sent', async () => {
    let calls = 0;
    fixture = await startFixture((_req, res) => (++calls === 1 ? res.writeHead(429, { 'retry-after': '1' }).end() : res.writeHead(200).end('ok')));
    http = client(8);
    const limited = await http.request({ method: 'POST', url: `${fixture.url}/EnlacePago`, json: {} });
    expect(limited.response?.status).toBe(429);
    expect(limited.attempts).toBe(1);
    expect(http.limiter?.cap).toBe(4);
    const started = Date.now();
    const next = await http.request({ method: 'POST', url: `${fixture.url}/EnlacePago`, json: {} });
    expect(next.response?.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(fixture.seen).toEqual(['POST /EnlacePago', 'POST /EnlacePago']);
  });

  it('a 503 without Retry-After lowers the cap without pausing; good answers raise it back', async () => {
    let calls = 0;
    fixture = await startFixture((_req, res) => (++calls === 1 ? res.writeHead(503).end() : res.writeHead(200).end('ok')));
    http = client(4);
    await http.request({ method: 'POST', url: `${fixture.url}/a`, json: {} });
    expect(http.limiter?.cap).toBe(2);
    const started = Date.now();
    for (let i = 0; i < 2 + 3; i++) await http.request({ method: 'GET', url: `${fixture.url}/b` });
    expect(Date.now() - started).toBeLessThan(900);
    expect(http.limiter?.cap).toBe(4);
  });

  it('never pauses past the run deadline', async () => {
    const limiter = new RequestLimiter(2);
    await limiter.acquire();
    limiter.release('throttled', 30_000, Date.now() + 1000);
    expect(limiter.pausedUntil).toBe(0);
    const started = Date.now();
    await limiter.acquire(Date.now() + 1000);
    expect(Date.now() - started).toBeLessThan(200);
  });
});

describe('urgent requests and alone', () => {
  it('an urgent request waiting for a slot is served before the others waiting', async () => {
    const limiter = new RequestLimiter(1);
    await limiter.acquire();
    const order: string[] = [];
    const plain = limiter.acquire().then(() => (order.push('plain'), limiter.release('ok')));
    const urgent = urgently(() => true, () => limiter.acquire()).then(() => (order.push('urgent'), limiter.release('ok')));
    await sleep(5);
    limiter.release('ok');
    await Promise.all([plain, urgent]);
    expect(order).toEqual(['urgent', 'plain']);
  });

  it('alone waits until nothing is in flight and holds every other request back until it is done', async () => {
    const limiter = new RequestLimiter(4);
    await limiter.acquire();
    const order: string[] = [];
    const solo = limiter.alone(async () => {
      order.push(`alone starts (${limiter.inFlight} in flight)`);
      await limiter.acquire();
      order.push('alone sends');
      limiter.release('ok');
      await sleep(10);
      order.push('alone ends');
    });
    await sleep(1);
    const other = limiter.acquire().then(() => (order.push('other sends'), limiter.release('ok')));
    await sleep(10);
    order.push('first answered');
    limiter.release('ok');
    await Promise.all([solo, other]);
    expect(order).toEqual(['first answered', 'alone starts (0 in flight)', 'alone sends', 'alone ends', 'other sends']);
  });
});

describe('test lock', () => {
  const holder = (lock: TestLock, order: string[]) => async (name: string, mode: LockMode, ms: number, after = 0) => {
    await sleep(after);
    const release = await lock.acquire(mode);
    order.push(`+${name}`);
    await sleep(ms);
    order.push(`-${name}`);
    release();
  };

  it('a clock test runs beside timeless tests, never beside a shared or another clock test; waiting, it goes first', async () => {
    const lock = new TestLock();
    const order: string[] = [];
    const hold = holder(lock, order);
    await Promise.all([hold('s', 'shared', 30), hold('c1', 'clock', 20), hold('t', 'timeless', 10), hold('c2', 'clock', 20)]);
    // Asked together: c1 first, the timeless test beside it, then c2, and the shared test once no clock test waits.
    expect(order).toEqual(['+c1', '+t', '-t', '-c1', '+c2', '-c2', '+s', '-s']);
  });

  it('a shared test holding the lock keeps a clock test waiting; timeless tests go on beside both', async () => {
    const lock = new TestLock();
    const order: string[] = [];
    const hold = holder(lock, order);
    await Promise.all([hold('s', 'shared', 30), hold('c', 'clock', 10, 5), hold('t', 'timeless', 5, 10), hold('s2', 'shared', 5, 15)]);
    expect(order).toEqual(['+s', '+t', '-t', '-s', '+c', '-c', '+s2', '-s2']);
  });

  it('a clock test upgrading to exclusive keeps its hold: no other clock test gets in while it waits', async () => {
    const lock = new TestLock();
    const order: string[] = [];
    const hold = holder(lock, order);
    const c1 = (async () => {
      await lock.acquire('clock');
      order.push('+c1');
      await sleep(10);
      const release = await lock.acquire('exclusive', 'clock');
      order.push('c1 alone');
      await sleep(10);
      order.push('-c1');
      release();
    })();
    await Promise.all([c1, hold('t', 'timeless', 20, 2), hold('c2', 'clock', 5, 2)]);
    expect(order).toEqual(['+c1', '+t', '-t', 'c1 alone', '-c1', '+c2', '-c2']);
    expect(lock.state).toEqual({ modes: [], holders: 0, waiting: 0 });
  });

  it('joins modes into the one that allows both', () => {
    expect(joinModes('timeless', 'shared')).toBe('shared');
    expect(joinModes('timeless', 'quiet')).toBe('quiet');
    expect(joinModes('shared', 'clock')).toBe('clock');
    expect(joinModes('quiet', 'clock')).toBe('exclusive');
    expect(joinModes('clock', 'exclusive')).toBe('exclusive');
  });

  it('shared holders overlap; an exclusive holder waits until no shared test holds or wants the lock', async () => {
    const lock = new TestLock();
    const order: string[] = [];
    const hold = holder(lock, order);
    await Promise.all([hold('a', 'shared', 40), hold('b', 'shared', 20), hold('X', 'exclusive', 10), hold('c', 'shared', 10)]);
    expect(order).toEqual(['+a', '+b', '+c', '-c', '-b', '-a', '+X', '-X']);
    expect(lock.state).toEqual({ modes: [], holders: 0, waiting: 0 });
  });

  it('an exclusive request that ran out of patience is served before later shared ones', async () => {
    const lock = new TestLock(200);
    const order: string[] = [];
    const hold = holder(lock, order);
    // s1 holds 600 ms; X waits; s2 (at 10 ms) still gets in; s3 (at 400 ms, X has waited 400 ms) waits for X.
    await Promise.all([hold('s1', 'shared', 600), hold('X', 'exclusive', 5, 1), hold('s2', 'shared', 20, 10), hold('s3', 'shared', 5, 400)]);
    expect(order).toEqual(['+s1', '+s2', '-s2', '-s1', '+X', '-X', '+s3', '-s3']);
  });

  it('quiet holders overlap with each other, never with shared ones', async () => {
    const lock = new TestLock();
    const order: string[] = [];
    const hold = holder(lock, order);
    const late = (async () => {
      await sleep(35);
      await hold('s2', 'shared', 10);
    })();
    await Promise.all([hold('s1', 'shared', 20), hold('q1', 'quiet', 30), hold('q2', 'quiet', 10), late]);
    // s2 arrives while the quiet ones hold the lock: it waits for them to finish.
    expect(order).toEqual(['+s1', '-s1', '+q1', '+q2', '-q2', '-q1', '+s2', '-s2']);
  });
});

describe('property cases checked ahead', () => {
  it('draws the values fc.check draws, checks them several at a time, and replays each outcome', async () => {
    const arb = fc.integer({ min: 0, max: 1000 });
    let inFlight = 0;
    let peak = 0;
    const checked: number[] = [];
    const check = async (v: number) => {
      peak = Math.max(peak, ++inFlight);
      checked.push(v);
      await sleep(5);
      inFlight--;
      if (v > 500) throw new Error(`too big: ${v}`);
    };
    const ahead = await checkAhead(arb, { seed: 7, numRuns: 30 }, check, 4, () => false);
    expect(peak).toBe(4);
    const drawnAhead = new Set(checked);
    const live: number[] = [];
    const details = await fc.check(fc.asyncProperty(arb, async (v) => {
      const replayed = ahead(v);
      if (replayed) return replayed;
      live.push(v);
      return check(v);
    }), { seed: 7, numRuns: 30 });
    const plain = await fc.check(fc.asyncProperty(arb, async (v) => check(v)), { seed: 7, numRuns: 30 });
    // Same verdict, counterexample and path as without checking ahead; only shrinking ran live.
    expect([details.failed, details.counterexample, details.counterexamplePath]).toEqual([plain.failed, plain.counterexample, plain.counterexamplePath]);
    expect(details.failed).toBe(true);
    expect(live.every((v) => !drawnAhead.has(v))).toBe(true);
  });

  it('a passing property is decided from the values checked ahead alone', async () => {
    const arb = fc.integer();
    const ahead = await checkAhead(arb, { seed: 3, numRuns: 25 }, async () => sleep(1), 8, () => false);
    let live = 0;
    const details = await fc.check(fc.asyncProperty(arb, async (v) => ahead(v) ?? (live++, sleep(1))), { seed: 3, numRuns: 25 });
    expect([details.failed, details.numRuns, live]).toEqual([false, 25, 0]);
  });
});
