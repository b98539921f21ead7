/**
 * The webhook receiver against a hostile target: it binds loopback unless told otherwise, bounds what it
 * reads and keeps, and survives a storm of garbage, oversized and unknown-transaction POSTs while a test waits for
 * its own webhook. A target that sends nothing gets a message that says so.
 */
import { forTransaction } from '../../harness/judge/webhook.ts';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../harness/setup/config.ts';
import { startReceiver, type Receiver } from '../../harness/api/receiver.ts';
import { webhookStorm } from './server.ts';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function storedBytes(r: Receiver): number {
  return r.webhooks().reduce((n, w) => n + w.rawBody.length, 0);
}

async function deliver(r: Receiver, body: unknown): Promise<number> {
  const res = await fetch(r.webhookUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

describe('webhook receiver', () => {
  it('binds loopback unless told otherwise', async () => {
    expect(loadConfig({}, { dotenvPath: null }).receiver.host).toBe('127.0.0.1');
    receiver = await startReceiver();
    expect(new URL(receiver.baseUrl).hostname).toBe('127.0.0.1');
  });

  it('survives a storm of 3000 hostile POSTs and still delivers the one a test waits for', async () => {
    receiver = await startReceiver({ maxBodyBytes: 64 * 1024, maxStored: 1000 });
    const idTransaccion = randomUUID();
    const waiting = receiver.waitForWebhook(forTransaction(idTransaccion), 30_000);
    const heapBefore = process.memoryUsage().heapUsed;

    const storm = await webhookStorm(receiver.webhookUrl('storm'), { count: 3000, concurrency: 32, oversizedBytes: 128 * 1024 });

    // Unknown transactions are stored and answered, oversized bodies refused unread, garbage dropped: no 5xx.
    expect(storm.outcomes['200']).toBeGreaterThan(1500);
    expect((storm.outcomes['413'] ?? 0) + (storm.outcomes['error'] ?? 0)).toBeGreaterThan(0);
    expect(Object.keys(storm.outcomes).filter((s) => s.startsWith('5'))).toEqual([]);
    expect(await deliver(receiver, { idTransaccion, esAprobada: true })).toBe(200);
    expect(await waiting).toMatchObject({ answeredStatus: 200, json: { idTransaccion } });
    expect(receiver.webhooks().length).toBeLessThanOrEqual(1000);
    expect(receiver.webhooks().every((w) => w.rawBody.length <= 64 * 1024)).toBe(true);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it('keeps a bounded number of bytes when a storm sends bodies just under the size bound', async () => {
    receiver = await startReceiver();
    const nearLimit = 'x'.repeat(1024 * 1024 - 64);
    for (let i = 0; i < 48; i++) expect(await deliver(receiver, { idTransaccion: `storm-${i}`, pad: nearLimit })).toBe(200);
    // 48 MiB sent; the receiver keeps the newest 32 MiB at most.
    expect(storedBytes(receiver)).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(receiver.webhooks().at(-1)?.json).toMatchObject({ idTransaccion: 'storm-47' });
    expect(await deliver(receiver, { idTransaccion: 'after' })).toBe(200);
  }, 30_000);

  it('a target that sends no webhook gets a message naming the transaction and the wait', async () => {
    receiver = await startReceiver();
    await deliver(receiver, { idTransaccion: 'someone-else' });
    await expect(receiver.waitForWebhook(forTransaction('tx-never-sent'), 300)).rejects.toThrow(
      'no webhook for idTransaccion tx-never-sent within 0.3 s (1 webhook(s) received in all)',
    );
  });
});
