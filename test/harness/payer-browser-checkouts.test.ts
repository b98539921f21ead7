import { describe, expect, it } from 'vitest';
import { NoFormError, PayerError } from '../../harness/payer/errors.ts';
import { TestRecord, withRecord } from '../../harness/record/test-record.ts';
import { createPayer } from '../../harness/payer/index.ts';
import {
  CHROMIUM,
  chromium,
  prefix,
  CARD,
  fixture,
  http,
  reportDir,
  posted,
  vaulted,
  card,
  vendorNames,
  needsChromium,
  browserPayer,
  useBrowserScreens,
} from './browser-screens.ts';

useBrowserScreens();

describe('browser payer: checkouts as people finish them', () => {
  it('finishes a checkout in two steps (CSRF bound to its cookie): radio buttons checked by meaning, the button that goes on pressed, each step in the transcript', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const scope = new TestRecord('two steps');
    const outcome = await withRecord(scope, () =>
      browserPayer().pay({ kind: 'link', url: `${fixture.url}/steps`, payment: { ...card, formaPago: 1 } }),
    );
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-steps', esAprobada: 'true' } });
    // "Continuar", not the "Cancelar" before it; then "Confirmar y pagar", not "Editar"; the session's cookie kept.
    expect(posted.map(({ accion, medio, pan, sid }) => ({ accion, medio, pan, sid }))).toEqual([
      { accion: 'seguir', medio: 'PTS', pan: CARD, sid: expect.stringMatching(/^s\d+$/) },
      { accion: 'confirmar', medio: undefined, pan: undefined, sid: posted[0]!['sid'] },
    ]);
    const titles = scope.steps.map((s) => s.title);
    expect(titles).toContain('checkout step 2: "Paso 2 de 2: confirma tu pago" — nothing to fill; pressed "Confirmar y pagar"');
    expect(JSON.stringify(scope.steps)).not.toContain(CARD);
  });

  it('types the code a test issuer page shows into the one empty input (never a code the page does not show), and agrees where the page asks', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const scope = new TestRecord('challenge');
    expect(
      await withRecord(scope, () => browserPayer().pay({ kind: '3ds', url: `${fixture.url}/challenge`, redirectPrefix: prefix })),
    ).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-ch' },
    });
    expect(posted).toEqual([{ otp_x: '123456', autoriza: 'si' }]);
  });

  it('types the details a person would (last name, phone) where the page asks them; a required one no detail answers: nothing pressed', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const outcome = await browserPayer().pay({ kind: 'link', url: `${fixture.url}/billing`, payment: card });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-billing' } });
    expect(posted).toEqual([expect.objectContaining({ pan: CARD, ape: 'Pérez', tel: '70000000' })]);
    posted.length = 0;
    await expect(browserPayer().pay({ kind: 'link', url: `${fixture.url}/billing-ref`, payment: card })).rejects.toThrow(
      /asks what the payment does not carry and the payer has no answer for: "Referencia" \(ref, required\); nothing was pressed/,
    );
    expect(posted).toEqual([]);
  });

  it("pays a shell whose card fields are in a frame of another origin: fields placed across frames, the outer pay button pressed, the script's redirect caught", async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const before = fixture.seen.length;
    const payer = browserPayer();
    const outcome = await payer.pay({
      kind: 'link',
      url: `${fixture.url}/shell`,
      payment: { ...card, formaPago: 1, email: 'ana@example.test' },
    });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-shell', esAprobada: 'true' } });
    expect(posted).toEqual([{ token: expect.stringMatching(/^tok-/), forma: 'PTS', correo: 'ana@example.test', csc: '987' }]);
    expect(vaulted.get(posted[0]!['token']!)).toEqual({ cardnumber: CARD, 'exp-month': '12', 'exp-year': '2030', csc: '987' });
    expect(fixture.seen.slice(before).filter((r) => r.startsWith('POST'))).toEqual(['POST /vault/tokenize', 'POST /shell/pay']);
    // The shell is read as a screen a customer can pay (its inputs across frames, its controls).
    const screen = await payer.openScreen(`${fixture.url}/shell`);
    expect(screen.form?.visible).toEqual(expect.arrayContaining(['#correo', 'forma', 'cardnumber', 'csc']));
  });

  it("presses once the page has loaded, its frames included: a vault whose script arrives late still gets the press's message", async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    // Pressed before the vault listens, the shell's message is lost and nothing follows within the bound (60 s).
    const outcome = await browserPayer().pay({
      kind: 'link',
      url: `${fixture.url}/shell-slow`,
      payment: { ...card, formaPago: 1, email: 'ana@example.test' },
    });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-shell', esAprobada: 'true' } });
    expect(posted).toHaveLength(1);
  });

  it('a refusal the page renders itself (role=alert) ends the wait at once: the same form with its message, a refusal of the submission', async (ctx) => {
    needsChromium(ctx);
    // The browser's bound (60 s) is beyond the test's own timeout: resolving at all is the proof the wait ended on the message.
    const outcome = await browserPayer().pay({ kind: 'link', url: `${fixture.url}/shell`, payment: { ...card, cvv: '111' } });
    expect(outcome).toMatchObject({ kind: 'refused', answered: 'submission', by: 'form-again', text: 'Pago rechazado por el emisor' });
  });

  it('a receipt a single-page checkout renders in place (role=status, a heading, a transaction id) ends the wait at once', async (ctx) => {
    needsChromium(ctx);
    // As above: the bound (60 s) is beyond the test's own timeout, so resolving at all shows the wait ended on the receipt.
    const outcome = await browserPayer().pay({ kind: 'quick-pay', url: `${fixture.url}/qp/in-place.png` });
    expect(outcome).toMatchObject({ kind: 'page', status: 200 });
    expect(outcome.kind === 'page' && outcome.text).toMatch(/Pago aprobado/);
  });

  it('PAYER=auto pays the shell in the browser without being told: the HTTP payer sees no form there', async (ctx) => {
    needsChromium(ctx);
    posted.length = 0;
    const payer = createPayer({ http, kind: 'auto', chromiumPath: CHROMIUM, chromium, reportDir, timeoutMs: 10_000 });
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/shell`, payment: card })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-shell' },
    });
    expect(posted).toHaveLength(1);
  });

  it('presses a back button driven by script and says where it leads, without fetching it; a screen without one says what was looked for', async (ctx) => {
    needsChromium(ctx);
    const payer = browserPayer();
    const screen = await payer.openScreen(`${fixture.url}/shell`);
    expect(await payer.follow!(screen, 'back')).toEqual({ url: 'https://merchant.example/volver/shell', control: 'Volver' });
    const plain = await payer.openScreen(`${fixture.url}/checked`);
    const missing = await payer.follow!(plain, 'back');
    expect(missing).toMatchObject({ notFound: expect.stringContaining('says going back') });
    expect((missing as { notFound: string }).notFound).toContain('"Pagar"');
  });

  it("no card data in the picture: every frame's card and cvv inputs emptied and echoed numbers masked before the screenshot", async (ctx) => {
    needsChromium(ctx);
    const browser = await chromium.launch();
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${fixture.url}/shell`);
    const frame = page.frames().find((f) => f.url().includes('localhost'))!;
    await frame.locator('[name=cardnumber]').fill(CARD);
    await frame.locator('[name=csc]').fill('987');
    expect(await frame.locator('#echo').innerText()).toContain(CARD);
    // The cvv input has no autofill token: blanked because the payer typed it there.
    const evidence = await chromium.evidence(page, {
      reportDir,
      label: 'frame',
      cardTarget: 'numeroTarjeta',
      cvvTarget: 'cvv',
      secretTargets: ['[name="csc"]'],
    });
    expect(evidence).toContain('screenshot');
    for (const f of page.frames()) {
      const values = await f.evaluate(() => [...document.querySelectorAll('input')].map((i) => i.value));
      expect(values.join(' ')).not.toContain(CARD);
      expect(values).not.toContain('987');
      expect(await f.evaluate(() => document.body.innerText)).not.toContain(CARD);
    }
    await page.context().close();
  });
});

