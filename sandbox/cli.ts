/**
 * `npm run sandbox -- --port 4010 [--host 0.0.0.0] [--mode development|production] [--fault ID] [--variant
 * ID[,ID…]|all|deployed] [--screen html|js|steps|challenge|frame] [--no-control] [--quick-pay-ttl S] [--network
 * mild|rough|throttled|unavailable [--network-seed N]]`
 * --quick-pay-ttl: seconds a quick-pay QR stays payable (its fechaVencimiento; default 600); short ones, as an
 * independent implementation's, prove the suite's deadlines in real time (with --no-control: `npm run soak -- --real-time`).
 * --network: the internet in front of it (sandbox/network.ts: latency, rate limit, 503/502, dropped connections, late
 * and duplicated webhooks), seeded by --network-seed (default random, printed).
 * --no-control: without the test-control API (/__sandbox), as a vendor's deployed service (the suite then waits in real
 * time where it would move the clock).
 * (env SANDBOX_FAULT also selects a fault, SANDBOX_VARIANT the variants, SANDBOX_SCREEN the screen, SANDBOX_NETWORK and
 * SANDBOX_NETWORK_SEED the network, SANDBOX_QUICK_PAY_TTL the QR's seconds). Prints the URLs and,
 * as a .env to paste, the seeded demo credentials of this local sandbox; --pid-file PATH writes its pid there.
 * SIGINT/SIGTERM close it, as does the end of the npm process that started it (`npm run sandbox &`, `npx … &`).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Mode, NETWORKS, PANTALLAS, type Pantalla, createSandbox } from './index.ts';
import { envLine } from './env-line.ts';

// Named as the user runs it: the installed command sets PAYMENT_CONFORMANCE_COMMAND (harness/record/command.ts, which
// the sandbox may not import).
const INSTALLED = process.env['PAYMENT_CONFORMANCE_COMMAND']?.trim();
const USO =
  `usage: ${INSTALLED ? `${INSTALLED} sandbox` : 'npm run sandbox --'} [--port 4010] [--host 127.0.0.1] ` +
  `[--mode development|production] [--fault ID] [--variant ID[,ID…]|all|deployed] [--screen ` +
  `html|js|steps|challenge|frame] [--no-control] [--quick-pay-ttl S] [--network ${NETWORKS.join('|')} [--network-seed N]] [--pid-file PATH]`;

function fail(message: string): never {
  console.error(`sandbox: ${message}\n${USO}`);
  process.exit(2);
}

let values: {
  port?: string;
  host?: string;
  mode?: string;
  fault?: string;
  variant?: string;
  screen?: string;
  'no-control'?: boolean;
  'quick-pay-ttl'?: string;
  network?: string;
  'network-seed'?: string;
  'pid-file'?: string;
  help?: boolean;
};
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      mode: { type: 'string' },
      fault: { type: 'string' },
      variant: { type: 'string' },
      screen: { type: 'string' },
      'no-control': { type: 'boolean' },
      'quick-pay-ttl': { type: 'string' },
      network: { type: 'string' },
      'network-seed': { type: 'string' },
      'pid-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
if (values.help) {
  console.log(USO);
  process.exit(0);
}
const port = Number(values.port ?? '4010');
if (!Number.isInteger(port) || port < 0 || port > 65535)
  fail(`--port must be an integer 0..65535 (got "${values.port}"); example: --port 4010`);
const mode = values.mode ?? 'development';
if (mode !== 'development' && mode !== 'production') fail(`--mode must be development or production (got "${mode}")`);
// Unset: the sandbox serves html, or the screen its variant or fault is about.
const screen = values.screen ?? (process.env.SANDBOX_SCREEN || undefined);
if (screen !== undefined && !(PANTALLAS as readonly string[]).includes(screen))
  fail(`--screen must be one of ${PANTALLAS.join(', ')} (got "${screen}")`);

const network = values.network ?? (process.env.SANDBOX_NETWORK || undefined);
if (network !== undefined && !(NETWORKS as readonly string[]).includes(network))
  fail(`--network must be one of ${NETWORKS.join(', ')} (got "${network}")`);
const seedText = values['network-seed'] ?? (process.env.SANDBOX_NETWORK_SEED || undefined);
const networkSeed = seedText === undefined ? undefined : Number(seedText);
if (networkSeed !== undefined && !(/^\d+$/.test(seedText ?? '') && networkSeed <= 0xffffffff))
  fail(`--network-seed must be an integer 0..4294967295 (got "${seedText}"); example: --network-seed 7`);
if (networkSeed !== undefined && network === undefined) fail('--network-seed needs --network mild|rough|…');

const ttlText = values['quick-pay-ttl'] ?? (process.env.SANDBOX_QUICK_PAY_TTL || undefined);
if (ttlText !== undefined && !(/^\d+$/.test(ttlText) && Number(ttlText) >= 1))
  fail(`--quick-pay-ttl must be a whole number of seconds, at least 1 (got "${ttlText}"); example: --quick-pay-ttl 25`);
const quickPayTtlSeconds = ttlText === undefined ? undefined : Number(ttlText);

// Found now, while the chain up to npm stands: the banner may be followed at once by `kill $!`, which ends the shell
// between npm and this process before a later walk could pass it.
const npm = process.env['npm_command'] ? npmAncestor() : undefined;

let sandbox: Awaited<ReturnType<typeof createSandbox>>;
try {
  sandbox = await createSandbox({
    port,
    host: values.host ?? '127.0.0.1',
    mode: mode as Mode,
    fault: values.fault ?? process.env.SANDBOX_FAULT,
    variant: values.variant ?? process.env.SANDBOX_VARIANT,
    ...(screen === undefined ? {} : { screen: screen as Pantalla }),
    control: values['no-control'] !== true,
    ...(quickPayTtlSeconds === undefined ? {} : { quickPayTtlSeconds }),
    ...(network === undefined ? {} : { network }),
    ...(networkSeed === undefined ? {} : { networkSeed }),
  });
} catch (err) {
  fail((err as Error).message);
}
const { credentials: c } = sandbox;
// Written before the banner: whoever reads the banner may read the file.
const pidFile = values['pid-file'];
if (pidFile) writeFileSync(pidFile, `${process.pid}\n`);
const fault = values.fault ?? process.env.SANDBOX_FAULT;
const variant = values.variant ?? process.env.SANDBOX_VARIANT;
const net = sandbox.app.sandbox.network;
console.log(`payment-service sandbox (${mode}${fault ? `, fault ${fault}` : ''}${variant ? `, variant ${variant}` : ''}${sandbox.app.sandbox.options.screen === 'html' ? '' : `, screen ${sandbox.app.sandbox.options.screen}`}${sandbox.controlUrl ? '' : ', no test-control API'}${quickPayTtlSeconds === undefined ? '' : `, quick-pay QRs ${quickPayTtlSeconds} s`}${net ? `, network ${net.name} seed ${net.seed}` : ''}) listening
  base URL     ${sandbox.baseUrl}
  auth URL     ${sandbox.authUrl}   (token: POST ${sandbox.authUrl}/connect/token)
  control URL  ${sandbox.controlUrl ?? '(none: --no-control)'}
# .env for this sandbox: paste it into .env where you run the suite (seeded demo values, not secrets)
${envLine('API_BASE_URL', sandbox.baseUrl)}
${envLine('AUTH_URL', sandbox.authUrl)}
# business ${c.business.idAplicativo} of the account
${envLine('CLIENT_ID', c.business.clientId)}
${envLine('CLIENT_SECRET', c.business.clientSecret)}
${envLine('ACCOUNT_USER', c.account.user)}
${envLine('ACCOUNT_PASSWORD', c.account.password)}
# business ${c.businessNoMpos.idAplicativo} of the same account, without the MPOS permission
${envLine('SECOND_CLIENT_ID', c.businessNoMpos.clientId)}
${envLine('SECOND_CLIENT_SECRET', c.businessNoMpos.clientSecret)}
# a second merchant, for the tenant-isolation checks (its business ${c.otherBusiness.idAplicativo})
${envLine('OTHER_ACCOUNT_USER', c.otherAccount.user)}
${envLine('OTHER_ACCOUNT_PASSWORD', c.otherAccount.password)}
${envLine('OTHER_CLIENT_ID', c.otherBusiness.clientId)}
${envLine('OTHER_CLIENT_SECRET', c.otherBusiness.clientSecret)}
# a disposable account (its business ${c.disposableBusiness.idAplicativo}: ${c.disposableBusiness.clientId} / ${c.disposableBusiness.clientSecret}), deleted only with ALLOW_DESTRUCTIVE=account-deletion
${envLine('DELETION_ACCOUNT_USER', c.disposableAccount.user)}
${envLine('DELETION_ACCOUNT_PASSWORD', c.disposableAccount.password)}`);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  // Only our own pid file: another sandbox may have taken the path since.
  if (pidFile && readPid(pidFile) === process.pid) rmSync(pidFile, { force: true });
  void sandbox.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
if (npm !== undefined) stopWithNpm(npm, stop);

function readPid(file: string): number | undefined {
  try {
    return Number(readFileSync(file, 'utf8').trim());
  } catch {
    return undefined;
  }
}

/**
 * `npm run sandbox &` then `kill $!` signals npm, which passes it to the `sh -c` running the script; sh exits without
 * passing it on, so this process would keep listening. Where /proc shows the npm process that started it, its end
 * stops the sandbox too.
 */
function stopWithNpm(npm: number, then: () => void): void {
  const timer = setInterval(() => {
    try {
      process.kill(npm, 0);
    } catch {
      clearInterval(timer);
      then();
    }
  }, 250);
  timer.unref();
}

function npmAncestor(): number | undefined {
  let pid = process.ppid;
  for (let depth = 0; depth < 5 && pid > 1; depth++) {
    try {
      // npm names its process `npm run …` / `npm exec …`.
      if (/^npm( |\0|$)/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) return pid;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
