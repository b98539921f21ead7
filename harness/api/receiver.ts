/**
 * The merchant side of spec 6: a small HTTP server that receives webhooks (6.1) and browser redirects (6.3).
 *
 *   const receiver = await startReceiver({ signature: { header: 'x-signature', algorithm: 'hmac-sha256', key } });
 *   configuracion.urlWebhook = receiver.webhookUrl('t1');     // POSTs to /webhook/t1
 *   const w = await receiver.waitForWebhook(forTransaction(idTransaccion), 10_000);   // judge/webhook.ts
 *   receiver.failNext(2, 503);                                // to observe retries
 *
 * Every request is stored (bounded) and answered 200 unless failNext says otherwise; bodies over maxBodyBytes get
 * 413 without being buffered. `signatureValid` is the lowercase-hex HMAC-SHA256 of the raw bytes compared in
 * constant time (undefined when no signature is configured). It never crashes on any input.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { currentRecord, type TestRecord } from '../record/test-record.ts';
import { noteStep } from '../record/transcript.ts';
import { redactBodyText } from '../record/redact.ts';

export interface ReceivedWebhook {
  at: Date;
  method: string;
  /** Path and query as received. */
  path: string;
  /** The tag of webhookUrl(tag), when the path is /webhook/<tag>. */
  tag?: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** The body parsed as JSON, when it is JSON (after a UTF-8 byte-order mark, which `bom` then records). */
  json?: unknown;
  /** The body began with a UTF-8 byte-order mark before its JSON: read anyway, observed (harness/judge/checks.ts). */
  bom?: true;
  signatureValid?: boolean;
  /** The status the receiver answered (200, a failNext status, or 413). */
  answeredStatus: number;
  /** Larger than maxBodyBytes: answered 413, body not kept. */
  oversized?: true;
}

export interface ReceivedRedirect {
  at: Date;
  path: string;
  tag?: string;
  /** The outcome query (spec 6.3). */
  params: Record<string, string>;
}

/** A predicate, or the idTransaccion to wait for (field name matched per WEBHOOK_FIELD_CASE). */
/** What a test waits for: a condition, or one with words for the message (judge/webhook.ts `forTransaction`). */
export type WebhookMatch = ((w: ReceivedWebhook) => boolean) | { test: (w: ReceivedWebhook) => boolean; what: string };

export interface Receiver {
  /** Public URL when given, else the bound loopback address; no trailing slash. */
  baseUrl: string;
  webhookUrl(tag?: string): string;
  redirectUrl(tag?: string): string;
  waitForWebhook(match: WebhookMatch, timeoutMs: number): Promise<ReceivedWebhook>;
  webhooks(): ReceivedWebhook[];
  redirects(): ReceivedRedirect[];
  /**
   * Answer the next n webhook deliveries with `status` (only those to webhookUrl(tag), when a tag is given: tests run
   * concurrently, and each tag keeps its own plan, which another tag's call leaves alone).
   */
  failNext(n: number, status: number, tag?: string): void;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  host?: string;
  port?: number;
  publicUrl?: string;
  maxBodyBytes?: number;
  signature?: { header: string; algorithm: 'hmac-sha256'; key: string };
  /** Stored webhooks (and redirects) kept, oldest dropped first. */
  maxStored?: number;
  /** Bytes of stored webhooks (body, path, headers) kept, oldest dropped first: a storm of near-limit bodies stays bounded. */
  maxStoredBytes?: number;
  /** Called with every webhook received (the run's interlock watches them); a throw is ignored. */
  onWebhook?: (w: ReceivedWebhook) => void;
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const {
    host = '127.0.0.1',
    port = 0,
    maxBodyBytes = 1024 * 1024,
    signature,
    maxStored = 10_000,
    maxStoredBytes = 32 * 1024 * 1024,
    onWebhook,
  } = options;
  const webhooks: ReceivedWebhook[] = [];
  const redirects: ReceivedRedirect[] = [];
  const waiters = new Set<{ test: (w: ReceivedWebhook) => boolean; resolve: (w: ReceivedWebhook) => void }>();
  // A test that waited for webhooks gets every matching one in its transcript, until it ends (deliveries arrive
  // outside the test's own code, so they are routed to it by what it waited for).
  const watches = new Set<{ test: (w: ReceivedWebhook) => boolean; scope: TestRecord }>();
  const noted = new WeakMap<TestRecord, WeakSet<ReceivedWebhook>>();
  const note = (scope: TestRecord, w: ReceivedWebhook) => {
    const seen = noted.get(scope) ?? new WeakSet<ReceivedWebhook>();
    noted.set(scope, seen);
    if (seen.has(w)) return;
    seen.add(w);
    noteStep(
      { kind: 'webhook', title: `webhook received: ${w.method} ${w.path} (answered ${w.answeredStatus})`, detail: webhookDetail(w) },
      scope,
    );
  };
  // One plan per tag (tests run concurrently, each with its own tag), and one for any delivery (key undefined).
  const failures = new Map<string | undefined, { left: number; status: number }>();

  const keep = <T>(list: T[], item: T) => {
    list.push(item);
    if (list.length > maxStored) list.shift();
  };

