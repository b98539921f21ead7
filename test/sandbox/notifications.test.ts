import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../sandbox/index.ts';
import { NEGOCIO, compra3dsValida, enlaceValido, hmacHex, ruta, sandbox, tarjeta, walletValido } from './helpers.ts';

interface Recibido {
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A merchant webhook receiver that answers the given statuses in turn (then 200). */
async function receptor(estados: number[] = []) {
  const recibidos: Recibido[] = [];
  const server = createServer((req, res) => {
    const partes: Buffer[] = [];
    req.on('data', (c: Buffer) => partes.push(c));
    req.on('end', () => {
      recibidos.push({ headers: req.headers, raw: Buffer.concat(partes).toString('utf8') });
      res.statusCode = estados.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    recibidos,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function esperar(condicion: () => boolean, ms = 3000): Promise<void> {
  const limite = Date.now() + ms;
  while (!condicion()) {
    if (Date.now() > limite) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cerrar: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cerrar.splice(0)) await c();
});

describe('webhook (spec 6.1; signature and retries per docs/decisions.md)', () => {
  it('is delivered to a real server with a valid signature over the raw body, retried after a 500', async () => {
    const merchant = await receptor([500]);
    cerrar.push(merchant.close);
    const p = await sandbox({ webhookRetryDelaysMs: [20, 40] });
    cerrar.push(() => p.app.close());
    const link = await p.crearEnlace(
      enlaceValido({ datosAdicionales: { pedido: '99' }, configuracion: { notificarTransaccionCliente: false, urlWebhook: merchant.url } }),
    );
    const pago = await p.pagar(link.urlEnlaceLargo);
    expect(pago.statusCode).toBe(303);
    await esperar(() => merchant.recibidos.length === 2);

    const [primero, segundo] = merchant.recibidos;
    expect(segundo!.raw).toBe(primero!.raw);
    expect(segundo!.headers['content-type']).toBe('application/json');
    expect(segundo!.headers['x-signature']).toBe(hmacHex(NEGOCIO.clientSecret, segundo!.raw));
    const body = JSON.parse(segundo!.raw);
    expect(Object.keys(body).sort()).toEqual(
      [
        'idTransaccion',
        'esReal',
        'esAprobada',
        'codigoAutorizacion',
        'mensaje',
        'formaPago',
        'monto',
        'montoOriginal',
        'resultadoTransaccion',
        'fechaTransaccion',
        'idExterno',
        'datosAdicionales',
        'esProductiva',
        'idEnlace',
        'identificadorEnlaceComercio',
      ].sort(),
    );
    expect(body).toMatchObject({
      esReal: false,
      esAprobada: true,
      esProductiva: false,
      monto: 10,
      resultadoTransaccion: 0,
      datosAdicionales: { pedido: '99' },
      idEnlace: link.idEnlace,
      identificadorEnlaceComercio: 'pedido-1',
    });
    await esperar(() => p.ctx.store.outbox.webhooks[0]?.delivered === true);
    expect(p.ctx.store.outbox.webhooks).toEqual([{ url: merchant.url, body, attempts: 2, delivered: true, lastStatus: 200 }]);
  });

  it('gives up after the configured attempts and records each one', async () => {
    const merchant = await receptor([503, 503, 503, 503]);
    cerrar.push(merchant.close);
    const p = await sandbox({ webhookRetryDelaysMs: [5, 5] });
    cerrar.push(() => p.app.close());
    await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido({ configuracion: { urlWebhook: merchant.url } }));
    await esperar(() => p.ctx.store.outbox.webhooks[0]?.attempts === 3);
    await new Promise((r) => setTimeout(r, 50));
    expect(merchant.recibidos).toHaveLength(3);
    expect(p.ctx.store.outbox.webhooks[0]).toMatchObject({ attempts: 3, delivered: false, lastStatus: 503 });
  });

  it('a connection error is retried and recorded with lastStatus null', async () => {
    const p = await sandbox({ webhookRetryDelaysMs: [5] });
    cerrar.push(() => p.app.close());
    await p.api(
      'POST',
      '/TransaccionCompra/Wallet',
      await p.bearer(),
      walletValido({ configuracion: { urlWebhook: 'http://127.0.0.1:9/hook' } }),
    );
    await esperar(() => p.ctx.store.outbox.webhooks[0]?.attempts === 2);
    expect(p.ctx.store.outbox.webhooks[0]).toMatchObject({ delivered: false, lastStatus: null });
  });

  it('is only sent for approved transactions, and the API answers before delivery', async () => {
    const merchant = await receptor();
    cerrar.push(merchant.close);
    const p = await sandbox();
    cerrar.push(() => p.app.close());
    const link = await p.crearEnlace(enlaceValido({ configuracion: { notificarTransaccionCliente: false, urlWebhook: merchant.url } }));
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    const tds = (
      await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida({ configuracion: { urlWebhook: merchant.url } }))
    ).json();
    await new Promise((r) => setTimeout(r, 50));
    expect(merchant.recibidos).toHaveLength(0);
    expect(p.ctx.store.outbox.webhooks).toHaveLength(0);
    await p.app.inject({ method: 'POST', url: ruta(tds.urlCompletarPago3Ds) });
    // Recorded at once, delivered in the background.
    expect(p.ctx.store.outbox.webhooks[0]).toMatchObject({ attempts: 0, delivered: false });
    await esperar(() => merchant.recibidos.length === 1);
    expect(JSON.parse(merchant.recibidos[0]!.raw)).toMatchObject({ idTransaccion: tds.idTransaccion, datosAdicionales: {} });
  });

  it('closing the sandbox cancels pending retries', async () => {
    const merchant = await receptor([500, 500, 500]);
    cerrar.push(merchant.close);
    const sb = await createSandbox({ webhookRetryDelaysMs: [150, 150] });
    const token = await fetch(`${sb.authUrl}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&audience=service_api&client_id=sandbox-client&client_secret=sandbox-secret',
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    await fetch(`${sb.baseUrl}/TransaccionCompra/Wallet`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(walletValido({ configuracion: { urlWebhook: merchant.url } })),
    });
    await esperar(() => merchant.recibidos.length === 1);
    await sb.close();
    await new Promise((r) => setTimeout(r, 400));
    expect(merchant.recibidos).toHaveLength(1);
  });
});

describe('e-mail and SMS outbox (spec 6.2)', () => {
  it('e-mails emailsNotificacion and, when notificarTransaccionCliente, the customer; SMS to telefonosNotificacion', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        configuracion: {
          notificarTransaccionCliente: true,
          emailsNotificacion: 'a@merchant.test, b@merchant.test',
          telefonosNotificacion: '+50370000001',
        },
      }),
    );
    await p.pagar(link.urlEnlaceLargo, tarjeta('111'));
    expect(p.ctx.store.outbox).toEqual({ webhooks: [], emails: [], sms: [] });
    await p.pagar(link.urlEnlaceLargo, { ...tarjeta(), email: 'cliente@correo.test' });
    const { emails, sms } = p.ctx.store.outbox;
    expect(emails.map((e) => e.to)).toEqual(['a@merchant.test', 'b@merchant.test', 'cliente@correo.test']);
    for (const e of emails) {
      expect(e.body).toContain('pedido-1');
      expect(e.body).toContain('PRUEBA');
      expect(e.body).not.toContain('4111111111111111');
    }
    expect(sms).toEqual([{ to: '+50370000001', body: expect.stringContaining('10.00') }]);
  });

  it('a purchase configuracion overrides the business settings; the 3DS customer e-mail is the body e-mail', async () => {
    const p = await sandbox();
    const tds = (
      await p.api(
        'POST',
        '/TransaccionCompra/3DS',
        await p.bearer(),
        compra3dsValida({ configuracion: { emailsNotificacion: 'override@merchant.test', notificarTransaccionCliente: true } }),
      )
    ).json();
    await p.app.inject({ method: 'POST', url: ruta(tds.urlCompletarPago3Ds) });
    expect(p.ctx.store.outbox.emails.map((e) => e.to)).toEqual(['override@merchant.test', 'ana@cliente.test']);
  });
});
