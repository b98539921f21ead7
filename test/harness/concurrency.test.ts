/**
 * The run-wide request cap (MAX_CONCURRENCY, AIMD on 429/503, the run-wide pause on Retry-After, first come
 * first served) and the property cases checked ahead.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Recorder } from '../../harness/record/transcript.ts';
import { TestRecord, sharedWork, withRecord } from '../../harness/record/test-record.ts';
import { SecretRegistry } from '../../harness/record/redact.ts';
import { readFileSync } from 'node:fs';
import { chainLengths, SHIPPED_LENGTHS } from '../../harness/run/chains.ts';
import { createHttp, RequestLimiter, type Http } from '../../harness/api/http.ts';
import { checkAhead } from '../../harness/judge/property-cases.ts';
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
  createHttp({
    timeoutMs: 2000,
    retries: 2,
    maxResponseBytes: 65_536,
    maxBackoffMs: 5000,
    maxConcurrency,
    recorder: new Recorder({ registry: new SecretRegistry() }),
  });

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

  it('a 429 with Retry-After halves the cap and pauses every new request; the POST is sent again after it', async () => {
    let calls = 0;
    fixture = await startFixture((_req, res) =>
      ++calls === 1 ? res.writeHead(429, { 'retry-after': '1' }).end() : res.writeHead(200).end('ok'),
    );
    http = client(8);
    const started = Date.now();
    const limited = await http.request({ method: 'POST', url: `${fixture.url}/EnlacePago`, json: {} });
    // 429: not processed, so sent again after the Retry-After (the run-wide pause holds the retry too).
    expect(limited.response?.status).toBe(200);
    expect(limited.attempts).toBe(2);
    expect(limited.tries).toEqual([{ status: 429, waitedMs: 1000 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(http.limiter?.cap).toBe(4);
    expect(fixture.seen).toEqual(['POST /EnlacePago', 'POST /EnlacePago']);
  });

  it('a 503 without Retry-After lowers the cap without pausing; good answers raise it back', async () => {
    let calls = 0;
    fixture = await startFixture((_req, res) => (++calls === 1 ? res.writeHead(503).end() : res.writeHead(200).end('ok')));
    http = client(4);
    await http.request({ method: 'POST', url: `${fixture.url}/a`, json: {} });
    expect(http.limiter?.cap).toBe(2);
    // No pause: nothing holds the next request back (the figure, not a timing that load could stretch).
    expect(http.limiter?.pausedUntil).toBe(0);
    for (let i = 0; i < 2 + 3; i++) await http.request({ method: 'GET', url: `${fixture.url}/b` });
    expect(http.limiter?.cap).toBe(4);
  });

  it('never pauses past the run deadline', async () => {
    const limiter = new RequestLimiter(2);
    await limiter.acquire();
    limiter.release('throttled', 30_000, Date.now() + 1000);
    expect(limiter.pausedUntil).toBe(0);
    await limiter.acquire(Date.now() + 1000);
  });
});

/** A cap of one and a server that holds `GET /hold` until `release()`: what queues meanwhile shows the order. */
async function oneSlotHeld(): Promise<{ get: (path: string) => Promise<unknown>; release: () => void }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  fixture = await startFixture((req, res) => void (req.url === '/hold' ? held : Promise.resolve()).then(() => res.end('ok')));
  http = client(1);
  return { get: (path) => http!.request({ method: 'GET', url: `${fixture!.url}${path}` }), release };
}

describe('request cap order', () => {
  it('waiters get a freed slot first come, first served', async () => {
    const limiter = new RequestLimiter(1);
    await limiter.acquire();
    const order: string[] = [];
    const first = limiter.acquire().then(() => (order.push('first'), limiter.release('ok')));
    const second = limiter.acquire().then(() => (order.push('second'), limiter.release('ok')));
    await sleep(5);
    limiter.release('ok');
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });

  it('a freed slot goes to work other tests wait for, then to the test furthest along its chain, then first come', async () => {
    const { get, release } = await oneSlotHeld();
    let next!: () => void;
    const go = new Promise<void>((resolve) => (next = resolve));
    let reached!: () => void;
    const twoDone = new Promise<void>((resolve) => (reached = resolve));
    // A test two requests along its chain, whose third waits until the only slot is taken.
    const along = withRecord('along', async () => {
      await get('/along-1');
      await get('/along-2');
      reached();
      await go;
      return get('/along-3');
    });
    // Its two answers in, however loaded the machine, before the slot is taken.
    await twoDone;
    const hold = get('/hold');
    await sleep(20);
    const fresh = withRecord('fresh', () => get('/fresh'));
    await sleep(5);
    next();
    await sleep(5);
    const history = sharedWork<unknown>();
    const shared = withRecord('first asker', () => history(() => get('/shared')));
    await sleep(20);
    release();
    await Promise.all([along, hold, fresh, shared]);
    expect(fixture!.seen.slice(fixture!.seen.indexOf('GET /hold') + 1)).toEqual(['GET /shared', 'GET /along-3', 'GET /fresh']);
  });
});

