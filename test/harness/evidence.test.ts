import { describe, expect, it, vi } from 'vitest';
import { cvvShape, SecretRegistry, maskCardRuns, redactExchange, redactUrlsIn, secrets } from '../../harness/record/redact.ts';
import { Recorder, noteStep, transcriptOf } from '../../harness/record/transcript.ts';
import { currentRecordExchanges, TestRecord, waitingFor, withRecord } from '../../harness/record/test-record.ts';
import { curlPreamble, toCurl } from '../../harness/record/curl.ts';
import type { Exchange } from '../../harness/api/http.ts';
import { PayerError } from '../../harness/payer/errors.ts';

const CLIENT_SECRET = 'cl13nt-S3cret/with+chars';
const TOKEN = 'eyJhbGciOi.token-value-9f8e7d';
const PASSWORD = 'p@ss word!';
const CARD = '4111111111111111';
const CVV = '987';

function registry(): SecretRegistry {
  const r = new SecretRegistry();
  r.add(CLIENT_SECRET, 'client-secret');
  r.add(TOKEN, 'access-token');
  r.add(PASSWORD, 'account-password');
  return r;
}

function exchange(request: Partial<Exchange['request']>, response?: Partial<NonNullable<Exchange['response']>>): Exchange {
  return {
    id: 'ex-1',
    request: { method: 'POST', url: 'http://127.0.0.1:4010/api/TransaccionCompra/3DS', headers: {}, bodyText: '', ...request },
    ...(response
      ? { response: { status: 200, headers: {}, bodyText: '', contentType: 'application/json', truncated: false, ...response } }
      : {}),
    attempts: 1,
    durationMs: 3,
  };
}

const threeDsBody = {
  tarjetaCreditoDebido: { numeroTarjeta: CARD, cvv: CVV, mesVencimiento: 12, anioVencimiento: 2030 },
  monto: 10.5,
  nombre: 'Ana',
};

/** Every way a secret could leak from a text. */
function expectClean(text: string): void {
  for (const secret of [
    CLIENT_SECRET,
    encodeURIComponent(CLIENT_SECRET),
    TOKEN,
    PASSWORD,
    encodeURIComponent(PASSWORD),
    CARD,
    Buffer.from(`merchant@x.test:${PASSWORD}`).toString('base64'),
  ]) {
    expect(text).not.toContain(secret);
  }
  expect(text).not.toMatch(/"cvv"\s*:\s*"987"|cvv=987/);
}

