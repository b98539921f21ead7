/**
 * The sandbox's frame screen in headless Chromium: the card typed into the iframe served from the other loopback
 * origin, "Pagar" pressed in the shell, the tokenisation over postMessage and the JSON submission, landing on
 * urlRedirect with the outcome. A card the vault refuses is said in the shell's role="alert" element; "Volver" goes
 * to urlRetorno by script. Skipped when Chromium is not installed.
 */
import { existsSync } from 'node:fs';
import { type Browser, type Locator, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../sandbox/index.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const COMERCIO = 'https://merchant.example';

let browser: Browser | undefined;
let sandbox: Sandbox | undefined;
let bearer = '';

async function crearEnlace(configuracion: Record<string, unknown>): Promise<{ urlEnlaceLargo: string }> {
  const res = await fetch(`${sandbox!.baseUrl}/EnlacePago`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: bearer },
    body: JSON.stringify({
      identificadorEnlaceComercio: `pedido-${Math.random()}`,
      monto: 10.5,
      nombreProducto: 'Camisa',
      configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'ventas@merchant.test', ...configuracion },
    }),
  });
  return (await res.json()) as { urlEnlaceLargo: string };
}

/**
 * Clicks a button of the shell once it has been scrolled into view and painted: right after a scroll, Chromium may
 * route a click to the cross-origin iframe that covered that spot before the scroll (its hit-test data of the
 * out-of-process frame is a frame late), and the click is lost.
 */
async function pulsar(boton: Locator): Promise<void> {
  await boton.scrollIntoViewIfNeeded();
  await boton.page().waitForTimeout(250);
  await boton.click();
}

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  sandbox = await createSandbox({ screen: 'frame' });
  const c = sandbox.credentials.business;
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    audience: 'service_api',
    client_id: c.clientId,
    client_secret: c.clientSecret,
  });
  bearer = `Bearer ${((await (await fetch(`${sandbox.authUrl}/connect/token`, { method: 'POST', body: form })).json()) as { access_token: string }).access_token}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

describe.skipIf(!HAVE_CHROMIUM)('frame screen in Chromium', () => {
  it('the card typed into the cross-origin iframe, "Pagar" pressed: lands on urlRedirect with quantity × monto approved', async () => {
    const link = await crearEnlace({ esCantidadEditable: true, urlRedirect: `${COMERCIO}/gracias` });
    expect(new URL(link.urlEnlaceLargo).hostname).toBe('127.0.0.1');
    const page = await browser!.newPage();
    try {
      await page.route(`${COMERCIO}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Gracias</h1>' }));
      await page.goto(link.urlEnlaceLargo);
      const marco = page.frameLocator('#marco-tarjeta');
      expect(new URL((await page.locator('#marco-tarjeta').getAttribute('src')) ?? '').hostname).toBe('localhost');
      // Nothing typed: the vault refuses the card and the shell says so.
      await pulsar(page.getByRole('button', { name: 'Pagar' }));
      await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/tarjeta/i);

      await page.getByLabel('Correo electrónico').fill('ana@cliente.test');
      await page.getByLabel('Cantidad').fill('2');
      await marco.getByLabel('Número de tarjeta').fill('4111 1111 1111 1111');
      await marco.getByLabel('Mes de vencimiento').fill('12');
      await marco.getByLabel('Año de vencimiento').fill('2030');
      await marco.getByLabel('CVV').fill('123');
      await marco.getByLabel('Nombre del titular').fill('Ana Pérez');
      await Promise.all([page.waitForURL(`${COMERCIO}/gracias?**`), pulsar(page.getByRole('button', { name: 'Pagar' }))]);
      const q = new URL(page.url()).searchParams;
      expect([q.get('esAprobada'), q.get('monto')]).toEqual(['true', '21.00']);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('"Volver" (a button, no href) goes to urlRetorno', async () => {
    const link = await crearEnlace({ urlRetorno: `${COMERCIO}/tienda` });
    const page = await browser!.newPage();
    try {
      await page.route(`${COMERCIO}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Tienda</h1>' }));
      await page.goto(link.urlEnlaceLargo);
      await Promise.all([page.waitForURL(`${COMERCIO}/tienda`), pulsar(page.getByRole('button', { name: 'Volver' }))]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
