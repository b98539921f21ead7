/**
 * The reference sandbox of the payment-service API: a fastify app with one plugin per resource, all state in one
 * store, an injectable clock and no module-level state. `createSandbox` is the only entry point the harness uses;
 * `buildApp` gives the instance without listening (for `inject` tests). URL layout, seeded credentials and every
 * "not shown" decision: docs/decisions.md and sandbox/README.md.
 */
import type { AddressInfo } from 'node:net';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import { accountsApi } from './accounts.ts';
import { authApi } from './auth.ts';
import { createClock } from './clock.ts';
import { PANTALLAS, type Pantalla, type ResolvedOptions, type SandboxContext, nuevaClaveIntento } from './context.ts';
import { controlApi } from './control.ts';
import { faultSettings, selectFault } from './faults.ts';
import { selectVariants, variantIds, variantSettings } from './variants.ts';
import { datosNumericos, datosRecasados, formaCuerpo, respuestaError } from './respuestas.ts';
import { linksApi, linksPages } from './links.ts';
import { createNotifier } from './notifications.ts';
import { type Network, type NetworkProfile, installNetwork, resolveNetwork } from './network.ts';
import { mposApi } from './purchases/mpos.ts';
import { pagoQrApi } from './purchases/pagoqr.ts';
import { quickPayApi, quickPayPages } from './purchases/quickpay.ts';
import { threeDsApi, threeDsPages } from './purchases/threeds.ts';
import { walletApi } from './purchases/wallet.ts';
import { screenPages } from './screen.ts';
import { stepsPages } from './screen-steps.ts';
import { framePages } from './screen-frame.ts';
import { type Mode, SEED, conVariantes, createStore } from './store.ts';
import { transactionsApi } from './transactions.ts';

export { FAULTS, type FaultId, faultSettings } from './faults.ts';
export { VARIANTS, type VariantId, variantIds, variantSettings } from './variants.ts';
export type { Mode } from './store.ts';
export { PANTALLAS, type Pantalla } from './context.ts';
export { NETWORKS, type NetworkName, type NetworkCounters, networkSettings } from './network.ts';

export interface SandboxOptions {
  port?: number;
  host?: string;
  mode?: Mode;
  tokenTtlSeconds?: number;
  quickPayTtlSeconds?: number;
  webhookRetryDelaysMs?: number[];
  /** One id of FAULTS; unknown ids throw. */
  fault?: string;
  /** Variants of sandbox/variants.ts: `id[,id…]` or `all`; unknown ids throw. */
  variant?: string;
  /**
   * How the hosted pages are served (PANTALLAS). Default `html`: plain forms. `js`: the payment, 3DS and quick-pay
   * pages build their forms with inline JavaScript (same fields, no network), so only a browser can pay them.
   * `steps`: the link screen in two steps (card, then "Confirmar y pagar"). `challenge`: the 3DS page asks for the
   * test code it shows. `frame`: the link screen is a script shell, the card in an iframe of another origin.
   * Without it, the screen a selected variant or fault names (its SANDBOX_SCREEN setting) is served.
   */
  screen?: Pantalla;
  /** Base of the sandbox clock (the test-control API adds its offset). */
  now?: () => Date;
  /**
   * false: no test-control API (no /__sandbox routes), as a vendor's deployed service would be; default true.
   */
  control?: boolean;
  logger?: boolean;
  /**
   * The origin clients reach the sandbox at, when it is not the listening address (a proxy in front of it, as the
   * bench's latency proxy): written into hosted-page URLs and the returned base URLs. Default: the listening address.
   */
  publicOrigin?: string;
  /**
   * The internet in front of it (sandbox/network.ts): mild, rough (latency, 429 above a rate, 503 before and 502 after
   * processing, closed and dropped connections, gzip, webhooks late and twice), throttled (every API request 429) or
   * unavailable (every API request 503). Default: none, answered directly.
   */
  network?: string;
  /** Seed of the network's decisions (0..2^32−1); default a random one, shown at GET /__sandbox/network. */
  networkSeed?: number;
  /** The network's profile with some of its odds changed (its own tests: a 502 or a drop on demand). */
  networkProfile?: Partial<NetworkProfile>;
}

export interface BuildOptions extends SandboxOptions {
  /** Origin written into hosted-page URLs; createSandbox sets it to the listening address. */
  origin?: string;
}

export interface AccountCredentials {
  user: string;
  password: string;
}

export interface BusinessCredentials {
  idAplicativo: string;
  clientId: string;
  clientSecret: string;
}

