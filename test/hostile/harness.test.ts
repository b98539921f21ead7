/**
 * The harness's http and payer against each hostile behaviour, in-process: a POST goes again only after "not now"
 * (429/503), never after an answer that may hide its processing; a GET is retried only where a retry can help; failures are one line naming the behaviour,
 * a 10 MB body costs a bounded amount of memory, and a redirect loop ends.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { AmbiguousAnswerError, HttpError, NotNowError } from '../../harness/api/errors.ts';
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
    // A transport failure (HttpError), an answer that may hide a processed POST, or "not now" after every retry.
    expect([HttpError, AmbiguousAnswerError, NotNowError].some((kind) => err instanceof kind)).toBe(true);
    return `${(err as Error).constructor.name}: ${(err as Error).message}`;
  }
}

const status = (o: Exchange | string) => (typeof o === 'string' ? o : o.response?.status);

// What a POST and a GET meet, and how many times each may go: a POST once after an answer that may hide its
// processing (AmbiguousAnswerError), a GET again where a retry can help (HTTP_RETRIES = 2 here), either again after
// "not now" (429) up to NOT_NOW_RETRIES (6) and then NotNowError — never a target's FAIL.
const cases: [Behaviour, post: string | number, get: string | number, postAttempts: number, getAttempts: number][] = [
  [
    'silent',
    'AmbiguousAnswerError: no response within 0.3 s from POST /EnlacePago, after the request was sent',
    'HttpError: no response within 0.3 s from GET /TransaccionCompra/x',
    1,
    3,
  ],
  [
    'stall-body',
    'AmbiguousAnswerError: no response within 0.3 s from POST /EnlacePago, after the request was sent',
    'HttpError: no response within 0.3 s from GET /TransaccionCompra/x',
    1,
    3,
  ],
  [
    'reset',
    'AmbiguousAnswerError: the connection was dropped during POST /EnlacePago (ECONNRESET), after the request was sent',
    'HttpError: the connection was dropped during GET /TransaccionCompra/x (ECONNRESET)',
    1,
    3,
  ],
  [
    'rate-limit',
    'NotNowError: not checked: the target answered 429 (rate limited) to POST /EnlacePago 7 times',
    'NotNowError: not checked: the target answered 429 (rate limited) to GET /TransaccionCompra/x 7 times',
    7,
    7,
  ],
  ['non-json', 200, 200, 1, 1],
  ['truncated-json', 200, 200, 1, 1],
  ['huge-body', 200, 200, 1, 1],
  ['redirect-loop', 302, 302, 1, 1],
];

/** A status, or the start of the failure's one line. */
const matches = (seen: string | number | undefined, expected: string | number) =>
  typeof expected === 'string' ? expect(String(seen).startsWith(expected), String(seen)).toBe(true) : expect(seen).toBe(expected);

describe.concurrent('harness http against a hostile target', () => {
  it.for(cases)(
    '%s: a POST goes again only when "not now", a GET as often as useful',
    async ([behaviour, post, get, postAttempts, getAttempts], ctx) => {
      const { http, server } = await against(ctx, behaviour);
      matches(status(await outcome(http.request({ method: 'POST', url: `${server.baseUrl}/EnlacePago`, json: { monto: 1 } }))), post);
      matches(status(await outcome(http.request({ method: 'GET', url: `${server.baseUrl}/TransaccionCompra/x` }))), get);
      expect(server.counts()).toEqual({ 'POST /EnlacePago': postAttempts, 'GET /TransaccionCompra/x': getAttempts });
    },
  );

  it('5xx: a POST goes again only after a 503, never after a 502; a GET after a 502 or 503', async (ctx) => {
    const { http, server } = await against(ctx, 'html-5xx'); // answers 500, 502, 503 in turn
    const posts = [];
    for (let i = 0; i < 3; i++)
      posts.push(status(await outcome(http.request({ method: 'POST', url: `${server.baseUrl}/EnlacePago`, json: { i } }))));
    // 500 is an answer; 502 may hide the POST's processing (found out, never re-sent); 503 was "not now": sent
    // again, and the next answer in turn is 500.
    expect(posts[0]).toBe(500);
    expect(String(posts[1])).toMatch(/^AmbiguousAnswerError: POST \/EnlacePago answered 502/);
    expect(posts[2]).toBe(500);
    expect(server.counts()['POST /EnlacePago']).toBe(4);
    // The one body sent twice is the one answered 503 ("not now"): no repeat of what may have been processed.
    expect(server.repeats()).toEqual([]);
    // Next in turn 502 → 503 → 500: the GET is sent again after each, and ends at the answer a retry cannot fix.
    const ex = (await outcome(http.request({ method: 'GET', url: `${server.baseUrl}/TransaccionCompra/x` }))) as Exchange;
    expect([ex.response?.status, ex.attempts]).toEqual([500, 3]);
  });

  it('the payer ends a redirect loop with a message instead of following it', async (ctx) => {
    const { http, server } = await against(ctx, 'redirect-loop');
    const payer = createPayer({ http });
    const paying = payer.pay({
      kind: 'link',
      url: `${server.baseUrl}/l/1`,
      payment: {
        numeroTarjeta: '4111111111111111',
        cvv: '123',
        mesVencimiento: 1,
        anioVencimiento: 2030,
        redirectPrefix: 'http://127.0.0.1:9/redirect',
      },
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
