/**
 * The standalone sandbox's QR lifetime: `npm run sandbox -- --quick-pay-ttl S` (or SANDBOX_QUICK_PAY_TTL) makes its
 * quick-pay QRs payable S seconds (their fechaVencimiento), the real-time limit `npm run soak -- --real-time` runs
 * the suite against with --no-control; a value that is not a whole number of seconds ≥ 1 ends it with exit 2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
});

/** The CLI with `args`; resolves with its output once the .env block is printed, or once it exits. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; out: string; code: number | null }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|SANDBOX_|VITEST)/.test(k)));
  const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', ...args], {
    cwd: ROOT,
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 25_000);
    child.on('exit', (code) => (clearTimeout(timer), resolve({ child, out, code })));
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (!/^DELETION_ACCOUNT_PASSWORD=.*$/m.test(out)) return;
      clearTimeout(timer);
      resolve({ child, out, code: null });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
  });
}

const line = (out: string, name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(out)![1]!.replace(/^"|"$/g, '');

/** Seconds between the answer and the fechaVencimiento of a quick-pay created on the sandbox that printed `out`. */
async function qrSeconds(out: string): Promise<number> {
  const token = await fetch(`${line(out, 'AUTH_URL')}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      audience: 'service_api',
      client_id: line(out, 'CLIENT_ID'),
      client_secret: line(out, 'CLIENT_SECRET'),
    }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  const res = await fetch(`${line(out, 'API_BASE_URL')}/TransaccionCompra/Quick-pay`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ monto: 1 }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { datosQuickPay: { fechaVencimiento: string } };
  return (Date.parse(body.datosQuickPay.fechaVencimiento) - Date.now()) / 1000;
}

describe('npm run sandbox -- --quick-pay-ttl', () => {
  it('makes its quick-pay QRs payable that many seconds, says so in the banner; without it, 600 s', async () => {
    const short = await cli(['--no-control', '--quick-pay-ttl', '25']);
    expect(short.out).toMatch(/no test-control API, quick-pay QRs 25 s\) listening/);
    const seconds = await qrSeconds(short.out);
    expect(seconds).toBeGreaterThan(15);
    expect(seconds).toBeLessThanOrEqual(25);
    short.child.kill('SIGTERM');
    const plain = await cli([]);
    expect(plain.out).not.toMatch(/quick-pay QRs/);
    expect(await qrSeconds(plain.out)).toBeGreaterThan(590);
    plain.child.kill('SIGTERM');
  }, 60_000);

  it('reads SANDBOX_QUICK_PAY_TTL when the option is not given', async () => {
    const run = await cli([], { SANDBOX_QUICK_PAY_TTL: '40' });
    expect(run.out).toMatch(/quick-pay QRs 40 s/);
    const seconds = await qrSeconds(run.out);
    expect(seconds).toBeGreaterThan(30);
    expect(seconds).toBeLessThanOrEqual(40);
    run.child.kill('SIGTERM');
  }, 60_000);

  it.each(['0', '2.5', 'soon', '-1'])('refuses --quick-pay-ttl %s with exit 2 and one line naming it', async (value) => {
    const run = await cli([`--quick-pay-ttl=${value}`]);
    expect(run.code).toBe(2);
    expect(run.out).toMatch(
      new RegExp(`^sandbox: --quick-pay-ttl must be a whole number of seconds, at least 1 \\(got "${value.replace('.', '\\.')}"\\)`, 'm'),
    );
  });
});
