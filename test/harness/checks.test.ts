/**
 * Every named check of harness/judge/checks.ts on hand-built exchanges and outcomes, as the OpenID conformance suite tests
 * each of its conditions: the case that passes, the case that fails (with the check's name, clauses and evidence),
 * and each edge the check tolerates on purpose (a spelling a server may choose, an absence the spec allows).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CHECKS,
  absoluteUrl,
  bodyOf,
  CheckFailure,
  containsPairs,
  contractFindings,
  counterexampleFound,
  createdNothing,
  dateAfter,
  describeExchange,
  echoed,
  fail,
  fieldEquals,
  fieldIn,
  flagEquals,
  formatEvidence,
  hashVerifies,
  holds,
  isImage,
  notAccepted,
  paymentApproved,
  paymentDeclined,
  paymentNotApproved,
  redirectSeen,
  rejected,
  succeeded,
  webhookFindings,
  fractionFindings,
  type JudgedEvidence,
} from '../../harness/judge/checks.ts';
import { describeRedirectScheme, redirectHashOf, type RedirectScheme } from '../../harness/judge/schemes.ts';
import { loadContract } from '../../harness/api/contract.ts';
import { secrets } from '../../harness/record/redact.ts';
import { UnreadPage } from '../../harness/record/errors.ts';
import type { Exchange, ExchangeResponse } from '../../harness/record/exchange.ts';
import type { PaymentOutcome } from '../../harness/payer/index.ts';

const contract = await loadContract();
const SECRET = 'checks-test-client-secret';
secrets.add(SECRET, 'client-secret');

/** A POST /EnlacePago exchange answered `status` with `body` (JSON unless a string is given). */
function answered(status: number, body: unknown = {}, response: Partial<ExchangeResponse> = {}): Exchange {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    id: 'ex-1',
    label: 'createPaymentLink',
    request: {
      method: 'POST',
      url: 'http://127.0.0.1:1/api/EnlacePago',
      headers: { 'content-type': 'application/json' },
      bodyText: '{"monto":10}',
    },
    response: {
      status,
      headers: {},
      bodyText: text,
      contentType: 'application/json',
      truncated: false,
      ...(typeof body === 'string' ? {} : { json: body }),
      ...response,
    },
    attempts: 1,
    durationMs: 1,
  };
}
const unanswered: Exchange = { ...answered(200), response: undefined };

/** The evidence of the CheckFailure `run` throws (and that it throws one). */
function failure(run: () => unknown): JudgedEvidence {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(CheckFailure);
    return (err as CheckFailure).evidence;
  }
  throw new Error('the check passed');
}

describe('fail, formatEvidence, describeExchange', () => {
  it('fail throws a CheckFailure with the check, clauses, expected, actual, the redacted exchange and a curl line', () => {
    const ex = answered(200, { ok: true });
    ex.request.headers['authorization'] = `Basic ${Buffer.from(`user:${SECRET}`).toString('base64')}`;
    ex.request.bodyText = `{"clientSecret":"${SECRET}"}`;
    const e = failure(() => fail('field-equals', '4.1-monto-min', 'wanted', 'got', ex));
    expect(e).toMatchObject({ check: 'field-equals', clauses: ['4.1-monto-min'], expected: 'wanted', actual: 'got' });
    expect(e.exchange).toContain('> POST http://127.0.0.1:1/api/EnlacePago');
    expect(e.exchange).toContain('< 200 application/json');
    expect(e.curl).toContain('curl');
    expect(`${e.exchange}${e.curl}`).not.toContain(SECRET);
    expect(formatEvidence(e)).toMatch(
      /^\[field-equals\] clause 4\.1-monto-min\nexpected: wanted\nactual: {3}got\n--- exchange \(secrets redacted\)/,
    );
  });

  it('without an exchange the evidence has none; several clauses are listed', () => {
    const e = failure(() => fail('echoed', ['a', 'b'], 'e', 'a'));
    expect(e.exchange).toBeUndefined();
    expect(formatEvidence(e)).toBe('[echoed] clause a, b\nexpected: e\nactual:   a');
  });

  it('describeExchange says when nothing came back, clips long bodies and notes a truncated one', () => {
    expect(describeExchange(unanswered)).toMatch(/< \(no response\)$/);
    const long = describeExchange(answered(200, 'x'.repeat(5000), { contentType: 'text/plain', truncated: true }));
    expect(long).toContain('… (5000 characters)');
    expect(long).toContain('< (body truncated at the response size bound)');
  });
});

