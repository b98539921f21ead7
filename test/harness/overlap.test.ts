/**
 * Tripwire: the tests of a conformance run overlap. Runs vitest with the conformance project's scheduling
 * (vitest.config.ts `conformanceScheduling`, harness/run/suite-files.ts) over tiny suites whose tests each wait 400 ms,
 * and fails when their time intervals stop overlapping — a vitest release or a config change that runs the tests or
 * files one after another — or when the last-declared block (the contract testcases' place) starts before the
 * others have finished.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../hostile/run.ts';

interface Interval {
  file: string;
  name: string;
  start: number;
  end: number;
}

it('every test of two suite files is in flight at once; the block declared last starts after them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'overlap-'));
  const log = join(dir, 'log.jsonl');
  try {
    const env: Record<string, string> = { NO_COLOR: '1', OVERLAP_LOG: log };
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('VITEST') && !k.startsWith('CONFORMANCE_')) env[k] ??= v;
    const child = spawn(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/harness/fixtures/overlap/vitest.config.ts'],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, output).toBe(0);
    const intervals = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Interval);
    const suites = intervals.filter((i) => i.file !== 'last');
    expect(suites.map((i) => i.name).sort()).toEqual(['a1', 'a2', 'b1', 'b2']);
    // All four at once: the latest start comes before the earliest end.
    const latestStart = Math.max(...suites.map((i) => i.start));
    const earliestEnd = Math.min(...suites.map((i) => i.end));
    expect(latestStart, JSON.stringify(intervals)).toBeLessThan(earliestEnd);
    const last = intervals.find((i) => i.file === 'last')!;
    expect(last.start).toBeGreaterThanOrEqual(Math.max(...suites.map((i) => i.end)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
