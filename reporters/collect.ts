/**
 * What both reporters share: turning vitest's results for the conformance project into TestRecords, and the run's
 * lifecycle — which files this run (this shard) was to run, when it started, CONFORMANCE_RUN_INFO, and a last
 * write when a signal stops the process (vitest calls no onTestRunEnd then). Subclasses only write files.
 */
import { relative, resolve } from 'node:path';
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason, TestSpecification, TestSuite, Vitest } from 'vitest/node';
import '../harness/record/meta.ts';
import type { CheckEvidence } from '../harness/record/meta.ts';
import { withBaseline } from './compare.ts';
import { runIdOf } from './run-id.ts';
import { loadCatalogue, summarize, versionOf, type RunInfo, type Summary, type ReportedTest } from './records.ts';
import { classify } from '../harness/record/verdict.ts';
import { reportDirSetting, reportSetting } from '../harness/setup/report-settings.ts';

export interface ReporterOptions {
  /** Where reports go; default REPORT_DIR (environment, then .env), else `reports`. */
  reportDir?: string;
  /** The vitest project whose tests are reported; default `conformance`. */
  project?: string;
  /** Paths relative to the vitest root; defaults spec/clauses.yaml, spec/openapi.yaml, package.json. */
  clausesFile?: string;
  openapiFile?: string;
  packageFile?: string;
}

/** What the tests of one run amount to, and why some did not run. */
interface Context {
  notRunReason: string;
  abort: string | undefined;
  filtered: boolean;
  /** Reasons tests did not run because the run stopped (abort, interlock, interruption): each is one ERROR. */
  stops: Set<string>;
  /** The run's notes its tests carried (meta `runNotes`: the pages' fields discovered), each once, in order. */
  notes: Set<string>;
}

// vitest's note on the tests it cancels (Ctrl-C, cancelCurrentRun).
const VITEST_CANCELLED = /^The test run was aborted/;
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The last summary made, and of what: the reporters of one run write the same summary, made once. */
let lastSummary: { modules: ReadonlyArray<TestModule>; key: string; summary: Summary } | undefined;

export abstract class ConformanceReporter implements Reporter {
  private vitest: Vitest | undefined;
  /** moduleId → path relative to the root, for the conformance files this run (this shard) is to run. */
  private files = new Map<string, string>();
  private startedAt = new Date();
  private finished = false;

  private readonly project: string;

  constructor(protected readonly options: ReporterOptions = {}) {
    this.project = options.project ?? 'conformance';
  }

