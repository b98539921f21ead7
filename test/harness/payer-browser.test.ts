/**
 * The browser payer (PAYER=browser) and PAYER=auto against screens whose forms are built by JavaScript: same
 * outcomes as the HTTP payer, fields found by name or CSS selector, a payment sent once (a page re-posting it is
 * blocked; a 307 is the browser's to follow), the redirect never fetched, evidence without the card; checkouts with
 * steps, a code the page shows, radio buttons; card fields in a frame of another origin (a shell paying by script);
 * a control driven by script pressed to see where it leads. Skipped with the reason without Chromium.
 */
import { FieldsNotFoundError } from '../../harness/payer/field-mapping.ts';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { NoFormError, PayerError } from '../../harness/payer/errors.ts';
import { Recorder } from '../../harness/record/transcript.ts';
import { TestRecord, withRecord } from '../../harness/record/test-record.ts';
import { SecretRegistry } from '../../harness/record/redact.ts';
import { createHttp, type Http } from '../../harness/api/http.ts';
import { createPayer } from '../../harness/payer/index.ts';
import { blankSecrets, Chromium, chromiumAvailable, installHint } from '../../harness/payer/chromium.ts';
import { chromiumPathSetting } from '../../harness/setup/report-settings.ts';
import { startFixture, type Fixture } from './server.ts';

const CHROMIUM = chromiumPathSetting();
const HAVE_CHROMIUM = chromiumAvailable(CHROMIUM);
/** One browser for every payer of this file (each run's payer has its own). */
const chromium = new Chromium(CHROMIUM);
const prefix = 'http://127.0.0.1:9/redirect/t1';
const CARD = '4111111111111111';

/** The deployed service's link screen and its page for a link that can no longer be paid (fixtures/deployed/). */
const deployedScreen = readFileSync(new URL('./fixtures/deployed/screen.html', import.meta.url), 'utf8');
const unavailable = readFileSync(new URL('./fixtures/deployed/unavailable.html', import.meta.url), 'utf8');
/** The deployed screen's form built by script, its quantity unlabelled (placed by elimination). */
const deployedForm = /<form[\s\S]*<\/form>/.exec(deployedScreen)![0].replace('<label for="unidades">Unidades</label>', '');

/** The single-page checkout whose card is in a frame of another origin (fixtures/frame/): served on 127.0.0.1, the vault on localhost. */
const shell = readFileSync(new URL('./fixtures/frame/shell.html', import.meta.url), 'utf8');
const vault = readFileSync(new URL('./fixtures/frame/vault.html', import.meta.url), 'utf8');

/** A page whose form only exists once its script ran. */
const scripted = (form: string) =>
  `<!doctype html><html><body><h1>Pagar</h1><div id="f"></div><script>document.getElementById('f').innerHTML = ` +
  `${JSON.stringify(form).replace(/</g, '\\u003c')};</script></body></html>`;

const vendorForm = `<form method="post" action="/pagar/js"><input type="hidden" name="token" value="v1">
<label>Forma <select name="formaPago"><option value="0">Tarjeta</option><option value="2">Cuotas</option></select></label>
<label>Tarjeta <input id="cc" name="card_number"></label><label>CVC <input name="cvc" autocomplete="cc-csc"></label>
<label>Mes <input name="mesVencimiento"></label><label>Año <input name="anioVencimiento"></label><button>Pagar</button></form>`;

const cardInputs =
  '<input name="cc-number" autocomplete="cc-number"><input name="cc-exp-month"><input name="cc-exp-year"><input ' +
  'name="cc-csc" type="password">';
const autofill = {
  numeroTarjeta: 'cc-number',
  cvv: 'input[autocomplete=cc-csc], [name=cc-csc]',
  mesVencimiento: 'cc-exp-month',
  anioVencimiento: 'cc-exp-year',
};

let fixture: Fixture;
let http: Http;
let reportDir: string;
const posted: Record<string, string>[] = [];
/** What the vault was given, by token (the card never reaches the shell's origin). */
const vaulted = new Map<string, Record<string, string>>();