describe('succeeded: any 2xx', () => {
  it.each([200, 201, 202, 204, 299])('%i passes (the spec lists no success codes)', (s) =>
    expect(() => succeeded(answered(s), 'c')).not.toThrow(),
  );
  it.each([301, 400, 404, 500])('%i fails with the status', (s) => {
    expect(failure(() => succeeded(answered(s), '4.1-endpoint', 'the link'))).toMatchObject({
      check: 'success',
      clauses: ['4.1-endpoint'],
      expected: 'the link succeeds (2xx)',
      actual: String(s),
    });
  });
  it('no response fails as "no response"', () => expect(failure(() => succeeded(unanswered, 'c')).actual).toBe('no response'));
});

describe('rejected: a client error (4xx) for a stated rule', () => {
  it.each([400, 404, 409, 422, 499])('%i passes (the status is not shown: any 4xx)', (s) =>
    expect(() => rejected(answered(s), 'c', 'rule')).not.toThrow(),
  );
  it.each([200, 201, 302, 500, 503])('%i fails: accepted, redirected or a server error is not a rejection', (s) => {
    expect(failure(() => rejected(answered(s), '7-violations-rejected', 'monto at least 0.01'))).toMatchObject({
      check: 'rejected',
      expected: 'rejected with a client error (4xx): monto at least 0.01',
      actual: String(s),
    });
  });
  it('no response fails', () => expect(failure(() => rejected(unanswered, 'c', 'r')).actual).toBe('no response'));
});

describe('notAccepted: anything but a 2xx', () => {
  it.each([301, 400, 401, 403, 404, 500])('%i passes (how a refusal is answered is not shown)', (s) =>
    expect(() => notAccepted(answered(s), 'c', 'w')).not.toThrow(),
  );
  it('no response passes: nothing was accepted (a transport failure throws before any check)', () =>
    expect(() => notAccepted(unanswered, 'c', 'w')).not.toThrow());
  it.each([200, 204])('%i fails', (s) => {
    expect(failure(() => notAccepted(answered(s), '5.5-bearer-endpoints', 'a request without a token'))).toMatchObject({
      check: 'not-accepted',
      expected: 'not accepted: a request without a token',
      actual: String(s),
    });
  });
});

describe('fieldEquals', () => {
  it('passes on equal values; numbers within 1e-9; objects whatever their key order; arrays in order', () => {
    expect(() => fieldEquals('a', 'a', 'f', 'c')).not.toThrow();
    expect(() => fieldEquals(0.1 + 0.2, 0.3, 'monto', 'c')).not.toThrow();
    expect(() => fieldEquals({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }, 'f', 'c')).not.toThrow();
    expect(() => fieldEquals([1, { x: 'y' }], [1, { x: 'y' }], 'f', 'c')).not.toThrow();
    expect(() => fieldEquals(null, null, 'f', 'c')).not.toThrow();
  });
  it('fails on a different value, type, array order or an extra key, naming the field', () => {
    expect(failure(() => fieldEquals(10.5, 10.51, 'monto', '4.4-response-fields'))).toMatchObject({
      check: 'field-equals',
      expected: 'monto = 10.51',
      actual: 'monto = 10.5',
    });
    expect(() => fieldEquals('10.5', 10.5, 'monto', 'c')).toThrow(CheckFailure);
    expect(() => fieldEquals(undefined, null, 'f', 'c')).toThrow(CheckFailure);
    expect(() => fieldEquals([2, 1], [1, 2], 'f', 'c')).toThrow(CheckFailure);
    expect(() => fieldEquals({ a: 1, b: 2 }, { a: 1 }, 'f', 'c')).toThrow(CheckFailure);
    expect(() => fieldEquals(Number.NaN, Number.NaN, 'f', 'c')).toThrow(CheckFailure);
  });
});

