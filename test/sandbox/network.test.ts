/**
 * The sandbox's simulated network (sandbox/network.ts): each profile's behaviour, its seed, what it leaves alone (the
 * test-control API, a sandbox without one) and its counters. Odds are sharpened (`networkProfile`) where a rare event
 * is the subject; latency is set to 0 there so the tests take no time. Nothing here is timed.
 */
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BuildOptions, createSandbox } from '../../sandbox/index.ts';
import type { NetworkCounters } from '../../sandbox/network.ts';
import { CUENTA, NEGOCIO, type Prueba, basic, enlaceValido, mposValido, sandbox, walletValido } from './helpers.ts';

const cerrar: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cerrar.splice(0)) await c();
});

async function conRed(options: BuildOptions): Promise<Prueba> {
  const p = await sandbox(options);
  cerrar.push(() => p.app.close());
  return p;
}

const TOKEN_FORM = new URLSearchParams({
  grant_type: 'client_credentials',
  audience: 'service_api',
  client_id: NEGOCIO.clientId,
  client_secret: NEGOCIO.clientSecret,
}).toString();

const pedirToken = (p: Prueba) =>
  p.app.inject({
    method: 'POST',
    url: '/auth/connect/token',
    payload: TOKEN_FORM,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

async function contadores(p: Prueba): Promise<NetworkCounters> {
  const res = await p.app.inject({ method: 'GET', url: '/__sandbox/network' });
  expect(res.statusCode).toBe(200);
  return (res.json() as { counters: NetworkCounters }).counters;
}

const enlaces = async (p: Prueba): Promise<number> => (await p.app.inject({ method: 'GET', url: '/__sandbox/stats' })).json().links;

/** No latency, no rate limit, no random refusals: only what a test sharpens. */
const QUIETO = { latencyMs: [0, 0], rps: 1_000_000, p503: 0, p502AfterPost: 0, pDrop: 0 } as const;

describe('no network (the default)', () => {
  it('answers directly: a burst is never refused, GET /__sandbox/network says none', async () => {
    const p = await conRed({});
    const statuses = await Promise.all(Array.from({ length: 40 }, () => pedirToken(p)));
    expect(statuses.map((r) => r.statusCode)).toEqual(Array(40).fill(200));
    const res = await p.app.inject({ method: 'GET', url: '/__sandbox/network' });
    expect(res.json()).toEqual({ network: null, seed: null, counters: null });
    expect(p.app.sandbox.network).toBeUndefined();
  });

  it('refuses an unknown profile and a bad seed, naming the option', async () => {
    await expect(sandbox({ network: 'flaky' })).rejects.toThrow(/network must be one of "mild", "rough", "throttled", "unavailable"/);
    await expect(sandbox({ network: 'mild', networkSeed: -1 })).rejects.toThrow(/networkSeed must be an integer/);
  });
});

describe('throttled and unavailable: every API request refused, forever', () => {
  for (const [network, status] of [
    ['throttled', 429],
    ['unavailable', 503],
  ] as const) {
    it(`${network}: the API and the token endpoint answer ${status} with Retry-After: 1; pages and control routes are served`, async () => {
      const p = await conRed({ network, networkSeed: 1 });
      const api = await p.api('GET', '/TransaccionCompra/1', 'Bearer x');
      expect(api.statusCode).toBe(status);
      expect(api.headers['retry-after']).toBe('1');
      expect((await pedirToken(p)).statusCode).toBe(status);
      expect((await p.app.inject({ method: 'GET', url: '/l/nada' })).statusCode).toBe(404);
      for (const url of ['/__sandbox', '/__sandbox/stats', '/__sandbox/clock', '/__sandbox/outbox']) {
        expect((await p.app.inject({ method: 'GET', url })).statusCode).toBe(200);
      }
      expect((await p.app.inject({ method: 'POST', url: '/__sandbox/reset' })).statusCode).toBe(200);
      const c = await contadores(p);
      expect(c.requests).toBe(2);
      expect(c.pages).toBe(1);
      expect(status === 429 ? c.answered429 : c.answered503).toBe(2);
    });
  }
});

describe('mild', () => {
  it('answers more than 20 requests in a second with 429 and Retry-After: 1, and counts them', async () => {
    const p = await conRed({ network: 'mild', networkSeed: 3, networkProfile: { latencyMs: [0, 0], p503: 0 } });
    const res = await Promise.all(Array.from({ length: 30 }, () => pedirToken(p)));
    const refused = res.filter((r) => r.statusCode === 429);
    // At least the 21st of the burst is refused (more pass only if the burst outlasts a second on a loaded machine).
    expect(res.filter((r) => r.statusCode === 200).length + refused.length).toBe(30);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(10);
    for (const r of refused) expect(r.headers['retry-after']).toBe('1');
    const c = await contadores(p);
    expect(c).toMatchObject({ requests: 30, answered429: refused.length });
  });

  it('gzips a body only for a client that sends Accept-Encoding: gzip', async () => {
    const p = await conRed({ network: 'mild', networkSeed: 3, networkProfile: QUIETO });
    const llano = await p.api('GET', '/TransaccionCompra/1');
    expect(llano.headers['content-encoding']).toBeUndefined();
    const comprimido = await p.app.inject({ method: 'GET', url: '/api/TransaccionCompra/1', headers: { 'accept-encoding': 'gzip' } });
    expect(comprimido.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(comprimido.rawPayload).toString('utf8'))).toEqual(llano.json());
    expect((await contadores(p)).gzipped).toBe(1);
  });

  it('closes a keep-alive connection, announced, after 5 to 50 answers', async () => {
    const sb = await createSandbox({ network: 'mild', networkSeed: 9, networkProfile: QUIETO });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cerrar.push(async () => {
      agent.destroy();
      await sb.close();
    });
    const connection: string[] = [];
    for (let i = 0; i < 60; i++) {
      const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = httpRequest(`${sb.baseUrl}/TransaccionCompra/1`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers));
        });
        req.on('error', reject);
        req.end();
      });
      connection.push(String(headers['connection']));
    }
    const first = connection.indexOf('close');
    expect(first).toBeGreaterThanOrEqual(4);
    expect(first).toBeLessThan(50);
    expect(sb.app.sandbox.network!.counters.closed).toBe(connection.filter((c) => c === 'close').length);
  });

  it('delivers a webhook late and, sometimes, twice: the copy is the network’s, the outbox records one attempt', async () => {
    const recibidos: string[] = [];
    const server = createServer((req, res) => {
      const partes: Buffer[] = [];
      req.on('data', (c: Buffer) => partes.push(c));
      req.on('end', () => {
        recibidos.push(Buffer.concat(partes).toString('utf8'));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cerrar.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const p = await conRed({ network: 'mild', networkSeed: 5, networkProfile: { ...QUIETO, webhook: { delayMs: [10, 60], pTwice: 1 } } });
    const res = await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido({ configuracion: { urlWebhook: url } }));
    expect(res.statusCode).toBe(200);
    const limite = Date.now() + 5000;
    while (recibidos.length < 2 && Date.now() < limite) await new Promise((r) => setTimeout(r, 10));
    expect(recibidos).toHaveLength(2);
    expect(recibidos[1]).toBe(recibidos[0]);
    // The receiver answered before the sandbox reads that answer: the outbox records the attempt a moment later.
    await vi.waitFor(() => expect(p.ctx.store.outbox.webhooks[0]).toMatchObject({ attempts: 1, delivered: true }), { timeout: 5000 });
    expect(await contadores(p)).toMatchObject({ webhooksDelayed: 1, webhooksDuplicated: 1 });
  });
});

describe('rough', () => {
  it('answers a POST 502 after processing it: the purchase was made', async () => {
    const p = await conRed({ network: 'rough', networkSeed: 2, networkProfile: { ...QUIETO, p502AfterPost: 1 } });
    const antes = p.ctx.store.transactions.size;
    // As the account (HTTP Basic): a token request, a POST too, would be answered 502 as well.
    const res = await p.api(
      'POST',
      '/TransaccionCompra/Mpos/Banda',
      basic(CUENTA.user, CUENTA.password),
      mposValido({ idAplicativo: 'app-dev-1' }),
    );
    expect(res.statusCode).toBe(502);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).not.toContain('idTransaccion');
    expect(p.ctx.store.transactions.size).toBe(antes + 1);
    // A GET is never answered 502: nothing was hidden.
    expect((await p.api('GET', '/TransaccionCompra/1', basic(CUENTA.user, CUENTA.password))).statusCode).toBe(404);
    expect((await contadores(p)).answered502AfterProcessing).toBe(1);
  });

  it('answers 503 before processing: nothing is created', async () => {
    const p = await conRed({ network: 'rough', networkSeed: 2, networkProfile: { ...QUIETO, p503: 1 } });
    const antes = await enlaces(p);
    // Refused before anything is read, credentials included.
    const res = await p.api('POST', '/EnlacePago', 'Bearer x', enlaceValido());
    expect(res.statusCode).toBe(503);
    expect(await enlaces(p)).toBe(antes);
    expect((await contadores(p)).answered503).toBe(1);
  });

  it('drops connections without an answer, before processing (not counted) or after (counted), and counts both', async () => {
    const sb = await createSandbox({ network: 'rough', networkSeed: 11, networkProfile: { ...QUIETO, pDrop: 1 } });
    cerrar.push(() => sb.close());
    // A purchase request is counted by the sandbox as it reaches the route, before authentication: processed or not.
    const antes = sb.app.sandbox.store.stats.purchaseRequests;
    let errores = 0;
    for (let i = 0; i < 12; i++) {
      const ok = await fetch(`${sb.baseUrl}/TransaccionCompra/Wallet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(walletValido()),
      }).then(
        () => true,
        () => false,
      );
      if (!ok) errores += 1;
    }
    const c = sb.app.sandbox.network!.counters;
    expect(errores).toBe(12);
    expect(c.dropped).toBe(12);
    expect(c.droppedAfterProcessing).toBeGreaterThan(0);
    expect(c.droppedAfterProcessing).toBeLessThan(12);
    expect(sb.app.sandbox.store.stats.purchaseRequests - antes).toBe(c.droppedAfterProcessing);
  });
});

describe('seed', () => {
  /** The statuses of 40 token requests, one after another, and the first webhook plans. */
  async function recorrido(seed: number): Promise<{ statuses: number[]; planes: number[][] }> {
    const p = await conRed({ network: 'rough', networkSeed: seed, networkProfile: { ...QUIETO, p503: 0.3 } });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await pedirToken(p)).statusCode);
    const planes = Array.from({ length: 10 }, () => p.app.sandbox.network!.webhookPlan());
    return { statuses, planes };
  }

  it('the same seed draws the same decisions in the same order; another seed others', async () => {
    const a = await recorrido(42);
    expect(a.statuses).toContain(503);
    expect(a.statuses).toContain(200);
    expect(await recorrido(42)).toEqual(a);
    expect(await recorrido(43)).not.toEqual(a);
  });

  it('without a seed, draws one and shows it', async () => {
    const p = await conRed({ network: 'mild' });
    const res = (await p.app.inject({ method: 'GET', url: '/__sandbox/network' })).json();
    expect(res.network).toBe('mild');
    expect(Number.isInteger(res.seed)).toBe(true);
  });
});
