/**
 * `npm run bench`: figures, not assertions. A full conformance run's wall time against the embedded sandbox
 * (start-up included), the requests per second it drives, the validator's compile time and per-response cost, and
 * the sandbox's link creations per second. Printed and written to REPORT_DIR/bench.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vitestCli } from './vitest-cli.ts';
import { startRemoteSandbox } from '../test/e2e/remote.ts';
import { run as benchValidator } from '../bench/validator.ts';
import { run as benchSandbox } from '../bench/sandbox.ts';
import { embeddedOnlyEnv } from '../harness/config.ts';

function conformanceRun(env: NodeJS.ProcessEnv): Promise<{ seconds: number; code: number | null }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitestCli, 'run', '--project', 'conformance'], { env, stdio: 'ignore' });
    child.on('exit', (code) => resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, code }));
  });
}

const reportDir = process.env['REPORT_DIR'] ?? 'reports';
const scratch = mkdtempSync(join(tmpdir(), 'bench-'));
// The embedded sandbox, and below one started here: never a remote target that `.env` may name.
const baseEnv: NodeJS.ProcessEnv = { ...embeddedOnlyEnv(process.env), REPORT_DIR: scratch };

// 1. The whole suite against the embedded sandbox, as `npm run conformance` runs it.
const embedded = await conformanceRun(baseEnv);

// 2. The same suite against a sandbox started here as a remote target, counting the requests it receives.
const sandbox = await startRemoteSandbox({ mode: 'development' });
const remote = await conformanceRun({ ...baseEnv, ...sandbox.env, REDIRECT_HASH: 'hmac-sha256', WEBHOOK_SIGNATURE: 'hmac-sha256' });
const requests = sandbox.requests.length;
await sandbox.close();
rmSync(scratch, { recursive: true, force: true });

const figures = {
  date: new Date().toISOString(),
  node: process.version,
  conformance_wall_s: Number(embedded.seconds.toFixed(2)),
  conformance_exit_code: embedded.code,
  conformance_requests: requests,
  conformance_requests_per_s: Number((requests / remote.seconds).toFixed(1)),
  ...(await benchValidator()),
  ...(await benchSandbox()),
};
mkdirSync(reportDir, { recursive: true });
writeFileSync(join(reportDir, 'bench.json'), `${JSON.stringify(figures, null, 2)}\n`);
console.log(JSON.stringify(figures, null, 2));
console.log(`written to ${join(reportDir, 'bench.json')} (targets: conformance ≤ 10 s, compile < 500 ms, validation < 20 µs, ≥ 3,000 links/s)`);
