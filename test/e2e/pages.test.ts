/**
 * The sandbox's hosted pages are fit for people. Each page (payment screen, 3DS page, quick-pay page,
 * unavailable link, expired attempt) is opened in headless Chromium at a phone width (390 px) and a desktop width
 * (1280 px), in both screen modes (plain HTML and the script-built form), and screenshotted into
 * REPORT_DIR/screens/pages/. Checked: no horizontal scroll, every input labelled, merchant / product / amount /
 * quantity / accepted payment forms shown, refusals said in words, no request leaving the sandbox but the link's
 * own product image. Skipped with the reason when Chromium is not installed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { Chromium, chromiumAvailable, installHint } from '../../harness/payer/chromium.ts';
import { chromiumPathSetting } from '../../harness/setup/report-settings.ts';
import { createSandbox, type Sandbox } from '../../sandbox/index.ts';

const CHROMIUM = chromiumPathSetting();
const HAVE_CHROMIUM = chromiumAvailable(CHROMIUM);
const chromium = new Chromium(CHROMIUM);
const SHOTS = join(process.env.REPORT_DIR || 'reports', 'screens', 'pages');
const WIDTHS = [390, 1280] as const;
/** The link's own product image: the only request allowed to leave the sandbox (answered as unreachable here). */
const IMAGEN = 'https://cdn.merchant.example/producto/camisa.png';

let browser: Browser | undefined;
const sandboxes: Record<'html' | 'js', { sandbox: Sandbox; pages: Record<string, string> } | undefined> = {
  html: undefined,
  js: undefined,
};

async function json(sandbox: Sandbox, method: string, path: string, body: unknown, auth: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: auth },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A sandbox and the URL of one page of each kind. */
async function pagesOf(screen: 'html' | 'js'): Promise<{ sandbox: Sandbox; pages: Record<string, string> }> {
  const sandbox = await createSandbox({ screen });
  const c = sandbox.credentials;
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    audience: 'service_api',
    client_id: c.business.clientId,
    client_secret: c.business.clientSecret,
  });
  const token = (await (await fetch(`${sandbox.authUrl}/connect/token`, { method: 'POST', body: form })).json()) as {
    access_token: string;
  };
  const bearer = `Bearer ${token.access_token}`;
  const link = (extra: Record<string, unknown>) =>
    json(
      sandbox,
      'POST',
      '/EnlacePago',
      {
        identificadorEnlaceComercio: `pedido-${Math.random()}`,
        monto: 24.9,
        nombreProducto: 'Camisa de algodón orgánico',
        configuracion: {
          notificarTransaccionCliente: false,
          emailsNotificacion: 'ventas@merchant.test',
          urlRetorno: 'https://merchant.example/tienda',
        },
        ...extra,
      },
      bearer,
    );
  const completo = await link({
    infoProducto: { descripcionProducto: 'Talla M, color azul marino. Envío incluido a todo el país.', urlImagenProducto: IMAGEN },
    formaPago: {
      permitirTarjetaCreditoDebido: true,
      permitirPagoConPuntoPartner: true,
      permitirPagoEnCuotasPartner: true,
      permitirPagoEnBitcoin: true,
      permitePagoQuickPay: true,
    },
    configuracion: {
      notificarTransaccionCliente: false,
      emailsNotificacion: 'ventas@merchant.test',
      esCantidadEditable: true,
      cantidadPorDefecto: 2,
      urlRetorno: 'https://merchant.example/tienda',
      duracionInterfazIntentoMinutos: 1,
    },
  });
  // Unavailable: an inactive link (the account deactivates nothing by API, so its failure limit is reached on the screen).
  const inactivo = await link({ limitesDeUso: { cantidadMaximaPagosFallidos: 1 } });
  const largo = String(inactivo['urlEnlace']);
  const screenPage = await (await fetch(largo)).text();
  const intento =
    /name="intento" value="([^"]+)"/.exec(screenPage)?.[1] ?? /name=\\"intento\\" value=\\"([^"\\]+)\\"/.exec(screenPage)?.[1];
  const pagar = new URLSearchParams({
    intento: intento ?? '',
    formaPago: '0',
    numeroTarjeta: '4111111111111111',
    cvv: '111',
    mesVencimiento: '12',
    anioVencimiento: '2030',
  });
  await fetch(new URL(`/pagar/${String(inactivo['idEnlace'])}`, sandbox.origin), { method: 'POST', body: pagar, redirect: 'manual' });
  const tres = await json(
    sandbox,
    'POST',
    '/TransaccionCompra/3DS',
    {
      tarjetaCreditoDebido: { numeroTarjeta: '4111111111111111', cvv: '123', mesVencimiento: 12, anioVencimiento: 2030 },
      monto: 25.5,
      urlRedirect: 'https://merchant.example/vuelta',
      nombre: 'Ana',
      apellido: 'Pérez',
      email: 'ana@cliente.test',
      ciudad: 'San Salvador',
      direccion: 'Calle 1',
      idPais: 'SV',
      idRegion: 'SV-SS',
      codigoPostal: '1101',
      telefono: '+503 7777 7777',
    },
    bearer,
  );
  const qp = await json(sandbox, 'POST', '/TransaccionCompra/Quick-pay', { monto: 3.5 }, bearer);
  const qpUrl = String((qp['datosQuickPay'] as { urlQR: string }).urlQR).replace(/\.png$/, '');
  return {
    sandbox,
    pages: {
      pago: String(completo['urlEnlace']),
      '3ds': String(tres['urlCompletarPago3Ds']),
      quickpay: qpUrl,
      'no-disponible': largo,
    },
  };
}

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch();
  sandboxes.html = await pagesOf('html');
  sandboxes.js = await pagesOf('js');
}, 60_000);

