/**
 * A newcomer's sequence, as the README tells it, against a sandbox started here as a remote target whose 3DS page is
 * a challenge showing its code in an element with an id (variant threeds-challenge-code: `#codigo-prueba`) and which breaks one rule
 * (SANDBOX_FAULT link-monto-zero-accepted): discover, then a run reading what discover wrote. Every 3DS test is
 * judged (the `#` of the discovered selector read back whole), the run shows progress at least every 30 s without a
 * terminal, the FAIL's printed name pasted re-runs that one test, `--failed` re-runs exactly the last failures, a
 * filter selecting nothing exits non-zero, and REQUIRE=webhooks with a receiver nobody reaches exits 2 before any test.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'dotenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteSandbox, type RemoteSandbox } from '../../bench/remote-sandbox.ts';
import type { Summary } from '../../reporters/records.ts';
import { ROOT } from '../hostile/run.ts';

const CONFIG_VARIABLES = [...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^# ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
const reportDir = mkdtempSync(join(tmpdir(), 'newcomer-'));
let target: RemoteSandbox;

interface Ran {
  code: number | null;
  output: string;
  /** When each progress line came, in ms since the start. */
  progressAt: number[];
  durationMs: number;
}

/** `npm run <script> -- args` as a user runs it (no terminal), with only these settings (the rest unset). */
function run(script: 'discover' | 'conformance', args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const childEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('VITEST') && !name.startsWith('TINYPOOL')) childEnv[name] = value;
  for (const name of [...CONFIG_VARIABLES, 'CONFORMANCE_FILES', 'CONFORMANCE_SHARD', 'CONFORMANCE_NAMES']) childEnv[name] = '';
  Object.assign(childEnv, { NO_COLOR: '1', FORCE_COLOR: '0', REPORT_DIR: reportDir, ...target.env, ...env });
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', `scripts/${script}.ts`, ...args], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const progressAt: number[] = [];
  const take = (c: Buffer) => {
    const text = c.toString('utf8');
    // The run's first line (Target: …) starts the clock: before it, the set-up's checks, which end in one line.
    if (/^(progress: |Target: )/m.test(text)) progressAt.push(Date.now() - started);
    output += text;
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, progressAt, durationMs: Date.now() - started });
    }),
  );
}

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
const selectedTests = (s: Summary) => s.tests.filter((t) => t.file !== '' && t.reason !== 'not selected by the test name filter (-t)');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let discover: Ran;
let whole: Ran;
let summary: Summary;

beforeAll(async () => {
  // Variant threeds-challenge-code: a 3DS challenge page showing its code in <strong id="codigo-prueba"> (the challenge
  // screen shows it in a sentence with no id, which the payers read without a setting).
  target = await startRemoteSandbox({ mode: 'development', variant: 'threeds-challenge-code', fault: 'link-monto-zero-accepted' });
  discover = await run('discover', []);
  whole = await run('conformance', []);
  summary = summaryOf(reportDir);
}, 900_000);

afterAll(async () => {
  await target?.close();
  rmSync(reportDir, { recursive: true, force: true });
});

describe("a newcomer's sequence: discover, run, re-run", () => {
  it("discover writes the code's selector quoted, and it is read back whole", () => {
    const file = readFileSync(join(reportDir, 'discovered.env'), 'utf8');
    expect(file, discover.output).toMatch(/^SCREEN_CHALLENGE_CODE='shown-in:#codigo-prueba'$/m);
    expect(parse(file).SCREEN_CHALLENGE_CODE).toBe('shown-in:#codigo-prueba');
    expect(whole.output).not.toMatch(/configuration error/);
  });

  it('every 3DS test is judged', () => {
    const threeds = summary.tests.filter((t) => /3DS|3ds/.test(`${t.endpoint} ${t.name}`));
    expect(threeds.length).toBeGreaterThan(5);
    // Not judged for want of a setting or a payer: what the `#` cut used to cause (skips of other kinds say why elsewhere).
    const notDriven = ['page-not-driven', 'refused-by-target', 'page-unread'];
    const unjudged = threeds.filter((t) => t.status === 'error' || (t.status === 'skip' && notDriven.includes(t.skipKind ?? '')));
    expect(unjudged.map((t) => `${t.name}: ${t.reason ?? t.error}`)).toEqual([]);
  });

  it('the run shows progress at least every 30 s without a terminal', () => {
    const marks = [...whole.progressAt, whole.durationMs];
    const gaps = marks.slice(1).map((at, i) => at - marks[i]!);
    // The last stretch ends with the summary, which says where the run is; before it, a line at least every 30 s.
    expect(Math.max(...gaps.slice(0, -1), 0), `progress at ${whole.progressAt.join(', ')} ms of ${whole.durationMs}`).toBeLessThanOrEqual(
      35_000,
    );
    if (whole.durationMs > 30_000) expect(whole.progressAt.length).toBeGreaterThan(0);
  });

  it("the FAIL's printed name, pasted, re-runs exactly that test", async () => {
    const failed = summary.tests.filter((t) => t.status === 'fail');
    expect(failed.length, whole.output).toBeGreaterThan(0);
    const printed = whole.output.split('\n').find((l) => l.startsWith('  FAIL ') && l.includes(failed[0]!.name))!;
    const name = printed.slice('  FAIL '.length);
    const again = await run('conformance', ['-t', name]);
    const selected = selectedTests(summaryOf(join(reportDir, 'selected')));
    expect(
      selected.map((t) => t.name),
      again.output,
    ).toEqual([failed[0]!.name]);
    expect(selected[0]!.status).toBe('fail');
    expect(again.code).toBe(1);
    // The whole run's report is still there.
    expect(summaryOf(reportDir).tests.length).toBe(summary.tests.length);
  });

  it('--failed re-runs exactly the last failures and errors', async () => {
    const last = summary.tests.filter((t) => (t.status === 'fail' || t.status === 'error') && t.file !== '').map((t) => t.name);
    const again = await run('conformance', ['--failed']);
    expect(again.output).toContain('re-run');
    expect(
      selectedTests(summaryOf(join(reportDir, 'selected')))
        .map((t) => t.name)
        .sort(),
      again.output,
    ).toEqual([...last].sort());
  });

  it('a filter selecting nothing exits non-zero, saying so in one line', async () => {
    const none = await run('conformance', ['-t', 'no test is named like this']);
    expect(none.code).not.toBe(0);
    expect(none.output).toMatch(/^conformance: no test was selected by -t 'no test is named like this': nothing ran$/m);
  });

  it('REQUIRE=webhooks with a receiver nobody reaches exits 2 before any test', async () => {
    const [nobody, receiver] = [await freePort(), await freePort()];
    const stale = existsSync(join(reportDir, 'summary.json')) ? readFileSync(join(reportDir, 'summary.json'), 'utf8') : '';
    const required = await run('conformance', [], {
      WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${nobody}`,
      RECEIVER_PORT: String(receiver),
      REQUIRE: 'webhooks',
    });
    expect(required.code, required.output).toBe(2);
    expect(required.output).toMatch(/^not checked with these settings: webhooks: /m);
    expect(required.output).toMatch(/^REQUIRE=webhooks: webhooks cannot be checked with these settings/m);
    expect(required.output).not.toMatch(/^Conformance /m);
    expect(readFileSync(join(reportDir, 'summary.json'), 'utf8')).toBe(stale);
  });
});