  let storedBytes = 0;
  function store(w: ReceivedWebhook): void {
    webhooks.push(w);
    storedBytes += sizeOf(w);
    while (webhooks.length > maxStored || (storedBytes > maxStoredBytes && webhooks.length > 1)) {
      storedBytes -= sizeOf(webhooks.shift()!);
    }
    if (onWebhook) safeTest((x) => (onWebhook(x), true), w);
    for (const watch of watches) {
      if (watch.scope.closed) watches.delete(watch);
      else if (safeTest(watch.test, w)) note(watch.scope, w);
    }
    for (const waiter of waiters) if (safeTest(waiter.test, w)) waiter.resolve(w);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '/';
    const [pathname = '/', query = ''] = path.split('?', 2);
    const segments = pathname.split('/').filter((s) => s !== '');
    const tag = segments.length > 1 ? safeDecode(segments.slice(1).join('/')) : undefined;

    if (segments[0] === 'redirect' && (req.method === 'GET' || req.method === 'HEAD')) {
      keep(redirects, {
        at: new Date(),
        path,
        ...(tag === undefined ? {} : { tag }),
        params: Object.fromEntries(new URLSearchParams(query)),
      });
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><p>redirect received</p>');
      return;
    }

    const base = {
      at: new Date(),
      method: req.method ?? '',
      path,
      ...(segments[0] === 'webhook' && tag !== undefined ? { tag } : {}),
      headers: { ...req.headers },
    };
    const declared = Number(req.headers['content-length']);
    if (declared > maxBodyBytes) return tooLarge(req, res, base);

    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        done = true;
        chunks.length = 0;
        tooLarge(req, res, base);
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      done = true;
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      const rawBody = Buffer.concat(chunks);
      const own = base.tag === undefined ? undefined : failures.get(base.tag);
      const plan = own !== undefined && own.left > 0 ? own : failures.get(undefined);
      const status = plan !== undefined && plan.left > 0 ? (plan.left--, plan.status) : 200;
      const json = parseJson(rawBody);
      store({
        ...base,
        rawBody,
        ...(json === undefined ? {} : { json }),
        ...(hasBom(rawBody) ? { bom: true as const } : {}),
        ...(signature ? { signatureValid: verify(signature, rawBody, req.headers[signature.header.toLowerCase()]) } : {}),
        answeredStatus: status,
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'failing on purpose');
    });
  }

  function tooLarge(req: IncomingMessage, res: ServerResponse, base: Omit<ReceivedWebhook, 'rawBody' | 'answeredStatus'>): void {
    store({ ...base, rawBody: Buffer.alloc(0), answeredStatus: 413, oversized: true });
    // Answer, then drop the connection instead of reading the rest.
    res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end('body too large', () => req.destroy());
  }

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch {
      if (!res.headersSent) res.writeHead(400).end();
    }
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  server.on('error', () => undefined);
  const address = server.address() as AddressInfo;
  const loopback = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const baseUrl = (options.publicUrl ?? loopback).replace(/\/+$/, '');
  const withTag = (kind: string, tag?: string) => `${baseUrl}/${kind}${tag === undefined ? '' : `/${encodeURIComponent(tag)}`}`;

  return {
    baseUrl,
    webhookUrl: (tag) => withTag('webhook', tag),
    redirectUrl: (tag) => withTag('redirect', tag),
    webhooks: () => [...webhooks],
    redirects: () => [...redirects],
    failNext(n, status, tag) {
      failures.set(tag, { left: n, status });
    },
    waitForWebhook(match, timeoutMs) {
      const { test, what } = matcher(match);
      const scope = currentRecord();
      if (scope) {
        for (const w of webhooks) if (safeTest(test, w)) note(scope, w);
        watches.add({ test, scope });
      }
      const already = webhooks.find((w) => safeTest(test, w));
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const waiter = {
          test,
          resolve: (w: ReceivedWebhook) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(w);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no webhook ${what} within ${timeoutMs / 1000} s (${webhooks.length} webhook(s) received in all)`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function matcher(match: WebhookMatch): { test: (w: ReceivedWebhook) => boolean; what: string } {
  return typeof match === 'function' ? { test: match, what: 'matching the condition' } : match;
}

/** A received webhook for a transcript: a few headers and the body, redacted. */
function webhookDetail(w: ReceivedWebhook): string {
  const type = String(w.headers['content-type'] ?? '');
  const shown = Object.entries(w.headers).filter(([k]) => k === 'content-type' || /signature|hmac|hash/i.test(k));
  return [
    `> ${w.method} ${w.path}`,
    ...shown.map(([k, v]) => `> ${k}: ${String(v)}`),
    w.oversized ? '(body over the size bound, not kept)' : redactBodyText(w.rawBody.toString('utf8'), type),
    ...(w.signatureValid === undefined ? [] : [`signature ${w.signatureValid ? 'verifies' : 'does not verify'}`]),
  ].join('\n');
}

/** What a stored webhook holds on to, roughly: its body, path and header text. */
function sizeOf(w: ReceivedWebhook): number {
  let size = w.rawBody.length + w.path.length;
  for (const [name, value] of Object.entries(w.headers)) size += name.length + String(value ?? '').length;
  return size;
}

/** A throwing predicate (a test's bug, or an odd body) must not break the receiver. */
function safeTest(test: (w: ReceivedWebhook) => boolean, w: ReceivedWebhook): boolean {
  try {
    return test(w);
  } catch {
    return false;
  }
}

function verify(signature: NonNullable<ReceiverOptions['signature']>, rawBody: Buffer, received: string | string[] | undefined): boolean {
  if (typeof received !== 'string') return false;
  const expected = Buffer.from(createHmac('sha256', signature.key).update(rawBody).digest('hex'));
  const given = Buffer.from(received.trim().toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const hasBom = (raw: Buffer): boolean => raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;

/** The body as JSON; a byte-order mark before it is skipped (a tolerant reader: the mark is observed, not a blind spot). */
function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.subarray(hasBom(raw) ? 3 : 0).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
