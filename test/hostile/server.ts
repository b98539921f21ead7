/**
 * A hostile target: a node:http server on 127.0.0.1 that misbehaves in one chosen way, to check that the suite stays
 * trustworthy (bounded, clear, no double POSTs, no leaked secrets) against a broken target.
 *
 *   const target = await startHostile({ behaviour: 'silent', healthy: 1 });
 *   // API_BASE_URL=target.baseUrl AUTH_URL=target.authUrl CLIENT_ID/SECRET=target.credentials …
 *   target.counts()['POST /EnlacePago'];   target.repeats();   await target.close();
 *
 * Layout: the API at the root ({base_url} = origin, so messages read "POST /EnlacePago"), the token issuer at
 * /auth/connect/token, and /__sandbox answers 404 (it is no sandbox). A realistic broken deployment keeps its
 * token issuer (a separate service) working while the API misbehaves, so the token works unless `breakToken`.
 * The first `healthy` API requests are answered well (a created link of a development business), so a run gets
 * past the mode probe and meets the behaviour in the tests themselves.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export type Behaviour =
  /** Accepts the connection, reads the request, never answers. */
  | 'silent'
  /** Sends status and headers of a JSON 200, a few bytes of body, then nothing more. */
  | 'stall-body'
  /** Resets the connection (TCP RST) once the request is read. */
  | 'reset'
  /** 500, 502, 503 in turn, with an HTML error page (a proxy in front of a dead service). */
  | 'html-5xx'
  /** 429 with Retry-After: 30 (a rate limiter's usual minute-scale answer). */
  | 'rate-limit'
  /** 200 with a JSON content type and an HTML body. */
  | 'non-json'
  /** 200 with a JSON content type and JSON cut in the middle (the HTTP message itself is complete). */
  | 'truncated-json'
  /** 200 with a JSON content type and a 10 MB body. */
  | 'huge-body'
  /** 302 to the same URL, forever. */
  | 'redirect-loop'
  /** 200 whose JSON body echoes the request's headers and body (card number, cvv, credentials included). */
  | 'echo';

export interface HostileOptions {
  behaviour: Behaviour;
  /** API requests answered well before the behaviour starts (1 = the mode probe passes). Default 0. */
  healthy?: number;
  /** Misbehave on the token endpoint too. Default false. */
  breakToken?: boolean;
}

export interface HostileServer {
  /** Origin, also {base_url}. */
  baseUrl: string;
  /** {auth_url}; the token is at `${authUrl}/connect/token`. */
  authUrl: string;
  credentials: { clientId: string; clientSecret: string };
  /** Access tokens issued so far. */
  tokens: string[];
  /** Requests received, by `METHOD /path` (query dropped). */
  counts(): Record<string, number>;
  /**
   * Non-GET API requests received more than once byte for byte (method, path, authorization, body) other than after a
   * 429 or 503: re-sends of what may have been processed.
   */
  repeats(): string[];
  /** Bytes of huge bodies actually written (the client stops reading, so this stays well under 10 MB). */
  hugeBytesWritten(): number;
  close(): Promise<void>;
}

export const TEN_MB = 10 * 1024 * 1024;

