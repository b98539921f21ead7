/**
 * The installed command's options (bin/payment-conformance.js) become the settings they name, read from the current
 * folder: each checked where the configuration refuses it before anything runs (exit 2), so no run is needed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/payment-conformance.js', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'payment-conformance-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The command in `folder`, with none of the suite's variables from this process. */
function command(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(VITEST|CONFORMANCE_|REPORT_DIR|BASELINE|FAIL_ON|PAYER|CHROMIUM_PATH|HTTP_TIMEOUT_MS|API_BASE_URL)/.test(k),
    ),
  );
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: folder, env: { ...clean, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('payment-conformance options', () => {
  it('reads ./.env of the current folder', async () => {
    writeFileSync(join(folder, '.env'), 'HTTP_TIMEOUT_MS=fast\n');
    const r = await command(['run']);
    rmSync(join(folder, '.env'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('configuration error: HTTP_TIMEOUT_MS must be');
  });

  it('--env-file reads another file, above ./.env; the environment still wins', async () => {
    writeFileSync(join(folder, '.env'), 'HTTP_TIMEOUT_MS=15000\n');
    writeFileSync(join(folder, 'other.env'), 'HTTP_TIMEOUT_MS=slow\nMAX_CONCURRENCY=many\n');
    const r = await command(['run', '--env-file', 'other.env']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('HTTP_TIMEOUT_MS must be');
    const env = await command(['run', '--env-file=other.env'], { HTTP_TIMEOUT_MS: '15000' });
    rmSync(join(folder, '.env'));
    expect(env.stderr).toContain('MAX_CONCURRENCY must be');
    // Node 20 itself reads --env-file even after the script's name, and stops on a missing file with its own line.
    const missing = await command(['run', '--env-file', 'missing.env']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/missing\.env: (no such file|not found)/);
  });

  it('--fail-on, --baseline and --payer set FAIL_ON, BASELINE and PAYER', async () => {
    expect((await command(['run', '--fail-on', 'new'])).stderr).toContain('FAIL_ON=new needs BASELINE');
    expect((await command(['run', '--baseline', 'nowhere'])).stderr).toContain('BASELINE must be the REPORT_DIR of an earlier run');
    expect((await command(['run', '--payer', 'browser'], { CHROMIUM_PATH: join(folder, 'no-chromium') })).stderr).toContain(
      'PAYER=browser needs Chromium',
    );
  });

  it('an option without its value, or unknown to the command, is refused or passed on', async () => {
    const r = await command(['run', '--report-dir']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--report-dir needs a value');
    // merge takes no --shard: it goes to the merge script, which refuses it.
    const merge = await command(['merge', '--shard', '1/2']);
    expect(merge.code).toBe(2);
    expect(merge.stderr).toContain('unknown option --shard');
  });
});