describe('PAYER=auto', () => {
  it('a page refusing in words is returned as the HTTP payer read it; a page with no form is tried in the browser', async (ctx) => {
    needsChromium(ctx);
    // A short HTTP_TIMEOUT_MS: the blank page is waited on that long in the browser for a form a script might build.
    const payer = createPayer({ http, kind: 'auto', chromiumPath: CHROMIUM, chromium, reportDir, timeoutMs: 500 });
    const before = fixture.seen.filter((s) => s === 'GET /dep/unavailable').length;
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/dep/unavailable`, payment: card })).toMatchObject({
      kind: 'refused',
      by: 'words',
    });
    expect(fixture.seen.filter((s) => s === 'GET /dep/unavailable').length - before).toBe(1);
    const blank = fixture.seen.filter((s) => s === 'GET /dep/blank').length;
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/dep/blank`, payment: card })).toMatchObject({
      kind: 'refused',
      by: 'no-form',
    });
    expect(fixture.seen.filter((s) => s === 'GET /dep/blank').length - blank).toBe(2);
  });

  it('pays a plain form over HTTP (no browser needed) and a script-built one in the browser, each once', async (ctx) => {
    needsChromium(ctx);
    const payer = createPayer({ http, kind: 'auto', chromiumPath: CHROMIUM, chromium, reportDir, fieldNames: vendorNames });
    posted.length = 0;
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/plain`, payment: card })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-plain' },
    });
    // Over HTTP, the CSS selectors were resolved to the inputs' names.
    expect(posted[0]).toEqual({ card_number: CARD, cvc: '987', mesVencimiento: '12', anioVencimiento: '2030' });
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/pagar/js`, payment: card })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-js' },
    });
    expect(posted).toHaveLength(2);
  });

  it('the HTTP payer alone says the script-built screen shows no form (a no-form refusal, nothing sent)', async () => {
    posted.length = 0;
    expect(await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/pagar/js`, payment: card })).toMatchObject({
      kind: 'refused',
      answered: 'opening',
      by: 'no-form',
    });
    const screen = await createPayer({ http }).openScreen(`${fixture.url}/pagar/js`);
    await expect(createPayer({ http }).pay({ kind: 'opened-screen', screen, payment: card })).rejects.toThrow(NoFormError);
    await expect(createPayer({ http }).pay({ kind: 'opened-screen', screen, payment: card })).rejects.toThrow(PayerError);
    expect(posted).toEqual([]);
  });
});
