/**
 * What the browser payer's tests share: screens served as vendors build them (forms built by script, steps, a code
 * the page shows, card fields in a frame of another origin, QR pages), one Chromium and the HTTP client, started once
 * per test file so the files run side by side.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { afterAll, beforeAll, type TestContext } from 'vitest';
import { Recorder } from '../../harness/record/transcript.ts';
import { SecretRegistry } from '../../harness/record/redact.ts';
import { createHttp, type Http } from '../../harness/api/http.ts';
import { createPayer } from '../../harness/payer/index.ts';
import { Chromium, chromiumAvailable, installHint } from '../../harness/payer/chromium.ts';
import { chromiumPathSetting } from '../../harness/setup/report-settings.ts';
import { startFixture, type Fixture } from './server.ts';

export const CHROMIUM = chromiumPathSetting();
const HAVE_CHROMIUM = chromiumAvailable(CHROMIUM);
/** One browser for every payer of this file (each run's payer has its own). */
export const chromium = new Chromium(CHROMIUM);
export const prefix = 'http://127.0.0.1:9/redirect/t1';
export const CARD = '4111111111111111';

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
export const autofill = {
  numeroTarjeta: 'cc-number',
  cvv: 'input[autocomplete=cc-csc], [name=cc-csc]',
  mesVencimiento: 'cc-exp-month',
  anioVencimiento: 'cc-exp-year',
};

export let fixture: Fixture;
export let http: Http;
export let reportDir: string;
export const posted: Record<string, string>[] = [];
/** What the vault was given, by token (the card never reaches the shell's origin). */
export const vaulted = new Map<string, Record<string, string>>();

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

export const card = { numeroTarjeta: CARD, cvv: '987', mesVencimiento: 12, anioVencimiento: 2030, redirectPrefix: prefix };
export const vendorNames = { numeroTarjeta: '#cc', cvv: 'input[autocomplete=cc-csc]', monto: 'amount' };

export function needsChromium(ctx: TestContext): void {
  if (!HAVE_CHROMIUM) ctx.skip(`${installHint(CHROMIUM)}; the browser payer is tested in a real browser`);
}

export const browserPayer = (fieldNames: Record<string, string> = {}) =>
  createPayer({ http, kind: 'browser', chromiumPath: CHROMIUM, chromium, reportDir, timeoutMs: 10_000, fieldNames });

/** The fixture server, the browser and the HTTP client each file of these tests shares, started once per file. */
export function useBrowserScreens(): void {
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
}
