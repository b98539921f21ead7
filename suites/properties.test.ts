/**
 * Spec 4, 7, 8 — the stated validation rules as fast-check properties, over the catalogue of generators/requests.ts:
 * - a body that violates exactly this rule is rejected with a 4xx (never a 2xx or a 5xx), and creates nothing
 *   (seen through the test-control stats, where the target has them);
 * - a body at the valid boundary is accepted, and its field comes back as sent where the response or the link
 *   record shows it.
 * Only rules are explored: what the spec merely describes (catalogue entries of kind description, such as 4.3's ISO
 * codes) is never failed, and validation.test.ts observes its canonical examples (docs/decisions.md, "Severity").
 * Every body is checked against the contract before it is sent (fc.pre: a body that does not break exactly the rule
 * is never sent, and shrinking cannot wander into valid input), and a counterexample is checked again before it is
 * reported. FC_NUM_RUNS and FC_SEED come from the configuration; FC_PATH (a fast-check path) replays one
 * counterexample: a failure prints the one command that does it.
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import {
  catalogue,
  onlyCoercibleTypes,
  validProblem,
  violatesOnly,
  withUniqueRef,
  type Body,
  type RuleEntry,
} from '../generators/requests.ts';
import { acceptsValid, bodyContext, bodyTestSpec, echoedBack, sendBody } from './flows/bodies.ts';
import {
  checkAhead,
  CheckFailure,
  clauseTest,
  counterexampleFound,
  createdNothing,
  type Exchange,
  redactValue,
  rejected,
  succeeded,
  type TestHandle,
  testName,
} from '../harness/index.ts';

const FILE = 'suites/properties.test.ts';

/** FC_PATH, read here only (the property suite is its one user); a bad value stops the file with one line. */
function replayPath(value = process.env['FC_PATH']): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d+(:\d+)*$/.test(value.trim())) {
    throw new Error(
      `FC_PATH must be a fast-check path, digits separated by colons as a failing property prints it (example: ` +
        `FC_PATH=4:1:0); got "${value}". Unset it to explore instead of replaying.`,
    );
  }
  return value.trim();
}
const PATH = replayPath();

