import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../harness/api/receiver.ts';
import { webhookBodyField, webhookField, webhookTransaction, forTransaction } from '../../harness/judge/webhook.ts';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const key = 'sandbox-secret';
const sign = (body: string) => createHmac('sha256', key).update(body).digest('hex');

async function start(options: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> {
  receiver = await startReceiver({ signature: { header: 'x-signature', algorithm: 'hmac-sha256', key }, ...options });
  return receiver;
}

function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Response> {
  const payload = typeof body === 'string' ? body : new Uint8Array(body);
  return fetch(url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...headers } });
}

describe('receiver', () => {
  it('stores webhooks and checks the signature over the raw bytes', async () => {
    const r = await start();
    // unusual spacing: the signature must be over the bytes as sent, not a re-serialisation
    const body = '{ "idTransaccion":"t-1",  "monto": 10.00 }';
    expect((await post(r.webhookUrl('link-1'), body, { 'x-signature': sign(body) })).status).toBe(200);
    expect((await post(r.webhookUrl(), body, { 'x-signature': sign(body + ' ') })).status).toBe(200);
    expect((await post(r.webhookUrl(), body)).status).toBe(200);
    const [good, bad, missing] = r.webhooks();
    expect(good).toMatchObject({ tag: 'link-1', json: { idTransaccion: 't-1', monto: 10 }, signatureValid: true, answeredStatus: 200 });
    expect(good?.rawBody.toString()).toBe(body);
    expect(bad?.signatureValid).toBe(false);
    expect(missing?.signatureValid).toBe(false);
    expect(missing?.tag).toBeUndefined();
  });

  it('leaves signatureValid undefined when no signature is configured', async () => {
    receiver = await startReceiver();
    await post(receiver.webhookUrl(), '{}', { 'x-signature': sign('{}') });
    expect(receiver.webhooks()[0]?.signatureValid).toBeUndefined();
  });

  it('waits for a webhook by idTransaccion, including one that came earlier', async () => {
    const r = await start();
    await post(r.webhookUrl(), '{"idTransaccion":"early"}');
    await expect(r.waitForWebhook(forTransaction('early'), 100)).resolves.toMatchObject({ json: { idTransaccion: 'early' } });
    const waiting = r.waitForWebhook(forTransaction('later'), 2000);
    setTimeout(() => void post(r.webhookUrl(), '{"idTransaccion":"later"}'), 20);
    await expect(waiting).resolves.toMatchObject({ json: { idTransaccion: 'later' } });
    // PascalCase only matches when asked
    await post(r.webhookUrl(), '{"IdTransaccion":"pascal"}');
    await expect(r.waitForWebhook(forTransaction('pascal', 'insensitive'), 100)).resolves.toBeDefined();
    expect(webhookField(r.webhooks().at(-1)!, 'idTransaccion')).toBeUndefined();
  });

  it('rejects with a clear message when no webhook comes', async () => {
    const r = await start();
    await expect(r.waitForWebhook(forTransaction('abc-123'), 150)).rejects.toThrow(
      'no webhook for idTransaccion abc-123 within 0.15 s (0 webhook(s) received in all)',
    );
    await expect(r.waitForWebhook((w) => w.tag === 'x', 50)).rejects.toThrow('no webhook matching the condition within 0.05 s');
  });

  it('answers 413 to an oversized body without keeping it', async () => {
    const r = await start({ maxBodyBytes: 1024 });
    const res = await post(r.webhookUrl(), Buffer.alloc(64 * 1024, 'a'));
    expect(res.status).toBe(413);
    // chunked, no content-length
    const chunked = await fetch(r.webhookUrl(), {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(512));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(r.webhooks().map((w) => [w.answeredStatus, w.oversized, w.rawBody.length])).toEqual([
      [413, true, 0],
      [413, true, 0],
    ]);
    // still serving
    expect((await post(r.webhookUrl(), '{}')).status).toBe(200);
  });

  it('survives garbage and stores whatever it is sent', async () => {
    const r = await start();
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(r.baseUrl).port), '127.0.0.1', () => {
        socket.end('\x00\x01GARBAGE / HTTP/9.9\r\n\r\n\xff\xfe');
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    expect((await post(`${r.baseUrl}/some/other/path?x=1`, 'not json at all', { 'content-type': 'text/plain' })).status).toBe(200);
    expect((await post(r.webhookUrl('%E0%A4%A'), '[1,2')).status).toBe(200);
    expect((await fetch(`${r.baseUrl}/anything`, { method: 'DELETE' })).status).toBe(200);
    const stored = r.webhooks();
    expect(stored).toHaveLength(3);
    expect(stored[0]).toMatchObject({ path: '/some/other/path?x=1', method: 'POST' });
    expect(stored[0]?.json).toBeUndefined();
    expect(stored[0]?.rawBody.toString()).toBe('not json at all');
  });

  it('fails the next n deliveries on request, then answers 200 again', async () => {
    const r = await start();
    r.failNext(2, 503);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(r.webhookUrl(), '{"idTransaccion":"t"}')).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect(r.webhooks().map((w) => w.answeredStatus)).toEqual([503, 503, 200]);
  });

  it("with a tag, fails only deliveries to that tag (another test's webhook goes through)", async () => {
    const r = await start();
    r.failNext(1, 503, 'retry');
    expect((await post(r.webhookUrl('other'), '{"idTransaccion":"a"}')).status).toBe(200);
    expect((await post(r.webhookUrl('retry'), '{"idTransaccion":"b"}')).status).toBe(503);
    expect((await post(r.webhookUrl('retry'), '{"idTransaccion":"b"}')).status).toBe(200);
  });

  it('keeps one plan per tag: a second tag set at once does not replace the first', async () => {
    const r = await start();
    r.failNext(1, 503, 'retry');
    r.failNext(1, 204, 'no-content');
    expect((await post(r.webhookUrl('no-content'), '{"idTransaccion":"a"}')).status).toBe(204);
    expect((await post(r.webhookUrl('retry'), '{"idTransaccion":"b"}')).status).toBe(503);
    r.failNext(0, 200, 'no-content');
    expect((await post(r.webhookUrl('retry'), '{"idTransaccion":"b"}')).status).toBe(200);
  });

  it('records redirects with their query, under the public URL when given', async () => {
    receiver = await startReceiver({ publicUrl: 'https://tunnel.example.test/' });
    expect(receiver.baseUrl).toBe('https://tunnel.example.test');
    expect(receiver.redirectUrl('r 1')).toBe('https://tunnel.example.test/redirect/r%201');
    const local = await startReceiver();
    try {
      const res = await fetch(`${local.redirectUrl('t')}?idTransaccion=x&monto=10.00&hash=ab`);
      expect(res.status).toBe(200);
      expect(local.redirects()).toMatchObject([{ tag: 't', params: { idTransaccion: 'x', monto: '10.00', hash: 'ab' } }]);
      expect(local.webhooks()).toEqual([]);
    } finally {
      await local.close();
    }
  });

  it('keeps a bounded number of webhooks', async () => {
    const r = await start({ maxStored: 3 });
    for (let i = 0; i < 5; i++) await post(r.webhookUrl(), JSON.stringify({ i }));
    expect(r.webhooks().map((w) => (w.json as { i: number }).i)).toEqual([2, 3, 4]);
  });
  it('hands every webhook to onWebhook, and survives a throwing hook', async () => {
    const seen: unknown[] = [];
    const r = await start({
      onWebhook: (w) => (
        seen.push(w.json),
        (() => {
          throw new Error('hook bug');
        })()
      ),
    });
    expect((await post(r.webhookUrl('a'), '{"esProductiva":true}')).status).toBe(200);
    expect((await post(r.webhookUrl('b'), 'not json')).status).toBe(200);
    expect(seen).toEqual([{ esProductiva: true }, undefined]);
    expect(r.webhooks()).toHaveLength(2);
  });

  it('reads the transaction of a body that wraps it (the payload is not shown), in either case', () => {
    const wrapped = { evento: 'transaccion.aprobada', transaccion: { idTransaccion: 't-9', esProductiva: false } };
    expect(webhookBodyField(wrapped, 'idTransaccion')).toBe('t-9');
    expect(webhookBodyField(wrapped, 'evento')).toBe('transaccion.aprobada');
    expect(webhookBodyField({ Evento: 'x', Datos: { IdTransaccion: 't-8' } }, 'idTransaccion', 'insensitive')).toBe('t-8');
    expect(webhookTransaction({ idTransaccion: 't-7', datos: { idTransaccion: 'other' } })).toMatchObject({ idTransaccion: 't-7' });
    // two candidates: nothing is guessed
    expect(webhookBodyField({ a: { idTransaccion: '1' }, b: { idTransaccion: '2' } }, 'idTransaccion')).toBeUndefined();
  });
});
