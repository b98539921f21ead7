/**
 * The harness's http and payer against each hostile behaviour, in-process: a POST goes exactly once
 * whatever happens, a GET is retried only where a retry can help, failures are one line naming the behaviour,
 * a 10 MB body costs a bounded amount of memory, and a redirect loop ends.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { HttpError } from '../../harness/api/errors.ts';
import { PayerError } from '../../harness/payer/errors.ts';
import { Recorder } from '../../harness/record/transcript.ts';
import { SecretRegistry } from '../../harness/record/redact.ts';
import { createHttp, type Exchange, type Http } from '../../harness/api/http.ts';
import { createPayer } from '../../harness/payer/index.ts';
import { startHostile, TEN_MB, type Behaviour, type HostileServer } from './server.ts';

/**
 * A hostile server and a client for one (concurrent) test, both closed when it ends. The timeout is short only
 * where the behaviour is a timeout: elsewhere a busy event loop must not pass for the target's fault.
 */
async function against(
  ctx: TestContext,
  behaviour: Behaviour,
  maxResponseBytes = 1024 * 1024,
): Promise<{ http: Http; server: HostileServer }> {
  const server = await startHostile({ behaviour });
  const timeoutMs = behaviour === 'silent' || behaviour === 'stall-body' ? 300 : 10_000;
  const http = createHttp({
    timeoutMs,
    retries: 2,
    maxResponseBytes,
    maxBackoffMs: 10,
    recorder: new Recorder({ registry: new SecretRegistry() }),
  });
  ctx.onTestFinished(async () => {
    await http.close();
    await server.close();
  });
  return { http, server };
}

/** The exchange, or the one-line message of the transport failure. */
async function outcome(p: Promise<Exchange>): Promise<Exchange | string> {
  try {
    return await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return (err as Error).message;
  }
}

const status = (o: Exchange | string) => (typeof o === 'string' ? o : o.response?.status);

// What a POST and a GET meet, and how many times the GET may go (1 + retries where retrying can help).
const cases: [Behaviour, post: string | number, get: string | number, getAttempts: number][] = [
  ['silent', 'no response within 0.3 s from POST /EnlacePago', 'no response within 0.3 s from GET /TransaccionCompra/x', 1],
  ['stall-body', 'no response within 0.3 s from POST /EnlacePago', 'no response within 0.3 s from GET /TransaccionCompra/x', 1],
  ['reset', 'connection reset by the target during POST /EnlacePago', 'connection reset by the target during GET /TransaccionCompra/x', 3],
  ['rate-limit', 429, 429, 3],
  ['non-json', 200, 200, 1],
  ['truncated-json', 200, 200, 1],
  ['huge-body', 200, 200, 1],
  ['redirect-loop', 302, 302, 1],
];

describe.concurrent('harness http against a hostile target', () => {
  it.for(cases)('%s: the POST goes once, the GET as often as useful', async ([behaviour, post, get, getAttempts], ctx) => {
    const { http, server } = await against(ctx, behaviour);
    expect(status(await outcome(http.request({ method: 'POST', url: `${server.baseUrl}/EnlacePago`, json: { monto: 1 } })))).toBe(post);
    expect(status(await outcome(http.request({ method: 'GET', url: `${server.baseUrl}/TransaccionCompra/x` })))).toBe(get);
    expect(server.counts()).toEqual({ 'POST /EnlacePago': 1, 'GET /TransaccionCompra/x': getAttempts });
  });

  it('5xx: a POST is never re-sent; a GET is retried on 503 only', async (ctx) => {
    const { http, server } = await against(ctx, 'html-5xx'); // answers 500, 502, 503 in turn
    const posts = [];
    for (let i = 0; i < 3; i++)
      posts.push(status(await outcome(http.request({ method: 'POST', url: `${server.baseUrl}/EnlacePago`, json: { i } }))));
    expect(posts).toEqual([500, 502, 503]);
    expect(server.counts()['POST /EnlacePago']).toBe(3);
    expect(server.repeats()).toEqual([]);
    // 500 → 502 → 503 (retried) → 500: the GET ends at the first answer a retry cannot fix.
    const ex = (await outcome(http.request({ method: 'GET', url: `${server.baseUrl}/TransaccionCompra/x` }))) as Exchange;
    expect([ex.response?.status, ex.attempts]).toEqual([500, 1]);
    const again = (await outcome(http.request({ method: 'GET', url: `${server.baseUrl}/TransaccionCompra/y` }))) as Exchange;
    expect([again.response?.status, again.attempts]).toEqual([502, 1]);
    const retried = (await outcome(http.request({ method: 'GET', url: `${server.baseUrl}/TransaccionCompra/z` }))) as Exchange;
    expect([retried.response?.status, retried.attempts]).toEqual([500, 2]);
  });

  it('the payer ends a redirect loop with a message instead of following it', async (ctx) => {
    const { http, server } = await against(ctx, 'redirect-loop');
    const payer = createPayer({ http });
    const paying = payer.payLink(`${server.baseUrl}/l/1`, {
      numeroTarjeta: '4111111111111111',
      cvv: '123',
      mesVencimiento: 1,
      anioVencimiento: 2030,
      redirectPrefix: 'http://127.0.0.1:9/redirect',
    });
    await expect(paying).rejects.toThrow(PayerError);
    await expect(paying).rejects.toThrow(/^a redirect loop \(http:\/\/127\.0\.0\.1:\d+\/l\/1 repeats\) starting at /);
    expect(server.counts()['GET /l/1']).toBeLessThanOrEqual(11);
    expect(Object.keys(server.counts()).filter((k) => k.startsWith('POST'))).toEqual([]);
  });
});

// Alone, so that no concurrent test's allocations blur the measurement.
describe('harness http memory against a 10 MB body', () => {
  it('a 10 MB body: reads MAX_RESPONSE_BYTES, stops the transfer, and memory grows well under 10 MB', async (ctx) => {
    const { http, server } = await against(ctx, 'huge-body');
    const before = process.memoryUsage();
    const ex = (await outcome(http.request({ method: 'GET', url: `${server.baseUrl}/TransaccionCompra/x` }))) as Exchange;
    const after = process.memoryUsage();
    expect(ex.response?.truncated).toBe(true);
    expect(ex.response?.bytes?.length).toBe(1024 * 1024);
    expect(ex.response?.jsonError).toBe('body truncated at 1048576 bytes; not parsed');
    const growth = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    // What is kept is about 1 MiB three times over (bytes, text, the recorded copy); 10 MB would not fit.
    expect(growth).toBeLessThan(6 * 1024 * 1024);
    expect(server.hugeBytesWritten()).toBeLessThan(TEN_MB);
  });
});
