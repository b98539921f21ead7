/**
 * The internet between a client and the sandbox, simulated (option `network`, `--network`, SANDBOX_NETWORK): what a
 * vendor's development service behind a gateway does to a merchant's CI — latency, a rate limit answered 429, transient
 * 503s before processing, 502s after processing, keep-alive connections closed (announced) or dropped (not), gzip,
 * webhooks late, twice and out of order. All of it is allowed by the spec, which shows no rate limit, no error format
 * and no delivery guarantee, so a suite that is right on the internet passes against every profile.
 *
 * Seeded (`networkSeed`): the same seed draws the same decisions in the same order of requests (and of webhooks, a
 * second stream, so deliveries never shift the requests' draws). Wall-clock time decides only the rate limit.
 * What the network did is counted for `GET /__sandbox/network`. State lives in the returned object (one per app).
 */
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const NETWORKS = ['mild', 'rough', 'throttled', 'unavailable'] as const;
export type NetworkName = (typeof NETWORKS)[number];

export interface NetworkProfile {
  /** Delay before a request reaches the sandbox: min + (max − min) · u^tail (tail 1 = uniform; larger = heavier tail). */
  latencyMs: readonly [number, number];
  tail: number;
  /** Requests per second the API takes (a sliding second); more are answered 429 with Retry-After: 1. */
  rps?: number;
  /** Share of API requests answered 503 before processing (half of them with Retry-After: 1, half without). */
  p503: number;
  /** Share of API POSTs answered 502 after the sandbox processed them (the gateway lost the answer). */
  p502AfterPost: number;
  /** Share of API requests whose connection is destroyed without an answer (half before, half after processing). */
  pDrop: number;
  /** A keep-alive connection is closed, announced (`Connection: close`), after this many answers. */
  closeAfter?: readonly [number, number];
  /** Bodies gzipped when the client sends Accept-Encoding: gzip. */
  gzip: boolean;
  /** Each webhook delivery is this late; some are delivered twice (each copy at its own delay: out of order). */
  webhook: { delayMs: readonly [number, number]; pTwice: number };
  /** Every API request answered so, forever (no latency: the harness's "target keeps refusing" exit). */
  always?: 429 | 503;
  /** Suite settings a vendor behind such a network would give (as variants' settings): how late its webhooks come. */
  settings?: Readonly<Record<string, string>>;
}

const PROFILES: Record<NetworkName, NetworkProfile> = {
  mild: {
    latencyMs: [20, 300],
    tail: 1,
    rps: 20,
    p503: 0.01,
    p502AfterPost: 0,
    pDrop: 0,
    closeAfter: [5, 50],
    gzip: true,
    webhook: { delayMs: [500, 8000], pTwice: 0.1 },
    settings: { WEBHOOK_TIMEOUT_S: '15' },
  },
  rough: {
    // u^4: median ≈ 140 ms, one in ten above 1 s.
    latencyMs: [50, 1500],
    tail: 4,
    rps: 8,
    p503: 0.04,
    p502AfterPost: 0.005,
    pDrop: 0.005,
    gzip: true,
    webhook: { delayMs: [1000, 25_000], pTwice: 0.25 },
    settings: { WEBHOOK_TIMEOUT_S: '35' },
  },
  throttled: {
    latencyMs: [0, 0],
    tail: 1,
    p503: 0,
    p502AfterPost: 0,
    pDrop: 0,
    gzip: false,
    webhook: { delayMs: [0, 0], pTwice: 0 },
    always: 429,
  },
  unavailable: {
    latencyMs: [0, 0],
    tail: 1,
    p503: 0,
    p502AfterPost: 0,
    pDrop: 0,
    gzip: false,
    webhook: { delayMs: [0, 0], pTwice: 0 },
    always: 503,
  },
};

/** What the network did, for `GET /__sandbox/network` (the harness's network report is compared with it). */
export interface NetworkCounters {
  /** API and token requests that met the network (control routes never do). */
  requests: number;
  /** Hosted-page requests (latency only). */
  pages: number;
  answered429: number;
  answered503: number;
  /** POSTs the sandbox processed whose answer became a 502. */
  answered502AfterProcessing: number;
  /** Connections destroyed without an answer: before processing, and after it (the request was processed). */
  dropped: number;
  droppedAfterProcessing: number;
  /** Keep-alive connections closed with `Connection: close` on an answer. */
  closed: number;
  gzipped: number;
  webhooksDelayed: number;
  webhooksDuplicated: number;
}