afterAll(async () => {
  await sandboxes.html?.sandbox.close();
  await sandboxes.js?.sandbox.close();
  await chromium.close();
});

interface Looked {
  text: string;
  scrollWidth: number;
  innerWidth: number;
  unlabelled: string[];
  external: string[];
}

/** Opens a page at a width, screenshots it and reports what a person would run into. */
async function look(
  ctx: TestContext,
  screen: 'html' | 'js',
  page: string,
  width: number,
  after?: (p: import('playwright-core').Page) => Promise<void>,
): Promise<Looked> {
  if (!HAVE_CHROMIUM || !browser) ctx.skip(`${installHint(CHROMIUM)}; the hosted pages are checked in a real browser`);
  const { sandbox, pages } = sandboxes[screen]!;
  const context = await browser!.newContext({ viewport: { width, height: 900 } });
  const external: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(sandbox.origin) || url.startsWith('data:')) return route.continue();
    external.push(url);
    return route.abort('addressunreachable');
  });
  try {
    const p = await context.newPage();
    await p.goto(pages[page]!, { waitUntil: 'load' });
    await after?.(p);
    await p.screenshot({ path: join(SHOTS, `${page}${after ? '-despues' : ''}-${screen}-${width}.png`), fullPage: true });
    return await p.evaluate((ext) => {
      const unlabelled = [...document.querySelectorAll<HTMLInputElement>('input:not([type=hidden]), select, textarea')]
        .filter((el) => (el.labels?.length ?? 0) === 0 && !el.getAttribute('aria-label'))
        .map((el) => el.name || el.id || el.outerHTML);
      return {
        text: document.body.innerText,
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        unlabelled,
        external: ext,
      };
    }, external);
  } finally {
    await context.close();
  }
}

function fitsAndLabelled(seen: Looked): void {
  expect(seen.scrollWidth, 'no horizontal scroll').toBeLessThanOrEqual(seen.innerWidth);
  expect(seen.unlabelled, 'inputs without a label').toEqual([]);
}

for (const screen of ['html', 'js'] as const) {
  describe(`hosted pages (${screen} screen) in Chromium`, () => {
    for (const width of WIDTHS) {
      it.concurrent(`payment screen at ${width} px: merchant, product, image, amount, quantity, accepted forms, labelled form`, async (ctx) => {
        const seen = await look(ctx, screen, 'pago', width);
        fitsAndLabelled(seen);
        for (const shown of [
          'Tienda Sandbox',
          'Camisa de algodón orgánico',
          'Talla M',
          '$24.90',
          'Cantidad',
          '$49.80',
          'Formas de pago aceptadas',
          'Bitcoin',
          'QuickPay',
          'Número de tarjeta',
          'CVV',
          'Regresar',
        ]) {
          expect(seen.text).toContain(shown);
        }
        // Only the link's own image left the sandbox (and, unreachable here, a placeholder stands in for it).
        expect(
          seen.external.every((url) => url === IMAGEN),
          seen.external.join(', '),
        ).toBe(true);
      });

      it.concurrent(`3DS page at ${width} px: merchant, amount, one labelled confirmation`, async (ctx) => {
        const seen = await look(ctx, screen, '3ds', width);
        fitsAndLabelled(seen);
        for (const shown of ['Tienda Sandbox', '$25.50', 'Confirmar el pago']) expect(seen.text).toContain(shown);
        expect(seen.external).toEqual([]);
      });

      it.concurrent(`quick-pay page at ${width} px: merchant, amount, pay button`, async (ctx) => {
        const seen = await look(ctx, screen, 'quickpay', width);
        fitsAndLabelled(seen);
        for (const shown of ['Tienda Sandbox', '$3.50', 'Pagar $3.50 con QuickPay']) expect(seen.text).toContain(shown);
        expect(seen.external).toEqual([]);
      });

      it.concurrent(`unavailable link at ${width} px says so in words`, async (ctx) => {
        const seen = await look(ctx, screen, 'no-disponible', width);
        fitsAndLabelled(seen);
        expect(seen.text).toContain('Este enlace de pago no se puede usar en este momento.');
        expect(seen.text).toContain('El enlace está inactivo: alcanzó el máximo de pagos fallidos.');
      });
    }
    // Moves the sandbox's clock: after the pages above, one width at a time.
    for (const width of WIDTHS) {
      it(`expired attempt at ${width} px says so in words`, async (ctx) => {
        const seen = await look(ctx, screen, 'pago', width, async (p) => {
          // The screen's attempt lasts 1 minute: move the sandbox clock past it, then pay.
          await fetch(`${sandboxes[screen]!.sandbox.controlUrl}/clock/advance`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ seconds: 120 }),
          });
          await p.fill('[name=numeroTarjeta]', '4111111111111111');
          await p.fill('[name=cvv]', '123');
          await p.fill('[name=mesVencimiento]', '12');
          await p.fill('[name=anioVencimiento]', '2030');
          await Promise.all([p.waitForEvent('load'), p.click('button[type=submit]')]);
        });
        fitsAndLabelled(seen);
        expect(seen.text).toContain('El tiempo para completar este pago terminó');
        expect(seen.text).not.toContain('4111111111111111');
      });
    }
  });
}