/** One seed per run when FC_SEED is unset, so that every property of the run can be replayed with the same one. */
const RANDOM_SEED = (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;

/**
 * The one command that reruns this property alone (and, with a path, exactly its counterexample), against the same
 * target: the embedded sandbox's fault is repeated; a remote target's variables are the user's own (.env).
 */
function replayCommand(t: TestHandle, seed: number, path: string | undefined, title: string): string {
  const pattern = title.replace(/[^A-Za-z0-9 .:-]/g, '.');
  const fault = t.run.target.kind === 'embedded' && t.run.config.sandbox.fault ? `SANDBOX_FAULT=${t.run.config.sandbox.fault} ` : '';
  return `${fault}FC_SEED=${seed}${path ? ` FC_PATH=${path}` : ''} npm run conformance -- ${FILE} -t '${pattern}'`;
}

type Kind = 'violating' | 'boundary';

interface Property {
  /** The test's full name (clause ids and title): what the replay command selects. */
  name: string;
  clauses: string[];
  /** What the property claims, for the failure message. */
  statement: string;
  arbitrary: fc.Arbitrary<Body>;
  /** Why a body (as sent) does not belong to the property, or undefined: checked before each request and on the counterexample. */
  misfit: (body: Body) => string | undefined;
  /** Sends the body (as sent) and checks the answer; throws a CheckFailure when the target breaks the rule. */
  check: (body: Body) => Promise<void>;
}

/**
 * Runs a property with the run's numRuns and seed (and FC_PATH). A failure is reported with the shrunk
 * counterexample, re-checked to still belong to the property, and the command that replays it; a transport error
 * (timeout, refused connection, interlock) stops the property at once and is reported as itself, not shrunk.
 */
async function property(t: TestHandle, p: Property): Promise<void> {
  const seed = t.run.config.fastCheck.seed ?? RANDOM_SEED;
  t.replay(seed, replayCommand(t, seed, undefined, p.name));
  let broken: unknown;
  const params = { numRuns: t.run.config.fastCheck.numRuns, seed, ...(PATH ? { path: PATH } : {}) };
  // The cases are checked ahead, MAX_CONCURRENCY at a time; the run below replays their outcomes (harness/judge/property-cases.ts).
  const ahead = await checkAhead(
    p.arbitrary,
    params,
    async (g) => {
      const body = withUniqueRef(g);
      if (p.misfit(body) === undefined) await p.check(body);
    },
    t.run.config.maxConcurrency,
    (err) => !(err instanceof CheckFailure),
  );
  const details = await fc.check(
    fc.asyncProperty(p.arbitrary, async (generated) => {
      if (broken !== undefined) throw broken;
      const body = withUniqueRef(generated);
      // never send a body outside the property: such values are skipped, so shrinking cannot reach them either
      fc.pre(p.misfit(body) === undefined);
      try {
        await (ahead(generated) ?? p.check(body));
      } catch (err) {
        if (!(err instanceof CheckFailure)) broken = err;
        throw err;
      }
    }),
    params,
  );
  if (broken !== undefined) throw broken;
  if (!details.failed) return;
  const path = details.counterexamplePath ?? '';
  if (details.counterexample === null) {
    throw new Error(
      `suite error, not a finding: the property could not run ` +
        `(${String(details.errorInstance ?? `${details.numSkips} generated bodies skipped`)}; seed ${seed}): see generators/requests.ts`,
    );
  }
  const [body] = details.counterexample;
  const misfit = p.misfit(withUniqueRef(body));
  if (misfit !== undefined)
    throw new Error(
      `suite error, not a finding: the shrunk counterexample does not belong to the property (${misfit}); seed ${seed}, path ${path}`,
    );
  const command = replayCommand(t, seed, path, p.name);
  t.replay(seed, command);
  counterexampleFound(p.clauses, p.statement, {
    error: details.errorInstance,
    counterexample: JSON.stringify(redactValue(body)),
    seed,
    path,
    shrinks: details.numShrinks,
    command,
  });
}

/** The entry rebuilt with the run's data (the MPOS business id only for the rule about it). */
async function runEntry(t: TestHandle, entry: RuleEntry, kind: Kind): Promise<RuleEntry> {
  const ctx = await bodyContext(t, kind === 'boundary' && entry.rule === '4.7-idaplicativo-conditional');
  return catalogue(ctx).find((e) => e.operationId === entry.operationId && e.rule === entry.rule)!;
}

/**
 * One fault, one finding: when the rule already fails on its first canonical example (validation.test.ts's testcase
 * of the rule reports that, with the example), the property skips saying so; it explores beyond the canonical
 * examples only where they hold.
 */
async function skipWhenCanonicalBroken(t: TestHandle, e: RuleEntry, kind: Kind): Promise<void> {
  const example = e.canonical[kind][0];
  if (!example) return;
  const ex = await sendBody(t, e.operationId, withUniqueRef(example.body), e.auth);
  const s = ex.response?.status ?? 0;
  const holds = kind === 'violating' ? s >= 400 && s <= 499 : s >= 200 && s <= 299;
  if (!holds) {
    t.skip(
      'premise-elsewhere',
      `the canonical ${kind === 'violating' ? 'violation' : 'boundary'} "${example.label}" was ` +
        `${kind === 'violating' ? 'not rejected' : 'refused'} (${s || 'no answer'}): reported by the rule's testcase ` +
        `in validation.test.ts; the property explores beyond it once it holds`,
    );
  }
}

describe('a body that violates exactly one stated rule is rejected (4xx)', () => {
  for (const entry of catalogue().filter((e) => e.violating && e.kind === 'rule')) {
    const clauses = [entry.rule, '7-violations-rejected'];
    const title = `${entry.operationId}: any body violating only ${entry.rule} is rejected`;
    // Its own tenant where the target has them: the counters around the property count only its requests.
    clauseTest({ ...bodyTestSpec(entry, clauses, []), tenant: true }, title, async (t) => {
      const e = await runEntry(t, entry, 'violating');
      await skipWhenCanonicalBroken(t, e, 'violating');
      // and creates nothing: read from its own tenant's test-control stats around the whole property, where the
      // target has tenants (elsewhere validation.test.ts's "creates nothing" tests skip, saying why)
      const stats = t.run.tenantId !== undefined ? t.run.control : undefined;
      // Its positive control first (rejections say nothing where the operation accepts nothing), before the counters.
      await acceptsValid(t, e.operationId);
      const before = await stats?.stats();
      const name = testName(clauses, title);
      let last: Exchange | undefined;
      // Bodies breaking only a JSON type that were accepted: observed, not failed (section 7 lists no type rule).
      const coerced: string[] = [];
      await property(t, {
        name,
        clauses,
        statement: `any body violating only ${e.rule} (${e.statement}) is rejected`,
        arbitrary: e.violating!,
        misfit: (body) => violatesOnly(t.run.contract, e, body),
        check: async (body) => {
          const ex = await sendBody(t, e.operationId, body, e.auth);
          const s = ex.response?.status ?? 0;
          const types = s >= 200 && s < 300 ? onlyCoercibleTypes(t.run.contract, e.operationId, body) : undefined;
          if (types !== undefined) {
            coerced.push(types);
            return;
          }
          last = ex;
          rejected(ex, clauses, e.statement);
        },
      });
      if (coerced.length > 0) {
        t.observe(
          e.rule,
          `${coerced.length} generated bodies breaking only a JSON type were accepted ` +
            `(${[...new Set(coerced)].slice(0, 3).join('; ')}); section 7 lists no type rule, and a lenient server coerces`,
        );
        return;
      }
      const after = await stats?.stats();
      if (before && after) {
        const seed = t.run.config.fastCheck.seed ?? RANDOM_SEED;
        createdNothing(
          before,
          after,
          clauses,
          last,
          `over all the bodies of the property (seed ${seed}; replay: ${replayCommand(t, seed, undefined, name)})`,
        );
      }
    });
  }
});

describe('a body at the valid boundary of a stated rule is accepted and comes back as sent', () => {
  for (const entry of catalogue().filter((e) => e.kind === 'rule')) {
    const clauses = [entry.rule];
    const record = entry.echo?.in === 'record';
    const title =
      `${entry.operationId}: any body at the valid boundary of ${entry.rule} is ` +
      `accepted${entry.echo ? ` and ${record ? 'stored' : 'answered'} as sent` : ''}`;
    clauseTest(bodyTestSpec(entry, clauses, record ? ['account'] : []), title, async (t) => {
      const e = await runEntry(t, entry, 'boundary');
      await skipWhenCanonicalBroken(t, e, 'boundary');
      await property(t, {
        name: testName(clauses, title),
        clauses,
        statement: `any valid body at the edge of ${e.rule} (${e.statement}) is accepted`,
        arbitrary: e.boundary,
        misfit: (body) => validProblem(t.run.contract, e.operationId, body),
        check: async (body) => {
          const ex = await sendBody(t, e.operationId, body, e.auth);
          succeeded(ex, clauses, `${e.operationId} with a valid body at the edge of ${e.rule}`);
          await echoedBack(t, e, body, ex, clauses);
        },
      });
    });
  }
});
