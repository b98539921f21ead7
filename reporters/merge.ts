/**
 * Merges the reports of shards (`vitest run --shard=i/n`, each with its own REPORT_DIR) into one junit.xml,
 * summary.json and summary.md, as one unsharded run would have written them. Each shard's summary.json carries
 * every test record (evidence included), so the merge concatenates the records and rebuilds the tallies, the
 * coverage, the JUnit, index.html and the comparison with a BASELINE from them — the same code the reporters use.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { withBaseline, type FailOn } from './compare.ts';
import { renderJUnit } from './junit.ts';
import { summarize, type Clause, type RunInfo, type Summary, type ReportedTest } from './records.ts';
import { writeSummary } from './summary.ts';
import { WORST_FIRST } from '../harness/record/verdict.ts';

/** A problem with the input; its message is one line saying what to do. */
export class MergeError extends Error {
  override name = 'MergeError';
}

/**
 * `baseline` (BASELINE, already validated) compares the merged run with an earlier one, as a single run would.
 * The reports must be every shard of one run (`partial`: some of them), else a MergeError names what is wrong.
 */
export function mergeReports(
  dirs: string[],
  outDir: string,
  options: { baseline?: string; failOn?: FailOn; partial?: boolean } = {},
): Summary {
  if (dirs.length === 0) throw new MergeError('no shard report directory given');
  const unique = new Set(dirs.map((d) => resolve(d)));
  if (unique.size !== dirs.length) throw new MergeError('a shard report directory is given twice: each shard must be merged once');
  const shards = dirs.map(readShard);
  const partialNote = checkShardSet(dirs, shards, options.partial ?? false);

  const catalogue = new Map<string, Clause>();
  for (const s of shards)
    for (const c of s.clauses) if (!catalogue.has(c.id)) catalogue.set(c.id, { id: c.id, section: c.section, kind: c.kind, text: c.text });
  const run = mergeRunInfo(shards.map((s) => s.run));
  if (partialNote) run.notes = [...run.notes, partialNote];
  const merged = summarize(run, combineContractTests(shards.flatMap((s) => s.tests)), [...catalogue.values()]);
  const summary = withBaseline(merged, options.baseline, options.failOn);

  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'junit.xml'), renderJUnit(summary));
  writeSummary(summary, outDir);
  return summary;
}

/** The contract testcases' file: it runs in every shard, each judging the responses that shard saw. */
const CONTRACT_FILE = 'suites/contract.test.ts';

/**
 * One record per contract testcase across shards: FAIL when any shard's failed (its evidence kept, every failing
 * shard's in turn), else PASS when any shard saw responses, else SKIP; clauses and observations united.
 */
export function combineContractTests(tests: ReportedTest[]): ReportedTest[] {
  const out: ReportedTest[] = [];
  const byName = new Map<string, ReportedTest[]>();
  for (const t of tests) {
    if (t.file !== CONTRACT_FILE) {
      out.push(t);
      continue;
    }
    const same = byName.get(t.name);
    if (same) same.push(t);
    else {
      byName.set(t.name, [t]);
      out.push(t);
    }
  }
  return out.map((t) => (t.file === CONTRACT_FILE && byName.get(t.name)!.length > 1 ? combined(byName.get(t.name)!) : t));
}

// The worst of a test's records across shards wins (harness/record/verdict.ts WORST_FIRST; a status unknown, last).
const rank = (s: string): number => ((WORST_FIRST as readonly string[]).indexOf(s) + WORST_FIRST.length + 1) % (WORST_FIRST.length + 1);

function combined(records: ReportedTest[]): ReportedTest {
  const worst = [...records].sort((a, b) => rank(a.status) - rank(b.status))[0]!;
  const failing = records.filter((r) => r.failure);
  const failure = failing[0]?.failure
    ? {
        ...failing[0].failure,
        clauses: [...new Set(failing.flatMap((r) => r.failure!.clauses))],
        actual: failing
          .map((r, i) => (failing.length > 1 ? `shard ${i + 1} of ${failing.length} failing: ${r.failure!.actual}` : r.failure!.actual))
          .join('\n'),
        ...(failing.some((r) => r.failure!.exchange)
          ? {
              exchange: failing
                .map((r) => r.failure!.exchange)
                .filter(Boolean)
                .join('\n'),
            }
          : {}),
        ...(failing.some((r) => r.failure!.curl)
          ? {
              curl: failing
                .map((r) => r.failure!.curl)
                .filter(Boolean)
                .join('\n'),
            }
          : {}),
      }
    : undefined;
  const { failure: _f, ...base } = worst;
  return {
    ...base,
    durationMs: records.reduce((sum, r) => sum + r.durationMs, 0),
    clauses: [...new Set(records.flatMap((r) => r.clauses))],
    observations: records.flatMap((r) => r.observations),
    ...(failure ? { failure } : {}),
  };
}