export async function startHostile(options: HostileOptions): Promise<HostileServer> {
  const { behaviour, healthy = 0, breakToken = false } = options;
  const credentials = { clientId: 'hostile-client', clientSecret: `hostile-secret-${randomUUID()}` };
  const tokens: string[] = [];
  const counts: Record<string, number> = {};
  const fingerprints = new Map<string, number>();
  const notNow = new Map<string, boolean>();
  let healthyLeft = healthy;
  let turn = 0;
  let nextLink = 1;
  let hugeBytes = 0;

  function misbehave(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    switch (behaviour) {
      case 'silent':
        return;
      case 'stall-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"idEnlace": ');
        return;
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'html-5xx': {
        const status = [500, 502, 503][turn++ % 3]!;
        res.writeHead(status, { 'content-type': 'text/html' }).end(`<html><body><h1>${status} upstream error</h1></body></html>`);
        return;
      }
      case 'rate-limit':
        res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '30' }).end('Too Many Requests');
        return;
      case 'non-json':
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html><body>Service Unavailable</body></html>');
        return;
      case 'truncated-json':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"idEnlace": 7, "urlEnlace": "http://127.0.0.1/l/ab');
        return;
      case 'huge-body':
        return pump(res, (n) => (hugeBytes += n));
      case 'redirect-loop':
        res.writeHead(302, { location: req.url ?? '/' }).end();
        return;
      case 'echo':
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ recibido: { headers: req.headers, body: body.toString('utf8') } }));
        return;
    }
  }

  function token(res: ServerResponse, body: Buffer): void {
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('client_id') !== credentials.clientId || form.get('client_secret') !== credentials.clientSecret) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
      return;
    }
    const accessToken = `hostile-token-${randomUUID()}`;
    tokens.push(accessToken);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: accessToken, expires_in: 3600, token_type: 'Bearer', scope: 'service_api' }));
  }

  function wellBehaved(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'POST' && pathOf(req) === '/EnlacePago') {
      const id = nextLink++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          idEnlace: id,
          urlQrCodeEnlace: `${baseUrl}/qr/${id}.png`,
          urlEnlace: `${baseUrl}/l/${id}`,
          estaProductivo: false,
        }),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"errores":[]}');
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const path = pathOf(req);
    const key = `${req.method} ${path}`;
    counts[key] = (counts[key] ?? 0) + 1;
    if (path === '/__sandbox') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (path.startsWith('/auth/')) {
      if (breakToken) return misbehave(req, res, body);
      return path === '/auth/connect/token' && req.method === 'POST' ? token(res, body) : wellBehaved(req, res);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      // A re-send after 429 or 503 ("not now": nothing was processed) is allowed; after any other answer, or none,
      // it is a repeat.
      const print = `${key} ${req.headers.authorization ?? '-'} ${createHash('sha256').update(body).digest('hex')}`;
      const seen = fingerprints.get(print);
      fingerprints.set(print, seen === undefined ? 1 : seen + (notNow.get(print) ? 0 : 1));
      notNow.set(print, false);
      res.on('finish', () => notNow.set(print, res.statusCode === 429 || res.statusCode === 503));
    }
    if (healthyLeft > 0) {
      healthyLeft--;
      return wellBehaved(req, res);
    }
    misbehave(req, res, body);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
    req.on('error', () => undefined);
    res.on('error', () => undefined);
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    authUrl: `${baseUrl}/auth`,
    credentials,
    tokens,
    counts: () => ({ ...counts }),
    hugeBytesWritten: () => hugeBytes,
    repeats: () => [...fingerprints].filter(([, n]) => n > 1).map(([print, n]) => `${print.split(' ').slice(0, 2).join(' ')} ×${n}`),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0]!;
}

/** Streams a 10 MB JSON body, respecting backpressure, and stops when the client goes away. */
function pump(res: ServerResponse, wrote: (bytes: number) => void): void {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let written = 0;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(TEN_MB + 10) });
  res.write('{"pad":"');
  const more = (): void => {
    while (written < TEN_MB) {
      if (res.destroyed) return;
      written += chunk.length;
      wrote(chunk.length);
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end('"}');
  };
  more();
}

export interface StormOptions {
  /** Requests in all. */
  count: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Size of the oversized bodies (over the receiver's bound). */
  oversizedBytes?: number;
}

export interface StormResult {
  /** Status answered, or `error` when the connection failed (an oversized body is cut off on purpose). */
  outcomes: Record<string, number>;
}

/**
 * A webhook storm, as a runaway target would send it: POSTs to `url` (a webhook URL of the receiver) for unknown
 * transactions, with garbage bodies, broken JSON, wrong content types, odd paths, oversized bodies (declared and
 * chunked) and raw non-HTTP bytes, `concurrency` at a time.
 */
export async function webhookStorm(url: string, options: StormOptions): Promise<StormResult> {
  const { count, concurrency = 32, oversizedBytes = 2 * 1024 * 1024 } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const outcomes: Record<string, number> = {};
  const big = Buffer.alloc(oversizedBytes, 'x');
  let next = 0;

  const one = async (i: number): Promise<string> => {
    switch (i % 8) {
      case 0:
        return post(agent, target, '/webhook/..%2F..%2Fetc%2F%E0%A4%A', '{"idTransaccion":', 'application/json');
      case 1:
        return post(agent, target, target.pathname, Buffer.from([0, 255, 254, 1, 2, 3]), 'application/octet-stream');
      case 2:
        return post(agent, target, target.pathname, big, 'application/json');
      case 3:
        return post(agent, target, target.pathname, big, 'application/json', true);
      case 4:
        return raw(target, 'POST /webhook HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n\x00\x01garbage');
      default:
        return post(
          agent,
          target,
          target.pathname,
          JSON.stringify({ idTransaccion: randomUUID(), esAprobada: true, monto: i, esProductiva: false }),
          'application/json',
        );
    }
  };

  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const outcome = await one(next++);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  return { outcomes };
}

function post(agent: Agent, target: URL, path: string, body: string | Buffer, contentType: string, chunked = false): Promise<string> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'content-type': contentType };
    if (!chunked) headers['content-length'] = String(Buffer.byteLength(body));
    const req = request({ agent, host: target.hostname, port: target.port, method: 'POST', path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', () => resolve('error'));
    });
    req.on('error', () => resolve('error'));
    req.end(body);
  });
}

function raw(target: URL, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname, () => socket.end(text));
    socket.on('data', () => undefined);
    socket.on('close', () => resolve('raw'));
    socket.on('error', () => undefined);
  });
}
