/**
 * Whole conformance runs as child processes, for the bench and the soak script: against the embedded sandbox, or
 * against a sandbox started here as a REMOTE target behind the loopback latency proxy (bench/latency-proxy.ts).
 * The sandbox's public origin is the proxy, so hosted screens, QR images and redirects go through the proxy too.
 *
 *   const r = await proxiedRun(100, env);   // { seconds, code, peak, requests, output }
 */
import { spawn } from 'node:child_process';
import { vitestCli } from '../harness/run/vitest-cli.ts';
import { startRemoteSandbox } from './remote-sandbox.ts';
import { startLatencyProxy } from './latency-proxy.ts';

export interface ConformanceRun {
  seconds: number;
  code: number | null;
  /** stdout and stderr, interleaved (kept only when asked for). */
  output: string;
}

export function conformanceRun(env: NodeJS.ProcessEnv, keepOutput = false): Promise<ConformanceRun> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitestCli, 'run', '--project', 'conformance'], { env, stdio: keepOutput ? 'pipe' : 'ignore' });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, code, output }));
  });
}

/** The settings a proxied run adds: the suite verifies the sandbox's hash and signature, as for a known remote. */
const VERIFY = { REDIRECT_HASH: 'hmac-sha256', WEBHOOK_SIGNATURE: 'hmac-sha256' };

/** One whole run against a fresh sandbox `delayMs` away; `peak` and `requests` are counted at the proxy. */
export async function proxiedRun(
  delayMs: number,
  env: NodeJS.ProcessEnv,
  keepOutput = false,
): Promise<ConformanceRun & { peak: number; requests: number }> {
  const proxy = await startLatencyProxy({ delayMs });
  const remote = await startRemoteSandbox({ mode: 'development', publicOrigin: proxy.origin });
  proxy.setUpstream(remote.sandbox.listenOrigin);
  try {
    const run = await conformanceRun({ ...env, ...remote.env, ...VERIFY }, keepOutput);
    return { ...run, peak: proxy.peak, requests: proxy.requests };
  } finally {
    await remote.close();
    await proxy.close();
  }
}
