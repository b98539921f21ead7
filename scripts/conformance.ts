/**
 * `npm run conformance [-- vitest args]`: checks the configuration first (one clear line on a mistake), then runs
 * the conformance project with the reporters, bounded by RUN_TIMEOUT_S. Exit 0 iff nothing failed.
 */
import { spawn } from 'node:child_process';
import { vitestCli } from './vitest-cli.ts';
import { loadConfig, ConfigError } from '../harness/config.ts';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
    process.exit(2);
  }
  throw err;
}

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