describe('fieldIn', () => {
  it('passes on a member (numbers within 1e-9, null when allowed)', () => {
    expect(() => fieldIn(4, [4, 5], 'tipoTransaccion', 'c')).not.toThrow();
    expect(() => fieldIn(null, [0, null], 'resultadoTransaccion', 'c')).not.toThrow();
  });
  it('fails on a non-member, listing the allowed values', () => {
    expect(failure(() => fieldIn(6, [4, 5], 'tipoTransaccion', '4.7-tipo-transaccion'))).toMatchObject({
      check: 'field-in',
      expected: 'tipoTransaccion one of 4, 5',
      actual: 'tipoTransaccion = 6',
    });
    expect(() => fieldIn('4', [4, 5], 'tipoTransaccion', 'c')).toThrow(CheckFailure);
    expect(() => fieldIn(undefined, [0, null], 'r', 'c')).toThrow(CheckFailure);
  });
});

describe('flagEquals: a boolean as JSON or as redirect text', () => {
  it.each([true, 'true', 'True', ' TRUE '])('%j is true', (v) => expect(() => flagEquals(v, true, 'esAprobada', 'c')).not.toThrow());
  it.each([false, 'false', 'False'])('%j is false', (v) => expect(() => flagEquals(v, false, 'esReal', 'c')).not.toThrow());
  it.each([1, '1', 'yes', null, undefined, 'false'])('%j is not true', (v) => {
    expect(failure(() => flagEquals(v, true, 'esAprobada', '6.3-redirect-outcome'))).toMatchObject({
      check: 'flag-equals',
      expected: 'esAprobada = true',
    });
  });
});

describe('bodyOf: the JSON object of a response', () => {
  it('returns the object', () => expect(bodyOf(answered(200, { idEnlace: 1 }), 'c')).toEqual({ idEnlace: 1 }));
  it.each([
    ['an array', []],
    ['null', null],
    ['string', 'texto'],
  ])('fails on %s', (actual, json) => {
    expect(failure(() => bodyOf(answered(200, {}, { json, bodyText: JSON.stringify(json) }), '4.1-response-fields'))).toMatchObject({
      check: 'json-object',
      actual,
    });
  });
  it('a body that is not JSON names the contract testcase that reports it', () => {
    const e = failure(() => bodyOf(answered(200, '<html>', { contentType: 'text/html' }), '4.1-response-fields'));
    expect(e.actual).toMatch(
      /^not a JSON response body: text\/html; the contract testcase of createPaymentLink responses reports it \(4-json-bodies\)/,
    );
  });
});

describe('absoluteUrl', () => {
  it.each(['https://pay.example/l/1', 'http://127.0.0.1:4010/pagar/1?x=1'])('%s passes and comes back as a URL', (u) =>
    expect(absoluteUrl(u, 'urlEnlace', 'c').href).toBe(u),
  );
  it.each(['/pagar/1', 'pagar/1', 'ftp://pay.example/x', 'javascript:alert(1)', '', 7, null])('%j fails', (u) => {
    expect(failure(() => absoluteUrl(u, 'urlCompletarPago3Ds', '4.3-url-completar'))).toMatchObject({
      check: 'absolute-url',
      expected: 'urlCompletarPago3Ds is an absolute http(s) URL',
      actual: JSON.stringify(u),
    });
  });
});

describe('dateAfter', () => {
  const now = new Date('2026-03-01T10:00:00Z');
  it('passes on a later date-time, whatever its offset or precision', () => {
    expect(dateAfter('2026-03-01T10:10:00Z', now, 'fechaVencimiento', 'c').toISOString()).toBe('2026-03-01T10:10:00.000Z');
    expect(() => dateAfter('2026-03-01T04:00:00.1234567-06:00', now, 'f', 'c')).not.toThrow();
  });
  it.each(['2026-03-01T10:00:00Z', '2026-03-01T09:59:59Z', 'mañana', '', 1_800_000_000_000, null])(
    '%j fails (the same instant is not after)',
    (v) => {
      expect(failure(() => dateAfter(v, now, 'fechaVencimiento', '4.6-qr-expiry'))).toMatchObject({
        check: 'date-after',
        expected: 'fechaVencimiento after 2026-03-01T10:00:00.000Z',
      });
    },
  );
});