  /** Writes this reporter's files; `log` prints a line on the console. */
  protected abstract write(summary: Summary, dir: string, log: (line: string) => void): void;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  async onTestRunStart(specifications: ReadonlyArray<TestSpecification>): Promise<void> {
    const vitest = this.vitest;
    if (!vitest) return;
    this.startedAt = new Date();
    this.finished = false;
    // The specifications are every file of the run: --shard keeps its part later, the same way.
    const { shard, sequence } = vitest.config;
    const mine = shard ? await new sequence.sequencer(vitest).shard([...specifications]) : specifications;
    this.files = new Map(
      mine.filter((s) => s.project.name === this.project).map((s) => [s.moduleId, relative(s.project.config.root, s.moduleId)]),
    );
    for (const signal of SIGNALS) process.once(signal, this.onSignal);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    this.stopListening();
    this.finish(modules, unhandledErrors, reason);
  }

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.stopListening();
    // Synchronous on purpose: vitest exits a millisecond after a signal.
    if (this.vitest) this.finish(this.vitest.state.getTestModules(), [], 'interrupted', signal);
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };

  private stopListening(): void {
    for (const signal of SIGNALS) process.off(signal, this.onSignal);
  }

  private finish(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
    signal?: string,
  ): void {
    const vitest = this.vitest;
    const conformance = modules.filter((m) => m.project.name === this.project);
    if (this.finished || !vitest || (this.files.size === 0 && conformance.length === 0)) return;
    this.finished = true;
    const key = JSON.stringify([this.options, this.project, reason, signal ?? null, [...this.files.keys()]]);
    if (lastSummary?.modules !== modules || lastSummary.key !== key)
      lastSummary = { modules, key, summary: this.summarize(vitest, conformance, unhandledErrors, reason, signal) };
    this.write(lastSummary.summary, reportDir(this.options.reportDir), (line) => vitest.logger.log(line));
  }

  private summarize(
    vitest: Vitest,
    conformance: TestModule[],
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
    signal: string | undefined,
  ): Summary {
    const root = vitest.config.root;
    const fromRoot = (path: string | undefined, fallback: string) => resolve(root, path ?? fallback);
    const { info, note, setupNotes } = readRunInfo(process.env.CONFORMANCE_RUN_INFO);
    const ctx: Context = {
      notRunReason:
        info.abort ??
        (signal
          ? `the run was interrupted (${signal})`
          : reason === 'interrupted'
            ? 'the run was interrupted'
            : `the run ended before it ran (vitest: run ${reason})`),
      abort: info.abort,
      filtered: vitest.config.testNamePattern !== undefined,
      stops: new Set(),
      notes: new Set(),
    };
    const records = collect(conformance, this.files, unhandledErrors, ctx);
    const catalogue = loadCatalogue(fromRoot(this.options.clausesFile, 'spec/clauses.yaml'));
    const run: RunInfo = {
      ...info,
      specVersion: versionOf(fromRoot(this.options.openapiFile, 'spec/openapi.yaml'), 'info'),
      suiteVersion: versionOf(fromRoot(this.options.packageFile, 'package.json'), 'package'),
      startedAt: this.startedAt.toISOString(),
      durationMs: Date.now() - this.startedAt.getTime(),
      outcome: signal ? 'interrupted' : reason,
      ...(ctx.stops.size > 0 && !info.abort ? { abort: [...ctx.stops].join('; ') } : {}),
      // A shard of the conformance project is chosen by suites/all.conformance.ts (CONFORMANCE_SHARD, set from --shard).
      ...(shardOf(vitest) ? { shards: [shardOf(vitest)!] } : {}),
      ...(runIdOf(process.env) ? { runId: runIdOf(process.env)! } : {}),
      notes: [...setupNotes, note, catalogue.note, ...ctx.notes].filter((n): n is string => n !== undefined),
    };
    return withBaseline(summarize(run, records, catalogue.clauses), reportSetting('BASELINE'), reportSetting('FAIL_ON'));
  }
}

/** REPORT_DIR from the option, else as the run reads it (harness/setup/report-settings.ts: environment, .env, default). */
function reportDir(explicit: string | undefined): string {
  // A run of part of the suite writes beside the whole run's reports, never over them (scripts/conformance.ts).
  return resolve(explicit || reportDirSetting(), explicit ? '' : (process.env.CONFORMANCE_REPORT_SUBDIR?.trim() ?? ''));
}

type Listed = Pick<RunInfo, 'targetUrl' | 'targetKind' | 'mode' | 'abort' | 'fcSeed'>;

/** Only the listed fields of CONFORMANCE_RUN_INFO reach a report; credentials in the target URL are dropped. */
function readRunInfo(raw: string | undefined): { info: Listed; note?: string; setupNotes: string[] } {
  if (!raw) return { info: {}, setupNotes: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null)
    return { info: {}, note: 'CONFORMANCE_RUN_INFO is not a JSON object: the run metadata is missing', setupNotes: [] };
  const value = parsed as Record<string, unknown>;
  const text = (key: string) => (typeof value[key] === 'string' && value[key] !== '' ? (value[key] as string) : undefined);
  const info: Listed = {};
  const url = text('targetUrl');
  if (url) info.targetUrl = withoutCredentials(url);
  for (const key of ['targetKind', 'mode', 'abort'] as const) {
    const v = text(key);
    if (v) info[key] = v;
  }
  if (typeof value.fcSeed === 'number') info.fcSeed = value.fcSeed;
  // What the global setup recovered from (a probe's lost answer), as notes of the run.
  const setupNotes = Array.isArray(value.notes) ? value.notes.filter((n): n is string => typeof n === 'string') : [];
  return { info, setupNotes };
}

function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

