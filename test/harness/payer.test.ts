import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckFailure, paymentApproved, paymentWentThrough } from '../../harness/judge/checks.ts';
import { NoFormError, PayerError, PaymentRefused } from '../../harness/payer/errors.ts';
import { Recorder } from '../../harness/record/transcript.ts';
import { SecretRegistry } from '../../harness/record/redact.ts';
import { createHttp, type Http } from '../../harness/api/http.ts';
import { aroundPayments, createPayer, PayerMemory, PAYING, unreadPagesThrow } from '../../harness/payer/index.ts';
import { FieldsNotFoundError } from '../../harness/payer/field-mapping.ts';
import { decodeQrPng } from '../../harness/payer/qr.ts';
import { startFixture, type Fixture } from './server.ts';
import { readFileSync } from 'node:fs';

/** The deployed service's link screen and its page for a link that can no longer be paid (fixtures/deployed/). */
const deployedScreen = readFileSync(new URL('./fixtures/deployed/screen.html', import.meta.url), 'utf8');
const unavailable = readFileSync(new URL('./fixtures/deployed/unavailable.html', import.meta.url), 'utf8');
/** The same screen with its quantity unlabelled: placed by elimination. */
const unlabelled = deployedScreen.replace('<label for="unidades">Unidades</label>', '');

// Never fetched: a redirect there is the outcome. Port 9 (discard) would refuse if it were.
const prefix = 'http://127.0.0.1:9/redirect/t1';

const screen = `<!doctype html><html><body>
<h1>Pagar &quot;Producto&quot;</h1>
<form method="post" id="pago" action="/pagar/1">
  <input type="hidden" name="intento" value="att&amp;1">
  <select name="formaPago"><option value="0" selected>Tarjeta</option><option value="2">Cuotas</option></select>
  <select name="cuotas"><option value="3">3</option><option value="6">6</option></select>
  <input type="hidden" name="cantidad" value="1">
  <input name="numeroTarjeta"><input name="cvv" type="password">
  <input name="mesVencimiento" type="number"><input name="anioVencimiento" type="number">
  <input name="nombreTitular"><input name="email" type="email">
  <input type="checkbox" name="recordar" value="si">
  <button type="submit" name="accion" value="pagar">Pagar</button>
</form></body></html>`;

let fixture: Fixture;
let http: Http;
let recorder: Recorder;
const posted: Record<string, string>[] = [];
let qrPng: Buffer;
let qrCardPng: Buffer;
let qrRefusePng: Buffer;
const cardInputs =
  '<input name="cc-number" autocomplete="cc-number"><input name="cc-exp-month"><input name="cc-exp-year"><input ' +
  'name="cc-csc" type="password">';
const autofill = {
  numeroTarjeta: 'cc-number',
  cvv: 'input[autocomplete=cc-csc], [name=cc-csc]',
  mesVencimiento: 'cc-exp-month',
  anioVencimiento: 'cc-exp-year',
};