describe('hashVerifies (6.3): the redirect hash with the configured or discovered scheme', () => {
  const params: Record<string, string> = {
    idTransaccion: 'tx-1',
    monto: '10.00',
    esReal: 'false',
    formaPago: '0',
    esAprobada: 'true',
    codigoAutorizacion: '123456',
    mensaje: '',
    idEnlace: '7',
    identificadorEnlaceComercio: 'ref-1',
  };
  const hmac: RedirectScheme = { algorithm: 'sha256', hmac: true, key: 'client-secret', encoding: 'hex', values: 'query', order: 'spec' };
  const KEY = 'k';

  it('passes on the right hash (hex in either case), with any of the schemes the discovery could not tell apart', () => {
    const hash = redirectHashOf(params, hmac, KEY);
    expect(hash).toBe(createHmac('sha256', KEY).update('tx-110.00false0true123456').digest('hex'));
    expect(() => hashVerifies({ ...params, hash }, [hmac], KEY, '6.3-redirect-hash')).not.toThrow();
    expect(() => hashVerifies({ ...params, hash: hash.toUpperCase() }, [hmac], KEY, '6.3-redirect-hash')).not.toThrow();
    const link: RedirectScheme = { ...hmac, order: 'link' };
    expect(() => hashVerifies({ ...params, hash: redirectHashOf(params, link, KEY) }, [hmac, link], KEY, 'c')).not.toThrow();
  });

  it("base64 is compared exactly: its letters' case carries bits", () => {
    const b64: RedirectScheme = { ...hmac, encoding: 'base64' };
    const hash = redirectHashOf(params, b64, KEY);
    expect(() => hashVerifies({ ...params, hash }, [b64], KEY, 'c')).not.toThrow();
    expect(() => hashVerifies({ ...params, hash: hash.toLowerCase() }, [b64], KEY, 'c')).toThrow(CheckFailure);
  });

  it('fails on a missing hash, a wrong key, a changed outcome and no scheme, never printing the whole hash', () => {
    expect(failure(() => hashVerifies(params, [hmac], KEY, '6.3-redirect-hash'))).toMatchObject({
      check: 'hash-verifies',
      actual: 'no hash parameter',
      expected: `hash = ${describeRedirectScheme(hmac)}`,
    });
    const wrongKey = redirectHashOf(params, hmac, 'other');
    expect(failure(() => hashVerifies({ ...params, hash: wrongKey }, [hmac], KEY, '6.3-redirect-hash')).actual).toBe(
      `a hash that does not verify (${wrongKey.slice(0, 12)}…)`,
    );
    expect(() => hashVerifies({ ...params, esAprobada: 'false', hash: redirectHashOf(params, hmac, KEY) }, [hmac], KEY, 'c')).toThrow(
      CheckFailure,
    );
    expect(failure(() => hashVerifies({ ...params, hash: redirectHashOf(params, hmac, KEY) }, [], KEY, 'c')).expected).toBe(
      'hash = (no scheme)',
    );
  });
});

describe('isImage', () => {
  it.each([
    [{ status: 200, contentType: 'image/png', isPng: true }],
    [{ status: 200, contentType: 'IMAGE/SVG+XML', isPng: false }],
    [{ status: 200, contentType: 'application/octet-stream', isPng: true }],
    [{ status: 203, contentType: undefined, isPng: true }],
  ])('%j passes (typed image/*, or PNG bytes)', (image) => expect(() => isImage(image, 'u', 'c')).not.toThrow());
  it.each([
    [{ status: 404, contentType: 'image/png', isPng: true }],
    [{ status: 200, contentType: 'text/html', isPng: false }],
    [{ status: 200, contentType: undefined, isPng: false }],
  ])('%j fails', (image) => {
    expect(failure(() => isImage(image, 'http://x/qr.png', '4.1-qr-leads-to-screen'))).toMatchObject({
      check: 'image',
      expected: 'http://x/qr.png serves an image (2xx, content-type image/*)',
    });
  });
});

