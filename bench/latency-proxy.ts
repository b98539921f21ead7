/**
 * A loopback HTTP proxy that adds a fixed delay to every request before forwarding it: a remote target N ms away,
 * for the bench and the soak script. It counts the requests in flight through it (arrival to end of response) and
 * keeps the peak. Bodies are streamed both ways; the upstream is set after start, so a sandbox can be told the
 * proxy's origin as its public one before it exists.
 *
 *   const proxy = await startLatencyProxy({ delayMs: 100 });
 *   proxy.setUpstream('http://127.0.0.1:4010');     // requests to proxy.origin go there, 100 ms later
 *   proxy.peak; proxy.requests; await proxy.close();
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LatencyProxy {
  origin: string;
  setUpstream(origin: string): void;
  /** Requests received so far. */
  readonly requests: number;
  /** Most requests in flight at once. */
  readonly peak: number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

export async function startLatencyProxy(options: { delayMs: number }): Promise<LatencyProxy> {
  const agent = new Agent({ keepAlive: true });
  let upstream: URL | undefined;
  let inFlight = 0;
  let peak = 0;
  let requests = 0;

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    if (!upstream) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('latency proxy: no upstream set');
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const out = request({ agent, host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      const back = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  };

  const server = createServer((req, res) => {
    requests++;
    peak = Math.max(peak, ++inFlight);
    let done = false;
    const finish = () => {
      if (!done) (done = true), inFlight--;
    };
    res.on('close', finish);
    req.pause();
    setTimeout(() => forward(req, res), options.delayMs);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    setUpstream(origin) {
      upstream = new URL(origin);
    },
    get requests() {
      return requests;
    },
    get peak() {
      return peak;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
