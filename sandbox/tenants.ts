/**
 * Tenants of the test-control API (outside the spec; docs/decisions.md), after Stripe's test clocks: a fresh account
 * with one business, bound to its own clock (frozen, moved only by advancing it), counters and outbox, so a test that
 * moves time or counts what its
 * requests created disturbs no other test. Every time read about a business's resources (its tokens, links, screens,
 * transactions) goes through `clockOf`; the seeded businesses keep the sandbox clock.
 */
import { randomBytes } from 'node:crypto';
import { createClock, type Clock } from './clock.ts';
import type { SandboxContext } from './context.ts';
import { createBusiness, createAccount, type Outbox, type Store, type Tenant } from './store.ts';

/** Tenants one sandbox keeps at most (a run creates one per test that needs one); the oldest go first. */
const MAX_TENANTS = 5000;

/** The tenant a business belongs to, if any. */
export function tenantOf(store: Store, idAplicativo: string | null | undefined): Tenant | undefined {
  return idAplicativo == null ? undefined : store.tenantByBusiness.get(idAplicativo);
}

/** The clock of a business's resources: its tenant's, or the sandbox clock. */
export function clockOf(ctx: Pick<SandboxContext, 'store' | 'clock'>, idAplicativo: string | null | undefined): Clock {
  return tenantOf(ctx.store, idAplicativo)?.clock ?? ctx.clock;
}

/** Where the notifications of a business's transactions are recorded: its tenant's outbox, or the sandbox's. */
export function outboxOf(store: Store, idAplicativo: string | null | undefined): Outbox {
  return tenantOf(store, idAplicativo)?.outbox ?? store.outbox;
}

/** A new tenant: an account (development or the sandbox's mode) whose one business has the MPOS permission. */
export function createTenant(ctx: Pick<SandboxContext, 'store' | 'clock' | 'variant'>): {
  tenant: Tenant;
  secret: string;
  password: string;
} {
  const { store } = ctx;
  const id = `t${(store.nextTenant++).toString(36)}${randomBytes(3).toString('hex')}`;
  const secret = randomBytes(16).toString('hex');
  const password = randomBytes(12).toString('base64url');
  const idCuenta = `cuenta-${id}`;
  const business = createBusiness(
    { idAplicativo: `app-${id}`, clientId: `client-${id}`, clientSecret: secret },
    idCuenta,
    `Tienda ${id}`,
    `7${String(store.nextTenant).padStart(9, '0')}`,
    true,
    store.mode,
  );
  if (ctx.variant('business-notifies-customer')) business.notificaciones.notificarTransaccionCliente = true;
  const account = createAccount({ idCuenta, emailLogin: `${id}@tenants.sandbox.test`, password, aplicativos: [business.idAplicativo] });
  // Frozen at the sandbox's time of its creation, as Stripe's test clocks: it moves only when advanced, so a test's
  // time steps are exact however slowly it runs, and moving it moves no one else's.
  const frozenAt = ctx.clock.nowMs();
  const tenant: Tenant = {
    id,
    clock: createClock(() => new Date(frozenAt)),
    outbox: { webhooks: [], emails: [], sms: [] },
    stats: { purchaseRequests: 0 },
    idCuenta,
    aplicativos: [business.idAplicativo],
  };
  store.accounts.set(idCuenta, account);
  store.businesses.set(business.idAplicativo, business);
  store.tenants.set(id, tenant);
  store.tenantByBusiness.set(business.idAplicativo, tenant);
  if (store.tenants.size > MAX_TENANTS) forget(store, store.tenants.keys().next().value!);
  return { tenant, secret, password };
}

function forget(store: Store, id: string): void {
  const tenant = store.tenants.get(id);
  if (!tenant) return;
  store.tenants.delete(id);
  store.accounts.delete(tenant.idCuenta);
  for (const app of tenant.aplicativos) {
    store.businesses.delete(app);
    store.tenantByBusiness.delete(app);
  }
}

/** The tenant's counters: what its businesses own, its account, and the purchase requests sent with its credentials. */
export function tenantStats(
  store: Store,
  tenant: Tenant,
): { links: number; transactions: number; accounts: number; purchaseRequests: number } {
  const mine = (idAplicativo: string) => tenant.aplicativos.includes(idAplicativo);
  let links = 0;
  let transactions = 0;
  for (const link of store.links.values()) if (mine(link.idAplicativo)) links++;
  for (const tx of store.transactions.values()) if (mine(tx.idAplicativo)) transactions++;
  return { links, transactions, accounts: store.accounts.has(tenant.idCuenta) ? 1 : 0, purchaseRequests: tenant.stats.purchaseRequests };
}

/** The tenant whose credentials an Authorization header carries (a purchase request is counted before it is authenticated). */
export function tenantOfAuthorization(store: Store, header: string | undefined): Tenant | undefined {
  const bearer = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
  if (bearer !== undefined) return tenantOf(store, store.tokens.get(bearer)?.idAplicativo);
  const basic = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header ?? '')?.[1];
  if (basic === undefined) return undefined;
  const user = Buffer.from(basic, 'base64').toString('utf8').split(':')[0];
  for (const tenant of store.tenants.values()) {
    if (store.accounts.get(tenant.idCuenta)?.emailLogin === user) return tenant;
  }
  return undefined;
}
