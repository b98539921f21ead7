/**
 * A property's cases checked ahead, several at a time. fast-check runs the cases of an async property one after
 * another, so against a remote target a property costs numRuns round trips end to end. `checkAhead` draws the very
 * values `fc.check` will draw (`fc.sample` with the same seed and numRuns yields the same sequence), checks them
 * `concurrency` at a time, and remembers each outcome by value; the property then asks `ahead(value)` first and
 * replays the remembered outcome, checking live only what was not drawn ahead (skipped-over values, shrinking).
 * fast-check itself still drives the run: seed, path, replay command and shrinking stay exactly what they were,
 * and every outcome it sees is the outcome of a real check of that value. With a path (FC_PATH: replay one
 * counterexample) nothing is checked ahead.
 *
 *   const ahead = await checkAhead(arb, { seed, numRuns }, (v) => check(v), 8, (err) => !(err instanceof CheckFailure));
 *   fc.asyncProperty(arb, async (v) => { …; await (ahead(v) ?? check(v)); })
 */
import fc from 'fast-check';

type Outcome = { error?: unknown; failed: boolean };

/** A key telling values apart as a request body would (undefined, NaN, ±Infinity and -0 kept distinct). */
function keyOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_k, v: unknown) => {
      if (v === undefined) return '\u0000undefined';
      if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return `\u0000${Object.is(v, -0) ? '-0' : String(v)}`;
      if (typeof v === 'bigint') return `\u0000${v}n`;
      return v;
    });
  } catch {
    return undefined;
  }
}

/**
 * Checks the first `numRuns` values of `arbitrary` under `seed`, `concurrency` at a time; stops drawing new ones
 * after an error for which `fatal` says true (a transport error, the interlock: the property stops on it anyway).
 * Returns the lookup: the remembered outcome of a value as a promise, or undefined when it was not checked ahead.
 */
export async function checkAhead<V>(
  arbitrary: fc.Arbitrary<V>,
  params: { seed: number; numRuns: number; path?: string },
  check: (value: V) => Promise<void>,
  concurrency: number,
  fatal: (err: unknown) => boolean,
): Promise<(value: V) => Promise<void> | undefined> {
  const outcomes = new Map<string, Outcome>();
  if (params.path === undefined && concurrency > 1) {
    const values = fc.sample(arbitrary, { seed: params.seed, numRuns: params.numRuns });
    let next = 0;
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop && next < values.length) {
        const value = values[next++]!;
        const key = keyOf(value);
        if (key === undefined || outcomes.has(key)) continue;
        const outcome: Outcome = { failed: false };
        outcomes.set(key, outcome);
        try {
          await check(value);
        } catch (err) {
          Object.assign(outcome, { error: err, failed: true });
          if (fatal(err)) stop = true;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, values.length) }, worker));
  }
  return (value) => {
    const key = keyOf(value);
    const outcome = key === undefined ? undefined : outcomes.get(key);
    if (!outcome) return undefined;
    return outcome.failed ? Promise.reject(outcome.error) : Promise.resolve();
  };
}
