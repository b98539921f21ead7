/**
 * `npm run sandbox -- --port 4010 [--host 0.0.0.0] [--mode development|production] [--fault ID] [--variant ID[,ID…]|all|deployed] [--screen html|js] [--no-control]`
 * --no-control: without the test-control API (/__sandbox), as a vendor's deployed service (the suite then waits in real
 * time where it would move the clock).
 * (env SANDBOX_FAULT also selects a fault, SANDBOX_VARIANT the variants, SANDBOX_SCREEN the screen). Prints the URLs and the seeded demo credentials of this local sandbox;
 * SIGINT/SIGTERM close it.
 */
import { parseArgs } from 'node:util';
import { type Mode, createSandbox } from './index.ts';

const USO = 'usage: npm run sandbox -- [--port 4010] [--host 127.0.0.1] [--mode development|production] [--fault ID] [--variant ID[,ID…]|all|deployed] [--screen html|js] [--no-control]';

function fail(message: string): never {
  console.error(`sandbox: ${message}\n${USO}`);
  process.exit(2);
}

let values: { port?: string; host?: string; mode?: string; fault?: string; variant?: string; screen?: string; 'no-control'?: boolean; help?: boolean };
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
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be an integer 0..65535 (got "${values.port}"); example: --port 4010`);
const mode = values.mode ?? 'development';
if (mode !== 'development' && mode !== 'production') fail(`--mode must be development or production (got "${mode}")`);
const screen = values.screen ?? (process.env.SANDBOX_SCREEN || 'html');
if (screen !== 'html' && screen !== 'js') fail(`--screen must be html or js (got "${screen}")`);

let sandbox;
try {
  sandbox = await createSandbox({
    port,
    host: values.host ?? '127.0.0.1',
    mode: mode as Mode,
    fault: values.fault ?? process.env.SANDBOX_FAULT,
    variant: values.variant ?? process.env.SANDBOX_VARIANT,
    screen,
    control: values['no-control'] !== true,
  });
} catch (err) {
  fail((err as Error).message);
}
const { credentials: c } = sandbox;
const fault = values.fault ?? process.env.SANDBOX_FAULT;
const variant = values.variant ?? process.env.SANDBOX_VARIANT;
console.log(`payment-service sandbox (${mode}${fault ? `, fault ${fault}` : ''}${variant ? `, variant ${variant}` : ''}${screen === 'js' ? ', screens built by JavaScript' : ''}${sandbox.controlUrl ? '' : ', no test-control API'}) listening
  base URL     ${sandbox.baseUrl}
  auth URL     ${sandbox.authUrl}   (token: POST ${sandbox.authUrl}/connect/token)
  control URL  ${sandbox.controlUrl ?? '(none: --no-control)'}
seeded credentials (local demo values)
  account              ${c.account.user} / ${c.account.password}
  business             ${c.business.idAplicativo}: client ${c.business.clientId} / ${c.business.clientSecret}
  business (no MPOS)   ${c.businessNoMpos.idAplicativo}: client ${c.businessNoMpos.clientId} / ${c.businessNoMpos.clientSecret}
  disposable account   ${c.disposableAccount.user} / ${c.disposableAccount.password}
  disposable business  ${c.disposableBusiness.idAplicativo}: client ${c.disposableBusiness.clientId} / ${c.disposableBusiness.clientSecret}
  other account        ${c.otherAccount.user} / ${c.otherAccount.password}   (a second merchant: OTHER_ACCOUNT_USER / OTHER_ACCOUNT_PASSWORD)
  other business       ${c.otherBusiness.idAplicativo}: client ${c.otherBusiness.clientId} / ${c.otherBusiness.clientSecret}   (OTHER_CLIENT_ID / OTHER_CLIENT_SECRET)`);

const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