describe('redactExchange', () => {
  it('redacts the bearer token, card number and cvv of a JSON request', () => {
    const r = registry();
    const ex = exchange({
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      bodyText: JSON.stringify(threeDsBody),
    });
    const red = redactExchange(ex, r);
    expect(red.request.headers.authorization).toBe('Bearer [REDACTED]');
    const body = JSON.parse(red.request.bodyText);
    expect(body.tarjetaCreditoDebido.numeroTarjeta).toBe('411111******1111');
    // the cvv keeps its shape, never its value: a failure caused by its type still shows the cause
    expect(body.tarjetaCreditoDebido.cvv).toBe(`[REDACTED:cvv, a string of ${CVV.length} digits]`);
    expect(body.monto).toBe(10.5);
    expectClean(JSON.stringify(red));
    // the original is untouched (the caller still needs it)
    expect(ex.request.bodyText).toContain(CARD);
  });

  it('redacts a form token request and its token response', () => {
    const r = registry();
    const ex = exchange(
      {
        url: 'http://127.0.0.1:4010/auth/connect/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        bodyText: new URLSearchParams({
          grant_type: 'password',
          client_id: 'cid',
          client_secret: CLIENT_SECRET,
          username: 'merchant@x.test',
          password: PASSWORD,
        }).toString(),
      },
      // a token the registry does not know yet: redacted by its field name
      {
        bodyText: '{"access_token":"fresh-unregistered-token-1","expires_in":3600}',
        json: { access_token: 'fresh-unregistered-token-1', expires_in: 3600 },
      },
    );
    const red = redactExchange(ex, r);
    expect(red.request.bodyText).toBe(
      'grant_type=password&client_id=cid&client_secret=[REDACTED:client-secret]&username=merchant%40x.test&password=[REDACTED:account-password]',
    );
    expect(red.response?.bodyText).not.toContain('fresh-unregistered-token-1');
    expect(red.response?.json).toEqual({ access_token: '[REDACTED:access-token]', expires_in: 3600 });
    expectClean(JSON.stringify(red));
  });

  it('redacts a hosted-screen form post (card and cvv) and Basic credentials', () => {
    const r = registry();
    const ex = exchange({
      url: 'http://127.0.0.1:4010/pagar/1',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`merchant@x.test:${PASSWORD}`).toString('base64')}`,
      },
      bodyText: `intento=abc&numeroTarjeta=${CARD}&cvv=${CVV}&mesVencimiento=12`,
    });
    const red = redactExchange(ex, r);
    expect(red.request.bodyText).toBe(
      `intento=abc&numeroTarjeta=411111******1111&cvv=[REDACTED:cvv-${CVV.length}-digits]&mesVencimiento=12`,
    );
    expect(red.request.headers.authorization).toBe('Basic [REDACTED]');
    expectClean(JSON.stringify(red));
  });

  it('redacts secrets in URLs, other headers, response bodies and broken JSON', () => {
    const r = registry();
    const ex = exchange(
      {
        method: 'GET',
        url: `http://u:${encodeURIComponent(PASSWORD)}@127.0.0.1/x?access_token=${TOKEN}&cvv=${CVV}&card=${CARD}&q=1`,
        headers: { 'x-debug': `secret=${CLIENT_SECRET}` },
        bodyText: `{"numeroTarjeta": "${CARD}", "cvv": "${CVV}", "note": "cut`,
      },
      {
        headers: { 'set-cookie': [`s=${TOKEN}`] },
        bodyText: `{"aplicativos":[{"clientSecret":"other-unregistered-secret","clientIdApi":"x"}],"echo":"${CARD}"}`,
        json: { aplicativos: [{ clientSecret: 'other-unregistered-secret', clientIdApi: 'x' }], echo: CARD },
      },
    );
    const red = redactExchange(ex, r);
    expect(red.request.url).toContain('access_token=[REDACTED:access-token]');
    expect(red.request.url).toContain(`cvv=[REDACTED:cvv-${CVV.length}-digits]`);
    expect(red.request.url).not.toContain(`cvv=${CVV}`);
    expect(red.request.url).toContain('q=1');
    expect(red.request.headers['x-debug']).toBe('secret=[REDACTED:client-secret]');
    expect(red.request.bodyText).toContain('"numeroTarjeta":"411111******1111"');
    expect(red.response?.headers['set-cookie']).toEqual(['s=[REDACTED:access-token]']);
    expect(JSON.stringify(red)).not.toContain('other-unregistered-secret');
    expectClean(JSON.stringify(red));
  });

  it('masks Luhn-valid digit runs only', () => {
    expect(maskCardRuns(`card ${CARD} id 1234567890123 ts 17000000000000000000000`)).toBe(
      'card 411111******1111 id 1234567890123 ts 17000000000000000000000',
    );
    expect(maskCardRuns('5500005555555559')).toBe('550000******5559');
  });

  it('keeps the exact text of a JSON body without sensitive fields', () => {
    const ex = exchange({}, { bodyText: '{ "monto": 10.00, "esReal": false }' });
    expect(redactExchange(ex, registry()).response?.bodyText).toBe('{ "monto": 10.00, "esReal": false }');
  });
});

