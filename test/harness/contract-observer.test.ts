/** The run-wide contract observer: counts per operation and clause, keeps the first offending exchanges, never throws. */
import { beforeEach, describe, expect, it } from 'vitest';
import { loadContract } from '../../harness/api/contract.ts';
import { contractRecord, observeResponse, observeWebhook, resetContractObserver, WEBHOOK } from '../../harness/run/contract-observer.ts';
import type { Exchange } from '../../harness/api/http.ts';
import { secrets } from '../../harness/record/redact.ts';
import type { ReceivedWebhook } from '../../harness/api/receiver.ts';

const contract = await loadContract();
// as the run's http does with every token it is issued
secrets.add('secret-token', 'access-token');

function created(body: unknown, contentType = 'application/json', jsonUnlabelled?: true): Exchange {
  return {
    id: 'x',
    label: 'createPaymentLink',
    request: {
      method: 'POST',
      url: 'http://127.0.0.1:1/api/EnlacePago',
      headers: { authorization: 'Bearer secret-token', 'content-type': 'application/json' },
      bodyText: '{}',
    },
    response: {
      status: 200,
      headers: {},
      bodyText: JSON.stringify(body),
      json: body,
      contentType,
      truncated: false,
      ...(jsonUnlabelled ? { jsonUnlabelled } : {}),
    },
    attempts: 1,
    durationMs: 1,
  };
}
const good = { idEnlace: 1, urlEnlace: 'http://x.test/l/1', urlQrCodeEnlace: 'http://x.test/qr/1.png', estaProductivo: false };

beforeEach(() => resetContractObserver());