beforeAll(async () => {
  fixture = await startFixture((req, res, body) => {
    const cookie = req.headers.cookie ?? '';
    const html = (status: number, content: string, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(content);
    const redirect = (status: number, location: string, headers: Record<string, string> = {}) =>
      res.writeHead(status, { location, ...headers }).end();
    switch (`${req.method} ${req.url}`) {
      case 'GET /l/abc':
        return redirect(302, '/pagar/1', { 'set-cookie': 'sid=s3ss10n; Path=/; HttpOnly' });
      case 'GET /pagar/1':
        return cookie.includes('sid=s3ss10n') ? html(200, screen) : html(400, '<p id="estado">sin sesión</p>');
      case 'POST /pagar/1': {
        const fields = Object.fromEntries(new URLSearchParams(body.toString()));
        posted.push({ ...fields, cookie });
        if (fields['cvv'] === '111') return redirect(303, `${prefix}?esAprobada=false&mensaje=declinada`);
        return redirect(302, '/pagar/1/fin');
      }
      case 'GET /pagar/1/fin':
        return redirect(303, `${prefix}?idTransaccion=t-9&monto=10.00&esAprobada=true&hash=ab12`);
      case 'GET /pagar/2':
        return html(410, '<p id="estado">El enlace no está disponible</p>');
      case 'GET /loop/a':
        return redirect(302, '/loop/b');
      case 'GET /loop/b':
        return redirect(302, '/loop/a');
      case 'GET /3ds/t-3':
        return html(200, '<form method="post"><input type="hidden" name="reto" value="ok"><button>Confirmar</button></form>');
      case 'POST /3ds/t-3':
        posted.push(Object.fromEntries(new URLSearchParams(body.toString())));
        return redirect(303, `${prefix}?idTransaccion=t-3&esAprobada=true`);
      case 'GET /qp/t-4.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(qrPng);
      case 'GET /qp/t-4':
        return html(200, '<form method="post" action=""><input type="hidden" name="qp" value="t-4"><button>Pagar</button></form>');
      case 'POST /qp/t-4':
        return html(200, '<p id="estado">aprobada</p>');
      case 'GET /307':
        return html(
          200,
          '<form method="post" action="/307"><input name="numeroTarjeta"><input name="cvv"><input ' +
            'name="mesVencimiento"><input name="anioVencimiento"></form>',
        );
      case 'POST /307':
        return redirect(307, '/307-again');
      case 'GET /get-form':
        return html(
          200,
          '<form method="get" action="/get-pay"><input name="numeroTarjeta"><input name="cvv"><input ' +
            'name="mesVencimiento"><input name="anioVencimiento"></form>',
        );
      case 'GET /vendor':
        // A search form first; the payment form is the one holding the (vendor-named) card field.
        return html(
          200,
          `<form action="/buscar"><input name="q"></form>
<form method="post" action="/vendor"><input type="hidden" name="token" value="v1"><input name="card_number"><input name="cvc">
<input name="exp_month"><input name="exp_year"></form>`,
        );
      case 'POST /vendor':
        posted.push(Object.fromEntries(new URLSearchParams(body.toString())));
        return redirect(303, `${prefix}?idTransaccion=t-v&esAprobada=true`);
      // A 3DS page and a quick-pay page that ask for the card (the spec does not say what they ask), with autofill names.
      case 'GET /3ds/card':
        return html(
          200,
          `<form method="post" action="/3ds/card"><input type="hidden" name="reto" value="ok">${cardInputs}<button>Confirm</button></form>`,
        );
      case 'POST /3ds/card':
        posted.push(Object.fromEntries(new URLSearchParams(body.toString())));
        return redirect(303, `${prefix}?idTransaccion=t-3c&esAprobada=true`);
      case 'GET /qp/card.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(qrCardPng);
      case 'GET /qp/card':
        return html(200, `<form method="post">${cardInputs}<button>Pay</button></form>`);
      case 'POST /qp/card':
        posted.push(Object.fromEntries(new URLSearchParams(body.toString())));
        return html(200, '<p id="estado">aprobada</p>');
      // Pages refusing what the payer sent: the form again with its error, and an error status.
      case 'GET /3ds/again':
        return html(200, `<form method="post" action="/3ds/again">${cardInputs}<button>Confirm</button></form>`);
      case 'POST /3ds/again':
        return html(
          200,
          `<p class="error">Enter the code shown by your bank</p><form method="post" ` +
            `action="/3ds/again">${cardInputs}<button>Confirm</button></form>`,
        );
      case 'GET /qp/refuse.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(qrRefusePng);
      case 'GET /qp/refuse':
        return html(200, '<form method="post"><button>Pay</button></form>');
      case 'POST /qp/refuse':
        return html(
          422,
          '<h1>QuickPay</h1><ul id="errores"><li>cc-number: required</li></ul><form method="post"><input ' +
            'name="cc-number"><button>Pay</button></form>',
        );
      case 'GET /dep/screen':
        return html(200, deployedScreen);
      case 'GET /dep/unlabelled':
        return html(200, unlabelled);
      case 'GET /dep/unavailable':
        return html(200, unavailable);
      case 'POST /IntentoPago/Pagar':
        posted.push(Object.fromEntries(new URLSearchParams(body.toString())));
        return redirect(303, `${prefix}?idTransaccion=t-d&idEnlace=1234567&monto=10.00&hash=ff`);
      case 'GET /sin-form':
        return html(200, '<p id="estado">pague con la app</p>');
      default:
        // A GET form's payment: answered 503, which http would retry were the submission marked idempotent.
        if (req.method === 'GET' && req.url?.startsWith('/get-pay?'))
          return html(503, '<p id="estado">ocupado</p>', { 'retry-after': '0' });
        return html(404, 'no');
    }
  });
  qrPng = await QRCode.toBuffer(`${fixture.url}/qp/t-4`, { type: 'png' });
  qrCardPng = await QRCode.toBuffer(`${fixture.url}/qp/card`, { type: 'png' });
  qrRefusePng = await QRCode.toBuffer(`${fixture.url}/qp/refuse`, { type: 'png' });
  recorder = new Recorder({ registry: new SecretRegistry() });
  http = createHttp({ timeoutMs: 2000, retries: 2, maxResponseBytes: 1 << 20, recorder, maxBackoffMs: 10 });
});

afterAll(async () => {
  await http.close();
  await fixture.close();
});

const card = { numeroTarjeta: '4111111111111111', cvv: '987', mesVencimiento: 12, anioVencimiento: 2030, redirectPrefix: prefix };

describe('payer', () => {
  it('opens a screen through a redirect with its cookie, and reads the form', async () => {
    const s = await createPayer({ http }).openScreen(`${fixture.url}/l/abc`);
    expect(s.status).toBe(200);
    expect(s.url).toBe(`${fixture.url}/pagar/1`);
    expect(s.form).toMatchObject({
      action: `${fixture.url}/pagar/1`,
      method: 'POST',
      fields: {
        intento: 'att&1',
        formaPago: '0',
        cuotas: '3',
        cantidad: '1',
        numeroTarjeta: '',
        cvv: '',
        mesVencimiento: '',
        anioVencimiento: '',
        nombreTitular: '',
        email: '',
        accion: 'pagar',
      },
      selects: { formaPago: ['0', '2'], cuotas: ['3', '6'] },
      optionTexts: { formaPago: ['Tarjeta', 'Cuotas'], cuotas: ['3', '6'] },
    });
    expect(s.openedAt).toBeTypeOf('number');
  });

  it('pays a link: hidden fields kept, inputs filled, 302 then 303 to the redirect prefix (not fetched)', async () => {
    posted.length = 0;
    const before = fixture.seen.length;
    const started = Date.now();
    const outcome = await createPayer({ http }).pay({
      kind: 'link',
      url: `${fixture.url}/l/abc`,
      payment: {
        ...card,
        formaPago: 2,
        cuotas: 6,
        email: 'a@b.test',
        nombreTitular: 'Ana Pérez',
      },
    });
    const { timing, ...rest } = outcome;
    expect(rest).toEqual({
      kind: 'redirect',
      location: `${prefix}?idTransaccion=t-9&monto=10.00&esAprobada=true&hash=ab12`,
      params: { idTransaccion: 't-9', monto: '10.00', esAprobada: 'true', hash: 'ab12' },
    });
    // Opened, submitted and answered, in that order, within the call.
    expect(started).toBeLessThanOrEqual(timing!.openedAt);
    expect(timing!.openedAt).toBeLessThanOrEqual(timing!.submittedAt!);
    expect(timing!.submittedAt!).toBeLessThanOrEqual(timing!.answeredAt);
    expect(timing!.answeredAt).toBeLessThanOrEqual(Date.now());
    expect(posted).toEqual([
      {
        intento: 'att&1',
        formaPago: '2',
        cuotas: '6',
        cantidad: '1',
        numeroTarjeta: '4111111111111111',
        cvv: '987',
        mesVencimiento: '12',
        anioVencimiento: '2030',
        nombreTitular: 'Ana Pérez',
        email: 'a@b.test',
        accion: 'pagar',
        cookie: 'sid=s3ss10n',
      },
    ]);
    expect(fixture.seen.slice(before)).toEqual(['GET /l/abc', 'GET /pagar/1', 'POST /pagar/1', 'GET /pagar/1/fin']);
    const recorded = JSON.stringify(recorder.drain());
    expect(recorded).not.toContain('4111111111111111');
    expect(recorded).not.toContain('cvv=987');
    expect(recorded).toContain('411111******1111');
  });

  it('returns the declined outcome of cvv 111 as a redirect too', async () => {
    const outcome = await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/l/abc`, payment: { ...card, cvv: '111' } });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { esAprobada: 'false', mensaje: 'declinada' } });
  });

  it('reports a refused screen with its estado', async () => {
    const outcome = await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/pagar/2`, payment: card });
    expect(outcome).toMatchObject({
      kind: 'refused',
      status: 410,
      estado: 'El enlace no está disponible',
      answered: 'opening',
      by: 'status',
    });
    expect(outcome.timing?.submittedAt).toBeUndefined();
  });

  it('refuses what a customer could not do on the screen', async () => {
    const payer = createPayer({ http });
    posted.length = 0;
    await expect(payer.pay({ kind: 'link', url: `${fixture.url}/l/abc`, payment: { ...card, formaPago: 3 } })).rejects.toThrow(
      'no option of formaPago (formaPago) means "3": it offers "0" (Tarjeta), "2" (Cuotas); set SCREEN_OPTION_VALUES',
    );
    await expect(payer.pay({ kind: 'link', url: `${fixture.url}/l/abc`, payment: { ...card, monto: 5 } })).rejects.toThrow(
      /could not find monto \(looked for a label like "Monto"/,
    );
    expect(posted).toEqual([]);
  });

  it('uses a vendor field-name map', async () => {
    const payer = createPayer({ http, fieldNames: { email: 'nombreTitular' } });
    posted.length = 0;
    await payer.pay({ kind: 'link', url: `${fixture.url}/l/abc`, payment: { ...card, email: 'mapped@b.test' } });
    expect(posted[0]?.['nombreTitular']).toBe('mapped@b.test');
  });

  it('finds the payment form by its vendor-named card field and submits a screen opened earlier, forged fields by name', async () => {
    const fieldNames = {
      numeroTarjeta: 'card_number',
      cvv: 'cvc',
      mesVencimiento: 'exp_month',
      anioVencimiento: 'exp_year',
      monto: 'amount',
    };
    const payer = createPayer({ http, fieldNames });
    const screen = await payer.openScreen(`${fixture.url}/vendor`);
    expect(screen.form?.action).toBe(`${fixture.url}/vendor`);
    posted.length = 0;
    const outcome = await payer.pay({ kind: 'opened-screen', screen, payment: card, forged: { monto: '1.00' } });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-v' } });
    expect(posted).toEqual([
      { token: 'v1', card_number: '4111111111111111', cvc: '987', exp_month: '12', exp_year: '2030', amount: '1.00' },
    ]);
  });

  it('refuses to submit a screen that shows no form; paying it is a no-form refusal, payableSeen once a screen of its origin was paid', async () => {
    const payer = createPayer({ http });
    const screen = await payer.openScreen(`${fixture.url}/sin-form`);
    await expect(payer.pay({ kind: 'opened-screen', screen, payment: card })).rejects.toThrow(
      `the screen at ${fixture.url}/sin-form (status 200, "pague con la app") shows no form the suite can fill`,
    );
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/sin-form`, payment: card })).toMatchObject({
      kind: 'refused',
      status: 200,
      answered: 'opening',
      by: 'no-form',
      payableSeen: false,
      text: 'pague con la app',
    });
    await payer.pay({ kind: 'link', url: `${fixture.url}/l/abc`, payment: card });
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/sin-form`, payment: card })).toMatchObject({
      by: 'no-form',
      payableSeen: true,
    });
    // Another origin (same server, another host name) is another target.
    expect(
      await payer.pay({ kind: 'link', url: `${fixture.url.replace('127.0.0.1', 'localhost')}/sin-form`, payment: card }),
    ).toMatchObject({
      by: 'no-form',
      payableSeen: false,
    });
    // What a payer learned is its run's (its memory), not the process's: another payer starts knowing nothing.
    expect(await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/sin-form`, payment: card })).toMatchObject({
      by: 'no-form',
      payableSeen: false,
    });
    const memory = new PayerMemory();
    await createPayer({ http, memory }).pay({ kind: 'link', url: `${fixture.url}/l/abc`, payment: card });
    expect(memory.fields.get('link screen')).toBeDefined();
    expect(await createPayer({ http, memory }).pay({ kind: 'link', url: `${fixture.url}/sin-form`, payment: card })).toMatchObject({
      payableSeen: true,
    });
  });

  it('never retries a payment sent by a GET form', async () => {
    const before = fixture.seen.filter((s) => s.startsWith('GET /get-pay?')).length;
    const outcome = await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/get-form`, payment: card });
    expect(outcome).toMatchObject({ kind: 'refused', status: 503, estado: 'ocupado', answered: 'submission', by: 'status' });
    expect(fixture.seen.filter((s) => s.startsWith('GET /get-pay?')).length - before).toBe(1);
  });

  it('stops at the first redirect stopWhen accepts, following the others', async () => {
    const origin = new URL(fixture.url).origin;
    const before = fixture.seen.length;
    const outcome = await createPayer({ http }).pay({
      kind: 'link',
      url: `${fixture.url}/l/abc`,
      payment: {
        ...card,
        redirectPrefix: 'http://never.test/',
        stopWhen: (u) => new URL(u).origin !== origin,
      },
    });
    expect(outcome).toMatchObject({ kind: 'redirect', location: `${prefix}?idTransaccion=t-9&monto=10.00&esAprobada=true&hash=ab12` });
    expect(fixture.seen.slice(before)).toEqual(['GET /l/abc', 'GET /pagar/1', 'POST /pagar/1', 'GET /pagar/1/fin']);
  });

  it('gives a clear error on a redirect loop', async () => {
    await expect(createPayer({ http }).openScreen(`${fixture.url}/loop/a`)).rejects.toThrow(PayerError);
    await expect(createPayer({ http }).openScreen(`${fixture.url}/loop/a`)).rejects.toThrow(
      /^a redirect loop \(.*\/loop\/(a|b) repeats\) starting at/,
    );
  });

  it('follows a 307 to a payment POST as a browser does (sent on once, never re-sent where it went first)', async () => {
    const before = fixture.seen.filter((s) => s === 'POST /307').length;
    const again = fixture.seen.filter((s) => s === 'POST /307-again').length;
    await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/307`, payment: card });
    expect(fixture.seen.filter((s) => s === 'POST /307').length - before).toBe(1);
    expect(fixture.seen.filter((s) => s === 'POST /307-again').length - again).toBe(1);
  });

  it('completes a 3DS challenge', async () => {
    posted.length = 0;
    const outcome = await createPayer({ http }).pay({ kind: '3ds', url: `${fixture.url}/3ds/t-3`, redirectPrefix: prefix });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-3', esAprobada: 'true' } });
    expect(posted).toEqual([{ reto: 'ok' }]);
  });

  it('pays a quick-pay QR: fetch PNG, decode, open, submit', async () => {
    const payer = createPayer({ http });
    const image = await payer.fetchImage(`${fixture.url}/qp/t-4.png`);
    expect(image).toMatchObject({ status: 200, contentType: 'image/png', isPng: true });
    const outcome = await payer.pay({ kind: 'quick-pay', url: `${fixture.url}/qp/t-4.png` });
    expect(outcome).toMatchObject({ kind: 'page', status: 200, estado: 'aprobada' });
    expect(fixture.seen.at(-1)).toBe('POST /qp/t-4');
  });
});

describe('payer on 3DS and quick-pay pages that ask for the card', () => {
  const pageCard = {
    numeroTarjeta: '4111111111111111',
    cvv: '987',
    mesVencimiento: 12,
    anioVencimiento: 2030,
    nombreTitular: 'Ana',
    email: 'a@b.test',
  };
  const entered = { 'cc-number': '4111111111111111', 'cc-exp-month': '12', 'cc-exp-year': '2030', 'cc-csc': '987' };

  it('enters the card in the fields the 3DS page shows (SCREEN_FIELD_NAMES), hidden fields kept, nothing else added', async () => {
    posted.length = 0;
    const outcome = await createPayer({ http, fieldNames: autofill }).pay({
      kind: '3ds',
      url: `${fixture.url}/3ds/card`,
      redirectPrefix: prefix,
      card: pageCard,
    });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { idTransaccion: 't-3c', esAprobada: 'true' } });
    expect(posted).toEqual([{ reto: 'ok', ...entered }]);
  });

  it('enters the card on the quick-pay page', async () => {
    posted.length = 0;
    const outcome = await createPayer({ http, fieldNames: autofill }).pay({
      kind: 'quick-pay',
      url: `${fixture.url}/qp/card.png`,
      card: pageCard,
    });
    expect(outcome).toMatchObject({ kind: 'page', status: 200, estado: 'aprobada' });
    expect(posted).toEqual([entered]);
  });

  it('a page showing its form again after the post is a refusal of the submission, with what it says', async () => {
    const outcome = await createPayer({ http, fieldNames: autofill }).pay({
      kind: '3ds',
      url: `${fixture.url}/3ds/again`,
      redirectPrefix: prefix,
      card: pageCard,
    });
    expect(outcome).toMatchObject({
      kind: 'refused',
      status: 200,
      answered: 'submission',
      by: 'form-again',
      formAgain: true,
      text: 'Enter the code shown by your bank',
    });
  });

  it('an error status answering the post is a refusal of the submission naming its status and text', async () => {
    const outcome = await createPayer({ http }).pay({ kind: 'quick-pay', url: `${fixture.url}/qp/refuse.png` });
    expect(outcome).toMatchObject({ kind: 'refused', status: 422, answered: 'submission', text: 'cc-number: required' });
  });

  it('a refused submission breaks the premise of a test that needed the payment: PaymentRefused naming the answer, not a check failure', async () => {
    const outcome = await createPayer({ http }).pay({ kind: 'quick-pay', url: `${fixture.url}/qp/refuse.png` });
    const premise = () => paymentApproved(outcome, '4.6-url-qr', 'paying the quick-pay QR');
    expect(premise).toThrow(PaymentRefused);
    expect(premise).toThrow(
      'paying the quick-pay QR did not go through: the page answered 422 to what the payer sent: "cc-number: required"',
    );
    // A page that is gone (410) is a state the tests judge: their own check decides.
    const gone = await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/pagar/2`, payment: card });
    expect(() => paymentWentThrough(gone, 'the payment')).not.toThrow();
    expect(() => paymentApproved(gone, '4.1-url-redirect', 'the payment')).toThrow(CheckFailure);
  });
});