describe('holds', () => {
  it('passes on true and fails on false with its own name', () => {
    expect(() => holds(true, 'back-button', 'c', 'e', 'a')).not.toThrow();
    expect(failure(() => holds(false, 'back-button', '4.1-url-retorno', 'e', 'a', answered(200)))).toMatchObject({
      check: 'back-button',
      clauses: ['4.1-url-retorno'],
      expected: 'e',
      actual: 'a',
    });
  });
});

describe('payment outcomes (6.3)', () => {
  const redirect = (esAprobada?: string): PaymentOutcome => ({
    kind: 'redirect',
    location: 'https://m.example/ok?x',
    params: esAprobada === undefined ? {} : { esAprobada, idTransaccion: 't' },
  });
  const refused: PaymentOutcome = {
    kind: 'refused',
    status: 410,
    estado: 'vencido',
    html: '<p>vencido</p>',
    text: 'vencido',
    answered: 'submission',
    by: 'status',
  };
  const settled = (esAprobada: 'true' | 'false'): PaymentOutcome => ({
    kind: 'page',
    status: 200,
    html: '<p>ok</p>',
    text: 'ok',
    settled: { esAprobada, from: 'lookup', idTransaccion: 't-9' },
  });

  it('paymentApproved: a redirect with esAprobada true in any case; returns the query', () => {
    expect(paymentApproved(redirect('true'), 'c', 'the payment')).toEqual({ esAprobada: 'true', idTransaccion: 't' });
    expect(() => paymentApproved(redirect('True'), 'c', 'p')).not.toThrow();
  });
  it.each([
    ['a declined redirect', redirect('false'), 'a redirect to the merchant with esAprobada=false'],
    ['a redirect without esAprobada', redirect(), 'a redirect to the merchant with esAprobada=(absent)'],
    ['a refusal', refused, 'a refusal (status 410, estado "vencido")'],
    [
      'a page the lookup settled declined',
      settled('false'),
      'a page (status 200) after the payment; the lookup of t-9 says esAprobada=false',
    ],
  ])('paymentApproved fails on %s, saying how it ended', (_what, o, actual) => {
    expect(failure(() => paymentApproved(o, '7-dev-authorizes', 'the payment'))).toMatchObject({
      check: 'payment-approved',
      expected: 'the payment is approved (redirect with esAprobada=true)',
      actual,
    });
  });

  it('a page after the payment that no lookup settled is never judged by an outcome check: UnreadPage, with its heading and text', () => {
    const unread: PaymentOutcome = { kind: 'page', status: 200, html: '<h1>Gracias</h1><p>Procesando</p>', text: 'Gracias Procesando' };
    for (const judge of [paymentApproved, paymentDeclined, paymentNotApproved]) {
      expect(() => judge(unread, 'c', 'the payment')).toThrow(UnreadPage);
      expect(() => judge(unread, 'c', 'the payment')).toThrow(/"Gracias".*"Gracias Procesando"/);
    }
  });

  it('a page the lookup settled is judged by what the lookup said', () => {
    expect(paymentApproved(settled('true'), 'c', 'p')).toEqual({ idTransaccion: 't-9', esAprobada: 'true' });
    expect(paymentDeclined(settled('false'), 'c', 'p')).toEqual({ idTransaccion: 't-9', esAprobada: 'false' });
    expect(failure(() => paymentNotApproved(settled('true'), 'c', 'p')).check).toBe('payment-not-approved');
    expect(() => redirectSeen(settled('true'), 'p')).toThrow(UnreadPage);
  });

  it('paymentDeclined: a redirect with esAprobada false; anything else fails', () => {
    expect(paymentDeclined(redirect('FALSE'), 'c', 'p')).toEqual({ esAprobada: 'FALSE', idTransaccion: 't' });
    for (const o of [redirect('true'), redirect(), refused, settled('true')])
      expect(failure(() => paymentDeclined(o, '7-cvv-111-declines', 'p')).check).toBe('payment-declined');
  });

  it('paymentNotApproved: a refusal, a settled decline, a decline or no esAprobada all pass; only an approval fails', () => {
    for (const o of [refused, settled('false'), redirect('false'), redirect()]) expect(() => paymentNotApproved(o, 'c', 'p')).not.toThrow();
    expect(failure(() => paymentNotApproved(redirect('TRUE'), '3-inactive-no-payments', 'a payment on an inactive link'))).toMatchObject({
      check: 'payment-not-approved',
      expected: 'a payment on an inactive link is not processed (no approved payment)',
    });
  });
});

