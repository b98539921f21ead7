/**
 * The contract testcases (one fault, one finding): every response of every test, and every webhook, was validated
 * against spec/openapi.yaml by the run-wide observer (harness/contract-observer.ts) without failing the test that
 * caused it. Here each operation and direction gets one testcase, named by the type clause of its success body,
 * that fails when any of its responses broke the contract: with the number of responses per violated clause and the
 * first exchanges as evidence. It cites every clause found violated.
 *
 * suites/all.conformance.ts declares these testcases after every suite's, sequential, so vitest runs them once the
 * others have finished; they run in every selection and shard, and the shard merge combines its same-named testcases
 * (reporters/merge.ts).
 */
import { describe } from 'vitest';
import { clauseTest, type Need } from '../harness/conformance.ts';
import { CheckFailure } from '../harness/checks.ts';
import { loadContract } from '../harness/contract.ts';
import { contractRecord, WEBHOOK, type ContractRecord } from '../harness/contract-observer.ts';
import type { CheckEvidence } from '../harness/meta.ts';

const contract = await loadContract();

/** The testcase's failure: counts per clause, then each kept exchange with its curl line. */
function violationsOf(record: ContractRecord, what: string, clauses: string[]): CheckEvidence {
  const perClause = [...record.clauses].sort((a, b) => b[1].count - a[1].count)
    .map(([clause, t]) => `  ${clause}: ${t.count} of ${record.seen} — e.g. ${t.first}`);
  const shown = record.evidence.map((e, i) => [`--- ${i + 1}: ${e.actual}`, e.exchange ?? ''].join('\n'));
  const curls = record.evidence.filter((e) => e.curl).map((e, i) => `# ${i + 1}\n${e.curl}`);
  return {
    check: 'contract',
    clauses,
    expected: `every ${what} matches the contract of spec/openapi.yaml`,
    actual: [`${record.broken} of ${record.seen} broke it, by clause:`, ...perClause].join('\n'),
    exchange: shown.join('\n'),
    ...(curls.length > 0 ? { curl: curls.join('\n') } : {}),
  };
}

/** What a target must allow for responses of an operation to be seen at all (else the reason is the need's). */
const NEEDS: Partial<Record<string, Need[]>> = { deleteAccount: ['deletion'], activatePaymentLink: ['account'], purchasePagoQr: ['account'] };

const directions = [
  ...Object.entries(contract.operations).map(([operationId, op]) => ({
    operationId,
    clauses: op.typeClauses,
    endpoint: `${op.method} ${op.path}`,
    what: `${op.method} ${op.path} response`,
    needs: NEEDS[operationId] ?? [],
  })),
  { operationId: WEBHOOK, clauses: contract.webhookTypeClauses, endpoint: 'POST {urlWebhook}', what: 'webhook body received (6.1)', needs: [] },
];

describe('the contract of every response and webhook seen in this run', () => {
  for (const d of directions) {
    const title = d.operationId === WEBHOOK ? 'webhooks conform to the contract' : `${d.endpoint} responses conform to the contract`;
    clauseTest({ clauses: d.clauses, endpoint: d.endpoint, needs: d.needs }, title, async (t) => {
      const record = contractRecord(d.operationId);
      if (!record || record.seen === 0) {
        return t.skip(`no ${d.what} was seen in this run (a filtered or sharded run, or a need the target lacks): nothing to judge`);
      }
      if (record.broken === 0 && record.successes === 0) {
        // Only refusals (error bodies are not shown by the spec) or 429/503: the body contract was never exercised.
        return t.skip(`no successful ${d.what} was seen in this run (${record.seen} response(s), none 2xx): its body contract was not judged`);
      }
      if (record.broken === 0) return;
      const violated = [...record.clauses.keys()];
      t.cite(violated);
      throw new CheckFailure(violationsOf(record, d.what, [...new Set([...d.clauses, ...violated])]));
    });
  }
});
