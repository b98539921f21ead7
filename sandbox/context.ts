/**
 * The per-sandbox context every plugin reads through `app.sandbox` (or `request.server.sandbox`): options, the one
 * store, the clock, the selected fault and variants, and the notifier. Created once per app, so sandboxes never share state.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.ts';
import type { Fault } from './faults.ts';
import type { Network } from './network.ts';
import type { Variant } from './variants.ts';
import type { Account, Business, Link, Mode, Store, Transaction } from './store.ts';

/**
 * The kinds of hosted screens: html = plain forms; js = the same forms built by inline JavaScript; steps = the link
 * screen in two steps (card, then a confirmation); challenge = the 3DS page as an issuer test page asking for a code;
 * frame = the link screen as a script shell with the card in an iframe of another origin.
 */
export const PANTALLAS = ['html', 'js', 'steps', 'challenge', 'frame'] as const;
export type Pantalla = (typeof PANTALLAS)[number];

/** Notifications of processed payments (notifications.ts implements it; declared here so the context imports no plugin). */
export interface Notifier {
  /** Called for every processed payment; only approved ones are notified. */
  notificar(tx: Transaction, link: Link | null): void;
  /** Stops pending deliveries and retries (close, reset). */
  cancelar(): void;
}

export interface ResolvedOptions {
  mode: Mode;
  tokenTtlSeconds: number;
  quickPayTtlSeconds: number;
  webhookRetryDelaysMs: number[];
  fault: string | undefined;
  /** SANDBOX_VARIANT as given (`id[,id…]` or `all`). */
  variant: string | undefined;
  /** How hosted screens are served (PANTALLAS). */
  screen: Pantalla;
}

export interface SandboxContext {
  readonly options: ResolvedOptions;
  /** Replaced wholesale by the test-control reset: always read it through the context. */
  store: Store;
  readonly clock: Clock;
  readonly fault: Fault;
  /** The selected variants of sandbox/variants.ts (spec-valid choices other than the default). */
  readonly variant: Variant;
  readonly notifier: Notifier;
  /** The simulated internet in front of the sandbox (sandbox/network.ts), or undefined: answered directly. */
  readonly network: Network | undefined;
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
