/**
 * The browser payer (PAYER=browser) against screens whose forms are built by JavaScript: same outcomes as the HTTP
 * payer, fields found by name or CSS selector, a payment sent once (a page re-posting it is blocked; a 307 is the
 * browser's to follow), the redirect never fetched, evidence without the card. Skipped with the reason without Chromium.
 */
import { FieldsNotFoundError } from '../../harness/payer/field-mapping.ts';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TestRecord, withRecord } from '../../harness/record/test-record.ts';
import { NoFormError } from '../../harness/payer/errors.ts';
import { createPayer } from '../../harness/payer/index.ts';
import { blankSecrets } from '../../harness/payer/chromium.ts';
import {
  CHROMIUM,
  chromium,
  prefix,
  CARD,
  autofill,
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

describe('browser payer', () => {
  it('pays a script-built screen through a redirect, fields by CSS selector; the redirect is the outcome, never fetched', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const before = fixture.seen.length;
    const outcome = await browserPayer(vendorNames).pay({ kind: 'link', url: `${fixture.url}/l/js`, payment: { ...card, formaPago: 2 } });
    const { timing, ...rest } = outcome;
    expect(rest).toEqual({
      kind: 'redirect',
      location: `${prefix}?idTransaccion=t-js&esAprobada=true`,
      params: { idTransaccion: 't-js', esAprobada: 'true' },
    });
    expect(timing!.openedAt).toBeLessThanOrEqual(timing!.submittedAt!);
    expect(timing!.submittedAt!).toBeLessThanOrEqual(timing!.answeredAt);
    expect(posted).toEqual([{ token: 'v1', formaPago: '2', card_number: CARD, cvc: '987', mesVencimiento: '12', anioVencimiento: '2030' }]);
    expect(fixture.seen.slice(before)).toEqual(['GET /l/js', 'GET /pagar/js', 'POST /pagar/js']);
  });

  it('submits a screen opened earlier, with a forged field the screen does not show', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer(vendorNames);
    const screen = await payer.openScreen(`${fixture.url}/pagar/js`);
    expect(screen.status).toBe(200);
    expect(screen.form?.action).toBe(`${fixture.url}/pagar/js`);
    posted.length = 0;
    const outcome = await payer.pay({ kind: 'opened-screen', screen, payment: { ...card, cvv: '111' }, forged: { monto: '1.00' } });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { esAprobada: 'false' }, timing: { openedAt: screen.openedAt } });
    expect(posted[0]).toMatchObject({ card_number: CARD, cvc: '111', amount: '1.00' });
  });

  it('closes the screens a test kept open when the test ends: paying one afterwards says it was closed', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer(vendorNames);
    const record = new TestRecord('holds a screen');
    const screen = await withRecord(record, () => payer.openScreen(`${fixture.url}/pagar/js`));
    record.end();
    posted.length = 0;
    await expect(payer.pay({ kind: 'opened-screen', screen, payment: card })).rejects.toThrow(/was closed: its test ended/);
    expect(posted).toEqual([]);
  });

  it("a page slower to become usable than the target's bound (HTTP_TIMEOUT_MS) is still paid: the browser's steps have their own bound", async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const payer = createPayer({
      http,
      kind: 'browser',
      chromiumPath: CHROMIUM,
      chromium,
      reportDir,
      timeoutMs: 500,
      fieldNames: vendorNames,
    });
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/slow`, payment: card })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-slow' },
    });
    expect(posted).toHaveLength(1);
  });

  it('returns a refused screen, and refuses what a customer could not do, before sending anything', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer(vendorNames);
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/gone`, payment: card })).toMatchObject({
      kind: 'refused',
      status: 410,
      estado: 'no disponible',
      by: 'status',
    });
    posted.length = 0;
    await expect(payer.pay({ kind: 'link', url: `${fixture.url}/pagar/js`, payment: { ...card, formaPago: 3 } })).rejects.toThrow(
      'no option of formaPago (formaPago) means "3": it offers "0" (Tarjeta), "2" (Cuotas); set SCREEN_OPTION_VALUES',
    );
    await expect(payer.pay({ kind: 'link', url: `${fixture.url}/pagar/js`, payment: { ...card, monto: 5 } })).rejects.toThrow(NoFormError);
    expect(posted).toEqual([]);
  });

  it('never sends a payment twice: a page re-posting it is blocked; a 307 is followed by the browser, the payer sending nothing again', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    await expect(browserPayer().pay({ kind: 'link', url: `${fixture.url}/double`, payment: card })).rejects.toThrow(/a second time/);
    expect(posted).toHaveLength(1);
    posted.length = 0;
    const before = fixture.seen.length;
    expect(await browserPayer().pay({ kind: 'link', url: `${fixture.url}/307`, payment: card })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-307' },
    });
    // The target asked for the same body at another URL: sent there once, as any browser does; never to /307 again.
    expect(fixture.seen.slice(before).filter((r) => r.startsWith('POST'))).toEqual(['POST /307', 'POST /307-again']);
    expect(posted[1]).toMatchObject({ numeroTarjeta: CARD, again: 'yes' });
  });

  it("sends what the page's own input checks would block, so the server's rules are what is judged", async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    expect(
      await browserPayer().pay({ kind: 'link', url: `${fixture.url}/checked`, payment: { ...card, mesVencimiento: 13 } }),
    ).toMatchObject({
      kind: 'refused',
      status: 400,
      estado: 'datos inválidos',
    });
    expect(posted).toEqual([{ numeroTarjeta: CARD, cvv: '987', mesVencimiento: '13', anioVencimiento: '2030' }]);
  });

  it('pays each screen as a new customer: nothing an earlier payment left in storage or cookies', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer();
    posted.length = 0;
    for (let i = 0; i < 3; i++) await payer.pay({ kind: 'link', url: `${fixture.url}/remembers`, payment: card });
    expect(posted.map((p) => [p['antes'], p['cookie']])).toEqual([
      ['nada', 'nada'],
      ['nada', 'nada'],
      ['nada', 'nada'],
    ]);
    // Within one payment the screen's session cookie is kept, as a browser keeps it.
    expect(posted.map((p) => p['sesion'])).toEqual(['visto=1', 'visto=1', 'visto=1']);
  });

  it('waits for a form a script builds after the page loaded', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    expect(await browserPayer().pay({ kind: '3ds', url: `${fixture.url}/late`, redirectPrefix: prefix })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-3' },
    });
    expect(posted).toEqual([{ reto: 'tarde' }]);
  });

  it('completes a 3DS page and pays a quick-pay QR whose page is built by script', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer();
    expect(await payer.pay({ kind: '3ds', url: `${fixture.url}/3ds/t-3`, redirectPrefix: prefix })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-3' },
    });
    expect(await payer.pay({ kind: 'quick-pay', url: `${fixture.url}/qp/t-4.png` })).toMatchObject({
      kind: 'page',
      status: 200,
      estado: 'aprobada',
    });
  });

  it('enters the card where a script-built 3DS page and quick-pay page ask for it, nothing else added', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer(autofill);
    const pageCard = {
      numeroTarjeta: CARD,
      cvv: '987',
      mesVencimiento: 12,
      anioVencimiento: 2030,
      nombreTitular: 'Ana',
      email: 'a@b.test',
    };
    const entered = { 'cc-number': CARD, 'cc-exp-month': '12', 'cc-exp-year': '2030', 'cc-csc': '987' };
    posted.length = 0;
    expect(await payer.pay({ kind: '3ds', url: `${fixture.url}/3ds/card`, redirectPrefix: prefix, card: pageCard })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-3c' },
    });
    expect(await payer.pay({ kind: 'quick-pay', url: `${fixture.url}/qp/card.png`, card: pageCard })).toMatchObject({
      kind: 'page',
      status: 200,
      estado: 'aprobada',
    });
    expect(posted).toEqual([{ reto: 'ok', ...entered }, entered]);
  });

  it('a page refusing the post (its form again, or an error status) is a refusal of the submission naming what it says', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer(autofill);
    const again = await payer.pay({
      kind: '3ds',
      url: `${fixture.url}/3ds/again`,
      redirectPrefix: prefix,
      card: { numeroTarjeta: CARD, cvv: '987', mesVencimiento: 12, anioVencimiento: 2030 },
    });
    expect(again).toMatchObject({
      kind: 'refused',
      status: 200,
      answered: 'submission',
      by: 'form-again',
      formAgain: true,
      text: 'Enter the code shown by your bank',
    });
    const refused = await payer.pay({ kind: 'quick-pay', url: `${fixture.url}/qp/refuse.png` });
    expect(refused).toMatchObject({ kind: 'refused', status: 422, answered: 'submission', text: 'cc-number: required' });
  });

  it('fails with the page URL, a screenshot and the page text, card number and cvv removed', async (ctx) => {
    needsChromium(ctx);
    const err = await browserPayer()
      .pay({ kind: 'link', url: `${fixture.url}/sin-email`, payment: { ...card, email: 'a@b.test' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoFormError);
    const message = (err as Error).message;
    expect(err, 'a page the payer cannot map is not judged (SKIP)').toBeInstanceOf(FieldsNotFoundError);
    expect(message).toContain('could not find email (looked for autocomplete=email');
    expect(message).toContain(`page ${fixture.url}/sin-email`);
    expect(message).not.toContain(CARD);
    const shot = /screenshot (\S+\.png)/.exec(message)?.[1];
    expect(shot && existsSync(shot), message).toBe(true);
    const text = readFileSync(shot!.replace(/\.png$/, '.txt'), 'utf8');
    expect(text).toContain('Tarjeta ••••');
    expect(text).not.toContain(CARD);
  });

  it('blanks the card and cvv inputs and masks a card number in the text before a screenshot', async (ctx) => {
    needsChromium(ctx);
    const browser = await chromium.launch();
    const page = await (await browser.newContext()).newPage();
    await page.setContent(
      `<form><input name="numeroTarjeta" value="${CARD}"><input name="cvv" value="987"><input name="otro" ` +
        `value="keep"></form><p>Tarjeta ${CARD}</p>`,
    );
    const evidence = await chromium.evidence(page, { reportDir, label: 'blank', cardTarget: 'numeroTarjeta', cvvTarget: 'cvv' });
    expect(evidence).toContain('screenshot');
    expect(await page.inputValue('[name=numeroTarjeta]')).toBe('');
    expect(await page.inputValue('[name=cvv]')).toBe('');
    expect(await page.inputValue('[name=otro]')).toBe('keep');
    expect(await page.innerText('p')).not.toContain(CARD);
    await blankSecrets(page, 'numeroTarjeta', 'cvv');
    await page.context().close();
  });
});