describe('toCurl', () => {
  it('refers to every secret by a shell variable and keeps the rest', () => {
    const r = registry();
    const ex = exchange({
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      bodyText: JSON.stringify(threeDsBody),
    });
    const curl = toCurl(ex, r);
    expectClean(curl);
    expect(curl).not.toContain('\n');
    expect(curl).toContain('"authorization: Bearer $ACCESS_TOKEN"');
    expect(curl).toContain(`'"$CARD_NUMBER"'`);
    expect(curl).toContain(`'"$CVV"'`);
    expect(curl).toContain("-X POST 'http://127.0.0.1:4010/api/TransaccionCompra/3DS'");
    expect(curl).toContain('"nombre":"Ana"');
  });

  it('uses -u for Basic and variables in token forms', () => {
    const r = registry();
    const basic = exchange({
      method: 'DELETE',
      url: 'http://h/api/Cuenta',
      headers: { authorization: `Basic ${Buffer.from(`merchant@x.test:${PASSWORD}`).toString('base64')}` },
    });
    expect(toCurl(basic, r)).toBe(`curl -sS -X DELETE 'http://h/api/Cuenta' -u "$ACCOUNT_USER:$ACCOUNT_PASSWORD"`);
    const token = exchange({
      url: 'http://h/auth/connect/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      bodyText: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'cid', client_secret: CLIENT_SECRET }).toString(),
    });
    const curl = toCurl(token, r);
    expect(curl).toContain(
      `--data-urlencode 'grant_type=client_credentials' --data-urlencode "client_id=$CLIENT_ID" --data-urlencode ` +
        `"client_secret=$CLIENT_SECRET"`,
    );
    expectClean(curl);
  });

  it('reproduces a made-up credential of a negative test literally', () => {
    const ex = exchange({ method: 'GET', url: 'http://h/api/TransaccionCompra/x', headers: { authorization: 'Bearer not-a-real-token' } });
    expect(toCurl(ex, registry())).toContain(`-H 'authorization: Bearer not-a-real-token'`);
  });

  it('works on a redacted copy too, without any secret', () => {
    const r = registry();
    const ex = exchange({
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      bodyText: JSON.stringify(threeDsBody),
    });
    const curl = toCurl(redactExchange(ex, r), r);
    expect(curl).toContain('$ACCESS_TOKEN');
    expect(curl).toContain('$CARD_NUMBER');
    expectClean(curl);
  });

  it('quotes single quotes for the shell', () => {
    const ex = exchange({ headers: { 'content-type': 'application/json' }, bodyText: `{"nombre":"O'Brien"}` });
    expect(toCurl(ex, new SecretRegistry())).toContain(`--data-raw '{"nombre":"O'\\''Brien"}'`);
  });
});

describe('card data in URLs, HTML and messages', () => {
  const NON_LUHN = '4000123412341234';
  const screenUrl = (card: string) => `http://127.0.0.1:4010/pagar/AbC?monto=5&numeroTarjeta=${card}&cvv=${CVV}&cuotas=1`;

  function cardRegistry(): SecretRegistry {
    const r = registry();
    r.add(NON_LUHN, 'card-number');
    r.add(CVV, 'cvv');
    return r;
  }

  it('toCurl names card number and cvv query parameters as $CARD_NUMBER / $CVV', () => {
    for (const card of [CARD, NON_LUHN]) {
      const curl = toCurl(exchange({ method: 'GET', url: screenUrl(card) }), cardRegistry());
      expect(curl).toContain(`numeroTarjeta='"$CARD_NUMBER"'&cvv='"$CVV"'&cuotas=1`);
      expect(curl).not.toContain(card);
      expect(curl).not.toContain(`cvv=${CVV}`);
    }
  });

  it('a registered card number is masked even when it fails Luhn; a registered cvv only where it stands alone', () => {
    const r = cardRegistry();
    expect(r.redactText(`echo ${NON_LUHN}.`)).toBe('echo 400012******1234.');
    // A 3-digit cvv inside other text is left alone (it would blank every such number of every report) ...
    expect(r.redactText(`monto ${CVV}5`)).toBe(`monto ${CVV}5`);
    // ... but is removed where it is a whole value, under any name.
    const red = redactExchange(
      exchange({
        url: `http://h/x?cvc=${CVV}`,
        headers: { 'content-type': 'application/json' },
        bodyText: JSON.stringify({ codigo: CVV, monto: 9875 }),
      }),
      r,
    );
    expect(red.request.url).toBe('http://h/x?cvc=[REDACTED:cvv]');
    expect(JSON.parse(red.request.bodyText)).toEqual({ codigo: '[REDACTED:cvv]', monto: 9875 });
  });

  it("blanks the value of card inputs of an HTML page, also under a screen's own field names", () => {
    const r = cardRegistry();
    r.addField('card_number', 'card-number');
    r.addField('cvc', 'cvv');
    const html = [
      `<input type="text" name="numeroTarjeta" value="${NON_LUHN}">`,
      `<input value='${CVV}' name='cvv'>`,
      `<input name=card_number value=${NON_LUHN}>`,
      `<input name="cvc" value="${CVV}" />`,
      '<input name="monto" value="10.50">',
    ].join('\n');
    const red = redactExchange(
      exchange({ method: 'GET', url: 'http://h/pagar' }, { bodyText: html, contentType: 'text/html; charset=utf-8' }),
      r,
    );
    const body = red.response?.bodyText ?? '';
    expect(body).not.toContain(NON_LUHN);
    expect(body).not.toContain(CVV);
    expect(body.match(/value=""/g)).toHaveLength(4);
    expect(body).toContain('<input name="monto" value="10.50">');
    const curl = toCurl(
      exchange({
        url: 'http://h/pagar',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        bodyText: `card_number=${NON_LUHN}&cvc=${CVV}`,
      }),
      r,
    );
    expect(curl).toBe(
      `curl -sS -X POST 'http://h/pagar' -H 'content-type: application/x-www-form-urlencoded' --data-urlencode ` +
        `"card_number=$CARD_NUMBER" --data-urlencode "cvc=$CVV"`,
    );
  });

  it('a cvv keeps its shape: a JSON number, a string of digits, other characters', () => {
    expect(cvvShape(123)).toBe('[REDACTED:cvv, a number of 3 digits]');
    expect(cvvShape('0123')).toBe('[REDACTED:cvv, a string of 4 digits]');
    expect(cvvShape('12a')).toBe('[REDACTED:cvv, a string of 3 characters, not all digits]');
    expect(cvvShape(null)).toBe('[REDACTED:cvv, null]');
  });

  it('redacts URLs inside messages, and PayerError does so itself', () => {
    const message = `the payment screen at ${screenUrl(CARD)} has no field "email"`;
    const shown = redactUrlsIn(message, cardRegistry());
    expect(shown).toBe(
      `the payment screen at ` +
        `http://127.0.0.1:4010/pagar/AbC?monto=5&numeroTarjeta=411111******1111&cvv=[REDACTED:cvv-${CVV.length}-digits]&cuotas=1 has no field "email"`,
    );
    expect(new PayerError(message).message).toBe(redactUrlsIn(message, secrets));
    expect(new PayerError(message).message).not.toContain(CARD);
    expect(new PayerError(message).message).not.toContain(`cvv=${CVV}`);
  });

  it('a token registered as a generic access token takes the specific kind registered later, never the reverse', () => {
    const r = new SecretRegistry();
    r.add('account-tok-1', 'access-token');
    r.add('account-tok-1', 'account-token');
    r.add('account-tok-1', 'access-token');
    expect(r.kindOf('account-tok-1')).toBe('account-token');
    expect(toCurl(exchange({ method: 'GET', headers: { authorization: 'Bearer account-tok-1' } }), r)).toContain(
      '"authorization: Bearer $ACCOUNT_TOKEN"',
    );
    r.add(CLIENT_SECRET, 'client-secret');
    r.add(CLIENT_SECRET, 'account-token');
    expect(r.kindOf(CLIENT_SECRET)).toBe('client-secret');
  });
});