function readShard(dir: string): Summary {
  const path = join(dir, 'summary.json');
  if (!existsSync(path)) throw new MergeError(`${path} not found: give the REPORT_DIR of each shard (each shard needs its own)`);
  let summary: Partial<Summary>;
  try {
    summary = JSON.parse(readFileSync(path, 'utf8')) as Partial<Summary>;
  } catch (err) {
    throw new MergeError(`${path} is not valid JSON (${(err as Error).message}): was the shard's run cut short while writing?`);
  }
  if (summary.format !== 'conformance-summary/1' || !Array.isArray(summary.tests) || !Array.isArray(summary.clauses) || !summary.run) {
    throw new MergeError(`${path} is not a conformance summary (format conformance-summary/1) written by reporters/summary.ts`);
  }
  return summary as Summary;
}

/**
 * The reports must be the shards of one run (the same run id: reporters/run-id.ts), each once, all of them unless
 * `partial`: a merge of some shards would pass as the whole run. Returns the note a partial merge carries.
 */
export function checkShardSet(dirs: string[], shards: Summary[], partial: boolean): string | undefined {
  const byIndex = new Map<number, string>();
  let count: { n: number; dir: string } | undefined;
  const runs = new Map<string, string[]>();
  shards.forEach((s, k) => {
    const dir = dirs[k]!;
    const labels = s.run.shards ?? [];
    if (labels.length === 0)
      throw new MergeError(`${dir} is the report of an unsharded run: merge the reports of the shards of one run (--shard i/n)`);
    for (const label of labels) {
      const m = /^(\d+)\/(\d+)$/.exec(label);
      if (!m) throw new MergeError(`${dir} names its shard "${label}", not i/n: is it a shard's report?`);
      const [index, n] = [Number(m[1]), Number(m[2])];
      if (count && count.n !== n)
        throw new MergeError(`${dir} is shard ${label} but ${count.dir} is one of ${count.n} shards: merge the shards of one run`);
      count ??= { n, dir };
      const twice = byIndex.get(index);
      if (twice !== undefined) throw new MergeError(`shard ${label} is given twice (${twice} and ${dir}): merge each shard once`);
      byIndex.set(index, dir);
    }
    const id = s.run.runId ?? '(no run id)';
    runs.set(id, [...(runs.get(id) ?? []), dir]);
  });
  if (runs.size > 1) {
    const which = [...runs].map(([id, ds]) => `${id} in ${ds.join(', ')}`).join('; ');
    throw new MergeError(
      `the reports are of different runs (${which}): merge the shards of one run, which share RUN_ID or the CI run's id`,
    );
  }
  const n = count!.n;
  const missing = Array.from({ length: n }, (_, i) => i + 1)
    .filter((i) => !byIndex.has(i))
    .map((i) => `${i}/${n}`);
  if (missing.length === 0) return undefined;
  const given = [...byIndex.keys()]
    .sort((a, b) => a - b)
    .map((i) => `${i}/${n}`)
    .join(', ');
  if (!partial)
    throw new MergeError(
      `shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} missing (given: ${given}): merge every shard of the ` +
        `run, or pass --partial to merge only these`,
    );
  return (
    `partial merge (--partial): shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not merged, so their ` +
    `tests are not in this report`
  );
}

/** One run spanning the shards: the first shard's target and versions, the earliest start to the latest end. */
function mergeRunInfo(runs: RunInfo[]): RunInfo {
  const first = runs[0] as RunInfo;
  const start = Math.min(...runs.map((r) => Date.parse(r.startedAt)));
  const end = Math.max(...runs.map((r) => Date.parse(r.startedAt) + r.durationMs));
  const notes = new Set(runs.flatMap((r) => r.notes));
  for (const key of ['targetUrl', 'targetKind', 'mode', 'specVersion', 'suiteVersion', 'fcSeed'] as const) {
    const values = new Set(runs.map((r) => String(r[key] ?? '(unset)')));
    if (values.size > 1) notes.add(`the shards differ in ${key} (${[...values].join(', ')}): the first shard's is shown`);
  }
  const aborts = [...new Set(runs.map((r) => r.abort).filter((a): a is string => a !== undefined))];
  const outcomes = runs.map((r) => r.outcome);
  return {
    ...first,
    startedAt: new Date(start).toISOString(),
    durationMs: end - start,
    outcome: outcomes.includes('interrupted') ? 'interrupted' : outcomes.includes('failed') ? 'failed' : 'passed',
    ...(aborts.length > 0 ? { abort: aborts.join('; ') } : {}),
    shards: runs.flatMap((r) => r.shards ?? ['(unsharded)']),
    notes: [...notes],
  };
}