function collect(
  modules: TestModule[],
  files: Map<string, string>,
  unhandledErrors: ReadonlyArray<SerializedError>,
  ctx: Context,
): ReportedTest[] {
  const records = modules.flatMap((m) => moduleRecords(m, ctx));
  const ran = new Set(modules.map((m) => m.moduleId));
  for (const [id, file] of files) if (!ran.has(id)) records.push(fileNotRun(file, ctx));
  // In a run of several projects, an unhandled error that names its file is ours only if the file is.
  for (const e of unhandledErrors) {
    const path = e.VITEST_TEST_PATH;
    if (typeof path !== 'string' || files.has(path) || ran.has(path)) records.push(errorRecord('', 'unhandled error', errorText(e)));
  }
  for (const stop of ctx.stops) records.push(errorRecord('', 'run stopped', stop));
  // A test's name is its identity (baselines, EXPECTED_FAILURES_FILE, the merge): two tests with one name fail the run.
  const seen = new Map<string, string>();
  for (const r of records) {
    if (r.file === '' || r.name.startsWith('(') || r.name.endsWith('(hook)')) continue;
    const first = seen.get(r.name);
    if (first !== undefined)
      records.push(
        errorRecord(
          '',
          'two tests with one name',
          `"${r.name}" is declared in ${first} and again in ${r.file}: a test's name is its identity in baselines and ` +
            `EXPECTED_FAILURES_FILE; rename one`,
        ),
      );
    else seen.set(r.name, r.file);
  }
  return records;
}

/**
 * The suite file a test or block was declared in: the conformance project's one test file (suites/all.conformance.ts)
 * declares each suite file's tests in a block named by its path; any other module is its own file.
 */
function fileOf(task: TestCase | TestSuite): string {
  let top: TestCase | TestSuite = task;
  while (top.parent.type === 'suite') top = top.parent;
  return top.type === 'suite' && SUITE_FILE.test(top.name) ? top.name : task.module.relativeModuleId;
}
function shardOf(vitest: Vitest): string | undefined {
  const shard = vitest.config.shard;
  if (shard) return `${shard.index}/${shard.count}`;
  return /^\d+\/\d+$/.test(process.env['CONFORMANCE_SHARD']?.trim() ?? '') ? process.env['CONFORMANCE_SHARD']!.trim() : undefined;
}

const SUITE_FILE = /^suites\/[^/]+\.test\.ts$/;

function moduleRecords(m: TestModule, ctx: Context): ReportedTest[] {
  const file = m.relativeModuleId;
  const records = m.errors().map((e) => errorRecord(file, '(file)', errorText(e)));
  for (const suite of m.children.allSuites()) {
    for (const e of suite.errors()) records.push(errorRecord(fileOf(suite), `${suite.fullName} (hook)`, errorText(e)));
  }
  const tests = [...m.children.allTests()].map((t) => testRecord(t, ctx));
  if (tests.length === 0 && records.length === 0) records.push(fileNotRun(file, ctx));
  return [...records, ...tests];
}

/**
 * The failure a record shows: the first failed check; when several independent ones failed (soft checks), citing
 * every clause each cites, so each FAILs.
 */
export function failureOf(first: CheckEvidence, all: readonly CheckEvidence[] | undefined): CheckEvidence {
  return all && all.length > 1 ? { ...first, clauses: [...new Set(all.flatMap((f) => f.clauses))] } : first;
}

