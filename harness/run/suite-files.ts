/**
 * How the conformance project's one test file (suites/all.conformance.ts) declares the suite files: each as a
 * concurrent block named by its path, so every test of the run can be in flight at once (vitest runs the tests of one
 * file concurrently under `describe.concurrent`, never two files at once in one worker); then the contract testcases,
 * sequential, which vitest starts once the concurrent blocks before them have finished. Public vitest API only.
 *
 * Selection: CONFORMANCE_FILES (comma-separated paths or parts of them, as vitest's own file filter) and
 * CONFORMANCE_SHARD (`i/n`: shards balanced by test count, see shardFilter), set by `npm run conformance -- <files>`
 * and `-- --shard=i/n` (scripts/conformance.ts). The contract testcases run in every selection and shard.
 * CONFORMANCE_NAMES (a JSON array of test names, set by `--name`, `--failed` and a `-t` that is a pasted name) declares
 * only the tests of those exact names, the contract testcases among them: no pattern, so a name's `[ ] ( ) +` are
 * its own characters.
 */
import { afterAll, describe } from 'vitest';
import { runEnded, runStarted, whereTheTimeWent } from '../record/progress.ts';

/** The suite files to declare, as `<dir>/<name>`, in name order. */
export function selectSuites(dir: string, names: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const files = names.map((name) => `${dir}/${name}`).sort();
  const wanted = (env['CONFORMANCE_FILES'] ?? '')
    .split(',')
    .map((s) => s.trim().replace(/^\.\//, ''))
    .filter((s) => s !== '');
  const chosen = wanted.length === 0 ? files : files.filter((f) => wanted.some((w) => f.includes(w)));
  if (chosen.length === 0)
    throw new Error(`CONFORMANCE_FILES=${env['CONFORMANCE_FILES']} names no suite file; the suite files are ${files.join(', ')}`);
  shardOf(env); // a malformed shard fails before anything runs
  return chosen;
}

/** CONFORMANCE_SHARD as `{ index, count }` (1-based), or undefined for the whole run. */
export function shardOf(env: NodeJS.ProcessEnv = process.env): { index: number; count: number } | undefined {
  const given = env['CONFORMANCE_SHARD']?.trim() ?? '';
  if (given === '') return undefined;
  const shard = /^(\d+)\/(\d+)$/.exec(given);
  const [index, count] = [Number(shard?.[1]), Number(shard?.[2])];
  if (!shard || index < 1 || index > count)
    throw new Error(`CONFORMANCE_SHARD (--shard) must be i/n with 1 ≤ i ≤ n, e.g. 1/3 (got "${given}")`);
  return { index, count };
}

/**
 * Shards balanced by test count, not by file (files hold 1 to 28 tests), as Playwright's filterForShard balances:
 * the k-th test declared (files in name order, tests in declaration order: the same in every shard's process, since
 * vitest collects one block after another) belongs to shard (k mod n) + 1. Round robin rather than Playwright's
 * contiguous ranges, because vitest declares a file's tests only as it loads it, so the total is unknown while
 * declaring; nothing is set up per file, so keeping a file's tests together buys nothing. Returns "is the next
 * declared test in this shard?".
 */
export function shardFilter(shard: { index: number; count: number } | undefined): () => boolean {
  let declared = 0;
  return () => (shard === undefined ? true : declared++ % shard.count === shard.index - 1);
}

/** The exact names CONFORMANCE_NAMES selects (undefined: every test). */
function namesSelected(env: NodeJS.ProcessEnv = process.env): readonly string[] | undefined {
  const given = env['CONFORMANCE_NAMES']?.trim();
  if (!given) return undefined;
  const names = JSON.parse(given) as unknown;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
    throw new Error(`CONFORMANCE_NAMES must be a JSON array of test names (got ${given.slice(0, 80)})`);
  return names;
}

/**
 * Whether the test named `name` is selected by CONFORMANCE_NAMES: its name as declared, or as the console prints a
 * failure (`[clauses] suites/links.test.ts > name`: ending in ` > name`).
 */
export function selectedByName(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const names = namesSelected(env);
  return names === undefined || names.some((n) => n.trim() === name || n.trim().endsWith(` > ${name}`));
}

/** The filter of the block being loaded (undefined outside the sharded blocks: every test is declared). */
let loading: (() => boolean) | undefined;

/** Whether the test being declared belongs to this run's shard; clauseTest declares only those. */
export function declaredInShard(): boolean {
  return loading ? loading() : true;
}

/**
 * Declares the suites of `dir` (`load(name)` imports one, relative to the declaring file), then `last` (the contract
 * testcases) after them.
 */
export function declareSuites(dir: string, names: string[], load: (name: string) => Promise<unknown>, last?: string): void {
  // The progress line from the collection on: the first test may start long after (its tenant, the global setup).
  runStarted();
  const inShard = shardFilter(shardOf());
  for (const file of selectSuites(
    dir,
    names.filter((n) => n !== last),
  )) {
    // Not reset after the load: a file's own describe blocks are collected after this one returns (depth first).
    describe.concurrent(file, async () => {
      loading = inShard;
      await load(file.slice(dir.length + 1));
    });
  }
  // The run's last line of its own (stderr, beside the reporters' summary): where the time went.
  afterAll(() => {
    runEnded();
    if (process.env['CONFORMANCE_PROGRESS'] !== 'off') process.stderr.write(`${whereTheTimeWent()}\n`);
  });
  if (last) {
    describe.sequential(`${dir}/${last}`, async () => {
      loading = undefined; // the contract testcases run in every shard
      await load(last);
    });
  }
}