describe('decodeQrPng', () => {
  it('round-trips a URL through a PNG', async () => {
    const url = 'http://127.0.0.1:4010/l/AbC123?x=1';
    expect(decodeQrPng(await QRCode.toBuffer(url, { type: 'png' }))).toEqual({ text: url });
  });

  it('gives a reason for bytes that are not a QR PNG', async () => {
    expect(decodeQrPng(Buffer.from('not a png'))).toEqual({ reason: 'the bytes are not a PNG image' });
    const blank = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    expect(decodeQrPng(blank).text).toBeUndefined();
    const noCode = new PNG({ width: 40, height: 40 });
    noCode.data.fill(255);
    expect(decodeQrPng(PNG.sync.write(noCode))).toEqual({ reason: 'no QR code found in the 40×40 PNG' });
  });

  it('refuses a PNG whose header declares more than 4096×4096 pixels, before decoding it', () => {
    // A real 1×1 PNG with its IHDR width and height rewritten to 8000×8000: decoding would allocate 256 MB.
    const bomb = PNG.sync.write(new PNG({ width: 1, height: 1 }));
    bomb.writeUInt32BE(8000, 16);
    bomb.writeUInt32BE(8000, 20);
    // Refused by its header: the reason names the declared size (a decode would have read the pixels instead).
    expect(decodeQrPng(bomb)).toEqual({
      reason: 'the PNG declares 8000×8000 pixels, more than the 4096×4096 the suite decodes',
      tooLarge: true,
    });
  });
});