describe('contract observer', () => {
  it('counts responses seen and broken, per clause, and keeps the first exchanges with a curl line', () => {
    expect(observeResponse(contract, 'createPaymentLink', created(good))).toEqual([]);
    for (let i = 0; i < 5; i++) observeResponse(contract, 'createPaymentLink', created({ ...good, idEnlace: '1' }));
    const r = contractRecord('createPaymentLink')!;
    expect(r).toMatchObject({ seen: 6, broken: 5 });
    expect(r.clauses.get('4.1-response-fields')).toMatchObject({ count: 5 });
    expect(r.evidence).toHaveLength(3);
    expect(r.evidence[0]).toMatchObject({ check: 'contract', clauses: ['4.1-response-fields'] });
    expect(r.evidence[0]!.curl).toContain('$ACCESS_TOKEN');
    expect(r.evidence[0]!.exchange).not.toContain('secret-token');
  });

  it('JSON labelled text/plain is a 4-json-bodies finding, and its body is still validated', () => {
    const findings = observeResponse(contract, 'createPaymentLink', created({ ...good, urlEnlace: undefined }, 'text/plain', true));
    expect(findings.flatMap((f) => f.clauses)).toEqual(['4-json-bodies', '4.1-response-fields']);
    expect(contractRecord('createPaymentLink')!.clauses.get('4-json-bodies')!.first).toContain('text/plain');
  });

  it('a format the spec only describes (a clause of kind description) is tallied as observed, never as broken', () => {
    observeResponse(contract, 'createPaymentLink', created({ ...good, urlEnlace: '' }));
    observeResponse(contract, 'createPaymentLink', created({ ...good, urlEnlace: 'enlace 1', idEnlace: '1' }));
    const r = contractRecord('createPaymentLink')!;
    expect(r).toMatchObject({ seen: 2, broken: 1 });
    expect([...r.clauses.keys()]).toEqual(['4.1-response-fields']);
    expect(r.observed.get('2.1-link-urls')).toMatchObject({
      count: 2,
      first: '/urlEnlace must match format "uri" (got a string of 0 characters)',
    });
    expect(r.evidence.flatMap((e) => e.clauses)).toEqual(['4.1-response-fields']);
  });

  it('nullable fields left out are observed once per response under 2-nullable-omitted; a non-nullable one still breaks', () => {
    const looked = (body: unknown): Exchange => ({ ...created(body), label: 'getTransaction' });
    const tx = {
      idTransaccion: 't',
      esReal: false,
      esAprobada: false,
      formaPago: 0,
      monto: 1,
      fechaTransaccion: '2026-11-22T10:00:00.000Z',
    };
    expect(observeResponse(contract, 'getTransaction', looked(tx))).toEqual([
      expect.objectContaining({ clauses: ['2-nullable-omitted'], severity: 'observe' }),
    ]);
    observeResponse(contract, 'getTransaction', looked({ ...tx, montoOriginal: null }));
    observeResponse(contract, 'getTransaction', looked({ ...tx, montoOriginal: null, resultadoTransaccion: null }));
    observeResponse(contract, 'getTransaction', looked({ ...tx, esAprobada: undefined }));
    const r = contractRecord('getTransaction')!;
    expect(r).toMatchObject({ seen: 4, broken: 1 });
    expect([...r.clauses.keys()]).toEqual(['2.2-transaction-types']);
    expect(r.observed.get('2-nullable-omitted')).toEqual({
      count: 3,
      first: '/montoOriginal left out: a nullable field, read as null (2 in this body: /montoOriginal, /resultadoTransaccion)',
    });
  });

  it('a later clause gets its own evidence even after three exchanges were kept', () => {
    for (let i = 0; i < 3; i++) observeResponse(contract, 'createPaymentLink', created({ ...good, idEnlace: '1' }));
    observeResponse(contract, 'createPaymentLink', created(good, 'text/plain', true));
    expect(contractRecord('createPaymentLink')!.evidence.map((e) => e.clauses)).toContainEqual(['4-json-bodies']);
  });

  it('webhooks: PascalCase read as camelCase when configured; names of enums are a 2.2 finding', () => {
    const webhook = (json: unknown): ReceivedWebhook => ({
      at: new Date(),
      method: 'POST',
      path: '/webhook/t',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      rawBody: Buffer.from(JSON.stringify(json)),
      json,
      answeredStatus: 200,
    });
    const body = {
      idTransaccion: 'a',
      esReal: false,
      esAprobada: true,
      formaPago: 0,
      monto: 1,
      resultadoTransaccion: 0,
      datosAdicionales: {},
      esProductiva: false,
    };
    const pascal = Object.fromEntries(Object.entries(body).map(([k, v]) => [k[0]!.toUpperCase() + k.slice(1), v]));
    expect(observeWebhook(contract, webhook(pascal), 'insensitive')).toEqual([]);
    const named = observeWebhook(contract, webhook({ ...body, formaPago: 'PagoNormal' }), 'exact');
    expect(named.flatMap((f) => f.clauses)).toContain('2.2-formapago-values');
    expect(contractRecord(WEBHOOK)).toMatchObject({ seen: 2, broken: 1 });
  });

  it('webhooks: a JSON body under another Content-Type, or none, is observed (6.1 shows no payload), never failed', () => {
    const webhook = (headers: Record<string, string>): ReceivedWebhook => ({
      at: new Date(),
      method: 'POST',
      path: '/webhook/t',
      headers,
      rawBody: Buffer.from('{"idTransaccion":"a"}'),
      json: { idTransaccion: 'a' },
      answeredStatus: 200,
    });
    const typeFinding = (headers: Record<string, string>) =>
      observeWebhook(contract, webhook(headers), 'exact').filter((f) => /Content-Type/.test(f.actual));
    expect(typeFinding({ 'content-type': 'application/json' })).toEqual([]);
    expect(typeFinding({ 'content-type': 'application/vnd.pagos+json; charset=utf-8' })).toEqual([]);
    for (const headers of [{ 'content-type': 'text/plain;charset=UTF-8' }, {}] as Record<string, string>[]) {
      expect(typeFinding(headers)).toEqual([expect.objectContaining({ clauses: ['6.1-webhook-payload-not-shown'], severity: 'observe' })]);
    }
  });
});
