/**
 * Test-control API under /__sandbox (outside the spec; docs/decisions.md): clock, outbox, stats, reset, and tenants —
 * a fresh account and business with their own clock, counters and outbox (`/tenants/:id/…`, the same calls), so a
 * test that moves time or counts what it created disturbs no other test (Stripe's test clocks are the model); and
 * what the simulated network did (`/network`). The network never touches these routes.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Clock } from './clock.ts';
import { conVariantes, createStore, type Tenant } from './store.ts';
import { createTenant, tenantStats } from './tenants.ts';
import { Validacion } from './validate.ts';

export const controlApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  const reloj = (clock: Clock) => ({ now: clock.now().toISOString(), offsetSeconds: clock.offsetSeconds() });

  /** Moves a clock forward, or answers 400 with the clock untouched. */
  const avanzar = (clock: Clock, body: unknown, reply: FastifyReply) => {
    const v = new Validacion();
    const seconds = v.cuerpo(body).numero('seconds', { requerido: true, min: 0, max: 10 * 365 * 24 * 3600 });
    if (!v.ok || seconds === undefined) return reply.code(400).send({ errores: v.errores });
    clock.advance(seconds);
    return reloj(clock);
  };

  app.get('/', async () => ({
    sandbox: true,
    mode: ctx.options.mode,
    capabilities: ['clock', 'outbox', 'stats', 'reset', 'tenants'],
    fault: ctx.options.fault ?? null,
  }));

  // What the simulated network (sandbox/network.ts) did so far; kept across reset: the wire is not the target's state.
  app.get('/network', async () =>
    ctx.network === undefined
      ? { network: null, seed: null, counters: null }
      : { network: ctx.network.name, seed: ctx.network.seed, counters: ctx.network.counters },
  );

  app.get('/clock', async () => reloj(ctx.clock));

  app.post('/clock/advance', async (req, reply) => avanzar(ctx.clock, req.body, reply));

  app.get('/outbox', async () => ctx.store.outbox);

  app.get('/stats', async () => ({
    links: ctx.store.links.size,
    transactions: ctx.store.transactions.size,
    accounts: ctx.store.accounts.size,
    purchaseRequests: ctx.store.stats.purchaseRequests,
  }));

  app.post('/reset', async () => {
    ctx.notifier.cancelar();
    ctx.store = conVariantes(createStore(ctx.options.mode), ctx.variant);
    ctx.clock.reset();
    return { reset: true };
  });

  app.post('/tenants', async (_req, reply) => {
    const { tenant, secret, password } = createTenant(ctx);
    const account = ctx.store.accounts.get(tenant.idCuenta)!;
    const idAplicativo = tenant.aplicativos[0]!;
    const business = ctx.store.businesses.get(idAplicativo)!;
    return reply.code(201).send({
      id: tenant.id,
      account: { user: account.emailLogin, password },
      business: { idAplicativo, clientId: business.clientIdApi, clientSecret: secret },
      clock: reloj(tenant.clock),
    });
  });

  /** The tenant of `:id`, or a 404 (an unknown or forgotten tenant: reset forgets them all). */
  const tenant = (id: string, reply: FastifyReply): Tenant | undefined => {
    const found = ctx.store.tenants.get(id);
    if (!found) void reply.code(404).send({ errores: [{ campo: 'id', mensaje: `no existe el tenant ${id}` }] });
    return found;
  };
  type ById = { Params: { id: string } };

  app.get<ById>('/tenants/:id/clock', async (req, reply) => {
    const t = tenant(req.params.id, reply);
    return t ? reloj(t.clock) : reply;
  });
  app.post<ById>('/tenants/:id/clock/advance', async (req, reply) => {
    const t = tenant(req.params.id, reply);
    return t ? avanzar(t.clock, req.body, reply) : reply;
  });
  app.get<ById>('/tenants/:id/outbox', async (req, reply) => {
    const t = tenant(req.params.id, reply);
    return t ? t.outbox : reply;
  });
  app.get<ById>('/tenants/:id/stats', async (req, reply) => {
    const t = tenant(req.params.id, reply);
    return t ? tenantStats(ctx.store, t) : reply;
  });
};
