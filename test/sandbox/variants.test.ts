/**
 * The variant catalogue (sandbox/variants.ts): selecting variants (`id[,id…]`, `all` = those that compose, unknown
 * ids refused naming the valid ones), the settings they bring, and a few variants changing what they say while the
 * sandbox stays whole (a large idEnlace still leads to its screen and activar; an error keeps its status class).
 */
import { describe, expect, it } from 'vitest';
import { FAULTS, VARIANTS, variantIds, variantSettings } from '../../sandbox/index.ts';
import { selectVariants } from '../../sandbox/variants.ts';
import { CUENTA, basic, enlaceValido, sandbox, tarjeta } from './helpers.ts';

describe('variant selection', () => {
  it('reads one id, a list, or nothing', () => {
    expect(variantIds(undefined)).toEqual([]);
    expect(variantIds(' ')).toEqual([]);
    expect(variantIds('redirect-302')).toEqual(['redirect-302']);
    expect(variantIds('redirect-302, monto-shortest')).toEqual(['redirect-302', 'monto-shortest']);
    const selected = selectVariants('monto-shortest');
    expect(selected('monto-shortest')).toBe(true);
    expect(selected('redirect-302')).toBe(false);
  });

  it('refuses an unknown id with a clear error naming the valid ones', async () => {
    expect(() => variantIds('redirect-302,no-such-variant')).toThrow(
      /unknown sandbox variant "no-such-variant"; valid: all, deployed, created-201-location/,
    );
    await expect(sandbox({ variant: 'nope' })).rejects.toThrow('unknown sandbox variant "nope"');
  });

  it('all = every variant that composes with the others', () => {
    const all = variantIds('all');
    const entries: readonly { id: string; composes?: false }[] = VARIANTS;
    expect(all).toEqual(entries.filter((v) => v.composes !== false).map((v) => v.id));
    expect(all).not.toContain('redirect-301');
    expect(all).not.toContain('errors-problem-json');
    expect(all.length).toBeGreaterThanOrEqual(20);
  });

  it('has unique ids, none a fault id (npm run mutation takes both), and brings the settings a vendor would give', () => {
    expect(new Set(VARIANTS.map((v) => v.id)).size).toBe(VARIANTS.length);
    const faultIds = new Set<string>(FAULTS.map((f) => f.id));
    expect(VARIANTS.filter((v) => faultIds.has(v.id)).map((v) => v.id)).toEqual([]);
    expect(variantSettings('hash-hmac-sha512-base64')).toMatchObject({ REDIRECT_HASH: 'hmac-sha512', REDIRECT_HASH_ENCODING: 'base64' });
    expect(variantSettings('hash-own-key')).toMatchObject({ REDIRECT_HASH_KEY: 'sandbox-redirect-hash-key' });
    expect(variantSettings('monto-shortest')).toEqual({});
    // With both signature-header variants (all), webhook-vendor-header's header and setting win.
    expect(variantSettings('all')).toMatchObject({ WEBHOOK_SIGNATURE_HEADER: 'sandbox_hash' });
    expect(variantSettings('webhook-signature-header')).toEqual({ WEBHOOK_SIGNATURE_HEADER: 'x-payment-signature' });
  });
});

describe('variants change what they say, and nothing else breaks', () => {
  it('idenlace-large: an idEnlace past 2^32 opens its screen, its QR and activar', async () => {
    const s = await sandbox({ variant: 'idenlace-large' });
    const link = await s.crearEnlace();
    expect(link.idEnlace).toBeGreaterThan(2 ** 32);
    expect((await s.abrir(link.urlEnlaceLargo)).statusCode).toBe(200);
    expect((await s.abrir(link.urlQrCodeEnlace)).statusCode).toBe(200);
    const activar = await s.api('PUT', `/EnlacePago/${link.idEnlace}/activar`, basic(CUENTA.user, CUENTA.password));
    expect(activar.json()).toMatchObject({ idEnlace: link.idEnlace });
  });

  it('activar-resets-then-answers: activar answers cantidadIntentoPagoFallidos 0, the declines still listed', async () => {
    const s = await sandbox({ variant: 'activar-resets-then-answers' });
    const link = await s.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 2 } }));
    for (let i = 0; i < 2; i++) await s.pagar(link.urlEnlaceLargo, tarjeta('111'));
    expect((await s.abrir(link.urlEnlaceLargo)).statusCode).toBe(410);
    const r = await s.registro(link.idEnlace);
    expect(r).toMatchObject({ usable: true, cantidadIntentoPagoFallidos: 0 });
    expect(r.transacciones).toHaveLength(2);
  });

  it('errors-422 and errors-mensajes: a broken rule is 422 with the mensajes body; a missing token stays 401', async () => {
    const s = await sandbox({ variant: 'errors-422,errors-mensajes' });
    const res = await s.api('POST', '/EnlacePago', await s.bearer(), enlaceValido({ monto: 0 }));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ mensajes: [expect.stringContaining('monto')], servicioError: { codigo: 'E422' } });
    expect((await s.api('POST', '/EnlacePago', undefined, enlaceValido())).statusCode).toBe(401);
  });

  it('created-201-location: a link creation answers 201 with the Location of the link', async () => {
    const s = await sandbox({ variant: 'created-201-location' });
    const res = await s.api('POST', '/EnlacePago', await s.bearer(), enlaceValido());
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toBe(`http://sandbox.test/api/EnlacePago/${(res.json() as { idEnlace: number }).idEnlace}`);
  });

  it('screen-numbers-untrimmed: a number posted with white space around it is refused, as written it is paid', async () => {
    const padded = { ...tarjeta(), mesVencimiento: ' 12' };
    const usual = await sandbox();
    expect((await usual.pagar((await usual.crearEnlace()).urlEnlaceLargo, padded)).statusCode).toBe(303);
    const s = await sandbox({ variant: 'screen-numbers-untrimmed' });
    expect((await s.pagar((await s.crearEnlace()).urlEnlaceLargo, padded)).statusCode).toBe(400);
    expect((await s.pagar((await s.crearEnlace()).urlEnlaceLargo)).statusCode).toBe(303);
  });

  it("business-notifies-customer: the businesses' own settings e-mail the customer, after a reset and for a new tenant too", async () => {
    const notifies = (s: Awaited<ReturnType<typeof sandbox>>) =>
      [...s.app.sandbox.store.businesses.values()].map((b) => b.notificaciones.notificarTransaccionCliente);
    expect(new Set(notifies(await sandbox()))).toEqual(new Set([false]));
    const s = await sandbox({ variant: 'business-notifies-customer' });
    expect(new Set(notifies(s))).toEqual(new Set([true]));
    await s.app.inject({ method: 'POST', url: '/__sandbox/reset' });
    await s.app.inject({ method: 'POST', url: '/__sandbox/tenants' });
    expect(new Set(notifies(s))).toEqual(new Set([true]));
  });
});