export interface Network {
  readonly name: NetworkName;
  readonly seed: number;
  readonly counters: NetworkCounters;
  /** The delays of one webhook delivery: the first is the sender's attempt, any further one a copy the network made. */
  webhookPlan(): number[];
}

/** mulberry32: small, fast, seeded; enough for drawing network decisions. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Validates the options; undefined when no network is asked for. */
export function resolveNetwork(name: string | undefined, seed: number | undefined): { name: NetworkName; seed: number } | undefined {
  if (name === undefined || name === '' || name === 'none') return undefined;
  if (!(NETWORKS as readonly string[]).includes(name)) {
    throw new Error(`sandbox option network must be one of ${NETWORKS.map((n) => `"${n}"`).join(', ')} (got ${JSON.stringify(name)})`);
  }
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw new Error(`sandbox option networkSeed must be an integer 0..4294967295 (got ${seed})`);
  }
  // Unseeded: a seed of its own, shown by the banner and GET /__sandbox/network so a run can be replayed.
  return { name: name as NetworkName, seed: seed ?? Math.floor(Math.random() * 0x100000000) };
}

/** The suite settings that come with a network (none for an unknown or no name: the option's own check reports those). */
export function networkSettings(name: string | undefined): Readonly<Record<string, string>> {
  return (NETWORKS as readonly string[]).includes(name ?? '') ? (PROFILES[name as NetworkName].settings ?? {}) : {};
}

type Kind = 'api' | 'page' | 'control';

/**
 * Which requests meet which network. The API and the token endpoint (`/api`, `/auth`) sit behind the gateway: rate
 * limit, 503, 502, drops. Hosted pages get latency (and gzip, closes) only: a payer drives them as a person's browser
 * does, which no API gateway rate-limits, and a page lost after a form POST has no lookup that settles it — the
 * suite's payers would be judged on the network instead of the target. `/__sandbox` is the test's own wire: untouched.
 */
function kindOf(url: string): Kind {
  if (url.startsWith('/__sandbox')) return 'control';
  if (url.startsWith('/api/') || url === '/api' || url.startsWith('/auth/')) return 'api';
  return 'page';
}

/** Every draw of one request, taken at once so the sequence of draws never depends on which branch is taken. */
interface Draws {
  latency: number;
  r503: number;
  r503RetryAfter: number;
  r502: number;
  rDrop: number;
  rDropAfter: number;
}

