/**
 * Waiting is not working: the time a test's requests spend waiting out a Retry-After, a backoff or the rate
 * pacing is the run's, left out of the test's budget (harness/run/budget.ts withinBudget); each retry is a step of its
 * transcript and counted in its network tally (harness/record/network.ts); an ambiguous answer is noted there too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Recorder } from '../../harness/record/transcript.ts';
import { SecretRegistry } from '../../harness/record/redact.ts';
import { TestRecord, withRecord } from '../../harness/record/test-record.ts';
import { createHttp, type Http } from '../../harness/api/http.ts';
import { AmbiguousAnswerError } from '../../harness/api/errors.ts';
import { withinBudget } from '../../harness/run/budget.ts';
import { startFixture, type Fixture } from './server.ts';

let fixture: Fixture | undefined;
let http: Http | undefined;
afterEach(async () => {
  await http?.close();
  await fixture?.close();
  http = undefined;
  fixture = undefined;
});

const client = (extra: { maxRps?: number } = {}) =>
  (http = createHttp({
    timeoutMs: 2000,
    retries: 2,
    maxResponseBytes: 65_536,
    maxBackoffMs: 5000,
    maxConcurrency: 8,
    recorder: new Recorder({ registry: new SecretRegistry() }),
    ...extra,
  }));

describe("waits of the network are not the test's work", () => {
  it('a Retry-After waited out does not count against the budget, and is in the transcript and the tally', async () => {
    let calls = 0;
    fixture = await startFixture((_req, res) =>
      ++calls === 1 ? res.writeHead(429, { 'retry-after': '1' }).end() : res.writeHead(201).end(),
    );
    const h = client();
    const record = new TestRecord('waits');
    // A budget of 0.4 s, with a Retry-After of 1 s on the way: the test still ends in its budget.
    const ex = await withinBudget(
      record,
      400,
      withRecord(record, () => h.request({ method: 'POST', url: `${fixture!.url}/EnlacePago`, json: {} })),
    );
    expect(ex.response?.status).toBe(201);
    expect(record.waitedMs()).toBeGreaterThanOrEqual(900);
    expect(record.network).toMatchObject({ retries: 1, tooMany: 1, backoffMs: 1000 });
    expect(record.steps.map((s) => s.title)).toContainEqual(
      'POST /EnlacePago: answered 429 (Retry-After: 1), not processed; sent again after 1.0 s',
    );
    expect(record.toMeta().network).toMatchObject({ retries: 1, tooMany: 1 });
  });

  it('rate pacing is waited for outside the budget', async () => {
    fixture = await startFixture((_req, res) => res.writeHead(200).end());
    const h = client({ maxRps: 10 });
    const record = new TestRecord('paced');
    // 10 requests/s to start: the bucket's 10 go at once, the next 5 wait 0.1–0.5 s for their turn.
    await withRecord(record, () =>
      Promise.all(Array.from({ length: 15 }, (_, i) => h.request({ method: 'GET', url: `${fixture!.url}/${i}` }))),
    );
    expect(record.network.pacedMs).toBeGreaterThanOrEqual(1000);
    expect(record.waitedMs()).toBeGreaterThanOrEqual(400);
  });

  it('an ambiguous answer is noted in the tally, for the caller to write how it was settled', async () => {
    fixture = await startFixture((_req, res) => res.writeHead(502).end());
    const h = client();
    const record = new TestRecord('ambiguous');
    const err = await withRecord(record, () => h.request({ method: 'POST', url: `${fixture!.url}/EnlacePago`, json: {} })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AmbiguousAnswerError);
    expect(record.network.ambiguous).toEqual([{ request: 'POST /EnlacePago', answer: '502' }]);
    (err as AmbiguousAnswerError).settle('another link was created instead');
    expect(record.network.ambiguous[0]?.settled).toBe('another link was created instead');
    expect(fixture.seen).toEqual(['POST /EnlacePago']);
  });
});
