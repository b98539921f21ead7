/**
 * The browser payer on the deployed service's screens: options picked by meaning, refusals in words or without a
 * form, a page that stops answering bounded, a browser that went away started again. Skipped without Chromium.
 */
import { FieldsNotFoundError } from '../../harness/payer/field-mapping.ts';
import { describe, expect, it } from 'vitest';
import { createPayer } from '../../harness/payer/index.ts';
import {
  CHROMIUM,
  chromium,
  CARD,
  fixture,
  http,
  reportDir,
  posted,
  card,
  vendorNames,
  needsChromium,
  browserPayer,
  useBrowserScreens,
} from './browser-screens.ts';

useBrowserScreens();

describe("browser payer on the deployed service's screens", () => {
  const payment = { ...card, mesVencimiento: 1, anioVencimiento: 2031, formaPago: 1, cantidad: 3, nombreTitular: 'Ana' };

  it('picks the month, year and payment form by meaning, the quantity by its label or by elimination', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const payer = browserPayer();
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/dep/screen`, payment })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-d' },
    });
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/dep/js`, payment: { ...payment, formaPago: 0 } })).toMatchObject({
      kind: 'redirect',
    });
    expect(posted).toEqual([
      {
        __RequestVerificationToken: 'tok-1',
        IdEnlace: '1234567',
        x6: 'Puntos',
        x7: '3',
        x1: CARD,
        x2: '01',
        x3: '2031',
        x4: '987',
        x5: 'Ana',
      },
      {
        __RequestVerificationToken: 'tok-1',
        IdEnlace: '1234567',
        x6: 'PagoNormal',
        x7: '3',
        x1: CARD,
        x2: '01',
        x3: '2031',
        x4: '987',
        x5: 'Ana',
      },
    ]);
  });

  it('names each option it cannot match, with the options offered, and sends nothing', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const err = await browserPayer()
      .pay({ kind: 'link', url: `${fixture.url}/dep/screen`, payment: { ...payment, formaPago: 4, anioVencimiento: 2050 } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FieldsNotFoundError);
    expect((err as Error).message).toContain(
      'no option of formaPago (x6) means "4": it offers "PagoNormal" (Tarjeta de crédito o débito), "Puntos" (Puntos Partner)',
    );
    expect((err as Error).message).toContain('no option of anioVencimiento (x3) means "2050"');
    expect(posted).toEqual([]);
  });

  it('a page refusing in words (as served, or written by a script) is a refusal on opening, without waiting out the bound for a form', async (ctx) => {
    needsChromium(ctx);
    const payer = createPayer({ http, kind: 'browser', chromiumPath: CHROMIUM, chromium, reportDir, timeoutMs: 8_000 });
    for (const path of ['/dep/unavailable', '/dep/unavailable-js']) {
      const started = Date.now();
      const outcome = await payer.pay({ kind: 'link', url: `${fixture.url}${path}`, payment });
      expect(outcome, path).toMatchObject({ kind: 'refused', status: 200, answered: 'opening', by: 'words' });
      expect(outcome.timing?.submittedAt).toBeUndefined();
      // Not the 8 s the payer waits for a form to appear: the words ended the wait (the bound is that wait itself).
      expect(Date.now() - started, path).toBeLessThan(8_000);
    }
    const screen = await payer.openScreen(`${fixture.url}/dep/unavailable`);
    expect(await payer.pay({ kind: 'opened-screen', screen, payment })).toMatchObject({
      kind: 'refused',
      by: 'words',
      timing: { openedAt: screen.openedAt },
    });
  });

  it('a page that stops answering ends its payment with a PayerError in its bound, and frees its turn for the next', async (ctx) => {
    needsChromium(ctx);
    const payer = createPayer({
      http,
      kind: 'browser',
      chromiumPath: CHROMIUM,
      chromium,
      reportDir,
      timeoutMs: 1_000,
      browserTimeoutMs: 1_000,
      fieldNames: vendorNames,
    });
    // Two hung pages take both turns; the third payment gets one once they are given up (else the test's timeout).
    const hung = [
      payer.pay({ kind: 'link', url: `${fixture.url}/hang`, payment: card }),
      payer.pay({ kind: 'link', url: `${fixture.url}/hang`, payment: card }),
    ];
    for (const p of hung) await expect(p).rejects.toThrow(/did not finish with a page in 3 s \(hung or crashed\)/);
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/pagar/js`, payment: card })).toMatchObject({ kind: 'redirect' });
  });

  it('starts another browser when the one it used went away (a crash)', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer(vendorNames);
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/pagar/js`, payment: card })).toMatchObject({ kind: 'redirect' });
    await (await chromium.launch()).close();
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/pagar/js`, payment: card })).toMatchObject({ kind: 'redirect' });
  });

  it('a page with no form and no words is a no-form refusal, payableSeen once a screen of its origin was paid', async (ctx) => {
    needsChromium(ctx);
    // A short HTTP_TIMEOUT_MS: each blank page is waited on that long for a form a script might build.
    const payer = createPayer({ http, kind: 'browser', chromiumPath: CHROMIUM, chromium, reportDir, timeoutMs: 500 });
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/dep/blank`, payment })).toMatchObject({
      kind: 'refused',
      by: 'no-form',
      payableSeen: false,
    });
    await payer.pay({ kind: 'link', url: `${fixture.url}/dep/screen`, payment });
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/dep/blank`, payment })).toMatchObject({
      kind: 'refused',
      by: 'no-form',
      payableSeen: true,
    });
  });
});
