/**
 * Sandbox benchmark: payment-link creations per second over real loopback sockets (undici Pool, 50 concurrent,
 * until 20,000 creations or 5 s), and startup_ms (createSandbox until listening).
 * Run directly: `npx tsx bench/sandbox.ts` (prints the figures as JSON).
 */
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { createSandbox } from '../sandbox/index.ts';

const CONCURRENCY = 50;
const MAX_CREATIONS = 20_000;
const MAX_MS = 5_000;

export async function run(): Promise<Record<string, number>> {
  const t0 = performance.now();
  const sandbox = await createSandbox();
  const startup_ms = performance.now() - t0;
  const pool = new Pool(sandbox.origin, { connections: CONCURRENCY });
  try {
    const token = await pool.request({
      method: 'POST',
      path: '/auth/connect/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        audience: 'service_api',
        client_id: sandbox.credentials.business.clientId,
        client_secret: sandbox.credentials.business.clientSecret,
      }).toString(),
    });
    const { access_token } = (await token.body.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
    const body = JSON.stringify({
      identificadorEnlaceComercio: 'bench',
      monto: 10,
      nombreProducto: 'Producto de prueba',
      configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'ventas@merchant.test' },
    });

    let started = 0;
    let created = 0;
    let failed = 0;
    const begin = performance.now();
    const worker = async (): Promise<void> => {
      while (started < MAX_CREATIONS && performance.now() - begin < MAX_MS) {
        started += 1;
        const res = await pool.request({ method: 'POST', path: '/api/EnlacePago', headers, body });
        await res.body.dump();
        if (res.statusCode === 200) created += 1;
        else failed += 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - begin) / 1000;
    return {
      startup_ms: Math.round(startup_ms * 10) / 10,
      link_creations: created,
      link_creation_failures: failed,
      link_creations_per_s: Math.round(created / seconds),
    };
  } finally {
    await pool.close();
    await sandbox.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2));
}