describe('curlPreamble', () => {
  it('exports ACCESS_TOKEN from the token endpoint with variables and node, no jq', () => {
    const lines = curlPreamble({ authUrl: 'http://127.0.0.1:4010/auth' });
    const text = lines.join('\n');
    expect(text).toContain(`export ACCESS_TOKEN="$(curl -sS -X POST 'http://127.0.0.1:4010/auth/connect/token'`);
    expect(text).toContain('"client_id=$CLIENT_ID"');
    expect(text).toContain('"client_secret=$CLIENT_SECRET"');
    expect(text).toContain('node -pe');
    expect(text).not.toContain('jq');
    expect(curlPreamble({ accountAuth: 'password-grant' }).join('\n')).toContain('export ACCOUNT_TOKEN=');
    expect(
      curlPreamble({ audience: 'api_pagos', accountAuth: 'password-grant' })
        .join('\n')
        .match(/'audience=api_pagos'/g),
    ).toHaveLength(2);
  });
});

describe('Recorder', () => {
  it('keeps redacted copies with curl lines, bounded, and drains them', () => {
    const r = registry();
    const recorder = new Recorder({ limit: 3, registry: r });
    for (let i = 0; i < 5; i++) {
      recorder.record(
        exchange({
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          bodyText: JSON.stringify({ ...threeDsBody, i }),
        }),
      );
    }
    expect(recorder.size).toBe(3);
    const drained = recorder.drain();
    expect(drained.map((e) => JSON.parse(e.request.bodyText).i)).toEqual([2, 3, 4]);
    expect(recorder.size).toBe(0);
    for (const e of drained) {
      expectClean(JSON.stringify(e));
      expect(e.curl).toContain('$CVV');
    }
  });

  it('attributes exchanges to the scope that made them, across awaits', async () => {
    const recorder = new Recorder({ registry: registry() });
    const run = (name: string) =>
      withRecord(name, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        recorder.record(exchange({ url: `http://h/${name}` }));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return currentRecordExchanges().map((e) => e.request.url);
      });
    const [a, b] = await Promise.all([run('a'), run('b')]);
    expect(a).toEqual(['http://h/a']);
    expect(b).toEqual(['http://h/b']);
    expect(currentRecordExchanges()).toEqual([]);
  });

  it('clips long bodies to bound memory', () => {
    const recorder = new Recorder({ maxBodyChars: 100, registry: new SecretRegistry() });
    const copy = recorder.record(exchange({}, { bodyText: 'x'.repeat(1000), contentType: 'text/plain' }));
    expect(copy.response?.bodyText.length).toBeLessThan(150);
    expect(copy.response?.bodyText).toContain('900 more characters');
  });
});

