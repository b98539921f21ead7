/**
 * What the network did, as the reports tell it (harness/record/network.ts, reporters/records.ts, reporters/summary.ts):
 * each test's tally summed in summary.json, a console line, a summary.md section with every ambiguous answer and how it
 * was settled; and the run a target stopped by refusing every request "not now" exits 2 (the set-up), not 1.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarize, type ReportedTest, type RunInfo } from '../../reporters/records.ts';
import { renderConsole, writeSummary } from '../../reporters/summary.ts';
import { exitCodeOf, EXIT } from '../../reporters/exit-codes.ts';
import { describeTally, emptyTally, eventful, type NetworkTally } from '../../harness/record/network.ts';

const run: RunInfo = {
  specVersion: '1',
  suiteVersion: '1',
  startedAt: '2026-01-01T00:00:00Z',
  durationMs: 1,
  outcome: 'passed',
  notes: [],
};
const record = (r: Partial<ReportedTest>): ReportedTest => ({
  file: 'suites/x.test.ts',
  name: 'x',
  status: 'pass',
  durationMs: 1,
  clauses: [],
  endpoint: 'flow',
  observations: [],
  ...r,
});
const tally = (t: Partial<NetworkTally>): NetworkTally => ({ ...emptyTally(), ...t });

describe('what the network did, in the reports', () => {
  it("sums the tests' tallies, says it in one console line and lists each ambiguous answer with how it was settled", () => {
    const tests = [
      record({ name: 'a', network: tally({ retries: 3, tooMany: 2, unavailable: 1, pacedMs: 4200 }) }),
      record({
        name: 'b',
        status: 'skip',
        skipKind: 'undecidable',
        network: tally({ ambiguous: [{ request: 'POST /TransaccionCompra/Billetera', answer: '502' }] }),
      }),
      record({
        name: 'c',
        network: tally({ ambiguous: [{ request: 'POST /EnlacePago', answer: 'connection dropped', settled: 'another one was created' }] }),
      }),
      record({ name: 'd' }),
    ];
    const s = summarize(run, tests, []);
    expect(s.network).toMatchObject({ retries: 3, tooMany: 2, unavailable: 1, pacedMs: 4200, tests: 3 });
    expect(s.network?.ambiguous).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), 'network-report-'));
    expect(renderConsole(s, dir)).toContain(
      'Network: 3 retries · 2 × 429 · 1 × 503 · paced 4.2 s · 2 ambiguous answers (1 settled), in 3 tests (times summed over tests; summary.md)',
    );
    writeSummary(s, dir);
    const md = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(md).toContain('## What the network did');
    expect(md).toContain('| POST /TransaccionCompra/Billetera | 502 | not settled: the test is not judged (undecidable) |');
    expect(md).toContain('| POST /EnlacePago | connection dropped | another one was created |');
  });

  it('says nothing when the network did nothing', () => {
    expect(eventful(emptyTally())).toBe(false);
    expect(eventful(tally({ pacedMs: 500 }))).toBe(false);
    expect(describeTally(emptyTally())).toBe('nothing');
    expect(summarize(run, [record({})], []).network).toBeUndefined();
  });

  it('a run the target stopped by refusing every request "not now" exits 2, with its one line as the abort', () => {
    const refusing =
      'the target refused 8 requests in a row for rate (429), each sent 7 times over 6.1 s: set MAX_RPS=5 (or lower) and run again';
    const s = summarize(
      { ...run, abort: refusing },
      [
        record({ name: 'a', status: 'skip', skipKind: 'rate-limited' }),
        record({ name: 'b', status: 'notRun', reason: refusing }),
        record({ file: '', name: 'run stopped', status: 'error', error: refusing }),
      ],
      [],
    );
    expect(exitCodeOf(s, 1)).toBe(EXIT.setup);
  });
});
