/**
 * Test-control API under /__sandbox (outside the spec; docs/decisions.md): clock, outbox, stats, reset.
 */
import type { FastifyPluginAsync } from 'fastify';
import { createStore } from './store.ts';
import { Validacion } from './validate.ts';

export const controlApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  const reloj = () => ({ now: ctx.clock.now().toISOString(), offsetSeconds: ctx.clock.offsetSeconds() });

  app.get('/', async () => ({
    sandbox: true,
    mode: ctx.options.mode,
    capabilities: ['clock', 'outbox', 'stats', 'reset'],
    fault: ctx.options.fault ?? null,
  }));

  app.get('/clock', async () => reloj());

  app.post('/clock/advance', async (req, reply) => {
    const v = new Validacion();
    const seconds = v.cuerpo(req.body).numero('seconds', { requerido: true, min: 0, max: 10 * 365 * 24 * 3600 });
    if (!v.ok || seconds === undefined) return reply.code(400).send({ errores: v.errores });
    ctx.clock.advance(seconds);
    return reloj();
  });

  app.get('/outbox', async () => ctx.store.outbox);

  app.get('/stats', async () => ({
    links: ctx.store.links.size,
    transactions: ctx.store.transactions.size,
    accounts: ctx.store.accounts.size,
    purchaseRequests: ctx.store.stats.purchaseRequests,
  }));

  app.post('/reset', async () => {
    ctx.notifier.cancelar();
    ctx.store = createStore(ctx.options.mode);
    ctx.clock.reset();
    return { reset: true };
  });
};