describe('containsPairs: the datosAdicionales sent come back', () => {
  const sent = { pedido: '1001', canal: 'web' };
  it('passes when every pair is there, with other keys beside them, in any order', () => {
    expect(() => containsPairs({ canal: 'web', otro: 'x', pedido: '1001' }, sent, 'datosAdicionales', 'c')).not.toThrow();
    expect(() => containsPairs(null, {}, 'datosAdicionales', 'c')).not.toThrow();
  });
  it('fails naming the keys that differ or are missing', () => {
    expect(
      failure(() => containsPairs({ pedido: 1001, canal: 'web' }, sent, 'datosAdicionales', '2.2-datos-adicionales-echo')).actual,
    ).toMatch(/^datosAdicionales differs at pedido: /);
    expect(failure(() => containsPairs({ canal: 'web' }, sent, 'datosAdicionales', 'c')).actual).toMatch(/differs at pedido/);
  });
  it.each([null, undefined, [], 'pedido=1001'])('fails on %j (not a dictionary)', (v) => {
    expect(failure(() => containsPairs(v, sent, 'datosAdicionales', 'c'))).toMatchObject({
      check: 'contains-pairs',
      actual: `datosAdicionales = ${JSON.stringify(v)}`,
    });
  });
});

describe('echoed: what was sent comes back', () => {
  it('compares objects key by key (extra keys and another order allowed), numbers to 1e-9', () => {
    expect(() =>
      echoed({ b: 2.0000000001, a: { y: 'y', x: 'x' }, extra: true }, { a: { x: 'x', y: 'y' }, b: 2 }, 'configuracion', 'c'),
    ).not.toThrow();
  });
  it('fails at the first field that differs, with its path', () => {
    expect(failure(() => echoed({ a: { x: 'z' } }, { a: { x: 'x' } }, 'body', 'c'))).toMatchObject({
      check: 'echoed',
      expected: 'body.a.x = "x" (as sent)',
      actual: 'body.a.x = "z"',
    });
    expect(failure(() => echoed(undefined, { a: 1 }, 'body', 'c')).actual).toBe('body.a = undefined');
    expect(() => echoed(null, null, 'f', 'c')).not.toThrow();
    expect(() => echoed(undefined, null, 'f', 'c')).toThrow(CheckFailure);
  });
  it('describes a long string by its length and start, not in full', () => {
    const long = 'ñ'.repeat(500);
    const e = failure(() => echoed(long.slice(1), long, 'nombreProducto', 'c'));
    expect(e.expected).toBe(`nombreProducto = a string of 500 characters starting ${JSON.stringify(long.slice(0, 40))} (as sent)`);
  });
});

describe("counterexampleFound: a property's shrunk case", () => {
  const found = { counterexample: '{"monto":0}', seed: 42, path: '3:1', shrinks: 2, command: 'FC_SEED=42 FC_PATH=3:1 npx vitest run …' };
  it("carries the inner check's name, expectation and exchange, with the seed, path and replay command", () => {
    const inner = failure(() => rejected(answered(200), '4.1-monto-min', 'monto at least 0.01'));
    const e = failure(() =>
      counterexampleFound('4.1-monto-min', 'any body violating only 4.1-monto-min is rejected', {
        ...found,
        error: new CheckFailure(inner),
      }),
    );
    expect(e.check).toBe('property/rejected');
    expect(e.expected).toBe('any body violating only 4.1-monto-min is rejected — rejected with a client error (4xx): monto at least 0.01');
    expect(e.actual).toBe(
      ['200', 'counterexample (seed 42, path 3:1, shrunk 2 times): {"monto":0}', `replay: ${found.command}`].join('\n'),
    );
    expect(e.exchange).toBe(inner.exchange);
    expect(e.curl).toBe(inner.curl);
  });
  it('another error is reported as itself under the check "property"', () => {
    const e = failure(() => counterexampleFound(['a'], 'p', { ...found, error: new Error('boom') }));
    expect(e).toMatchObject({ check: 'property', expected: 'p' });
    expect(e.actual.split('\n')[0]).toBe('boom');
    expect(e.exchange).toBeUndefined();
  });
});

