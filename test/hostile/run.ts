/**
 * Runs the conformance project as a child process, as a user would (`vitest run --project conformance …`), with
 * an environment of our choosing and a temporary REPORT_DIR, and returns what a user would see: exit code, time,
 * console output and the report files.
 *
 *   const run = await runConformance({ files: ['suites/auth.test.ts'], env: { API_BASE_URL: … }, timeoutMs: 60_000 });
 *   run.code; run.durationMs; run.output; run.summary?.tests; run.files['junit.xml'];
 *
 * Every variable of .env.example is set to '' (= unset) unless given, so neither the developer's environment nor a
 * local .env can point a test run at another target.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Summary, ReportedTest } from '../../reporters/records.ts';
import { SELECTED_DIR } from '../../reporters/selection.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const CONFIG_VARIABLES = [...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^# ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);

export interface ChildRun {
  code: number | null;
  /** Killed by us after timeoutMs. */
  killed: boolean;
  durationMs: number;
  /** stdout and stderr, interleaved as they came. */
  output: string;
  /** Files of REPORT_DIR by relative path (the directory itself is removed). */
  files: Record<string, string>;
  summary?: Summary;
}

/** `wrapper`: run `npm run conformance` (scripts/conformance.ts: config check, exit code of FAIL_ON) instead of vitest. */
export async function runConformance(options: {
  files?: string[];
  env: Record<string, string>;
  timeoutMs: number;
  args?: string[];
  wrapper?: boolean;
}): Promise<ChildRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conformance-run-'));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // The parent may itself be a vitest worker (or a conformance run): its markers must not leak into the child.
    if (value !== undefined && !name.startsWith('VITEST') && !name.startsWith('TINYPOOL') && name !== 'CONFORMANCE_RUN_INFO')
      env[name] = value;
  }
  for (const name of [...CONFIG_VARIABLES, 'CONFORMANCE_FILES', 'CONFORMANCE_SHARD']) env[name] = '';
  Object.assign(env, { NO_COLOR: '1', FORCE_COLOR: '0', REPORT_DIR: reportDir }, options.env);

  // The suite files select within the conformance project's one test file (suites/all.conformance.ts), as
  // `npm run conformance -- <files>` does; the contract testcases run in every selection.
  if (options.files && options.files.length > 0) env['CONFORMANCE_FILES'] = options.files.join(',');
  const started = Date.now();
  const command = options.wrapper
    ? ['--import', 'tsx', 'scripts/conformance.ts']
    : ['node_modules/vitest/vitest.mjs', 'run', '--project', 'conformance'];
  const child = spawn(process.execPath, [...command, ...(options.args ?? [])], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);

  // A run of part of the suite (-t, a file) writes its reports to REPORT_DIR/selected: those are the run's reports.
  const tree = readTree(reportDir);
  const selected = Object.entries(tree).filter(([path]) => path.startsWith(`${SELECTED_DIR}/`));
  const files =
    selected.length > 0 ? Object.fromEntries(selected.map(([path, text]) => [path.slice(SELECTED_DIR.length + 1), text])) : tree;
  rmSync(reportDir, { recursive: true, force: true });
  const summaryText = files['summary.json'];
  return {
    code,
    killed,
    durationMs: Date.now() - started,
    output,
    files,
    ...(summaryText === undefined ? {} : { summary: JSON.parse(summaryText) as Summary }),
  };
}

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** What a test's record says went wrong: the thrown error, or the failed check's expected/actual and exchange. */
export function failureText(t: ReportedTest): string {
  const f = t.failure;
  return [t.error, f && `${f.check}: expected ${f.expected}; actual ${f.actual}`, f?.exchange].filter(Boolean).join('\n');
}

/** A one-line view of the tests, for assertion messages. */
export function listing(run: ChildRun): string {
  const tests = run.summary?.tests ?? [];
  return tests.map((t) => `${t.status} ${t.name}: ${(t.reason ?? failureText(t)).split('\n')[0]}`).join('\n') || run.output.slice(-3000);
}
