/**
 * The Stryker judge's oracle (scripts/stryker/findings.ts) on hand-built summaries: a mutant's run is compared with
 * the clean baseline by FAILs, observations and hangs (a request held without an answer), masked of ids and timings.
 */
import { describe, expect, it } from 'vitest';
import { findings, runOf } from '../../scripts/stryker/findings.ts';
import type { Summary } from '../../reporters/records.ts';

const test = (name: string, extra: Record<string, unknown> = {}) => ({ name, status: 'pass', observations: [], ...extra });
const summary = (tests: ReturnType<typeof test>[]): Summary => ({ run: {}, tests }) as unknown as Summary;
const held = (id: string, s: number) => ({
  ambiguous: [{ request: `POST /3ds/${id}`, answer: `no response within ${s} s`, settled: 'lookup: not processed' }],
});
const clean = { failed: [], errored: [], observations: [], hangs: [] };

describe("the Stryker judge's findings", () => {
  it('reads FAILs, observations and requests held without an answer; a dropped connection or a 502 is not a hang', () => {
    const run = runOf(
      summary([
        test('a', { status: 'fail' }),
        test('b', { status: 'warn', observations: [{ message: 'took 1234 ms' }] }),
        test('c', { status: 'skip', skipKind: 'undecidable', network: held('0b6e7a1c-2f4d-4c55-9a63-1f2e3d4c5b6a', 15) }),
        test('d', { status: 'skip', network: { ambiguous: [{ request: 'POST /EnlacePago', answer: 'connection dropped' }] } }),
        test('e', { status: 'skip', network: { ambiguous: [{ request: 'POST /EnlacePago', answer: '502' }] } }),
      ]),
    );
    expect(run).toEqual({
      failed: ['a'],
      errored: [],
      observations: ['b :: took <t>'],
      hangs: ['c :: POST /3ds/<id> no response within <t>'],
    });
  });

  it('a hang is a finding the clean run lacks, compared masked (another id, another bound)', () => {
    const first = runOf(summary([test('c', { network: held('0b6e7a1c-2f4d-4c55-9a63-1f2e3d4c5b6a', 15) })]));
    const again = runOf(summary([test('c', { network: held('9f8e7d6c-5b4a-4392-8a1b-0c9d8e7f6a5b', 22) })]));
    expect(findings(first, clean)).toEqual(['hang c :: POST /3ds/<id> no response within <t>']);
    expect(findings(again, clean)).toEqual(findings(first, clean));
    expect(findings(first, { ...clean, hangs: first.hangs })).toEqual([]);
  });
});