describe('createdNothing (7: a rejected request creates nothing)', () => {
  it('passes when the counts did not move (other counters may)', () => {
    expect(() => createdNothing({ links: 3, transactions: 5 }, { links: 3, transactions: 5 }, 'c')).not.toThrow();
  });
  it.each([[{ links: 4, transactions: 5 }], [{ links: 3, transactions: 6 }]])(
    'fails when a link or a transaction appeared: %j',
    (after) => {
      const e = failure(() => createdNothing({ links: 3, transactions: 5 }, after, '7-violations-rejected', undefined, 'over 40 bodies'));
      expect(e).toMatchObject({ check: 'created-nothing', expected: 'a rejected request creates no link and no transaction' });
      expect(e.actual).toBe(`links 3 → ${after.links}, transactions 5 → ${after.transactions}, over 40 bodies`);
    },
  );
});

describe('contractFindings (responses) and webhookFindings', () => {
  const good = { idEnlace: 1, urlEnlace: 'http://x.test/l/1', urlQrCodeEnlace: 'http://x.test/qr/1.png', estaProductivo: false };

  it('a conforming response, one without a response, and an error body (not shown by the spec) find nothing', () => {
    expect(contractFindings(contract, 'createPaymentLink', answered(200, good))).toEqual([]);
    expect(contractFindings(contract, 'createPaymentLink', unanswered)).toEqual([]);
    expect(contractFindings(contract, 'createPaymentLink', answered(400, '<h1>Bad</h1>', { contentType: 'text/html' }))).toEqual([]);
  });

  it('a success body that is not JSON is a 4-json-bodies failure, and nothing else is judged', () => {
    const found = contractFindings(contract, 'createPaymentLink', answered(200, 'ok', { contentType: 'text/plain' }));
    expect(found).toEqual([
      expect.objectContaining({ clauses: ['4-json-bodies'], severity: 'fail', actual: 'not a JSON response body: text/plain' }),
    ]);
  });

  it('JSON labelled text/plain is a 4-json-bodies failure, and the body is still validated', () => {
    const found = contractFindings(
      contract,
      'createPaymentLink',
      answered(200, { ...good, idEnlace: '1' }, { contentType: 'text/plain', jsonUnlabelled: true }),
    );
    expect(found.map((f) => f.clauses[0])).toEqual(['4-json-bodies', '4.1-response-fields']);
  });

  it('a schema violation fails under its type clause; a format the spec only describes is observed', () => {
    expect(contractFindings(contract, 'createPaymentLink', answered(200, { ...good, idEnlace: '1' }))).toEqual([
      expect.objectContaining({
        clauses: ['4.1-response-fields'],
        severity: 'fail',
        actual: '/idEnlace must be integer (got a string of 1 characters)',
      }),
    ]);
    expect(contractFindings(contract, 'createPaymentLink', answered(201, { ...good, urlEnlace: 'enlace 1' }))).toEqual([
      expect.objectContaining({ clauses: ['2.1-link-urls'], severity: 'observe' }),
    ]);
  });

  it('date-times with more than 3 fractional digits are observed once per body (2-datetime-type), 3 or fewer pass', () => {
    const lookup = {
      idTransaccion: 't-1',
      esReal: false,
      esAprobada: true,
      monto: 1,
      fechaTransaccion: '2026-11-22T10:00:00.1234567-06:00',
    };
    expect(fractionFindings(lookup)).toEqual([
      expect.objectContaining({
        clauses: ['2-datetime-type'],
        severity: 'observe',
        actual: expect.stringContaining('7 fractional digits, e.g. /fechaTransaccion'),
      }),
    ]);
    expect(fractionFindings({ a: [{ b: '2026-11-22T10:00:00.1234Z' }], c: '2026-11-22T10:00:00.12345Z' })).toEqual([
      expect.objectContaining({ actual: expect.stringMatching(/^2 date-time\(s\) with 4 fractional digits, e\.g\. \/a\/0\/b/) }),
    ]);
    expect(fractionFindings({ f: '2026-11-22T10:00:00.123Z', g: '2026-11-22T10:00:00Z', h: 'x.1234567' })).toEqual([]);
    expect(webhookFindings(contract, { idTransaccion: 't', fechaTransaccion: '2026-11-22T10:00:00.1234567Z' })).toContainEqual(
      expect.objectContaining({ clauses: ['2-datetime-type'], severity: 'observe' }),
    );
  });

  it('webhooks: a body that is not JSON fails; PascalCase names are read as camelCase only when asked', () => {
    expect(webhookFindings(contract, undefined)).toEqual([
      expect.objectContaining({ clauses: ['4-json-bodies', '6.1-webhook-transaction-data'], severity: 'fail' }),
    ]);
    const pascal = { IdTransaccion: 't-1', EsProductiva: false, Monto: 10 };
    expect(webhookFindings(contract, pascal, 'insensitive')).toEqual([]);
    expect(webhookFindings(contract, pascal, 'exact').map((f) => f.clauses)).toContainEqual(['6.1-webhook-esproductiva']);
    expect(webhookFindings(contract, { idTransaccion: 't', esProductiva: 'false' })).toEqual([
      expect.objectContaining({ clauses: ['6.1-webhook-esproductiva'], severity: 'fail' }),
    ]);
  });

  it('webhooks: an empty User-Agent is observed; none, or any other, is not judged', () => {
    const body = { idTransaccion: 't', esProductiva: false };
    for (const userAgent of ['', ' '])
      expect(webhookFindings(contract, body, 'exact', { userAgent })).toEqual([
        expect.objectContaining({ clauses: ['6.1-webhook-retries-not-shown'], severity: 'observe' }),
      ]);
    expect(webhookFindings(contract, body, 'exact', { userAgent: 'payment-service-sandbox' })).toEqual([]);
    expect(webhookFindings(contract, body)).toEqual([]);
    expect(webhookFindings(contract, body, 'exact', {})).toEqual([]);
  });
});