/** A two-step checkout's pages: the card (radio buttons for the payment form, a cancel button first), then the review. */
const stepsCard = (
  csrf: string,
) => `<!doctype html><h1>Paso 1 de 2: tu tarjeta</h1><form method="post" action="/steps/card"><input type="hidden" name="csrf" value="${csrf}">
<fieldset><legend>Forma de pago</legend><label><input type="radio" name="medio" value="TC"> Tarjeta de crédito</label><label><input type="radio" name="medio" value="PTS"> Puntos</label></fieldset>
<label>Número de tarjeta <input name="pan"></label><label>CVV <input name="cvv2"></label><label>Mes <input name="mm"></label><label>Año <input name="aa"></label>
<button name="accion" value="cancelar">Cancelar</button><button name="accion" value="seguir">Continuar</button></form>`;
const stepsReview = (
  csrf: string,
) => `<!doctype html><h1>Paso 2 de 2: confirma tu pago</h1><p>Camiseta — 10,00 BOB, tarjeta terminada en 1111</p>
<form method="post" action="/steps/card"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="paso" value="2"><button name="accion" value="editar">Editar</button><button name="accion" value="confirmar">Confirmar y pagar</button></form>`;
const challengePage = (
  error = '',
) => `<!doctype html><h1>Verificación de tu banco</h1>${error}<form method="post" action="/challenge"><p>Código de prueba: <b>123456</b></p><input name="otp_x">
<fieldset><legend>¿Autoriza este pago?</legend><label><input type="radio" name="autoriza" value="si"> Sí, autorizo el pago</label><label><input type="radio" name="autoriza" value="no"> No</label></fieldset><button>Verificar</button></form>`;
/** A card form built by script that also asks the payer's details (`/billing-ref`: one no detail answers, required). */
const billingForm = (path: string) =>
  `<form method="post" action="${path}"><label>Número de tarjeta <input name="pan" autocomplete="cc-number"></label>` +
  '<label>CVV <input name="cvv2" autocomplete="cc-csc"></label><input name="mm" autocomplete="cc-exp-month">' +
  '<input name="aa" autocomplete="cc-exp-year"><label>Apellido <input name="ape" required></label><label>Teléfono ' +
  `<input name="tel" type="tel" required></label>${path === '/billing-ref' ? '<label>Referencia <input name="ref" required></label>' : ''}` +
  '<button>Pagar</button></form>';
const cookieOf = (header: string | undefined, name: string) => new RegExp(`(?:^|; )${name}=([^;]*)`).exec(header ?? '')?.[1];

