import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AmbiguousAnswerError, HttpError, NotNowError, TargetRefusingError } from '../../harness/api/errors.ts';
import { Recorder } from '../../harness/record/transcript.ts';
import { SecretRegistry } from '../../harness/record/redact.ts';
import { adaptiveTimeout, createHttp, LatencyWindow, NOT_NOW_RETRIES, type Http, type HttpOptions } from '../../harness/api/http.ts';
import { startFixture, type Fixture } from './server.ts';

let fixture: Fixture | undefined;
let http: Http | undefined;

afterEach(async () => {
  await http?.close();
  await fixture?.close();
  http = undefined;
  fixture = undefined;
});

function client(options: Partial<HttpOptions> = {}): { http: Http; recorder: Recorder } {
  const recorder = new Recorder({ registry: new SecretRegistry() });
  http = createHttp({ timeoutMs: 2000, retries: 3, maxResponseBytes: 1024 * 1024, recorder, maxBackoffMs: 20, ...options });
  return { http, recorder };
}

async function thrown(p: Promise<unknown>): Promise<HttpError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return err as HttpError;
  }
  throw new Error('expected an HttpError');
}

async function caught<E>(p: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error(`expected a ${type.name}`);
}
const ambiguousOf = (p: Promise<unknown>) => caught(p, AmbiguousAnswerError);
const notNowOf = (p: Promise<unknown>) => caught(p, NotNowError);