describe('CHECKS', () => {
  it('names each check once', () => {
    expect(new Set(CHECKS).size).toBe(CHECKS.length);
  });
});

describe('amountEquals: money to the cent, from the decimal text written', async () => {
  const { amountDue, amountEquals, centsOf } = await import('../../harness/judge/checks.ts');
  it('reads whole cents exactly and refuses binary noise and fractions of a cent', () => {
    expect(centsOf('10.50')).toBe(1050n);
    expect(centsOf('10.500')).toBe(1050n);
    expect(centsOf('1e3')).toBe(100000n);
    expect(centsOf('-0.01')).toBe(-1n);
    expect(centsOf('0.30000000000000004')).toBeUndefined();
    expect(centsOf('0.005')).toBeUndefined();
    expect(centsOf('abc')).toBeUndefined();
  });
  it('passes any writing of the cents due (10.5, "10.50") and fails noise and a cent off under the clause given', () => {
    expect(amountDue(0.1, 3).text).toBe('0.30');
    amountEquals(0.3, amountDue(0.1, 3), 'monto', '4.1-cantidad-por-defecto');
    amountEquals('0.30', amountDue(0.1, 3), 'monto', '4.1-cantidad-por-defecto');
    amountEquals(31.5, amountDue(10.5, 3), 'monto', '4.1-cantidad-por-defecto');
    const failure = (actual: unknown): CheckFailure => {
      try {
        amountEquals(actual, amountDue(0.1, 3), 'monto', '4.1-cantidad-por-defecto');
      } catch (err) {
        return err as CheckFailure;
      }
      throw new Error('no failure');
    };
    expect(failure(0.1 * 3).evidence).toMatchObject({ check: 'amount-equals', clauses: ['4.1-cantidad-por-defecto'] });
    expect(failure(0.1 * 3).evidence.actual).toMatch(/0\.30000000000000004, not a whole number of cents/);
    expect(failure(0.31).evidence.actual).toMatch(/1 cent\(s\) more/);
    expect(failure(null).evidence.actual).toMatch(/not a number/);
  });
});