beforeAll(async () => {
  reportDir = mkdtempSync(join(tmpdir(), 'payer-browser-'));
  let qrPng: Buffer = Buffer.alloc(0);
  let qrCardPng: Buffer = Buffer.alloc(0);
  let qrRefusePng: Buffer = Buffer.alloc(0);
  let qrInPlacePng: Buffer = Buffer.alloc(0);
  fixture = await startFixture((req, res, body) => {
    const html = (status: number, content: string) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(content);
    const redirect = (status: number, location: string) => res.writeHead(status, { location }).end();
    const form = () => Object.fromEntries(new URLSearchParams(body.toString()));
    switch (`${req.method} ${req.url}`) {
      case 'GET /l/js':
        return redirect(302, '/pagar/js');
      case 'GET /pagar/js':
        return html(200, scripted(vendorForm));
      case 'POST /pagar/js':
        posted.push(form());
        return redirect(303, `${prefix}?idTransaccion=t-js&esAprobada=${form()['cvc'] === '111' ? 'false' : 'true'}`);
      case 'GET /gone':
        return html(410, '<p id="estado">no disponible</p>');
      case 'GET /double':
        return html(
          200,
          scripted(
            '<form method="post" action="/double"><input name="numeroTarjeta"><input name="cvv"><input ' +
              'name="mesVencimiento"><input name="anioVencimiento"><button>Pagar</button></form>',
          ),
        );
      case 'POST /double':
        posted.push(form());
        // A page that sends the same payment again by itself.
        return html(
          200,
          `<form method="post" action="/double" id="x">${Object.entries(form())
            .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
            .join('')}</form><script>document.getElementById('x').submit()</script>`,
        );
      case 'GET /307':
        return html(
          200,
          scripted(
            '<form method="post" action="/307"><input name="numeroTarjeta"><input name="cvv"><input ' +
              'name="mesVencimiento"><input name="anioVencimiento"><button>Pagar</button></form>',
          ),
        );
      case 'POST /307':
        posted.push(form());
        return redirect(307, '/307-again');
      case 'POST /307-again':
        posted.push({ ...form(), again: 'yes' });
        return redirect(303, `${prefix}?idTransaccion=t-307&esAprobada=true`);
      // A checkout in two steps, its CSRF token bound to a session cookie.
      case 'GET /steps': {
        const sid = `s${fixture.seen.length}`;
        res.setHeader('set-cookie', `sid=${sid}; Path=/; HttpOnly`);
        return html(200, stepsCard(`c-${sid}`));
      }
      case 'POST /steps/card': {
        const sid = cookieOf(req.headers.cookie, 'sid');
        const f = form();
        posted.push({ ...f, sid: sid ?? 'none' });
        if (!sid || f['csrf'] !== `c-${sid}`) return html(403, '<p id="estado">sesión no válida</p>');
        if (f['accion'] === 'seguir') return html(200, stepsReview(`c-${sid}`));
        if (f['accion'] === 'confirmar') return redirect(303, `${prefix}?idTransaccion=t-steps&esAprobada=true`);
        return html(200, '<p>cancelado</p>');
      }
      // An issuer's test page: a code shown beside one empty input.
      case 'GET /billing':
      case 'GET /billing-ref':
        return html(200, scripted(billingForm(req.url!)));
      case 'POST /billing':
        posted.push(form());
        return redirect(303, `${prefix}?idTransaccion=t-billing&esAprobada=true`);
      case 'POST /billing-ref':
        posted.push(form());
        return html(400, scripted(billingForm(req.url!)));
      case 'GET /challenge':
        return html(200, challengePage());
      case 'POST /challenge':
        posted.push(form());
        return form()['otp_x'] === '123456'
          ? redirect(303, `${prefix}?idTransaccion=t-ch&esAprobada=true`)
          : html(200, challengePage('<p class="error">Código incorrecto</p>'));
      // The shell and its vault (same server; the vault reached as localhost: another origin).
      case 'GET /shell':
        return html(200, shell.replaceAll('{{VAULT}}', fixture.url.replace('127.0.0.1', 'localhost')));
      case 'GET /vault':
        return html(200, vault);
      // The same shell whose vault's script arrives late: its card fields are there to fill before it listens.
      case 'GET /shell-slow':
        return html(200, shell.replaceAll('{{VAULT}}', fixture.url.replace('127.0.0.1', 'localhost')).replace('/vault"', '/vault-slow"'));
      case 'GET /vault-slow':
        return html(200, vault.replace(/<script>([\s\S]*?)<\/script>/, '<script src="/vault-slow.js"></script>'));
      case 'GET /vault-slow.js': {
        const script = /<script>([\s\S]*?)<\/script>/.exec(vault)![1]!;
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/javascript' }).end(script), 1_500);
        return;
      }
      case 'POST /vault/tokenize': {
        const token = `tok-${vaulted.size + 1}`;
        vaulted.set(token, form());
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token }));
      }
      case 'POST /shell/pay': {
        const sent = JSON.parse(body.toString()) as { token: string; forma: string; correo: string };
        const card = vaulted.get(sent.token);
        posted.push({ ...sent, ...(card ? { csc: card['csc']! } : {}) });
        const answer = !card
          ? { error: 'token desconocido' }
          : card['csc'] === '111'
            ? { error: 'Pago rechazado por el emisor' }
            : { redirect: `${prefix}?idTransaccion=t-shell&esAprobada=true` };
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      }
      case 'GET /sin-email':
        return html(
          200,
          scripted(
            `<form method="post" action="/x"><input name="numeroTarjeta"><input name="cvv" type="password"><input ` +
              `name="mesVencimiento"><input name="anioVencimiento"><button>Pagar</button></form><p>Tarjeta ${CARD}</p>`,
          ),
        );
      case 'GET /3ds/t-3':
        return html(200, scripted('<form method="post"><input type="hidden" name="reto" value="ok"><button>Confirmar</button></form>'));
      case 'POST /3ds/t-3':
        posted.push(form());
        return redirect(303, `${prefix}?idTransaccion=t-3&esAprobada=true`);
      case 'GET /qp/t-4.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(qrPng);
      case 'GET /qp/t-4':
        return html(200, scripted('<form method="post"><button>Pagar</button></form>'));
      case 'POST /qp/t-4':
        return html(200, '<p id="estado">aprobada</p>');
      case 'GET /checked':
        return html(
          200,
          scripted(
            '<form method="post" action="/checked"><input name="numeroTarjeta" required><input name="cvv"><input ' +
              'name="mesVencimiento" type="number" min="1" max="12"><input name="anioVencimiento"><button>Pagar</button></form>',
          ),
        );
      case 'POST /checked':
        posted.push(form());
        return html(400, '<p id="estado">datos inválidos</p>');
      case 'GET /remembers':
        // What an earlier customer left behind, in storage and cookies, is sent along with the payment.
        res.setHeader('set-cookie', 'visto=1; Path=/');
        return html(
          200,
          `<!doctype html><div id="f"></div><script>
const antes = localStorage.getItem('visto') ?? 'nada'; localStorage.setItem('visto', '1');
document.getElementById('f').innerHTML = '<form method="post" action="/remembers"><input type="hidden" name="antes" value="' + antes + '"><input type="hidden" name="cookie" value="${req.headers.cookie ?? 'nada'}"><input name="numeroTarjeta"><input name="cvv"><input name="mesVencimiento"><input name="anioVencimiento"><button>Pagar</button></form>';
</script>`,
        );
      case 'POST /remembers':
        posted.push({ ...form(), sesion: req.headers.cookie ?? 'nada' });
        return redirect(303, `${prefix}?idTransaccion=t-r&esAprobada=true`);
      case 'GET /late':
        // The form appears only after the script fetched its settings (here: a second later).
        return html(
          200,
          `<div id="f"></div><script>setTimeout(() => { document.getElementById('f').innerHTML = ` +
            `${JSON.stringify('<form method="post" action="/3ds/t-3"><input type="hidden" name="reto" value="tarde"><button>Confirmar</button></form>')}; }, 1000);</script>`,
        );
      // A 3DS page and a quick-pay page that ask for the card (the spec does not say what they ask), with autofill names.
      case 'GET /3ds/card':
        return html(
          200,
          scripted(
            `<form method="post" action="/3ds/card"><input type="hidden" name="reto" ` +
              `value="ok">${cardInputs}<button>Confirm</button></form>`,
          ),
        );
      case 'POST /3ds/card':
        posted.push(form());
        return redirect(303, `${prefix}?idTransaccion=t-3c&esAprobada=true`);
      case 'GET /qp/card.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(qrCardPng);
      case 'GET /qp/card':
        return html(200, scripted(`<form method="post">${cardInputs}<button>Pay</button></form>`));
      case 'POST /qp/card':
        posted.push(form());
        return html(200, '<p id="estado">aprobada</p>');
      // Pages refusing what the payer sent: the form again with its error, and an error status.
      case 'GET /3ds/again':
      case 'POST /3ds/again':
        return html(
          200,
          `${req.method === 'POST' ? '<p class="error">Enter the code shown by your bank</p>' : ''}${scripted(`<form method="post" action="/3ds/again">${cardInputs}<button>Confirm</button></form>`)}`,
        );
      case 'GET /qp/in-place.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(qrInPlacePng);
      case 'GET /qp/in-place':
        // A single-page checkout: the form posted by script, a receipt put in its place; nothing navigates.
        return html(
          200,
          '<h1>QuickPay</h1><section id="pago"><form method="post" action="/qp/in-place"><button>Pagar $3.50</button></form></section>' +
            "<script>document.querySelector('form').addEventListener('submit', function (e) { e.preventDefault(); " +
            "fetch('/qp/in-place', { method: 'POST' }).then(function (r) { return r.text(); }).then(function (t) { " +
            "document.getElementById('pago').innerHTML = t; }); });</script>",
        );
      case 'POST /qp/in-place':
        return html(200, '<div role="status"><h2>Pago aprobado</h2><p>Transacción 6f1c2e3a-1b2c-4d5e-8f90-0a1b2c3d4e5f</p></div>');
      case 'GET /qp/refuse.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(qrRefusePng);
      case 'GET /qp/refuse':
        return html(200, scripted('<form method="post" action="/qp/refuse"><button>Pay</button></form>'));
      case 'POST /qp/refuse':
        return html(
          422,
          '<ul id="errores"><li>cc-number: required</li></ul><form method="post" action="/qp/refuse"><input ' +
            'name="cc-number"><button>Pay</button></form>',
        );
      // A page whose script never yields once it is parsed: nothing can be asked of it.
      case 'GET /hang':
        return html(
          200,
          `<form method="post" action="/hang"><input ` +
            `name="card_number"><button>Pagar</button></form><script>setTimeout(() => { for (;;) {} }, 0);</script>`,
        );
      // A page slow to become usable (its button enabled 1 s after load, twice the test's HTTP_TIMEOUT_MS of 500 ms):
      // the browser's time, not the target's.
      case 'GET /slow':
        return html(
          200,
          `<form method="post" action="/slow"><input id="cc" name="card_number"><input name="cvc" ` +
            `autocomplete="cc-csc"><input name="mesVencimiento"><input name="anioVencimiento"><button id="b" ` +
            `disabled>Pagar</button></form><script>setTimeout(() => { document.getElementById('b').disabled = false; }, 1000);</script>`,
        );
      case 'POST /slow':
        posted.push(form());
        return redirect(303, `${prefix}?idTransaccion=t-slow&esAprobada=true`);
      case 'GET /dep/screen':
        return html(200, deployedScreen);
      case 'GET /dep/js':
        return html(200, scripted(deployedForm));
      case 'GET /dep/unavailable':
        return html(200, unavailable);
      case 'GET /dep/unavailable-js':
        // The refusal written by a script after a while: the payer does not wait out its bound for a form.
        return html(
          200,
          `<div id="m">Cargando…</div><script>setTimeout(() => { document.getElementById('m').textContent = 'Este ` +
            `enlace de pago no está disponible'; }, 300);</script>`,
        );
      case 'GET /dep/blank':
        return html(200, '<div id="app"></div>');
      case 'POST /IntentoPago/Pagar':
        posted.push(form());
        return redirect(303, `${prefix}?idTransaccion=t-d&idEnlace=1234567&monto=10.00&hash=ff`);
      case 'GET /plain':
        return html(
          200,
          '<form method="post" action="/plain"><input id="cc" name="card_number"><input name="cvc" ' +
            'autocomplete="cc-csc"><input name="mesVencimiento"><input name="anioVencimiento"></form>',
        );
      case 'POST /plain':
        posted.push(form());
        return redirect(303, `${prefix}?idTransaccion=t-plain&esAprobada=true`);
      default:
        return html(404, 'no');
    }
  });
  qrPng = await QRCode.toBuffer(`${fixture.url}/qp/t-4`, { type: 'png' });
  qrCardPng = await QRCode.toBuffer(`${fixture.url}/qp/card`, { type: 'png' });
  qrRefusePng = await QRCode.toBuffer(`${fixture.url}/qp/refuse`, { type: 'png' });
  qrInPlacePng = await QRCode.toBuffer(`${fixture.url}/qp/in-place`, { type: 'png' });
  http = createHttp({
    timeoutMs: 5000,
    retries: 0,
    maxResponseBytes: 1 << 20,
    recorder: new Recorder({ registry: new SecretRegistry() }),
    maxBackoffMs: 10,
  });
});

afterAll(async () => {
  rmSync(reportDir, { recursive: true, force: true });
  await chromium.close();
  await http.close();
  await fixture.close();
});

const card = { numeroTarjeta: CARD, cvv: '987', mesVencimiento: 12, anioVencimiento: 2030, redirectPrefix: prefix };
const vendorNames = { numeroTarjeta: '#cc', cvv: 'input[autocomplete=cc-csc]', monto: 'amount' };

function needsChromium(ctx: TestContext): void {
  if (!HAVE_CHROMIUM) ctx.skip(`${installHint(CHROMIUM)}; the browser payer is tested in a real browser`);
}

const browserPayer = (fieldNames: Record<string, string> = {}) =>
  createPayer({ http, kind: 'browser', chromiumPath: CHROMIUM, chromium, reportDir, timeoutMs: 10_000, fieldNames });

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