describe('chain lengths from the last report (the cap serves the longest chain still to run first)', () => {
  it("reads each test's requests from summary.json, with the median for a test the report does not list", () => {
    const lengths = chainLengths(
      JSON.stringify({
        tests: [
          { name: 'a', requests: 2 },
          { name: 'b', requests: 9 },
          { name: 'c', requests: 4 },
          { name: 'd' },
          { name: 'e', requests: -1 },
        ],
      }),
    );
    expect([...lengths.byName]).toEqual([
      ['a', 2],
      ['b', 9],
      ['c', 4],
    ]);
    expect(lengths.typical).toBe(4);
    expect(chainLengths(undefined)).toEqual({ byName: new Map(), typical: undefined });
    expect(chainLengths('not json')).toEqual({ byName: new Map(), typical: undefined });
  });

  it('reads the lengths shipped with the suite (suites/chain-lengths.json: name → requests)', () => {
    expect(chainLengths(JSON.stringify({ format: 'conformance-chains/1', tests: { a: 3, b: 1, c: 'x' } })).byName).toEqual(
      new Map([
        ['a', 3],
        ['b', 1],
      ]),
    );
    const shipped = chainLengths(readFileSync(SHIPPED_LENGTHS, 'utf8'));
    expect(shipped.byName.size).toBeGreaterThan(100);
    expect(shipped.typical).toBeGreaterThan(0);
  });

  it('with lengths known, a freed slot goes to the test with the most requests still to make', async () => {
    const { get, release } = await oneSlotHeld();
    const scoped = (name: string, expected: number) => {
      const scope = new TestRecord(name);
      scope.expected = expected;
      return withRecord(scope, () => get(`/${name}`));
    };
    const hold = get('/hold');
    await sleep(20);
    const short = scoped('short', 2);
    await sleep(5);
    const long = scoped('long', 12);
    await sleep(5);
    const middle = scoped('middle', 5);
    await sleep(20);
    release();
    await Promise.all([hold, short, long, middle]);
    expect(fixture!.seen.slice(fixture!.seen.indexOf('GET /hold') + 1)).toEqual(['GET /long', 'GET /middle', 'GET /short']);
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
    const details = await fc.check(
      fc.asyncProperty(arb, async (v) => {
        const replayed = ahead(v);
        if (replayed) return replayed;
        live.push(v);
        return check(v);
      }),
      { seed: 7, numRuns: 30 },
    );
    const plain = await fc.check(
      fc.asyncProperty(arb, async (v) => check(v)),
      { seed: 7, numRuns: 30 },
    );
    // Same verdict, counterexample and path as without checking ahead; only shrinking ran live.
    expect([details.failed, details.counterexample, details.counterexamplePath]).toEqual([
      plain.failed,
      plain.counterexample,
      plain.counterexamplePath,
    ]);
    expect(details.failed).toBe(true);
    expect(live.every((v) => !drawnAhead.has(v))).toBe(true);
  });

  it('a passing property is decided from the values checked ahead alone', async () => {
    const arb = fc.integer();
    const ahead = await checkAhead(
      arb,
      { seed: 3, numRuns: 25 },
      async () => sleep(1),
      8,
      () => false,
    );
    let live = 0;
    const details = await fc.check(
      fc.asyncProperty(arb, async (v) => ahead(v) ?? (live++, sleep(1))),
      { seed: 3, numRuns: 25 },
    );
    expect([details.failed, details.numRuns, live]).toEqual([false, 25, 0]);
  });
});