describe("a test's transcript and its waits", () => {
  it("lists every step in order, redacted, the failing check's exchange marked, and how the test ended", async () => {
    const recorder = new Recorder({ registry: registry() });
    const scope = new TestRecord('t');
    await withRecord(scope, async () => {
      recorder.record({
        ...exchange(
          {
            url: 'http://h/auth/connect/token',
            bodyText: `client_secret=${encodeURIComponent(CLIENT_SECRET)}`,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          },
          { bodyText: '{}' },
        ),
        id: 'ex-1',
        label: 'issueToken',
      });
      recorder.record({
        ...exchange({ url: 'http://h/api/EnlacePago', headers: { authorization: `Bearer ${TOKEN}` } }, { status: 200 }),
        id: 'ex-2',
        label: 'createPaymentLink',
      });
      noteStep({
        kind: 'page',
        title: `browser POST /pagar/1?numeroTarjeta=${CARD} → 200`,
        detail: `> POST http://h/pagar/1?numeroTarjeta=${CARD}`,
      });
      noteStep({ kind: 'webhook', title: 'webhook received: POST /webhook/link (answered 200)' });
    });
    const t = transcriptOf(scope, { failingExchangeId: 'ex-2', end: 'CheckFailure: [rejected] clause 4.1-monto-min' });
    expect(t.steps.map((s) => s.kind)).toEqual(['token', 'api', 'page', 'webhook', 'end']);
    expect(t.steps.map((s) => s.failing ?? false)).toEqual([false, true, false, false, false]);
    expect(t.steps[1]?.title).toBe('POST /api/EnlacePago (createPaymentLink) → 200 in 3 ms');
    expect(t.steps[1]?.detail).toContain('authorization: Bearer [REDACTED]');
    const text = JSON.stringify(t);
    for (const secret of [CLIENT_SECRET, encodeURIComponent(CLIENT_SECRET), TOKEN, CARD]) expect(text).not.toContain(secret);
    expect(text).toContain('411111******1111');
  });

  it('marks the last step failing when no exchange is named, and is bounded (first and last steps kept)', () => {
    const scope = new TestRecord('t');
    for (let i = 0; i < 1000; i++) noteStep({ kind: 'api', title: `step ${i}`, detail: 'x'.repeat(1000) }, scope);
    const t = transcriptOf(scope);
    expect(t.steps.length).toBeLessThanOrEqual(121);
    expect(t.steps[0]?.title).toBe('step 0');
    expect(t.steps.at(-1)).toMatchObject({ title: 'step 999', failing: true });
    expect(t.steps.find((s) => s.kind === 'gap')?.title).toBe(`… ${t.omitted} step(s) omitted …`);
    expect(t.omitted).toBe(1000 - 120);
    expect(JSON.stringify(t).length).toBeLessThan(80_000);
  });

  it('counts time spent waiting for what other tests hold once, overlapping waits included, and not after the test', async () => {
    // On a fake clock: the figure is exact, whatever the machine's load.
    vi.useFakeTimers();
    try {
      const scope = new TestRecord('t');
      await withRecord(scope, async () => {
        const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
        const both = Promise.all([waitingFor('the request cap', pause(80)), waitingFor('a browser page', pause(80))]);
        await vi.advanceTimersByTimeAsync(80);
        await both;
        expect(scope.waitingFor).toBeUndefined();
        const pending = waitingFor('the test lock', () => pause(50));
        expect(scope.waitingFor).toBe('the test lock');
        await vi.advanceTimersByTimeAsync(50);
        await pending;
      });
      expect(scope.waitedMs()).toBe(130);
    } finally {
      vi.useRealTimers();
    }
    const scope = new TestRecord('t');
    scope.closed = true;
    noteStep({ kind: 'webhook', title: 'late' }, scope);
    expect(scope.steps).toEqual([]);
  });
});
