/**
 * The per-sandbox context every plugin reads through `app.sandbox` (or `request.server.sandbox`): options, the one
 * store, the clock, the selected fault and the notifier. Created once per app, so sandboxes never share state.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.ts';
import type { Fault } from './faults.ts';
import type { Notifier } from './notifications.ts';
import type { Account, Business, Mode, Store } from './store.ts';

export interface ResolvedOptions {
  mode: Mode;
  tokenTtlSeconds: number;
  quickPayTtlSeconds: number;
  webhookRetryDelaysMs: number[];
  fault: string | undefined;
  /** How hosted screens carry their forms: html = plain forms, js = built by inline JavaScript. */
  screen: 'html' | 'js';
}

export interface SandboxContext {
  readonly options: ResolvedOptions;
  /** Replaced wholesale by the test-control reset: always read it through the context. */
  store: Store;
  readonly clock: Clock;
  readonly fault: Fault;
  readonly notifier: Notifier;
  /** Absolute origin used to build the hosted-page URLs (set once the server listens). */
  origin: string;
  /** Key that signs the payment screen's `intento` tokens (stateless, so showing the screen changes nothing). */
  readonly claveIntento: Buffer;
}

/** Who a request acts as: a business (bearer token), or an account (HTTP Basic) acting as one of its businesses. */
export interface Actor {
  via: 'bearer' | 'account';
  account: Account;
  business: Business;
}

declare module 'fastify' {
  interface FastifyInstance {
    sandbox: SandboxContext;
  }
  interface FastifyRequest {
    actor: Actor | null;
  }
}

export function nuevaClaveIntento(): Buffer {
  return randomBytes(32);
}
