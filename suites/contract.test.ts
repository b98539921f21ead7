/**
 * The contract testcases (one fault, one finding): every response of every test, and every webhook, was validated
 * against spec/openapi.yaml by the run-wide observer (harness/run/contract-observer.ts) without failing the test that
 * caused it. Here each operation and direction gets one testcase, named by the type clause of its success body,
 * that fails when any of its responses broke the contract: with the number of responses per violated clause and the
 * first exchanges as evidence. It cites every clause found violated. A value that only does not look as the spec
 * describes it (a clause of kind description: a URL, an e-mail) or a nullable field left out (2-nullable-omitted) is
 * recorded as an observation, never a failure.
 *
 * Likewise every redirect (6.3) and every webhook signature seen in the run is judged here against the scheme the
 * tests configured or discovered (harness/discovery/run-schemes.ts): a scheme that verified one must verify all.
 *
 * suites/all.conformance.ts declares these testcases after every suite's, sequential, so vitest runs them once the
 * others have finished; they run in every selection and shard, and the shard merge combines its same-named testcases
 * (reporters/merge.ts).
 */
import { describe } from 'vitest';
import {
  CheckFailure,
  clauseTest,
  type ContractRecord,
  describeRedirectScheme,
  describeWebhookSignature,
  EARLY_REFUSAL_TESTCASE,
  earlyRefusals,
  fail,
  holds,
  type JudgedEvidence,
  loadContract,
  type Need,
  PURCHASE_OPERATIONS,
  webhookField,
} from '../harness/index.ts';

const contract = await loadContract();