describe("payer on the deployed service's screens", () => {
  const payment = { ...card, mesVencimiento: 1, anioVencimiento: 2031, formaPago: 0, cantidad: 2, nombreTitular: 'Ana' };

  it('picks the month, year and payment form by meaning and finds the quantity labelled "Unidades"', async () => {
    posted.length = 0;
    expect(await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/dep/screen`, payment })).toMatchObject({
      kind: 'redirect',
      params: { idTransaccion: 't-d' },
    });
    expect(
      await createPayer({ http }).pay({
        kind: 'link',
        url: `${fixture.url}/dep/screen`,
        payment: {
          ...payment,
          formaPago: 1,
          mesVencimiento: 12,
          anioVencimiento: 36,
        },
      }),
    ).toMatchObject({ kind: 'redirect' });
    expect(posted).toEqual([
      {
        __RequestVerificationToken: 'tok-1',
        IdEnlace: '1234567',
        x6: 'PagoNormal',
        x7: '2',
        x1: card.numeroTarjeta,
        x2: '01',
        x3: '2031',
        x4: '987',
        x5: 'Ana',
      },
      {
        __RequestVerificationToken: 'tok-1',
        IdEnlace: '1234567',
        x6: 'Puntos',
        x7: '2',
        x1: card.numeroTarjeta,
        x2: '12',
        x3: '2036',
        x4: '987',
        x5: 'Ana',
      },
    ]);
  });

  it('places an unlabelled quantity by elimination: the one number input left', async () => {
    posted.length = 0;
    await createPayer({ http }).pay({ kind: 'link', url: `${fixture.url}/dep/unlabelled`, payment });
    expect(posted[0]).toMatchObject({ x7: '2', x6: 'PagoNormal' });
  });

  it('applies SCREEN_OPTION_VALUES before meaning', async () => {
    posted.length = 0;
    await createPayer({ http, optionValues: { formaPago: { '0': 'Puntos' } } }).pay({
      kind: 'link',
      url: `${fixture.url}/dep/screen`,
      payment,
    });
    expect(posted[0]).toMatchObject({ x6: 'Puntos' });
  });

  it('names each field it cannot place: a field not found, and an option that means none (the value sought, the options offered)', async () => {
    posted.length = 0;
    const err = await createPayer({ http })
      .pay({ kind: 'link', url: `${fixture.url}/dep/screen`, payment: { ...payment, formaPago: 3, email: 'a@b.test' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FieldsNotFoundError);
    const message = (err as Error).message;
    expect(message).toContain(`the payment screen at ${fixture.url}/dep/screen: could not find email (looked for autocomplete=email`);
    expect(message).toContain(
      'no option of formaPago (x6) means "3": it offers "PagoNormal" (Tarjeta de crédito o débito), "Puntos" (Puntos ' +
        'Partner); set SCREEN_OPTION_VALUES, e.g. {"formaPago":{"3":"<the option\'s value>"}}',
    );
    expect(message).toContain('x7 "Unidades" (number)');
    expect(posted).toEqual([]);
  });

  it('a 200 page saying the link is not available is a refusal by its words, on opening and on a screen opened earlier; nothing sent', async () => {
    posted.length = 0;
    const payer = createPayer({ http });
    const outcome = await payer.pay({ kind: 'link', url: `${fixture.url}/dep/unavailable`, payment });
    expect(outcome).toMatchObject({ kind: 'refused', status: 200, answered: 'opening', by: 'words' });
    expect(outcome.kind === 'refused' && outcome.text).toContain('Este enlace de pago no está disponible');
    expect(outcome.timing?.openedAt).toBeLessThanOrEqual(outcome.timing!.answeredAt);
    expect(outcome.timing?.submittedAt).toBeUndefined();
    const screen = await payer.openScreen(`${fixture.url}/dep/unavailable`);
    expect(await payer.pay({ kind: 'opened-screen', screen, payment })).toMatchObject({
      kind: 'refused',
      by: 'words',
      timing: { openedAt: screen.openedAt },
    });
    expect(posted).toEqual([]);
  });

  it('aroundPayments: each payment (five kinds, and a resubmission) passes through the wrapper once, with the page it opens; other methods as they are', async () => {
    const seen: string[] = [];
    const payer = aroundPayments(createPayer({ http }), async (method, pay, url) => {
      seen.push(`${method} ${url ?? '-'}`);
      return pay();
    });
    await payer.pay({ kind: 'link', url: `${fixture.url}/sin-form`, payment: card });
    const screen = await payer.openScreen(`${fixture.url}/sin-form`);
    await expect(payer.pay({ kind: 'opened-screen', screen, payment: card })).rejects.toThrow(NoFormError);
    expect(seen).toEqual([`link ${fixture.url}/sin-form`, 'opened-screen -']);
    expect(PAYING).toHaveLength(6);
  });

  it('unreadPagesThrow: a no-form page on an origin never paid is the NoFormError it replaced; once one was paid, the refusal', async () => {
    const payer = unreadPagesThrow(createPayer({ http }));
    await expect(payer.pay({ kind: 'link', url: `${fixture.url}/sin-form`, payment: card })).rejects.toThrow(NoFormError);
    await expect(payer.pay({ kind: 'link', url: `${fixture.url}/sin-form`, payment: card })).rejects.toThrow(
      'shows no form the suite can fill, and no payable page of its origin was paid in this run: "pague con la app"',
    );
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/dep/unavailable`, payment })).toMatchObject({ by: 'words' });
    await payer.pay({ kind: 'link', url: `${fixture.url}/dep/screen`, payment });
    expect(await payer.pay({ kind: 'link', url: `${fixture.url}/sin-form`, payment: card })).toMatchObject({
      by: 'no-form',
      payableSeen: true,
    });
  });

  it('a screen opened earlier is timed from its opening', async () => {
    const payer = createPayer({ http });
    const screen = await payer.openScreen(`${fixture.url}/dep/screen`);
    await new Promise((r) => setTimeout(r, 20));
    const outcome = await payer.pay({ kind: 'opened-screen', screen, payment });
    expect(outcome.timing?.openedAt).toBe(screen.openedAt);
    expect(outcome.timing!.submittedAt! - screen.openedAt!).toBeGreaterThanOrEqual(15);
    expect(outcome.timing!.answeredAt).toBeGreaterThanOrEqual(outcome.timing!.submittedAt!);
  });
});