export interface SandboxCredentials {
  account: AccountCredentials;
  business: BusinessCredentials;
  businessNoMpos: BusinessCredentials;
  disposableAccount: AccountCredentials;
  disposableBusiness: BusinessCredentials;
  /** A second merchant (another tenant), for the tenant-isolation checks. */
  otherAccount: AccountCredentials;
  otherBusiness: BusinessCredentials;
}

export interface Sandbox {
  baseUrl: string;
  authUrl: string;
  /** Its test-control API; undefined when started with `control: false`. */
  controlUrl: string | undefined;
  origin: string;
  /** Where it listens (differs from `origin` with publicOrigin). */
  listenOrigin: string;
  credentials: SandboxCredentials;
  app: FastifyInstance;
  close(): Promise<void>;
}

const MIB = 1024 * 1024;
const ES_JSON_MAL_FORMADO = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);

function resolveOptions(options: SandboxOptions): ResolvedOptions {
  const mode = options.mode ?? 'development';
  if (mode !== 'development' && mode !== 'production') {
    throw new Error(`sandbox option mode must be "development" or "production" (got ${JSON.stringify(mode)})`);
  }
  const positive = (name: string, value: number) => {
    if (!Number.isFinite(value) || value <= 0) throw new Error(`sandbox option ${name} must be a positive number (got ${value})`);
    return value;
  };
  const delays = options.webhookRetryDelaysMs ?? [100, 200, 400, 800];
  if (!delays.every((d) => Number.isFinite(d) && d >= 0)) {
    throw new Error('sandbox option webhookRetryDelaysMs must be a list of non-negative milliseconds, e.g. [100, 200, 400, 800]');
  }
  return {
    mode,
    tokenTtlSeconds: positive(
      'tokenTtlSeconds',
      options.tokenTtlSeconds ?? (variantIds(options.variant).includes('token-ttl-short') ? 120 : 3600),
    ),
    quickPayTtlSeconds: positive('quickPayTtlSeconds', options.quickPayTtlSeconds ?? 600),
    webhookRetryDelaysMs: delays,
    fault: options.fault === '' ? undefined : options.fault,
    variant: options.variant?.trim() || undefined,
    screen: pantalla(options.screen, options.variant, options.fault),
  };
}

/**
 * The screen served: the option, else the one the selected variant or fault is about (its SANDBOX_SCREEN setting,
 * as the harness would pass it), else html. An option contradicting that setting throws: the variant or fault would
 * otherwise be shown on a screen where it means nothing.
 */
function pantalla(screen: string | undefined, variant: string | undefined, fault: string | undefined): Pantalla {
  if (screen !== undefined && !(PANTALLAS as readonly string[]).includes(screen)) {
    throw new Error(`sandbox option screen must be one of ${PANTALLAS.map((p) => `"${p}"`).join(', ')} (got ${JSON.stringify(screen)})`);
  }
  const propia = variantSettings(variant)['SANDBOX_SCREEN'] ?? faultSettings(fault)['SANDBOX_SCREEN'];
  if (screen !== undefined && propia !== undefined && screen !== propia) {
    throw new Error(`sandbox option screen "${screen}" contradicts the selected variant or fault, which is served on screen "${propia}"`);
  }
  return (screen ?? propia ?? 'html') as Pantalla;
}

/** Every client error becomes a 4xx with the JSON error body; only a genuine sandbox bug may answer 500. */
function errorHandler(this: FastifyInstance, err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const errores = (campo: string, mensaje: string) => ({ errores: [{ campo, mensaje }] });
  if (ES_JSON_MAL_FORMADO.has(err.code)) {
    if (this.sandbox.fault('malformed-json-500')) return reply.code(500).send(errores('$', 'Internal Server Error'));
    return reply.code(400).send(errores('$', 'el cuerpo no es JSON válido'));
  }
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return reply.code(400).send(errores('content-type', 'el cuerpo debe enviarse como application/json'));
  }
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send(errores('$', 'el cuerpo supera 1 MiB'));
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return reply.code(status).send(errores('$', err.message));
  req.log.error(err);
  return reply.code(500).send(errores('$', 'error interno del sandbox'));
}

// Stryker disable all: only fault booleans-as-strings calls it (plumbing, off by default; npm run mutation:stryker)
function booleansAsText(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Array.isArray(value)) return value.map(booleansAsText);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, booleansAsText(v)]));
  return value;
}
// Stryker restore all