describe('retries', () => {
  it("never re-sends a POST after a dropped connection (ambiguous, not the target's), but re-sends a GET at once", async () => {
    let resets = 0;
    fixture = await startFixture((req, res) => {
      if (resets < 1 || req.method === 'POST') {
        resets++;
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    const { http } = client();
    const err = await ambiguousOf(http.request({ method: 'POST', url: `${fixture.url}/EnlacePago`, json: { monto: 1 } }));
    expect(err.message).toMatch(
      /^the connection was dropped during POST \/EnlacePago \(\w+\), after the request was sent: it is never sent again/,
    );
    expect(err.answer).toBe('connection dropped');
    expect(err.exchange.attempts).toBe(1);
    expect(fixture.seen).toEqual(['POST /EnlacePago']);

    resets = 0;
    const ex = await http.request({ method: 'GET', url: `${fixture.url}/TransaccionCompra/x` });
    expect(ex.response?.status).toBe(200);
    expect(ex.attempts).toBe(2);
    expect(ex.tries).toEqual([{ error: 'connection dropped', waitedMs: 0 }]);
    expect(fixture.seen.filter((s) => s.startsWith('GET'))).toHaveLength(2);
  });

  it("a GET whose connection keeps dropping ends in an HttpError that is not the target's", async () => {
    fixture = await startFixture((req) => req.socket.destroy());
    const { http } = client({ retries: 2 });
    const err = await thrown(http.request({ method: 'GET', url: `${fixture.url}/x` }));
    expect(err.byTarget).toBe(false);
    expect(err.exchange.attempts).toBe(3);
  });

  it('sends a 503 again, POSTs included, a bounded number of times (at least 6 extra), then NotNowError', async () => {
    fixture = await startFixture((_req, res) => res.writeHead(503).end());
    const { http } = client({ retries: 2 });
    const plain = await notNowOf(http.request({ method: 'POST', url: `${fixture.url}/a`, json: {} }));
    expect(plain.status).toBe(503);
    expect(plain.exchange.attempts).toBe(1 + NOT_NOW_RETRIES);
    expect(plain.exchange.tries).toHaveLength(NOT_NOW_RETRIES);
    expect(plain.message).toMatch(/^not checked: the target answered 503 \(unavailable\) to POST \/a 7 times/);
    expect(fixture.seen).toEqual(Array(7).fill('POST /a'));
  });

  it('sends a POST again after a 429 until it is processed', async () => {
    let calls = 0;
    fixture = await startFixture((_req, res) => (++calls <= 2 ? res.writeHead(429).end() : res.writeHead(201).end('made')));
    const { http } = client();
    const ex = await http.request({ method: 'POST', url: `${fixture.url}/EnlacePago`, json: {} });
    expect(ex.response?.status).toBe(201);
    expect(ex.attempts).toBe(3);
    expect(ex.tries?.map((t) => t.status)).toEqual([429, 429]);
  });

  it('never re-sends a POST answered 502 or 504 (ambiguous), but re-sends a GET', async () => {
    let calls = 0;
    fixture = await startFixture((req, res) => {
      calls++;
      if (req.method === 'POST') return res.writeHead(calls === 1 ? 502 : 504).end('bad gateway');
      res.writeHead(calls === 3 ? 504 : 200).end('ok');
    });
    const { http } = client();
    const a = await ambiguousOf(http.request({ method: 'POST', url: `${fixture.url}/TransaccionCompra/Billetera`, json: {} }));
    expect(a.answer).toBe('502');
    expect(a.exchange.response?.status).toBe(502);
    const b = await ambiguousOf(http.request({ method: 'POST', url: `${fixture.url}/EnlacePago`, json: {} }));
    expect(b.answer).toBe('504');
    const get = await http.request({ method: 'GET', url: `${fixture.url}/x` });
    expect(get.response?.status).toBe(200);
    expect(get.attempts).toBe(2);
    expect(fixture.seen).toEqual(['POST /TransaccionCompra/Billetera', 'POST /EnlacePago', 'GET /x', 'GET /x']);
  });

  it('backs off exponentially with jitter, capped, when a 503 names no Retry-After', async () => {
    const times: number[] = [];
    fixture = await startFixture(
      (_req, res) => (times.push(Date.now()), times.length <= 4 ? res.writeHead(503).end() : res.writeHead(200).end()),
    );
    const { http } = client({ maxBackoffMs: 600 });
    const ex = await http.request({ method: 'GET', url: `${fixture.url}/x` });
    expect(ex.response?.status).toBe(200);
    const waits = ex.tries!.map((t) => t.waitedMs);
    // 250·2^(n-1) capped at 600, each between half and all of it.
    const ceilings = [250, 500, 600, 600];
    waits.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual(ceilings[i]! / 2);
      expect(w).toBeLessThanOrEqual(ceilings[i]!);
    });
  });

  it('after REFUSED_IN_A_ROW requests given up on "not now", every request throws TargetRefusingError (one line)', async () => {
    fixture = await startFixture((_req, res) => res.writeHead(429, { 'retry-after': '0' }).end());
    const { http } = client({ refusedInARow: 3, notNowRetries: 1, retries: 0, maxRps: 40 });
    for (let i = 0; i < 3; i++) await notNowOf(http.request({ method: 'GET', url: `${fixture.url}/${i}` }));
    expect(http.refusing).toMatch(
      /^the target refused 3 requests in a row for rate \(429\), each sent 2 times over [\d.]+ s: set MAX_RPS=\d+ \(or lower\)/,
    );
    const seen = fixture.seen.length;
    await expect(http.request({ method: 'GET', url: `${fixture.url}/x` })).rejects.toThrow(TargetRefusingError);
    expect(fixture.seen).toHaveLength(seen);
  });

  it('a good answer between refusals starts the count again; 503s name the target as down', async () => {
    let calls = 0;
    fixture = await startFixture((_req, res) => res.writeHead(++calls === 2 ? 200 : 503).end());
    const { http } = client({ refusedInARow: 2, notNowRetries: 0, retries: 0 });
    await notNowOf(http.request({ method: 'GET', url: `${fixture.url}/1` }));
    expect((await http.request({ method: 'GET', url: `${fixture.url}/2` })).response?.status).toBe(200);
    await notNowOf(http.request({ method: 'GET', url: `${fixture.url}/3` }));
    expect(http.refusing).toBeUndefined();
    await notNowOf(http.request({ method: 'GET', url: `${fixture.url}/4` }));
    expect(http.refusing).toMatch(/^the target answered 503 \(unavailable\) to 2 requests in a row, .*run again when it is up$/);
  });

  it('honours Retry-After on 429 (seconds and HTTP date)', async () => {
    let calls = 0;
    fixture = await startFixture((_req, res) => {
      calls++;
      if (calls === 1) return res.writeHead(429, { 'retry-after': '1' }).end();
      if (calls === 3) return res.writeHead(429, { 'retry-after': new Date(Date.now() + 1500).toUTCString() }).end();
      res.writeHead(200).end('ok');
    });
    const { http } = client({ maxBackoffMs: 5000 });
    let started = Date.now();
    const ex = await http.request({ method: 'GET', url: `${fixture.url}/x` });
    expect(ex.response?.status).toBe(200);
    expect(ex.attempts).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    started = Date.now();
    const second = await http.request({ method: 'GET', url: `${fixture.url}/y` });
    expect(second.attempts).toBe(2);
    // HTTP dates have whole seconds: between 0.5 and 1.5 s
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('does not wait past the run deadline', async () => {
    fixture = await startFixture((_req, res) => res.writeHead(429, { 'retry-after': '3' }).end());
    const { http } = client({ maxBackoffMs: 5000, deadline: Date.now() + 1000 });
    const started = Date.now();
    const err = await notNowOf(http.request({ method: 'GET', url: `${fixture.url}/x` }));
    expect(err.exchange.response?.status).toBe(429);
    expect(err.exchange.attempts).toBe(1);
    // It did not wait the 3-s Retry-After (which would end past the deadline): the bound is the wait it skipped.
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('timeouts follow the observed latency', () => {
  it('is HTTP_TIMEOUT_MS until 20 answers are in, then 5× their p99, capped', () => {
    const window = new LatencyWindow();
    expect(adaptiveTimeout(15_000, window.p99, 60_000)).toBe(15_000);
    for (let i = 0; i < 100; i++) window.add(i < 98 ? 100 : 4000);
    expect(window.p99).toBe(4000);
    expect(adaptiveTimeout(15_000, window.p99, 60_000)).toBe(20_000);
    expect(adaptiveTimeout(15_000, 100, 60_000)).toBe(15_000);
    expect(adaptiveTimeout(15_000, 30_000, 60_000)).toBe(60_000);
  });

  it('a slow link lengthens the timeout the client uses', async () => {
    // Answers of 1.2 s under a 3-s timeout: a loaded machine adds far less than the 1.8 s between them.
    fixture = await startFixture((_req, res) => setTimeout(() => res.writeHead(200).end('ok'), 1200));
    const { http } = client({ timeoutMs: 3000, maxTimeoutMs: 60_000 });
    // All at once: each answer still takes 1.2 s, so the window holds the same 20 latencies in one wait, not 20.
    const { url } = fixture;
    await Promise.all(Array.from({ length: 20 }, (_, i) => http.request({ method: 'GET', url: `${url}/${i}` })));
    expect(http.timeoutMs!()).toBeGreaterThanOrEqual(6000);
  });
});

describe('transport failures', () => {
  it("a POST not answered in time is ambiguous (never sent again, never the target's FAIL)", async () => {
    fixture = await startFixture(() => undefined); // never answers
    const { http } = client({ timeoutMs: 200 });
    const err = await ambiguousOf(http.request({ method: 'POST', url: `${fixture.url}/EnlacePago`, json: {} }));
    expect(err.message).toMatch(/^no response within 0.2 s from POST \/EnlacePago, after the request was sent: it is never sent again/);
    expect(err.exchange.response).toBeUndefined();
    expect(fixture.seen).toEqual(['POST /EnlacePago']);
  });

  it('a GET not answered in time is sent again, then names the timeout and the request', async () => {
    fixture = await startFixture(() => undefined); // never answers
    const { http } = client({ timeoutMs: 200, retries: 1 });
    const err = await thrown(http.request({ method: 'GET', url: `${fixture.url}/x` }));
    expect(err.message).toBe('no response within 0.2 s from GET /x');
    expect(err.exchange.attempts).toBe(2);
  });

  it('times out a body that trickles', async () => {
    fixture = await startFixture((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const { http } = client({ timeoutMs: 300, retries: 0 });
    const err = await thrown(http.request({ method: 'GET', url: `${fixture.url}/slow` }));
    expect(err.message).toBe('no response within 0.3 s from GET /slow');
  });

  it('names a refused connection, retrying only the GET', async () => {
    const port = await freePort();
    const { http } = client({ retries: 2 });
    const post = await thrown(http.request({ method: 'POST', url: `http://127.0.0.1:${port}/EnlacePago`, json: {} }));
    expect(post.message).toBe(`connection refused by 127.0.0.1:${port} (POST /EnlacePago)`);
    expect(post.exchange.attempts).toBe(1);
    const get = await thrown(http.request({ method: 'GET', url: `http://127.0.0.1:${port}/x` }));
    expect(get.exchange.attempts).toBe(3);
  });

  it('names the request without the card data of its query', async () => {
    const { http } = client({ deadline: Date.now() - 1, runTimeoutS: 900 });
    const err = await thrown(
      http.request({ method: 'GET', url: 'http://127.0.0.1:9/pagar/x?numeroTarjeta=4111111111111111&cvv=987&cuotas=1' }),
    );
    expect(err.message).toBe(
      'the whole-run bound of 900 s was reached before GET /pagar/x?numeroTarjeta=411111******1111&cvv=[REDACTED:cvv-3-digits]&cuotas=1',
    );
  });

  it('stops at the whole-run bound', async () => {
    const { http } = client({ deadline: Date.now() - 1, runTimeoutS: 900 });
    const err = await thrown(http.request({ method: 'GET', url: 'http://127.0.0.1:9/TransaccionCompra/x' }));
    expect(err.message).toBe('the whole-run bound of 900 s was reached before GET /TransaccionCompra/x');
  });
});

describe('responses', () => {
  it('records a JSON parse error instead of throwing', async () => {
    fixture = await startFixture((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(req.url === '/html' ? '<html>oops</html>' : req.url === '/empty' ? '' : '{"a": [1, 2');
    });
    const { http } = client();
    const html = await http.request({ method: 'GET', url: `${fixture.url}/html` });
    expect(html.response?.json).toBeUndefined();
    expect(html.response?.jsonError).toMatch(/JSON/);
    expect(html.response?.bodyText).toBe('<html>oops</html>');
    const cut = await http.request({ method: 'GET', url: `${fixture.url}/cut` });
    expect(cut.response?.jsonError).toBeTruthy();
    const empty = await http.request({ method: 'GET', url: `${fixture.url}/empty` });
    expect(empty.response?.jsonError).toBe('empty body with a JSON content type');
  });

  it('parses JSON and keeps headers; does not follow redirects', async () => {
    fixture = await startFixture((req, res) => {
      if (req.url === '/r') return res.writeHead(302, { location: '/elsewhere', 'set-cookie': ['a=1', 'b=2'] }).end();
      res.writeHead(200, { 'content-type': 'application/problem+json' }).end('{"monto":10.00}');
    });
    const { http, recorder } = client();
    const ex = await http.request({ method: 'GET', url: `${fixture.url}/j`, label: 'getTransaction' });
    expect(ex.response?.json).toEqual({ monto: 10 });
    expect(ex.label).toBe('getTransaction');
    const r = await http.request({ method: 'GET', url: `${fixture.url}/r` });
    expect(r.response?.status).toBe(302);
    expect(r.response?.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(fixture.seen).toEqual(['GET /j', 'GET /r']);
    expect(recorder.drain().map((e) => e.response?.status)).toEqual([200, 302]);
  });

  it('reads at most maxResponseBytes of a 10 MB body, with bounded memory', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let written = 0;
    fixture = await startFixture((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (written < 10 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => undefined);
      pump();
    });
    const { http } = client({ maxResponseBytes: 1024 * 1024 });
    const before = process.memoryUsage();
    const ex = await http.request({ method: 'GET', url: `${fixture.url}/big` });
    const after = process.memoryUsage();
    expect(ex.response?.truncated).toBe(true);
    expect(ex.response?.bodyText.length).toBe(1024 * 1024);
    expect(ex.response?.jsonError).toMatch(/truncated/);
    const growth = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    expect(growth).toBeLessThan(8 * 1024 * 1024);
    expect(written).toBeLessThan(10 * 1024 * 1024);
  });

  it('summarises binary bodies but keeps their bytes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2]);
    fixture = await startFixture((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    const { http, recorder } = client();
    const ex = await http.request({ method: 'GET', url: `${fixture.url}/qr.png` });
    expect(ex.response?.bytes?.equals(png)).toBe(true);
    expect(ex.response?.bodyText).toBe('[binary body: 11 bytes, image/png]');
    expect(recorder.drain()[0]?.response?.bytes).toBeUndefined();
  });

  it('gives the recorder a redacted copy', async () => {
    fixture = await startFixture((_req, res) => res.writeHead(200).end());
    const registry = new SecretRegistry();
    registry.add('tok-abcdef-123', 'access-token');
    const recorder = new Recorder({ registry });
    http = createHttp({ timeoutMs: 2000, retries: 0, maxResponseBytes: 1024, recorder });
    await http.request({
      method: 'POST',
      url: `${fixture.url}/x`,
      headers: { Authorization: 'Bearer tok-abcdef-123' },
      json: { numeroTarjeta: '4111111111111111', cvv: '123' },
    });
    const [recorded] = recorder.drain();
    expect(JSON.stringify(recorded)).not.toContain('tok-abcdef-123');
    expect(recorded?.request.bodyText).toBe('{"numeroTarjeta":"411111******1111","cvv":"[REDACTED:cvv, a string of 3 digits]"}');
    expect(recorded?.curl).toContain('$ACCESS_TOKEN');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
