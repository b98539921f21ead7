/**
 * The standalone sandbox behaves like a service: started in the background by npm (`npx payment-conformance sandbox
 * &`, `npm run sandbox &`), killing the process the shell started — npm — leaves nothing listening; --pid-file
 * writes its pid; the banner is a .env naming every variable it seeds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'payment-conformance-sandbox-'));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is gone: nothing left to stop.
    }
  }
  rmSync(folder, { recursive: true, force: true });
});

/** Starts `command` in its own process group and resolves with what it printed once the .env block is complete. */
function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; out: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|SANDBOX_|VITEST|PAYMENT_CONFORMANCE)/.test(k)));
  const child = spawn(command, args, { cwd: ROOT, env: { ...clean, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 30_000);
    child.on('exit', (code) => reject(new Error(`exited (${code}): ${out}`)));
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (!/^DELETION_ACCOUNT_PASSWORD=.*$/m.test(out)) return;
      clearTimeout(timer);
      resolve({ child, out });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
}

async function stopsListening(port: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if (!(await listening(port))) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.on('exit', () => resolve())));
const portOf = (out: string) => Number(/^API_BASE_URL=http:\/\/127\.0\.0\.1:(\d+)\/api$/m.exec(out)![1]);

describe('the standalone sandbox', () => {
  it('prints a .env naming every variable it seeds', async () => {
    const { child, out } = await start(process.execPath, ['bin/payment-conformance.js', 'sandbox', '--port', '0']);
    const names = [...out.matchAll(/^([A-Z_]+)=\S+$/gm)].map((m) => m[1]);
    expect(names).toEqual([
      'API_BASE_URL',
      'AUTH_URL',
      'CLIENT_ID',
      'CLIENT_SECRET',
      'ACCOUNT_USER',
      'ACCOUNT_PASSWORD',
      'SECOND_CLIENT_ID',
      'SECOND_CLIENT_SECRET',
      'OTHER_ACCOUNT_USER',
      'OTHER_ACCOUNT_PASSWORD',
      'OTHER_CLIENT_ID',
      'OTHER_CLIENT_SECRET',
      'DELETION_ACCOUNT_USER',
      'DELETION_ACCOUNT_PASSWORD',
    ]);
    // Each variable is one the suite reads: .env.example documents it.
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    for (const name of names) expect(example, name).toMatch(new RegExp(`^# ${name}=`, 'm'));
    process.kill(child.pid!, 'SIGTERM');
    await exited(child);
  });

  it("installed: killing npm's shell (as `kill $!` of `npx … &` does) stops it; --pid-file holds its pid", async () => {
    const pidFile = join(folder, 'installed.pid');
    // npm exec runs the bin under `sh -c`, which exits on SIGTERM without passing it on.
    const { child, out } = await start(
      'sh',
      ['-c', `"${process.execPath}" bin/payment-conformance.js sandbox --port 0 --pid-file "${pidFile}"; true`],
      { npm_command: 'exec' },
    );
    const port = portOf(out);
    expect(await listening(port)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(1);
    expect(pid).not.toBe(child.pid);
    process.kill(child.pid!, 'SIGTERM');
    expect(await stopsListening(port)).toBe(true);
    expect(existsSync(pidFile), 'the pid file is removed').toBe(false);
  });

  it('in a clone: killing `npm run sandbox` stops it', async () => {
    const { child, out } = await start('npm', ['run', '--silent', 'sandbox', '--', '--port', '0']);
    const port = portOf(out);
    expect(await listening(port)).toBe(true);
    process.kill(child.pid!, 'SIGTERM');
    expect(await stopsListening(port)).toBe(true);
  });

  it('the pid file stops it: kill $(cat FILE)', async () => {
    const pidFile = join(folder, 'clone.pid');
    const { out } = await start(process.execPath, ['bin/payment-conformance.js', 'sandbox', '--port', '0', '--pid-file', pidFile]);
    const port = portOf(out);
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
    expect(await stopsListening(port)).toBe(true);
  });
});
