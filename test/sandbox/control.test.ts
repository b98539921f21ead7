import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FAULTS, createSandbox } from '../../sandbox/index.ts';
import { CUENTA, basic, enlaceValido, sandbox, walletValido } from './helpers.ts';

describe('test-control API (/__sandbox)', () => {
  it('describes itself', async () => {
    const p = await sandbox();
    const res = await p.app.inject({ url: '/__sandbox' });
    expect(res.json()).toEqual({
      sandbox: true,
      mode: 'development',
      capabilities: ['clock', 'outbox', 'stats', 'reset', 'tenants'],
      fault: null,
    });
  });

  it('reads and advances the clock; refuses a bad advance without moving it', async () => {
    const p = await sandbox({ now: () => new Date('2026-11-22T10:00:00Z') });
    expect((await p.app.inject({ url: '/__sandbox/clock' })).json()).toEqual({ now: '2026-11-22T10:00:00.000Z', offsetSeconds: 0 });
    expect((await p.avanzar(90)).json()).toEqual({ now: '2026-11-22T10:01:30.000Z', offsetSeconds: 90 });
    for (const seconds of [-1, '10', null]) {
      const res = await p.app.inject({ method: 'POST', url: '/__sandbox/clock/advance', payload: { seconds } });
      expect(res.statusCode).toBe(400);
      expect(res.json().errores[0].campo).toBe('seconds');
    }
    expect((await p.app.inject({ url: '/__sandbox/clock' })).json().offsetSeconds).toBe(90);
  });

  it('stats count links, transactions, accounts and every purchase request, accepted or not; reset restores the seed', async () => {
    const p = await sandbox();
    await p.crearEnlace();
    const auth = await p.bearer();
    await p.api('POST', '/TransaccionCompra/Wallet', auth, walletValido());
    await p.api('POST', '/TransaccionCompra/Wallet', auth, { monto: 'x' });
    await p.api('POST', '/TransaccionCompra/Mpos/Banda', undefined, {});
    await p.app.inject({
      method: 'POST',
      url: '/pagar/1',
      payload: 'x=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await p.api('GET', '/TransaccionCompra/nope', auth);
    await p.api('DELETE', '/Cuenta', basic('disposable@sandbox.test', 'disposable-password'));
    expect((await p.app.inject({ url: '/__sandbox/stats' })).json()).toEqual({
      links: 1,
      transactions: 1,
      accounts: 2,
      purchaseRequests: 4,
    });

    await p.avanzar(100);
    expect((await p.app.inject({ method: 'POST', url: '/__sandbox/reset' })).statusCode).toBe(200);
    expect((await p.app.inject({ url: '/__sandbox/stats' })).json()).toEqual({
      links: 0,
      transactions: 0,
      accounts: 3,
      purchaseRequests: 0,
    });
    expect((await p.app.inject({ url: '/__sandbox/clock' })).json().offsetSeconds).toBe(0);
    // Tokens issued before the reset are gone; the seeded credentials work again.
    expect((await p.api('POST', '/EnlacePago', auth, enlaceValido())).statusCode).toBe(401);
    expect((await p.api('DELETE', '/Cuenta', basic('disposable@sandbox.test', 'disposable-password'))).statusCode).toBe(200);
    expect((await p.api('PUT', '/EnlacePago/1/activar', basic(CUENTA.user, CUENTA.password))).statusCode).toBe(404);
  });

  it('the outbox lists webhooks, e-mails and SMS', async () => {
    const p = await sandbox();
    await p.api(
      'POST',
      '/TransaccionCompra/Wallet',
      await p.bearer(),
      walletValido({ configuracion: { telefonosNotificacion: '+50371111111' } }),
    );
    const outbox = (await p.app.inject({ url: '/__sandbox/outbox' })).json();
    expect(outbox.webhooks).toEqual([]);
    expect(outbox.emails).toHaveLength(1);
    expect(outbox.sms).toEqual([{ to: '+50371111111', body: expect.any(String) }]);
  });
});

describe('test-control tenants (/__sandbox/tenants)', () => {
  type Grant = {
    id: string;
    account: { user: string; password: string };
    business: { idAplicativo: string; clientId: string; clientSecret: string };
    clock: { now: string; offsetSeconds: number };
  };
  const crear = async (p: Awaited<ReturnType<typeof sandbox>>): Promise<Grant> => {
    const res = await p.app.inject({ method: 'POST', url: '/__sandbox/tenants' });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const get = async (p: Awaited<ReturnType<typeof sandbox>>, url: string) => (await p.app.inject({ url })).json();

  it('creates a fresh account and business per tenant, with working credentials, a clock at the sandbox time and empty counters', async () => {
    const p = await sandbox({ now: () => new Date('2026-11-22T10:00:00Z') });
    const [a, b] = [await crear(p), await crear(p)];
    expect(a.id).not.toBe(b.id);
    expect(a.business.clientId).not.toBe(b.business.clientId);
    expect(a.clock).toEqual({ now: '2026-11-22T10:00:00.000Z', offsetSeconds: 0 });
    expect(await get(p, `/__sandbox/tenants/${a.id}/stats`)).toEqual({ links: 0, transactions: 0, accounts: 1, purchaseRequests: 0 });
    // Frozen, as Stripe's test clocks: it moves only when advanced, whatever the sandbox clock does.
    const live = await sandbox();
    const frozen = await crear(live);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await get(live, `/__sandbox/tenants/${frozen.id}/clock`)).toEqual(frozen.clock);
    const token = await p.bearer(a.business);
    const link = await p.api('POST', '/EnlacePago', token, enlaceValido());
    expect(link.statusCode).toBe(200);
    expect((await p.api('PUT', `/EnlacePago/${link.json().idEnlace}/activar`, basic(a.account.user, a.account.password))).statusCode).toBe(
      200,
    );
  });

  it('moving a tenant clock moves only its resources: its tokens expire, the sandbox and other tenants keep theirs', async () => {
    const p = await sandbox({ now: () => new Date('2026-11-22T10:00:00Z') });
    const [a, b] = [await crear(p), await crear(p)];
    const [ta, tb, tp] = [await p.bearer(a.business), await p.bearer(b.business), await p.bearer()];
    const moved = await p.app.inject({ method: 'POST', url: `/__sandbox/tenants/${a.id}/clock/advance`, payload: { seconds: 7200 } });
    expect(moved.json()).toEqual({ now: '2026-11-22T12:00:00.000Z', offsetSeconds: 7200 });
    expect((await p.api('POST', '/EnlacePago', ta, enlaceValido())).statusCode).toBe(401);
    expect((await p.api('POST', '/EnlacePago', tb, enlaceValido())).statusCode).toBe(200);
    expect((await p.api('POST', '/EnlacePago', tp, enlaceValido())).statusCode).toBe(200);
    expect((await get(p, `/__sandbox/tenants/${b.id}/clock`)).offsetSeconds).toBe(0);
    expect((await get(p, '/__sandbox/clock')).offsetSeconds).toBe(0);
    // A tenant's transactions are dated by its clock.
    const wallet = await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(b.business), walletValido());
    const seen = await p.api('GET', `/TransaccionCompra/${wallet.json().idTransaccion}`, tb);
    expect(seen.json().fechaTransaccion).toMatch(/^2026-11-22T10:00/);
    const txs = [...p.ctx.store.transactions.values()];
    expect(txs.map((tx) => tx.fechaTransaccion)).toEqual([expect.stringMatching(/^2026-11-22T10:00/)]);
    await p.app.inject({ method: 'POST', url: `/__sandbox/tenants/${b.id}/clock/advance`, payload: { seconds: 60 } });
    await p.api('POST', '/TransaccionCompra/Wallet', tb, walletValido());
    expect([...p.ctx.store.transactions.values()].at(-1)!.fechaTransaccion).toMatch(/^2026-11-22T10:01/);
  });

  it("counts and records per tenant: another tenant's or the seeded business's links, purchases and notifications are not its", async () => {
    const p = await sandbox();
    const [a, b] = [await crear(p), await crear(p)];
    const ta = await p.bearer(a.business);
    await p.api('POST', '/EnlacePago', ta, enlaceValido());
    await p.api('POST', '/TransaccionCompra/Wallet', ta, walletValido({ configuracion: { telefonosNotificacion: '+50371111111' } }));
    await p.api('POST', '/TransaccionCompra/Wallet', ta, { monto: 'x' });
    await p.crearEnlace();
    await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido());
    expect(await get(p, `/__sandbox/tenants/${a.id}/stats`)).toEqual({ links: 1, transactions: 1, accounts: 1, purchaseRequests: 2 });
    expect(await get(p, `/__sandbox/tenants/${b.id}/stats`)).toEqual({ links: 0, transactions: 0, accounts: 1, purchaseRequests: 0 });
    expect((await get(p, `/__sandbox/tenants/${a.id}/outbox`)).sms).toEqual([{ to: '+50371111111', body: expect.any(String) }]);
    expect((await get(p, `/__sandbox/tenants/${b.id}/outbox`)).emails).toEqual([]);
    expect((await get(p, '/__sandbox/outbox')).sms).toEqual([]);
  });

  it('refuses an unknown tenant (404) and a bad advance (400, clock untouched); reset forgets every tenant', async () => {
    const p = await sandbox();
    const a = await crear(p);
    expect((await p.app.inject({ url: '/__sandbox/tenants/nope/stats' })).statusCode).toBe(404);
    expect((await p.app.inject({ method: 'POST', url: '/__sandbox/tenants/nope/clock/advance', payload: { seconds: 1 } })).statusCode).toBe(
      404,
    );
    const bad = await p.app.inject({ method: 'POST', url: `/__sandbox/tenants/${a.id}/clock/advance`, payload: { seconds: -5 } });
    expect(bad.statusCode).toBe(400);
    expect((await get(p, `/__sandbox/tenants/${a.id}/clock`)).offsetSeconds).toBe(0);
    await p.app.inject({ method: 'POST', url: '/__sandbox/reset' });
    expect((await p.app.inject({ url: `/__sandbox/tenants/${a.id}/outbox` })).statusCode).toBe(404);
    expect((await p.api('PUT', '/EnlacePago/1/activar', basic(a.account.user, a.account.password))).statusCode).toBe(401);
  });
});