function testRecord(test: TestCase, ctx: Context): ReportedTest {
  const meta = test.meta();
  // About the run, not this test's target: a note of the run, whatever the test's status.
  for (const n of meta.runNotes ?? []) ctx.notes.add(n);
  const result = test.result();
  const record: ReportedTest = {
    file: fileOf(test),
    // The test's own name: what EXPECTED_FAILURES_FILE lists and JUnit shows under its file.
    name: test.name,
    status: 'pass',
    durationMs: Math.round(test.diagnostic()?.duration ?? 0),
    clauses: meta.clauses ?? [],
    endpoint: meta.endpoint ?? '',
    ...(meta.seed !== undefined ? { seed: meta.seed } : {}),
    ...(meta.replay ? { replay: meta.replay } : {}),
    ...(meta.failure ? { failure: failureOf(meta.failure, meta.failures) } : {}),
    ...(meta.failures && meta.failures.length > 1 ? { failures: meta.failures } : {}),
    ...(meta.transcript ? { transcript: meta.transcript } : {}),
    observations: meta.observations ?? [],
    ...(meta.requests !== undefined ? { requests: meta.requests } : {}),
    ...(meta.network ? { network: meta.network } : {}),
  };
  const notRun = (reason: string): ReportedTest => (ctx.stops.add(reason), { ...record, status: 'notRun', reason });

  if (result.state === 'pending') return notRun(ctx.notRunReason);
  // What only this process knows: vitest cancelled it, or the run was aborted.
  const note = result.state === 'skipped' ? result.note : undefined;
  if (note && (VITEST_CANCELLED.test(note) || note === ctx.abort)) return notRun(ctx.notRunReason);
  // The worker's verdict: the run stopped under the test (the interlock, the target refusing "not now"), or a skip.
  const decided = meta.verdict;
  if (decided?.status === 'notRun') return notRun(decided.reason ?? ctx.notRunReason);
  if (result.state === 'skipped') {
    if (decided?.status === 'skip')
      return {
        ...record,
        status: 'skip',
        reason: decided.reason ?? note ?? '',
        ...(decided.skipKind ? { skipKind: decided.skipKind } : {}),
      };
    // A test declared without clauseTest: vitest's note is its reason.
    if (note) return { ...record, status: 'skip', reason: note, ...(meta.skipKind ? { skipKind: meta.skipKind } : {}) };
    const broken = brokenAncestor(test);
    if (broken) return { ...record, status: 'notRun', reason: broken };
    const reason =
      test.options.mode === 'todo' ? 'todo' : ctx.filtered ? 'not selected by the test name filter (-t)' : 'skipped without a reason';
    return { ...record, status: 'skip', reason };
  }
  const error = result.errors?.[0];
  const withError = error && result.state === 'failed' ? { error: errorText(error) } : {};
  // What only this process knows: the run was aborted under the test (an unusable target).
  if (result.state === 'failed' && error && !meta.failure && ctx.abort && error.message.includes(ctx.abort)) return notRun(ctx.abort);
  // The verdict the worker decided (harness/record/verdict.ts); a test declared without clauseTest gets the same
  // classification from what vitest reports.
  const verdict =
    meta.verdict ??
    classify({
      state: result.state === 'failed' ? 'fail' : 'pass',
      judged: false,
      ...(error?.name ? { errorName: error.name } : {}),
      failures: meta.failure ? [meta.failure] : [],
      observed: record.observations.length > 0,
      ...(meta.expected ? { expected: meta.expected } : {}),
    });
  return { ...record, status: verdict.status, ...(verdict.status === 'expectedFailurePassed' ? {} : withError) };
}

/** A test skipped without a note under a suite or file whose hook failed did not run because of it. */
function brokenAncestor(test: TestCase): string | undefined {
  let parent: TestSuite | TestModule = test.parent;
  for (;;) {
    const error = parent.errors()[0];
    if (error) return `${parent.type === 'module' ? 'the file' : `"${parent.name}"`} failed before this test ran: ${error.message}`;
    if (parent.type === 'module') return undefined;
    parent = parent.parent;
  }
}

function fileNotRun(file: string, ctx: Context): ReportedTest {
  ctx.stops.add(ctx.notRunReason);
  return {
    file,
    name: '(file not run)',
    status: 'notRun',
    durationMs: 0,
    clauses: [],
    endpoint: '',
    reason: ctx.notRunReason,
    observations: [],
  };
}

function errorRecord(file: string, name: string, error: string): ReportedTest {
  return { file, name, status: 'error', durationMs: 0, clauses: [], endpoint: '', error, observations: [] };
}

function errorText(e: SerializedError & { expected?: unknown; actual?: unknown }): string {
  const head = `${e.name ?? 'Error'}: ${e.message}`;
  if (e.expected === undefined && e.actual === undefined) return head;
  return `${head}\nexpected: ${String(e.expected)}\nactual: ${String(e.actual)}`;
}
