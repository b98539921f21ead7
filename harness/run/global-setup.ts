/**
 * vitest global setup of the conformance project: selects and probes the target once per run, hands it and the run's
 * bounds to the worker (`inject('target')`, `inject('config')`) and to the reporters (CONFORMANCE_RUN_INFO), and
 * stops the embedded sandbox at the end.
 */
import type { TestProject } from 'vitest/node';
import { ConfigError, loadConfig, type Config } from '../setup/config.ts';
import { probeTarget, selectTarget } from '../setup/target.ts';
import { PRODUCTION_MESSAGE } from '../setup/interlock.ts';
import type { Preflight } from '../setup/preflight.ts';
import { findAccountAuth, withAccountAuth } from '../discovery/account-auth.ts';
import { spoken } from '../record/command.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let config: Config;
  let selected: Awaited<ReturnType<typeof selectTarget>>;
  try {
    config = loadConfig();
    selected = await selectTarget(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Run directly by vitest (npm test), a throw here reads "No test files found": let the reports say why instead.
    process.env.CONFORMANCE_RUN_INFO = JSON.stringify({ abort: `configuration error: ${err.message}` });
    // One line naming the variable, not a stack.
    err.stack = `${err.name}: ${err.message}`;
    throw err;
  }
  const { embedded } = selected;
  // What the preflight found before vitest was started (npm run conformance: it stops on a set-up problem). Run by
  // vitest directly (npm test, the end-to-end tests), the target's probe below is the only check.
  const checked = readPreflight();
  const { account: _refused, ...withoutAccount } = selected.info;
  const info = checked?.accountRefused ? { ...withoutAccount, accountRefused: checked.accountRefused } : selected.info;
  // ACCOUNT_AUTH=auto: found beside the probe, whose account steps (it activates a link as the account) wait for it.
  const found = config.accountAuthAuto && info.kind === 'remote' ? findAccountAuth(config, info) : Promise.resolve(undefined);
  const probed = await probeTarget(
    info,
    config,
    found.then((f) =>
      f ? { config: withAccountAuth(config, f.accountAuth), ...(f.activation ? { activation: f.activation } : {}) } : { config },
    ),
  );
  const accountAuth = await found;
  // (The activation's answer was the probe's; the report keeps how the account authenticates and what showed it.)
  const target = accountAuth
    ? { ...probed, accountAuth: { accountAuth: accountAuth.accountAuth, found: accountAuth.found, evidence: accountAuth.evidence } }
    : probed;
  // Run by vitest directly, no preflight proved API_BASE_URL: a route that is not there for the probe's valid link says
  // the base is wrong (as the preflight would), and the tests are not judged on it.
  const status = target.modes[target.business.clientId]?.status;
  if (!checked && target.kind === 'remote' && target.unreachable === undefined && (status === 404 || status === 405))
    target.unreachable =
      `set-up error: API_BASE_URL=${target.baseUrl} does not serve the API: POST ${target.baseUrl}/EnlacePago (a valid ` +
      `link) answered ${status}; set API_BASE_URL to the {base_url} under which the spec's paths (/EnlacePago, ` +
      `/TransaccionCompra/…) are served (${spoken('npm run conformance')} checks it first and names the base it finds)`;
  const abort = target.unreachable ?? (target.mode === 'production' ? PRODUCTION_MESSAGE : undefined);
  // What the probe recovered from is not silent: the report's run notes say it.
  const notes = [...Object.values(target.modes), ...(target.other?.probe ? [target.other.probe] : [])]
    .filter((p) => p.lostAnswer !== undefined)
    .map((p) => `the mode probe as ${p.variable} got ${p.lostAnswer} to POST /EnlacePago; it probed again with a new link`);
  process.env.CONFORMANCE_RUN_INFO = JSON.stringify({
    targetUrl: target.baseUrl,
    targetKind: target.kind,
    mode: target.mode,
    capabilities: target.capabilities,
    fcSeed: config.fastCheck.seed,
    ...(abort ? { abort } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  });
  project.provide('target', target);
  // The run's configuration, read here once: the worker runs with it and declares its tests' timeouts by its bounds
  // (harness/run/budget.ts).
  project.provide('config', config);
  return async () => {
    await embedded?.close();
  };
}

/** What `npm run conformance` found before it started vitest (CONFORMANCE_PREFLIGHT), when it did. */
function readPreflight(): Pick<Preflight, 'accountRefused'> | undefined {
  const raw = process.env.CONFORMANCE_PREFLIGHT;
  if (!raw) return undefined;
  try {
    const { accountRefused } = JSON.parse(raw) as { accountRefused?: unknown };
    return typeof accountRefused === 'string' ? { accountRefused } : {};
  } catch {
    return undefined;
  }
}