/** The endpoints of spec section 4, under /api: JSON bodies only. */
const api: FastifyPluginAsync = async (app) => {
  if (app.sandbox.fault('responses-text-plain')) {
    app.addHook('onSend', async (_req, reply, payload) => {
      reply.header('content-type', 'text/plain; charset=utf-8');
      return payload;
    });
  }
  if (app.sandbox.fault('booleans-as-strings')) {
    // As some deployed services serialise them: every boolean of a response body written "True" / "False".
    app.addHook('preSerialization', async (_req, _reply, payload: unknown) => booleansAsText(payload));
  }
  if (app.sandbox.fault('datos-adicionales-numeric-coerced')) {
    // The purchase responses and the lookup (the link record keeps its text).
    app.addHook('preSerialization', async (req, _reply, payload: unknown) =>
      (req.routeOptions.url ?? '').includes('TransaccionCompra') ? datosNumericos(payload) : payload,
    );
  }
  if (app.sandbox.fault('datos-keys-recased')) {
    app.addHook('preSerialization', async (_req, _reply, payload: unknown) => datosRecasados(payload));
  }
  // The variants of the error form (errors-*) and of the body shape (extra-fields, key-order-reversed, empty-strings):
  // sandbox/respuestas.ts writes them, for every answer of the API.
  const { variant } = app.sandbox;
  app.addHook('preSerialization', async (_req, reply, payload: unknown) => {
    const error = respuestaError(variant, reply.statusCode, payload);
    if (error.status !== reply.statusCode) reply.code(error.status);
    if (error.contentType) reply.type(error.contentType);
    return error.body === payload ? formaCuerpo(variant, payload) : error.body;
  });
  // Variant lenient-types: JSON sent as application/json-patch+json (as .NET clients of the deployed service do) is read too.
  if (variant('lenient-types')) {
    app.addContentTypeParser('application/json-patch+json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
  }
  for (const plugin of [linksApi, threeDsApi, walletApi, pagoQrApi, quickPayApi, mposApi, transactionsApi, accountsApi]) {
    await app.register(plugin);
  }
};

/** Hosted pages: the browser posts HTML forms here. */
const hosted: FastifyPluginAsync = async (app) => {
  await app.register(formbody);
  for (const plugin of [linksPages, screenPages, stepsPages, framePages, threeDsPages, quickPayPages]) await app.register(plugin);
};

export function buildApp(options: BuildOptions = {}): FastifyInstance {
  const resolved = resolveOptions(options);
  const red = resolveNetwork(options.network, options.networkSeed);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: MIB,
    // A path with broken percent-encoding never reaches a route: answer it like any other client error.
    frameworkErrors: (_err, _req, reply: FastifyReply) => {
      void reply.code(400).send({ errores: [{ campo: 'url', mensaje: 'la URL no es válida' }] });
    },
  });
  // Its hooks first, on the root: they wrap every route and every plugin's own hooks.
  const network: Network | undefined = red && installNetwork(app, red.name, red.seed, options.networkProfile);
  const base = {
    options: resolved,
    store: conVariantes(createStore(resolved.mode), selectVariants(resolved.variant)),
    clock: createClock(options.now),
    fault: selectFault(resolved.fault),
    variant: selectVariants(resolved.variant),
    origin: options.origin ?? 'http://127.0.0.1',
    claveIntento: nuevaClaveIntento(),
    network,
  };
  // The notifier reads the same object (its store is replaced by reset), so it is added to it, not copied.
  const ctx: SandboxContext = Object.assign(base, { notifier: createNotifier(base) });

  app.decorate('sandbox', ctx);
  app.decorateRequest('actor', null);
  // Only JSON (API) and form bodies (token endpoint, hosted pages) are parsed; anything else is a 400.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ errores: [{ campo: 'url', mensaje: `no existe ${req.method} en esta ruta` }] }),
  );
  app.addHook('onClose', async () => ctx.notifier.cancelar());
  void app.register(api, { prefix: '/api' });
  void app.register(authApi, { prefix: '/auth' });
  void app.register(hosted);
  if (options.control !== false) void app.register(controlApi, { prefix: '/__sandbox' });
  return app;
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const app = buildApp(options);
  await app.listen({ port: options.port ?? 0, host });
  const { port } = app.server.address() as AddressInfo;
  // A wildcard address is not something a client can dial: advertise loopback.
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const listenOrigin = `http://${publicHost}:${port}`;
  const origin = options.publicOrigin?.replace(/\/+$/, '') ?? listenOrigin;
  app.sandbox.origin = origin;
  return {
    baseUrl: `${origin}/api`,
    authUrl: `${origin}/auth`,
    controlUrl: options.control === false ? undefined : `${origin}/__sandbox`,
    origin,
    listenOrigin,
    credentials: structuredClone({
      account: SEED.account,
      business: SEED.business,
      businessNoMpos: SEED.businessNoMpos,
      disposableAccount: SEED.disposableAccount,
      disposableBusiness: SEED.disposableBusiness,
      otherAccount: SEED.otherAccount,
      otherBusiness: SEED.otherBusiness,
    }),
    app,
    close: async () => {
      await app.close();
    },
  };
}
