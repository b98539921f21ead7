/**
 * The areas a run cannot judge with its settings, said before the tests so that a green run means they were checked:
 * webhooks (no receiver the target can reach), hosted screens (no payer for the kind of page), account deletion (not
 * opted in). One line each with its fix; REQUIRE names the areas whose being left unchecked is a set-up error (exit
 * 2, before any test).
 *
 *   for (const u of await uncheckedAreas(config)) console.error(areaLine(u));
 */
import { existsSync } from 'node:fs';
import { startReceiver } from '../api/receiver.ts';
import type { Config } from './config.ts';
import { receiverWarning } from './preflight.ts';

export const AREAS = ['webhooks', 'screens', 'account-deletion'] as const;
export type Area = (typeof AREAS)[number];

export interface Unchecked {
  area: Area;
  /** Why it cannot be judged with these settings. */
  why: string;
  /** What to set to judge it. */
  fix: string;
}

/** How long the receiver's own public URL may take to bring a request back to this machine. */
const REACH_TIMEOUT_MS = 5_000;

export async function uncheckedAreas(config: Config): Promise<Unchecked[]> {
  const found: Unchecked[] = [];
  const webhooks = await webhookReach(config);
  if (webhooks) found.push(webhooks);
  const screens = screenPayer(config);
  if (screens) found.push(screens);
  if (config.target.kind === 'remote' && !config.allowDestructive.includes('account-deletion'))
    found.push({
      area: 'account-deletion',
      why: 'account deletion is destructive and not opted in',
      fix: 'ALLOW_DESTRUCTIVE=account-deletion with DELETION_ACCOUNT_USER and DELETION_ACCOUNT_PASSWORD of a disposable account',
    });
  return found;
}

/** `not checked with these settings: webhooks: … — to check them: …` */
export function areaLine(u: Unchecked): string {
  return `not checked with these settings: ${u.area}: ${u.why}; to check: ${u.fix}`;
}

/** The REQUIRE line: the required areas left unchecked, nothing run. */
export function requiredLine(unchecked: readonly Unchecked[], required: readonly Area[]): string | undefined {
  const missing = unchecked.filter((u) => required.includes(u.area)).map((u) => u.area);
  if (missing.length === 0) return undefined;
  return `REQUIRE=${required.join(',')}: ${missing.join(', ')} cannot be checked with these settings (said above); nothing was run`;
}

/**
 * Webhooks: a remote target elsewhere with a loopback receiver URL cannot deliver; with WEBHOOK_PUBLIC_URL, a request
 * to it from here must come back to the receiver (RECEIVER_HOST:RECEIVER_PORT). That proves the tunnel from this
 * machine only: whether the target's network reaches it is seen when its webhooks arrive.
 */
async function webhookReach(config: Config): Promise<Unchecked | undefined> {
  if (config.target.kind !== 'remote') return undefined;
  const loopback = await receiverWarning(config);
  if (loopback)
    return {
      area: 'webhooks',
      why: `no receiver the target can reach (${config.target.baseUrl} is not on this host; the receiver's URL is loopback)`,
      fix: 'WEBHOOK_PUBLIC_URL = a tunnel to this host with a fixed RECEIVER_PORT (docs/ci.md), or RECEIVER_HOST = an address the target reaches',
    };
  const publicUrl = config.receiver.publicUrl;
  if (!publicUrl) return undefined;
  const fix = `point WEBHOOK_PUBLIC_URL at a tunnel forwarding to this host's RECEIVER_PORT (docs/ci.md "Webhooks from a remote target")`;
  if (config.receiver.port === 0)
    return {
      area: 'webhooks',
      why: `WEBHOOK_PUBLIC_URL is set but RECEIVER_PORT=0 (any free port): a tunnel cannot know where to forward`,
      fix: `set RECEIVER_PORT to the port the tunnel forwards to; ${fix}`,
    };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  try {
    receiver = await startReceiver({ host: config.receiver.host, port: config.receiver.port, publicUrl });
  } catch (err) {
    return {
      area: 'webhooks',
      why: `the receiver cannot listen on ${config.receiver.host}:${config.receiver.port} (${(err as Error).message})`,
      fix: 'free that port or set RECEIVER_PORT to another one the tunnel forwards to',
    };
  }
  const tag = `reach-${process.pid}-${Date.now()}`;
  try {
    const arrived = receiver
      .waitForWebhook((w) => w.tag === tag, REACH_TIMEOUT_MS)
      .then(
        () => true,
        () => false,
      );
    const sent = await fetch(receiver.webhookUrl(tag), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(REACH_TIMEOUT_MS),
    }).then(
      (r) => `answered ${r.status}`,
      (err: Error) => (err.cause instanceof Error ? err.cause.message : err.message),
    );
    if (await arrived) return undefined;
    return {
      area: 'webhooks',
      why: `a request to WEBHOOK_PUBLIC_URL (${publicUrl}) from here did not reach the receiver on port ${config.receiver.port} (${sent})`,
      fix,
    };
  } finally {
    await receiver.close();
  }
}

/** Screens: the embedded sandbox's script-built screens with no browser to pay them. */
function screenPayer(config: Config): Unchecked | undefined {
  if (config.target.kind !== 'embedded') return undefined;
  const scripted = config.sandbox.screen === 'js' || config.sandbox.screen === 'frame';
  const browser = config.payer.kind === 'browser' || (config.payer.kind === 'auto' && existsSync(config.payer.chromiumPath));
  if (!scripted || browser) return undefined;
  return {
    area: 'screens',
    why: `no payer for pages built by JavaScript (SANDBOX_SCREEN=${config.sandbox.screen}, PAYER=${config.payer.kind}${config.payer.kind === 'auto' ? ' without Chromium' : ''})`,
    fix: 'PAYER=browser (or auto) with Chromium (CHROMIUM_PATH)',
  };
}