interface RequestPlan {
  kind: Kind;
  drop502?: true;
  dropAfter?: true;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const GATEWAY_BODY: Record<number, string> = {
  429: 'Too Many Requests',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/**
 * Adds the network's hooks to the root app (before any plugin, so they wrap every route) and returns its state.
 * Decisions are drawn at arrival (onRequest); the 502 and the late drop act at onSend, after the route processed.
 */
export function installNetwork(app: FastifyInstance, name: NetworkName, seed: number, sharpen: Partial<NetworkProfile> = {}): Network {
  const profile: NetworkProfile = { ...PROFILES[name], ...sharpen };
  const random = prng(seed);
  const randomWebhook = prng(seed ^ 0x9e3779b9);
  const counters: NetworkCounters = {
    requests: 0,
    pages: 0,
    answered429: 0,
    answered503: 0,
    answered502AfterProcessing: 0,
    dropped: 0,
    droppedAfterProcessing: 0,
    closed: 0,
    gzipped: 0,
    webhooksDelayed: 0,
    webhooksDuplicated: 0,
  };
  const plans = new WeakMap<FastifyRequest, RequestPlan>();
  const sockets = new WeakMap<Socket, { served: number; limit: number }>();
  /** Arrival times (ms) of the API requests taken in the last second. */
  let window: number[] = [];

  const draw = (): Draws => ({
    latency: random(),
    r503: random(),
    r503RetryAfter: random(),
    r502: random(),
    rDrop: random(),
    rDropAfter: random(),
  });
  const between = ([min, max]: readonly [number, number], u: number, tail = 1) => Math.round(min + (max - min) * u ** tail);

  const gateway = (reply: FastifyReply, status: 429 | 503, retryAfter: boolean) => {
    if (retryAfter) reply.header('retry-after', '1');
    // A gateway's page, not the API's error form: the suite must not read one into the other.
    return reply.code(status).type('text/plain; charset=utf-8').send(GATEWAY_BODY[status]);
  };

  const overRate = (): boolean => {
    if (profile.rps === undefined) return false;
    const now = Date.now();
    window = window.filter((t) => now - t < 1000);
    if (window.length >= profile.rps) return true;
    window.push(now);
    return false;
  };

  app.addHook('onRequest', async (req, reply) => {
    const kind = kindOf(req.url);
    if (kind === 'control') return;
    plans.set(req, { kind });
    // A connection's lifetime is drawn when it brings its first request, in arrival order.
    if (profile.closeAfter !== undefined && !sockets.has(req.raw.socket)) {
      sockets.set(req.raw.socket, { served: 0, limit: between(profile.closeAfter, random()) });
    }
    if (kind === 'page') {
      counters.pages += 1;
      const d = draw();
      await sleep(between(profile.latencyMs, d.latency, profile.tail));
      return;
    }
    counters.requests += 1;
    if (profile.always !== undefined) {
      counters[profile.always === 429 ? 'answered429' : 'answered503'] += 1;
      return gateway(reply, profile.always, true);
    }
    const d = draw();
    await sleep(between(profile.latencyMs, d.latency, profile.tail));
    if (overRate()) {
      counters.answered429 += 1;
      return gateway(reply, 429, true);
    }
    if (d.r503 < profile.p503) {
      counters.answered503 += 1;
      return gateway(reply, 503, d.r503RetryAfter < 0.5);
    }
    if (d.rDrop < profile.pDrop) {
      if (d.rDropAfter < 0.5) {
        counters.dropped += 1;
        reply.hijack();
        req.raw.socket.destroy();
        return reply;
      }
      plans.set(req, { kind, dropAfter: true });
    } else if (req.method === 'POST' && d.r502 < profile.p502AfterPost) {
      plans.set(req, { kind, drop502: true });
    }
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const plan = plans.get(req);
    if (plan === undefined) return payload;
    let body = payload;
    if (plan.dropAfter) {
      // Processed, and the answer never arrives: the connection ends under it.
      counters.dropped += 1;
      counters.droppedAfterProcessing += 1;
      req.raw.socket.destroy();
      return body;
    }
    if (plan.drop502) {
      counters.answered502AfterProcessing += 1;
      for (const h of Object.keys(reply.getHeaders())) if (h !== 'date') reply.removeHeader(h);
      reply.code(502).type('text/plain; charset=utf-8');
      body = GATEWAY_BODY[502];
    }
    if (
      profile.gzip &&
      /\bgzip\b/i.test(String(req.headers['accept-encoding'] ?? '')) &&
      (typeof body === 'string' || Buffer.isBuffer(body))
    ) {
      counters.gzipped += 1;
      reply.header('content-encoding', 'gzip');
      reply.header('vary', 'accept-encoding');
      reply.removeHeader('content-length');
      body = gzipSync(body);
    }
    const state = sockets.get(req.raw.socket);
    if (state !== undefined) {
      state.served += 1;
      if (state.served >= state.limit) {
        counters.closed += 1;
        // Node ends the socket after this answer: the client is told, as a gateway recycling connections does.
        reply.header('connection', 'close');
      }
    }
    return body;
  });

  return {
    name,
    seed,
    counters,
    webhookPlan() {
      const { delayMs, pTwice } = profile.webhook;
      const first = between(delayMs, randomWebhook());
      const twice = randomWebhook() < pTwice;
      const copy = between(delayMs, randomWebhook());
      if (first > 0) counters.webhooksDelayed += 1;
      if (!twice) return [first];
      counters.webhooksDuplicated += 1;
      return [first, copy];
    },
  };
}
