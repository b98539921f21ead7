/** The shard merge combines the contract testcases, which run in every shard, into one record each. */
import { describe, expect, it } from 'vitest';
import { combineContractTests } from '../../reporters/merge.ts';
import type { ReportedTest } from '../../reporters/records.ts';

const record = (over: Partial<ReportedTest>): ReportedTest => ({
  file: 'suites/contract.test.ts',
  name: '[4.1-response-fields] POST /EnlacePago responses conform to the contract',
  status: 'pass',
  durationMs: 1,
  clauses: ['4.1-response-fields'],
  endpoint: 'POST /EnlacePago',
  observations: [],
  ...over,
});

describe('combineContractTests', () => {
  it("one record per contract testcase: FAIL if any shard failed, with every failing shard's evidence", () => {
    const failure = (n: number) => ({
      check: 'contract',
      clauses: ['4.1-response-fields', '2.2-formapago-values'],
      expected: 'x',
      actual: `${n} of 4 broke it`,
      exchange: `> POST ${n}`,
      curl: `curl ${n}`,
    });
    const merged = combineContractTests([
      record({ status: 'pass' }),
      { ...record({}), file: 'suites/links.test.ts', name: 'other' },
      record({ status: 'fail', clauses: ['4.1-response-fields', '2.2-formapago-values'], failure: failure(1) }),
      record({ status: 'skip', reason: 'no response seen' }),
      record({ status: 'fail', failure: failure(2) }),
    ]);
    expect(merged.map((t) => t.name)).toEqual([record({}).name, 'other']);
    const [contract] = merged;
    expect(contract!.status).toBe('fail');
    expect(contract!.clauses).toEqual(['4.1-response-fields', '2.2-formapago-values']);
    expect(contract!.failure!.actual).toContain('1 of 4 broke it');
    expect(contract!.failure!.actual).toContain('2 of 4 broke it');
    expect(contract!.failure!.curl).toBe('curl 1\ncurl 2');
    expect(contract!.durationMs).toBe(4);
  });

  it('PASS when a shard saw responses and none failed; SKIP only when every shard skipped', () => {
    expect(combineContractTests([record({ status: 'skip', reason: 'r' }), record({ status: 'pass' })])[0]!.status).toBe('pass');
    expect(combineContractTests([record({ status: 'skip', reason: 'r' }), record({ status: 'skip', reason: 'r' })])[0]!.status).toBe(
      'skip',
    );
  });
});