/** The testcase's failure: counts per clause, then each kept exchange with its curl line. */
function violationsOf(record: ContractRecord, what: string, clauses: string[]): JudgedEvidence {
  const perClause = [...record.clauses]
    .sort((a, b) => b[1].count - a[1].count)
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
const NEEDS: Partial<Record<string, Need[]>> = {
  deleteAccount: ['deletion'],
  activatePaymentLink: ['account'],
  purchasePagoQr: ['account'],
};

const directions = [
  ...Object.entries(contract.operations).map(([operationId, op]) => ({
    operationId,
    clauses: op.typeClauses,
    endpoint: `${op.method} ${op.path}`,
    what: `${op.method} ${op.path} response`,
    needs: NEEDS[operationId] ?? [],
  })),
  {
    operationId: 'webhook',
    clauses: contract.webhookTypeClauses,
    endpoint: 'POST {urlWebhook}',
    what: 'webhook body received (6.1)',
    needs: [],
  },
];

describe('the contract of every response and webhook seen in this run', () => {
  for (const d of directions) {
    const title = d.operationId === 'webhook' ? 'webhooks conform to the contract' : `${d.endpoint} responses conform to the contract`;
    clauseTest({ clauses: d.clauses, endpoint: d.endpoint, needs: d.needs }, title, async (t) => {
      const record = t.run.contractRecord(d.operationId);
      if (!record || record.seen === 0) {
        return t.skip(
          'nothing-to-judge',
          `no ${d.what} was seen in this run (a filtered or sharded run, or a need the target lacks): nothing to judge`,
        );
      }
      if (record.broken === 0 && record.successes === 0) {
        // Only refusals (error bodies are not shown by the spec) or 429/503: the body contract was never exercised.
        return t.skip(
          'nothing-to-judge',
          `no successful ${d.what} was seen in this run (${record.seen} response(s), none 2xx): its body contract was not judged`,
        );
      }
      // values that do not look as the spec describes them (a format of kind description), nullable fields left out: WARN, never FAIL
      for (const [clause, { count, first }] of record.observed) t.observe(clause, `${count} of ${record.seen} ${d.what}s: ${first}`);
      if (record.broken === 0) return;
      const violated = [...record.clauses.keys()];
      t.cite(violated);
      throw new CheckFailure(violationsOf(record, d.what, [...new Set([...d.clauses, ...violated])]));
    });
  }
});

/**
 * Later redirects and webhooks verify with the run's scheme. Not judged where no scheme verified the reference (the
 * tests of suites/3ds.test.ts and suites/webhooks.test.ts report that, once), nor where nothing else was seen.
 */
describe('the redirect hash and webhook signature of everything seen in this run', () => {
  clauseTest(
    { clauses: '6.3-redirect-hash', endpoint: 'flow', needs: ['hash'] },
    "every redirect's hash verifies with the run's scheme",
    async (t) => {
      const hashes = t.run.hash!;
      const broken: string[] = [];
      let judged = 0;
      for (const kind of ['api', 'link'] as const) {
        const seen = hashes.recorded(kind);
        if (seen.length === 0) continue;
        const ref = await (hashes.known(kind) ?? hashes.reference(seen[0]!));
        if (!ref.scheme) {
          if (kind === 'link' && ref.source === 'discovered')
            t.observe(
              '6.3-hash-algorithm-not-shown',
              `no candidate scheme made a link payment's redirect hash verify (REDIRECT_HASH=auto); tried ${ref.tried}`,
            );
          continue;
        }
        if (kind === 'link' && ref.source === 'discovered')
          t.observe(
            '6.3-hash-algorithm-not-shown',
            `link payments' redirect hash scheme discovered: ${describeRedirectScheme(ref.scheme)}`,
          );
        const failing = seen.filter((p) => !hashes.verifies(p, ref));
        // A configured scheme that verifies none of them is one finding, the 3DS test's (or a wrong setting).
        if (ref.source === 'configured' && failing.length === seen.length) continue;
        judged += seen.length;
        for (const p of failing.slice(0, 5))
          broken.push(
            `idTransaccion ${p['idTransaccion'] ?? '?'} ` +
              `(${kind === 'link' ? `link ${p['idEnlace']}` : 'API payment'}): hash ${(p['hash'] ?? '').slice(0, 12) || '(none)'}…`,
          );
        if (failing.length > 5) broken.push(`… and ${failing.length - 5} more`);
      }
      if (judged === 0)
        return t.skip('premise-elsewhere', 'no redirect was judged: none seen, or no scheme verified one (reported by the 3DS hash test)');
      holds(
        broken.length === 0,
        'hash-verifies',
        '6.3-redirect-hash',
        `every redirect of this run (${judged}) carries a hash that verifies with the run's scheme`,
        `${broken.length} did not:\n${broken.join('\n')}`,
      );
    },
  );

  clauseTest(
    { clauses: '6.1-webhook-signature-not-shown', endpoint: 'POST {urlWebhook}' },
    "every webhook's signature verifies with the run's scheme",
    async (t) => {
      const run = t.run;
      const ref = await run.signature?.known();
      if (!run.signature || !ref?.scheme)
        return t.skip(
          'premise-elsewhere',
          'no webhook signature scheme was configured or discovered in this run (reported by the webhook signature test)',
        );
      // A test-control tenant's webhooks are signed with its own secret (harness/run/run.ts): not the run's scheme.
      const seen = (await run.receiver()).webhooks().filter((w) => !w.oversized && w.method === 'POST' && !w.tag?.startsWith('tenant:'));
      const failing = seen.filter((w) => !run.signature!.verifies(w, ref));
      if (ref.source === 'configured' && failing.length === seen.length)
        return t.skip('premise-elsewhere', 'the configured signature verified no webhook (reported by the webhook signature test)');
      holds(
        failing.length === 0,
        'webhook-signature',
        '6.1-webhook-signature-not-shown',
        `every webhook of this run (${seen.length}) carries the ${describeWebhookSignature(ref.scheme)}`,
        `${failing.length} did not, e.g. to ${failing
          .slice(0, 3)
          .map((w) => w.path)
          .join(', ')}`,
      );
    },
  );
});

/**
 * 6.1 shows no delivery guarantee: a webhook delivered again after a 2xx answer, byte for byte, is at-least-once
 * delivery (a retry that crossed the answer, or the network) — a merchant's receiver deduplicates. Observed here once
 * per run, never in the test whose transaction it was, never a failure; the order of deliveries is never judged.
 */
describe('webhook deliveries of the whole run', () => {
  clauseTest(
    { clauses: '6.1-webhook-retries-not-shown', endpoint: 'POST {urlWebhook}' },
    'a webhook delivered again after a 2xx answer is observed once (at-least-once delivery), never failed',
    async (t) => {
      const seen = (await t.run.receiver()).webhooks().filter((w) => !w.oversized && w.method === 'POST');
      if (seen.length === 0) t.skip('nothing-to-judge', 'no webhook reached the receiver in this run');
      // Keyed by where it was sent and its exact bytes: a different body is another notification, judged where it is.
      const answered = new Map<string, number>();
      const again = new Map<string, { id: unknown; times: number }>();
      for (const w of seen) {
        const key = `${w.path}\n${w.rawBody.toString('base64')}`;
        if ((answered.get(key) ?? 0) > 0) {
          const dup = again.get(key) ?? { id: webhookField(w, 'idTransaccion', 'insensitive'), times: 1 };
          again.set(key, { ...dup, times: dup.times + 1 });
        }
        if (w.answeredStatus >= 200 && w.answeredStatus < 300) answered.set(key, (answered.get(key) ?? 0) + 1);
      }
      if (again.size === 0) return;
      const examples = [...again.values()]
        .slice(0, 3)
        .map((d) => `transaction ${JSON.stringify(d.id ?? null)} ${d.times} times`)
        .join(', ');
      t.observe(
        '6.1-webhook-retries-not-shown',
        `${again.size} of the run's webhooks were delivered again, byte for byte, after a 2xx answer (e.g. ${examples}): ` +
          'at-least-once delivery — a merchant deduplicates by idTransaccion',
      );
    },
  );
});

/**
 * 5.2: "A token need not be obtained for each request; it is reused until it expires." A 401 with a token still
 * inside its expires_in, confirmed by a second request with the same token (harness/api/client.ts), is recorded by
 * the run and judged here once; the tests that met it were not judged (their POST never re-sent) or re-sent their GET.
 */
describe('tokens of the whole run', () => {
  clauseTest({ clauses: [...EARLY_REFUSAL_TESTCASE.clauses], endpoint: 'POST /connect/token' }, EARLY_REFUSAL_TESTCASE, async () => {
    const seen = [...earlyRefusals];
    holds(
      seen.length === 0,
      'token-lifetime',
      ['5.2-token-reuse', '8-token-lifetime'],
      'every token accepted until its expires_in ran out (5.2: reused until it expires)',
      `${seen.length} request(s) refused with 401 while their token was inside its lifetime, e.g. ${seen
        .slice(0, 3)
        .map((r) => `${r.operationId} with a ${r.kind} ${r.ageS} s old (expires_in ${r.expiresInS})${r.test ? ` in ${r.test}` : ''}`)
        .join('; ')}`,
    );
  });
});

/**
 * A development business's run must never be told it is real: once the mode probe said development, a response, a
 * webhook or a redirect saying esReal, esProductiva or estaProductivo true stops every payment (the interlock) and is
 * the target's deviation, judged here once, whichever test's purchase met it first (the others were not run).
 */
describe('the mode of the whole run', () => {
  clauseTest(
    { clauses: ['2.2-esreal-test-not-charged', '6.1-webhook-esproductiva', '4.1-esta-productivo'], endpoint: 'flow' },
    'nothing the development business is answered says it is real or in production',
    async (t) => {
      const seen = t.run.interlock.contradiction;
      if (seen === undefined) {
        // Nothing said so: a pass only where something was answered that could have said it.
        const answered = ['createPaymentLink', ...PURCHASE_OPERATIONS].filter((op) => t.run.accepted.has(op));
        if (answered.length === 0)
          t.skip(
            'nothing-to-judge',
            'no link or purchase was accepted in this run: nothing could say the business is real or in production',
          );
        return;
      }
      const clause =
        seen.flag === 'esreal'
          ? '2.2-esreal-test-not-charged'
          : seen.flag === 'esproductiva'
            ? '6.1-webhook-esproductiva'
            : '4.1-esta-productivo';
      fail(
        'development-mode',
        clause,
        'a business the mode probe found in development is never told its transactions are real or productive',
        `${seen.where} said ${seen.flag} true: every payment after it was stopped (the interlock)`,
      );
    },
  );
});
