/**
 * A wrong set-up is the user's error, never the target's: each mistake a new user makes is a row — what they did, the
 * line the command answers with, its exit code — run through the installed command (bin/payment-conformance.js, by
 * its first line, as a shell runs it) in an empty folder, against one sandbox started here as a remote target that
 * sees every request: nothing is sent beyond the preflight's probes, and nothing is created.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteSandbox, type RemoteSandbox } from '../../bench/remote-sandbox.ts';
import { conformanceArgs, vitestCli } from '../../harness/run/vitest-cli.ts';

const BIN = fileURLToPath(new URL('../../bin/payment-conformance.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SETTINGS = [...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^# ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
const SECRET = 'not-the-secret-4711';
const vitestRun = [vitestCli, ...conformanceArgs];

const folder = mkdtempSync(join(tmpdir(), 'setup-mistakes-'));
let target: RemoteSandbox;

beforeAll(async () => {
  target = await startRemoteSandbox({ mode: 'development' });
});

afterAll(async () => {
  await target?.close();
  rmSync(folder, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  output: string;
}

/** The command in `folder`, with none of this process's settings: only `env`. */
function command(args: string[], env: Record<string, string>): Promise<Outcome> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(VITEST|TINYPOOL|CONFORMANCE_|RUN_ID$|GITHUB_RUN_ID$|CI_PIPELINE_ID$)/.test(k) && !SETTINGS.includes(k),
    ),
  );
  return new Promise((resolve) => {
    execFile(BIN, args, { cwd: folder, env: { ...clean, NO_COLOR: '1', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** The sandbox as a remote target, with the business's credentials. */
const remote = (): Record<string, string> => ({
  API_BASE_URL: target.env.API_BASE_URL!,
  AUTH_URL: target.env.AUTH_URL!,
  CLIENT_ID: target.env.CLIENT_ID!,
  CLIENT_SECRET: target.env.CLIENT_SECRET!,
});
const origin = () => new URL(target.env.API_BASE_URL!).origin;

/** A shard's report of a run of two shards (the merge reads only summary.json). */
function shardReport(dir: string, shard: string): string {
  mkdirSync(dir, { recursive: true });
  const run = {
    specVersion: '1',
    suiteVersion: '0.1.0',
    startedAt: new Date().toISOString(),
    durationMs: 1,
    outcome: 'passed',
    shards: [shard],
    runId: 'run-1',
    notes: [],
  };
  const test = {
    file: 'suites/links.test.ts',
    name: '[4.1-monto-min] monto 0 is rejected',
    status: 'pass',
    durationMs: 1,
    clauses: ['4.1-monto-min'],
    endpoint: 'POST /EnlacePago',
    observations: [],
  };
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ format: 'conformance-summary/1', run, tests: [test], clauses: [] }));
  return dir;
}

interface Mistake {
  mistake: string;
  args: () => string[];
  env: () => Record<string, string>;
  /** The line expected in what the command prints. */
  line: () => RegExp;
  code: number;
  /** What the target was sent (`METHOD /path`), in any order; undefined = nothing asked of it. */
  sent?: () => string[];
  /** Files that must not exist afterwards (no report written). */
  absent?: string[];
}

const MISTAKES: Mistake[] = [
  {
    mistake: 'a wrong CLIENT_SECRET',
    args: () => ['run'],
    env: () => ({ ...remote(), CLIENT_SECRET: SECRET, REPORT_DIR: join(folder, 'reports-secret') }),
    line: () =>
      /^set-up error: the token endpoint refused CLIENT_ID\/CLIENT_SECRET: POST \S+\/auth\/connect\/token answered 401 .*check CLIENT_ID and CLIENT_SECRET/m,
    code: 2,
    sent: () => ['POST /auth/connect/token'],
    absent: ['reports-secret'],
  },
  {
    mistake: 'API_BASE_URL without its path (/api)',
    args: () => ['run'],
    env: () => ({ ...remote(), API_BASE_URL: origin(), REPORT_DIR: join(folder, 'reports-base') }),
    line: () =>
      new RegExp(
        `^set-up error: API_BASE_URL=${origin()} does not serve the API: POST ${origin()}/EnlacePago .* answered 404 ` +
          `.*; did you mean API_BASE_URL=${origin()}/api\\?$`,
        'm',
      ),
    code: 2,
    // The probe, then the likely prefixes: each an empty body, which creates nothing.
    sent: () => ['POST /auth/connect/token', 'POST /EnlacePago', 'POST /api/EnlacePago', 'POST /v1/EnlacePago'],
    absent: ['reports-base'],
  },
  {
    mistake: 'ACOUNT_USER (a typo) beside ACCOUNT_PASSWORD',
    args: () => ['run'],
    env: () => ({ ...remote(), ACOUNT_USER: 'merchant@sandbox.test', ACCOUNT_PASSWORD: 'x' }),
    line: () => /^warning: ACOUNT_USER is not a setting; did you mean ACCOUNT_USER\?$/m,
    code: 2,
  },
  {
    mistake: 'WEBHOOK_PUBLIC_ULR (a typo), the run stopped by a wrong CLIENT_SECRET',
    args: () => ['run'],
    env: () => ({ ...remote(), CLIENT_SECRET: SECRET, WEBHOOK_PUBLIC_ULR: 'https://tunnel.example.test' }),
    line: () => /^warning: WEBHOOK_PUBLIC_ULR is not a setting; did you mean WEBHOOK_PUBLIC_URL\?$/m,
    code: 2,
    sent: () => ['POST /auth/connect/token'],
  },
  {
    mistake: '--env-file that does not exist',
    args: () => ['run', '--env-file', 'nope.env'],
    env: () => ({}),
    line: () => /^payment-conformance: --env-file nope\.env: no such file \(looked for .*nope\.env\)/m,
    code: 2,
  },
  {
    mistake: 'an unknown option',
    args: () => ['run', '--bogus'],
    env: () => ({}),
    line: () => /^payment-conformance: unknown option --bogus: the run takes suite files, -t <test name pattern>/m,
    code: 2,
  },
  {
    mistake: '--shard 3/2',
    args: () => ['run', '--shard', '3/2', '--report-dir', join(folder, 'reports-shard')],
    env: () => ({}),
    line: () => /^payment-conformance: --shard 3\/2 is not a shard: give i\/n with 1 ≤ i ≤ n/m,
    code: 2,
    absent: ['reports-shard'],
  },
  {
    mistake: 'merging one shard of two',
    args: () => ['merge', shardReport(join(folder, 'shard-1'), '1/2'), '--out', join(folder, 'merged')],
    env: () => ({}),
    line: () => /^payment-conformance merge: shard 2\/2 missing \(given: 1\/2\): merge every shard of the run, or pass --partial/m,
    code: 2,
    absent: ['merged'],
  },
];

describe('each mistake is one line of the command, exit 2, before anything is judged', () => {
  const outcomes = new Map<string, Outcome & { sent: string[]; links: number }>();

  beforeAll(async () => {
    // One after another: the sandbox's request log is per row.
    for (const m of MISTAKES) {
      const before = target.requests.length;
      const links = (await target.stats()).links;
      const outcome = await command(m.args(), m.env());
      outcomes.set(m.mistake, {
        ...outcome,
        sent: target.requests.slice(before).filter((r) => !r.startsWith('GET /__sandbox')),
        links: (await target.stats()).links - links,
      });
    }
  }, 120_000);

  it.each(MISTAKES.map((m) => [m.mistake, m] as const))('%s', (_name, m) => {
    const o = outcomes.get(m.mistake)!;
    expect(o.output, o.output).toMatch(m.line());
    expect(o.code, o.output).toBe(m.code);
    // A handful of lines at most, none a stack; never the secret.
    expect(o.output.trim().split('\n').length, o.output).toBeLessThanOrEqual(20);
    expect(o.output).not.toMatch(/^\s+at /m);
    expect(o.output).not.toContain(SECRET);
    expect(o.sent.sort(), o.output).toEqual((m.sent?.() ?? []).sort());
    expect(o.links).toBe(0);
    for (const path of m.absent ?? []) expect(existsSync(join(folder, path)), `${path} was written`).toBe(false);
  });
});

describe('vitest started directly (no preflight): API_BASE_URL without its path', () => {
  it('stops the run before any test is judged, naming API_BASE_URL; nothing is created', async () => {
    const reports = join(folder, 'reports-direct');
    const links = (await target.stats()).links;
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(VITEST|TINYPOOL|CONFORMANCE_)/.test(k) && !SETTINGS.includes(k)),
    );
    const env = { ...clean, NO_COLOR: '1', ...remote(), API_BASE_URL: origin(), REPORT_DIR: reports };
    const output = await new Promise<string>((resolve) =>
      execFile(process.execPath, [...vitestRun], { cwd: ROOT, env, timeout: 60_000 }, (_err, stdout, stderr) =>
        resolve(`${stdout}${stderr}`),
      ),
    );
    expect(output).toMatch(new RegExp(`stopped: .*set-up error: API_BASE_URL=${origin()} does not serve the API`));
    const summary = JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')) as { tests: { status: string }[] };
    expect(summary.tests.filter((t) => t.status === 'pass' || t.status === 'fail' || t.status === 'warn')).toEqual([]);
    expect((await target.stats()).links - links).toBe(0);
  }, 90_000);
});
