/**
 * The seeded sample of `npm run mutation:stryker`: every mutant of the sandbox's behaviour is enumerated with
 * Stryker's own instrumenter (and the plumbing ignorer), named by a key that does not depend on ids (file, place,
 * mutator, replacement), and a seeded hash ranks them: the N first are the sample: the same seed and sources, the same sample.
 * The `sample` checker plugin lets Stryker test only those: a mutant outside the sample is reported as not checked
 * ("CompileError", which Stryker's score leaves out), with that reason.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Mutant } from '@stryker-mutator/api/core';
import { CheckStatus, type Checker, type CheckResult } from '@stryker-mutator/api/check';
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';
import { sandboxPlumbing } from './ignorers.ts';

/** What the sandbox mutants are: the behaviour, not the catalogues of faults and variants nor the command line. */
export const MUTATE = ['sandbox/**/*.ts', '!sandbox/faults.ts', '!sandbox/variants.ts', '!sandbox/cli.ts', '!sandbox/env-line.ts'];

/** The environment variable naming the file with the sampled keys (read by the checker in Stryker's child process). */
export const SAMPLE_FILE_ENV = 'STRYKER_SAMPLE_FILE';
export const OUTSIDE_SAMPLE = 'outside the seeded sample (not run)';

type Located = Pick<Mutant, 'fileName' | 'mutatorName' | 'replacement' | 'location'>;

/**
 * A mutant's identity across runs: where (relative file, start and end as Stryker's API gives them: lines and columns
 * from 0), which mutator, what replacement.
 */
export function mutantKey(m: Located, root: string = process.cwd()): string {
  const { start, end } = m.location;
  const file = relative(root, m.fileName).replaceAll('\\', '/');
  return `${file}:${start.line}:${start.column}-${end.line}:${end.column} ${m.mutatorName} ${m.replacement ?? ''}`;
}

/**
 * N keys drawn from `keys`: those whose seeded hash ranks lowest. The same seed and pool give the same sample, whatever
 * order the keys were found in; a mutant added to or removed from the pool (a source or the ignorer changed) moves
 * at most one mutant of the sample, so a sample stays comparable from one commit to the next.
 */
export function seededSample(keys: string[], n: number, seed: number): string[] {
  const rank = (key: string): string => createHash('sha256').update(`${seed}\n${key}`).digest('hex');
  return [...new Set(keys)]
    .map((key) => ({ key, rank: rank(key) }))
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))
    .slice(0, Math.max(0, n))
    .map((r) => r.key);
}

export interface Enumeration {
  /** Mutants Stryker would test (not ignored). */
  mutants: Located[];
  /** Mutants the ignorer removed, by reason. */
  ignored: Record<string, number>;
  files: number;
}

/** Every mutant of `files` (absolute paths), found by Stryker's instrumenter with the plumbing ignorer. */
export async function enumerate(files: string[]): Promise<Enumeration> {
  const { Instrumenter } = await import('@stryker-mutator/instrumenter');
  const quiet = {
    isDebugEnabled: () => false,
    debug() {},
    info() {},
    warn() {},
    error() {},
    trace() {},
    fatal() {},
    isTraceEnabled: () => false,
    isInfoEnabled: () => false,
    isWarnEnabled: () => false,
    isErrorEnabled: () => false,
    isFatalEnabled: () => false,
  };
  // biome-ignore lint/suspicious/noExplicitAny: Stryker's logger type is wider than what the instrumenter calls.
  const instrumenter = new Instrumenter(quiet as any);
  const result = await instrumenter.instrument(
    files.map((name) => ({ name, content: readFileSync(name, 'utf8'), mutate: true })),
    { plugins: null, ignorers: [sandboxPlumbing], excludedMutations: [] },
  );
  const ignored: Record<string, number> = {};
  const mutants: Located[] = [];
  for (const m of result.mutants) {
    if (m.status === 'Ignored') ignored[m.statusReason ?? 'ignored'] = (ignored[m.statusReason ?? 'ignored'] ?? 0) + 1;
    else mutants.push(m);
  }
  return { mutants, ignored, files: files.length };
}

/** The checker: passes the sampled mutants, reports every other one as outside the sample. */
function sampleChecker(): Checker {
  let keys = new Set<string>();
  return {
    async init() {
      const file = process.env[SAMPLE_FILE_ENV];
      if (!file) throw new Error(`${SAMPLE_FILE_ENV} is not set: run through npm run mutation:stryker`);
      keys = new Set(JSON.parse(readFileSync(file, 'utf8')) as string[]);
    },
    async check(mutants: Mutant[]) {
      const results: Record<string, CheckResult> = {};
      for (const m of mutants)
        results[m.id] = keys.has(mutantKey(m))
          ? { status: CheckStatus.Passed }
          : { status: CheckStatus.CompileError, reason: OUTSIDE_SAMPLE };
      return results;
    },
  };
}

export const strykerPlugins = [declareValuePlugin(PluginKind.Checker, 'sample', sampleChecker())];
