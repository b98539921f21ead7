/**
 * The hosted pages' content, without a browser: what a person is told, the labels, the form contract of
 * docs/decisions.md kept, and the script-built screen (`screen: 'js'`) that no HTML parser can fill.
 * test/e2e/pages.test.ts looks at the same pages in Chromium.
 */
import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../sandbox/index.ts';
import { compra3dsValida, enlaceValido, estado, formulario, sandbox, tarjeta } from './helpers.ts';

const texto = (html: string) => parse(html).querySelector('body')?.text.replace(/\s+/g, ' ') ?? '';

describe('hosted pages fit for people', () => {
  it('the payment screen shows merchant, product, image, amount, quantity, total and accepted forms, every input labelled', async () => {
    const p = await sandbox();
    const link = await p.crearEnlace(
      enlaceValido({
        monto: 12.5,
        nombreProducto: 'Taza <de> cerámica',
        infoProducto: { descripcionProducto: 'Hecha a mano', urlImagenProducto: 'https://cdn.merchant.test/taza.png' },
        configuracion: {
          notificarTransaccionCliente: false,
          emailsNotificacion: 'a@b.test',
          cantidadPorDefecto: 3,
          esCantidadEditable: true,
        },
      }),
    );
    const html = (await p.abrir(link.urlEnlaceLargo)).body;
    const t = texto(html);
    for (const shown of [
      'Tienda Sandbox',
      'Taza <de> cerámica',
      'Hecha a mano',
      '$12.50',
      '$37.50',
      'Formas de pago aceptadas',
      'Tarjeta de crédito o débito',
      'Puntos',
    ]) {
      expect(t).toContain(shown);
    }
    expect(html).toContain('&lt;de&gt;');
    const root = parse(html);
    expect(root.querySelectorAll('img').map((i) => i.getAttribute('src'))).toEqual(['https://cdn.merchant.test/taza.png']);
    expect(root.querySelectorAll('link, script, iframe')).toHaveLength(0);
    for (const input of root.querySelectorAll('form input:not([type=hidden]), form select')) {
      const id = input.getAttribute('id');
      expect(id && root.querySelector(`label[for="${id}"]`), input.getAttribute('name')).toBeTruthy();
    }
  });

  it('refusals say why in words, beside what was being paid; #estado keeps its contract', async () => {
    const p = await sandbox();
    const agotado = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosExitosos: 1 } }));
    await p.pagar(agotado.urlEnlaceLargo);
    const pagina = (await p.abrir(agotado.urlEnlaceLargo)).body;
    expect(estado(pagina)).toBe('no disponible');
    expect(texto(pagina)).toContain('Este enlace de pago no se puede usar en este momento. El enlace alcanzó el máximo de pagos exitosos.');
    expect(texto(pagina)).toContain('Tienda Sandbox');

    const inactivo = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 1 } }));
    await p.pagar(inactivo.urlEnlaceLargo, tarjeta('111'));
    expect(texto((await p.abrir(inactivo.urlEnlaceLargo)).body)).toContain('El enlace está inactivo: alcanzó el máximo de pagos fallidos.');

    const breve = await p.crearEnlace(
      enlaceValido({
        configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', duracionInterfazIntentoMinutos: 1 },
      }),
    );
    const pantalla = formulario((await p.abrir(breve.urlEnlaceLargo)).body);
    await p.avanzar(120);
    const vencido = await p.enviarFormulario(breve.urlEnlaceLargo, { ...pantalla.campos, ...tarjeta() });
    expect(estado(vencido.body)).toBe('intento vencido');
    expect(texto(vencido.body)).toContain('El tiempo para completar este pago terminó; no se hizo ningún cobro.');
  });
});

describe("screen: 'js' (SANDBOX_SCREEN=js)", () => {
  it('serves the payment, 3DS and quick-pay forms built by an inline script: no form for a parser, the same fields in the script', async () => {
    const p = await sandbox({ screen: 'js' });
    const link = await p.crearEnlace();
    const screen = (await p.abrir(link.urlEnlaceLargo)).body;
    expect(parse(screen).querySelectorAll('form')).toHaveLength(0);
    expect(texto(screen)).toContain('Camisa');
    const script = parse(screen).querySelector('script')?.text ?? '';
    for (const name of ['intento', 'formaPago', 'numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento', 'nombreTitular', 'email'])
      expect(script).toContain(`name=\\"${name}\\"`);
    expect(screen).toContain('<noscript>');

    const tres = (await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida())).json() as {
      urlCompletarPago3Ds: string;
    };
    expect(parse((await p.abrir(tres.urlCompletarPago3Ds)).body).querySelectorAll('form')).toHaveLength(0);
    const qp = (await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 2 })).json() as {
      datosQuickPay: { urlQR: string };
    };
    expect(parse((await p.abrir(qp.datosQuickPay.urlQR.replace(/\.png$/, ''))).body).querySelectorAll('form')).toHaveLength(0);
    // Everything else is unchanged: the submission of the same fields is processed.
    const intento = /name=\\"intento\\" value=\\"([^"\\]+)\\"/.exec(script)?.[1];
    expect((await p.enviarFormulario(link.urlEnlaceLargo, { intento: intento!, ...tarjeta() })).statusCode).toBe(303);
  });

  it('refuses an unknown screen option', () => {
    expect(() => buildApp({ screen: 'react' as 'js' })).toThrow(
      'sandbox option screen must be one of "html", "js", "steps", "challenge", "frame" (got "react")',
    );
  });
});
