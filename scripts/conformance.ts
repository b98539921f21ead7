/**
 * `npm run conformance [-- vitest args]`: checks the configuration first (one clear line on a mistake, exit 2),
 * prints it (secrets as [set]), then runs the conformance project with the reporters, bounded by RUN_TIMEOUT_S.
 * Exit 0 iff nothing failed.
 */
import { spawn } from 'node:child_process';
import { vitestCli } from './vitest-cli.ts';
import { loadConfig, ConfigError, redactedConfigSummary } from '../harness/config.ts';
import { FAULTS } from '../sandbox/faults.ts';

let config;
try {
  config = loadConfig();
  const fault = config.sandbox.fault;
  if (fault !== undefined && !FAULTS.some((f) => f.id === fault)) {
    throw new ConfigError(`SANDBOX_FAULT must be the id of a fault of sandbox/faults.ts, or unset (got "${fault}"); example: SANDBOX_FAULT=${FAULTS[0]?.id ?? ''}`, 'SANDBOX_FAULT');
  }
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
    process.exit(2);
  }
  throw err;
}

console.log(`configuration:\n${redactedConfigSummary(config).replace(/^/gm, '  ')}\n`);

const child = spawn(process.execPath, [vitestCli, 'run', '--project', 'conformance', ...process.argv.slice(2)], { stdio: 'inherit' });

// Last resort beyond the harness's own whole-run bound: a hung run still ends, with a reason.
const hardLimitMs = (config.http.runTimeoutS + 60) * 1000;
const timer = setTimeout(() => {
  console.error(`conformance run exceeded RUN_TIMEOUT_S=${config.http.runTimeoutS} s (+60 s grace): stopping it`);
  child.kill('SIGINT');
  setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
}, hardLimitMs);
timer.unref();

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
