/**
 * The challenge screen (`screen: 'challenge'`): the 3DS page is an issuer test page showing "Código de prueba: NNNNNN"
 * beside one text input (otp, no autofill hint) and a button "Verificar"; a wrong or missing code shows it again
 * (422), the shown one completes it (303). Its quick-pay page asks the payer to authorise the payment.
 */
import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import { type Prueba, compra3dsValida, consulta, estado, formulario, ruta, sandbox } from './helpers.ts';

async function pagina3ds(p: Prueba): Promise<string> {
  const res = await p.api('POST', '/TransaccionCompra/3DS', await p.bearer(), compra3dsValida());
  return ruta(res.json().urlCompletarPago3Ds as string);
}

function enviar(p: Prueba, url: string, campos: Record<string, string>) {
  return p.app.inject({
    method: 'POST',
    url,
    payload: new URLSearchParams(campos).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** The code as a reader finds it: the 6 digits after "Código de prueba:". */
function codigoMostrado(html: string): string | undefined {
  return /Código de prueba:\s*(?:<[^>]+>)?(\d{6})/.exec(html)?.[1];
}

describe('challenge screen', () => {
  it('the 3DS page shows its test code beside one text input labelled "Código de verificación" and a "Verificar" button', async () => {
    const p = await sandbox({ screen: 'challenge' });
    const url = await pagina3ds(p);
    const res = await p.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    const doc = parse(res.body);
    const inputs = doc.querySelectorAll('form input');
    expect(inputs.map((i) => i.getAttribute('name'))).toEqual(['otp']);
    const input = inputs[0]!;
    expect(input.getAttribute('type')).toBe('text');
    expect(input.getAttribute('autocomplete')).toBeUndefined();
    expect(input.getAttribute('inputmode')).toBeUndefined();
    expect(doc.querySelector(`label[for=${input.getAttribute('id')}]`)?.text).toBe('Código de verificación');
    expect(doc.querySelector('form button')?.text).toBe('Verificar');
    expect(doc.querySelector('#codigo-prueba')).toBeNull();
    expect(codigoMostrado(res.body)).toMatch(/^\d{6}$/);
    // Per transaction: another 3DS purchase has (almost always) another code, and the page shows the same one again.
    expect(codigoMostrado((await p.app.inject({ method: 'GET', url })).body)).toBe(codigoMostrado(res.body));
  });

  it('a wrong or missing code shows the page again with the error (422), nothing approved; the shown code completes it (303)', async () => {
    const p = await sandbox({ screen: 'challenge' });
    const url = await pagina3ds(p);
    const codigo = codigoMostrado((await p.app.inject({ method: 'GET', url })).body)!;
    const otro = String((Number(codigo) + 1) % 1_000_000).padStart(6, '0');
    for (const campos of [{ otp: otro }, {}] as Record<string, string>[]) {
      const res = await enviar(p, url, campos);
      expect(res.statusCode).toBe(422);
      expect(parse(res.body).querySelector('#errores li')?.getAttribute('data-campo')).toBe('otp');
      expect(codigoMostrado(res.body)).toBe(codigo);
    }
    const id = url.split('/').pop()!;
    expect(p.ctx.store.transactions.get(id)?.resultadoTransaccion).toBeNull();
    const fin = await enviar(p, url, { otp: codigo });
    expect(fin.statusCode).toBe(303);
    expect(fin.headers.location).toMatch(/^https:\/\/merchant\.test\/vuelta\?/);
    expect(consulta(fin)).toMatchObject({ idTransaccion: id, esAprobada: 'true' });
  });

  it('the quick-pay page asks the payer to authorise: none chosen or "No" shows it again (422), "Sí" pays', async () => {
    const p = await sandbox({ screen: 'challenge' });
    const qp = (await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 3.5 })).json();
    const url = ruta(String(qp.datosQuickPay.urlQR).replace(/\.png$/, ''));
    const pagina = await p.app.inject({ method: 'GET', url });
    const radios = parse(pagina.body).querySelectorAll('input[type=radio][name=autoriza]');
    expect(radios.map((r) => [r.getAttribute('value'), r.parentNode.text.trim(), r.getAttribute('checked')])).toEqual([
      ['si', 'Sí, autorizo el pago', undefined],
      ['no', 'No', undefined],
    ]);
    expect((await enviar(p, url, {})).statusCode).toBe(422);
    expect((await enviar(p, url, { autoriza: 'no' })).statusCode).toBe(422);
    const pagado = await enviar(p, url, { ...formulario(pagina.body).campos, autoriza: 'si' });
    expect(pagado.statusCode).toBe(200);
    expect(estado(pagado.body)).toBe('aprobada');
  });

  it('the link screen stays the single-step form; the default screen shows no code on its 3DS page', async () => {
    const p = await sandbox({ screen: 'challenge' });
    const link = await p.crearEnlace();
    expect((await p.pagar(link.urlEnlaceLargo)).statusCode).toBe(303);
    const html = await sandbox();
    const res = await html.app.inject({ method: 'GET', url: await pagina3ds(html) });
    expect(codigoMostrado(res.body)).toBeUndefined();
    expect(parse(res.body).querySelector('form button')?.text).toBe('Confirmar el pago');
  });
});
