/**
 * A sandbox started by the test and handed to a conformance child run as a REMOTE target (API_BASE_URL …), so
 * the test knows everything the run is given and sees every request it sends, on the wire:
 *
 *   const target = await startRemoteSandbox({ mode: 'production' });
 *   const run = await runConformance({ env: target.env, timeoutMs });
 *   target.requests;   // ['POST /auth/connect/token', 'POST /api/EnlacePago', …]
 *   target.tokens;     // every access_token the sandbox issued
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSandbox, type Pantalla, type Sandbox } from '../sandbox/index.ts';

export interface RemoteSandbox {
  sandbox: Sandbox;
  /** The variables that point a run at this sandbox as a remote target, with every credential it has. */
  env: Record<string, string>;
  /** `METHOD /path` of every request received. */
  requests: string[];
  tokens: string[];
  /** The sandbox's own counters (GET /__sandbox/stats). */
  stats(): Promise<{ links: number; transactions: number; accounts: number; purchaseRequests: number }>;
  close(): Promise<void>;
}

export async function startRemoteSandbox(options: {
  mode: 'development' | 'production';
  fault?: string;
  variant?: string;
  publicOrigin?: string;
  /** The hosted screens it serves (SANDBOX_SCREEN of an embedded run). */
  screen?: Pantalla;
}): Promise<RemoteSandbox> {
  const sandbox = await createSandbox(options);
  const requests: string[] = [];
  const tokens: string[] = [];
  // Listening beside fastify's own handler, and first: it only watches.
  sandbox.app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push(`${req.method} ${path}`);
    if (path.endsWith('/connect/token')) captureTokens(res, tokens);
  });
  const c = sandbox.credentials;
  return {
    sandbox,
    env: {
      API_BASE_URL: sandbox.baseUrl,
      AUTH_URL: sandbox.authUrl,
      CLIENT_ID: c.business.clientId,
      CLIENT_SECRET: c.business.clientSecret,
      ACCOUNT_USER: c.account.user,
      ACCOUNT_PASSWORD: c.account.password,
      SECOND_CLIENT_ID: c.businessNoMpos.clientId,
      SECOND_CLIENT_SECRET: c.businessNoMpos.clientSecret,
    },
    requests,
    tokens,
    stats: async () => (await fetch(`${sandbox.controlUrl}/stats`)).json() as ReturnType<RemoteSandbox['stats']>,
    close: () => sandbox.close(),
  };
}

/** Reads the access_token out of a token response as it is written (fastify writes the body, then ends). */
function captureTokens(res: ServerResponse, tokens: string[]): void {
  let body = '';
  const keep = (chunk: unknown) => {
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) body += chunk.toString();
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((...args: unknown[]) => (keep(args[0]), write(...args))) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    keep(args[0]);
    const token = /"access_token"\s*:\s*"([^"]+)"/.exec(body)?.[1];
    if (token) tokens.push(token);
    return end(...args);
  }) as ServerResponse['end'];
}
