/**
 * How the conformance project's one test file (suites/all.conformance.ts) declares the suite files: each as a
 * concurrent block named by its path, so every test of the run can be in flight at once (vitest runs the tests of one
 * file concurrently under `describe.concurrent`, never two files at once in one worker); then the contract testcases,
 * sequential, which vitest starts once the concurrent blocks before them have finished. Public vitest API only.
 *
 * Selection: CONFORMANCE_FILES (comma-separated paths or parts of them, as vitest's own file filter) and
 * CONFORMANCE_SHARD (`i/n`: every n-th suite file from the i-th), set by `npm run conformance -- <files>` and
 * `-- --shard=i/n` (scripts/conformance.ts). The contract testcases run in every selection and shard.
 */
import { afterAll, describe } from 'vitest';
import { whereTheTimeWent } from '../record/progress.ts';

/** The suite files to declare, as `<dir>/<name>`, in name order. */
export function selectSuites(dir: string, names: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const files = names.map((name) => `${dir}/${name}`).sort();
  const wanted = (env['CONFORMANCE_FILES'] ?? '').split(',').map((s) => s.trim().replace(/^\.\//, '')).filter((s) => s !== '');
  const chosen = wanted.length === 0 ? files : files.filter((f) => wanted.some((w) => f.includes(w)));
  if (chosen.length === 0) throw new Error(`CONFORMANCE_FILES=${env['CONFORMANCE_FILES']} names no suite file; the suite files are ${files.join(', ')}`);
  const given = env['CONFORMANCE_SHARD']?.trim() ?? '';
  if (given === '') return chosen;
  const shard = /^(\d+)\/(\d+)$/.exec(given);
  const [index, count] = [Number(shard?.[1]), Number(shard?.[2])];
  if (!shard || index < 1 || index > count) throw new Error(`CONFORMANCE_SHARD (--shard) must be i/n with 1 ≤ i ≤ n, e.g. 1/3 (got "${given}")`);
  return chosen.filter((_, i) => i % count === index - 1);
}

/**
 * Declares the suites of `dir` (`load(name)` imports one, relative to the declaring file), then `last` (the contract
 * testcases) after them.
 */
export function declareSuites(dir: string, names: string[], load: (name: string) => Promise<unknown>, last?: string): void {
  for (const file of selectSuites(dir, names.filter((n) => n !== last))) {
    describe.concurrent(file, async () => {
      await load(file.slice(dir.length + 1));
    });
  }
  // The run's last line of its own (stderr, beside the reporters' summary): where the time went (issue 29.5).
  afterAll(() => {
    if (process.env['CONFORMANCE_PROGRESS'] !== 'off') process.stderr.write(`${whereTheTimeWent()}\n`);
  });
  if (last) {
    describe.sequential(`${dir}/${last}`, async () => {
      await load(last);
    });
  }
}
