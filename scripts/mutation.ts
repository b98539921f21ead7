/**
 * `npm run mutation`: proves the suite catches faults. Runs the conformance suite against the clean embedded
 * sandbox and against each fault of the sandbox's catalogue (sandbox/faults.ts), two runs at a time, and prints
 * fault → killed/survived → the tests that killed it, and the score. Exit non-zero if the clean run fails or any
 * fault survives. `npm run mutation -- <fault-id> …` runs only those faults.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { vitestCli } from './vitest-cli.ts';
import { FAULTS } from '../sandbox/faults.ts';

interface RunResult {
  fault: string;
  failed: string[];
  passed: number;
  crashed?: string;
  seconds: number;
}

const work = mkdtempSync(join(tmpdir(), 'mutation-'));

/** One conformance run against the embedded sandbox with `fault` (or none), read through vitest's JSON reporter. */
function runSuite(fault: string | undefined): Promise<RunResult> {
  const name = fault ?? 'clean';
  const out = join(work, `${name}.json`);
  const env: NodeJS.ProcessEnv = { ...process.env, REPORT_DIR: join(work, name), SANDBOX_FAULT: fault ?? '' };
  delete env['API_BASE_URL'];
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitestCli, 'run', '--project', 'conformance', '--reporter=json', `--outputFile=${out}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('exit', () => {
      const seconds = (Date.now() - started) / 1000;
      try {
        const report = JSON.parse(readFileSync(out, 'utf8')) as { testResults: { assertionResults: { status: string; fullName: string }[] }[] };
        const all = report.testResults.flatMap((f) => f.assertionResults);
        resolve({ fault: name, failed: all.filter((a) => a.status === 'failed').map((a) => a.fullName), passed: all.filter((a) => a.status === 'passed').length, seconds });
      } catch {
        resolve({ fault: name, failed: [], passed: 0, crashed: stderr.trim().split('\n').slice(-3).join(' ') || 'no report', seconds });
      }
    });
  });
}

async function pool<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!);
      }
    }),
  );
  return results;
}

const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = only.filter((id) => !FAULTS.some((f) => f.id === id));
if (unknown.length > 0) {
  console.error(`unknown fault id(s): ${unknown.join(', ')}; see sandbox/faults.ts`);
  process.exit(2);
}
const faults = FAULTS.filter((f) => only.length === 0 || only.includes(f.id));
const width = Math.max(1, Math.min(2, availableParallelism()));

const clean = await runSuite(undefined);
console.log(`clean sandbox: ${clean.passed} passed, ${clean.failed.length} failed (${clean.seconds.toFixed(1)} s)`);
for (const f of clean.failed) console.log(`  FAILED ON THE CLEAN SANDBOX: ${f}`);
if (clean.crashed) console.log(`  the clean run crashed: ${clean.crashed}`);

const results = await pool(faults, width, async (f) => {
  const r = await runSuite(f.id);
  const verdict = r.crashed ? 'CRASHED' : r.failed.length > 0 ? 'killed' : 'SURVIVED';
  console.log(`${verdict.padEnd(8)} ${f.id.padEnd(42)} ${r.failed.length} failing test(s) (${r.seconds.toFixed(1)} s)`);
  return r;
});

console.log('\nfault → verdict → tests that killed it');
for (const [i, r] of results.entries()) {
  const f = faults[i]!;
  const verdict = r.crashed ? `crashed (${r.crashed})` : r.failed.length > 0 ? 'killed' : 'SURVIVED';
  console.log(`- ${f.id} [${f.area}] → ${verdict}`);
  for (const t of r.failed.slice(0, 3)) console.log(`    ${t}`);
  if (r.failed.length > 3) console.log(`    … and ${r.failed.length - 3} more`);
}
const killed = results.filter((r) => !r.crashed && r.failed.length > 0).length;
const score = faults.length === 0 ? 100 : (100 * killed) / faults.length;
console.log(`\nmutation score: ${killed}/${faults.length} faults killed (${score.toFixed(1)}%); clean run: ${clean.failed.length === 0 && !clean.crashed ? 'green' : 'RED'}`);
rmSync(work, { recursive: true, force: true });
process.exit(clean.failed.length === 0 && !clean.crashed && killed === faults.length ? 0 : 1);