describe('createSandbox', () => {
  it('listens on loopback, answers over real sockets and returns the documented shape', async () => {
    // How fast it starts is npm run bench's figure (startup_ms), not a bound a loaded machine could break.
    const sb = await createSandbox();
    try {
      expect(sb.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sb.baseUrl).toBe(`${sb.origin}/api`);
      expect(sb.authUrl).toBe(`${sb.origin}/auth`);
      expect(sb.controlUrl).toBe(`${sb.origin}/__sandbox`);
      expect(sb.credentials).toEqual({
        account: { user: 'merchant@sandbox.test', password: 'sandbox-password' },
        business: { idAplicativo: 'app-dev-1', clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
        businessNoMpos: { idAplicativo: 'app-dev-2', clientId: 'sandbox-client-nompos', clientSecret: 'sandbox-secret-nompos' },
        disposableAccount: { user: 'disposable@sandbox.test', password: 'disposable-password' },
        disposableBusiness: { idAplicativo: 'app-disposable', clientId: 'disposable-client', clientSecret: 'disposable-secret' },
        otherAccount: { user: 'other-merchant@sandbox.test', password: 'other-password' },
        otherBusiness: { idAplicativo: 'app-other-1', clientId: 'other-client', clientSecret: 'other-secret' },
      });
      const res = await fetch(`${sb.baseUrl}/EnlacePago/1/activar`, {
        method: 'PUT',
        headers: { authorization: basic(CUENTA.user, CUENTA.password) },
      });
      expect(res.status).toBe(404);
      expect((await fetch(`${sb.origin}/nothing/here`)).status).toBe(404);
    } finally {
      await sb.close();
    }
  });

  it('two sandboxes in one process share nothing', async () => {
    const a = await createSandbox();
    const b = await createSandbox();
    try {
      a.app.sandbox.store.nextIdEnlace = 50;
      await fetch(`${a.controlUrl}/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"seconds": 60}',
      });
      expect(b.app.sandbox.store.nextIdEnlace).toBe(1);
      expect(((await (await fetch(`${b.controlUrl}/clock`)).json()) as { offsetSeconds: number }).offsetSeconds).toBe(0);
      expect(b.app.sandbox.store.accounts).not.toBe(a.app.sandbox.store.accounts);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('refuses an unknown fault or a bad option with a clear message', async () => {
    await expect(createSandbox({ fault: 'no-such-fault' })).rejects.toThrow(
      /unknown sandbox fault "no-such-fault"; valid ids: link-idenlace-string, /,
    );
    await expect(createSandbox({ mode: 'staging' as 'production' })).rejects.toThrow(/mode must be "development" or "production"/);
    await expect(createSandbox({ tokenTtlSeconds: 0 })).rejects.toThrow(/tokenTtlSeconds must be a positive number/);
    expect(FAULTS.length).toBeGreaterThanOrEqual(32);
  });
});

describe('cli', () => {
  it('prints the URLs and seeded credentials, listens, and exits on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--mode', 'production'], {
      cwd: new URL('../..', import.meta.url),
      env: { ...process.env, SANDBOX_FAULT: 'webhook-missing' },
    });
    let salida = '';
    child.stdout.on('data', (c: Buffer) => (salida += c.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`cli did not start: ${salida}`)), 15_000);
      child.stdout.on('data', () => {
        if (salida.includes('DELETION_ACCOUNT_PASSWORD=')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    expect(salida).toContain('(production, fault webhook-missing)');
    expect(salida).toContain('CLIENT_SECRET=sandbox-secret');
    const control = /control URL\s+(\S+)/.exec(salida)![1]!;
    const info = (await (await fetch(control)).json()) as { mode: string; fault: string };
    expect(info).toMatchObject({ mode: 'production', fault: 'webhook-missing' });
    const salidaCodigo = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await salidaCodigo).toBe(0);
  });
});
