/**
 * The run's redirect-hash (6.3) and webhook-signature (6.1) schemes: the configured ones, or — REDIRECT_HASH=auto,
 * WEBHOOK_SIGNATURE=auto — the ones discovered on the first redirect / webhook of the run (harness/judge/schemes.ts).
 * One instance per run (harness/run/run.ts); every redirect the payer sees and every webhook is recorded here, so the
 * last testcases (suites/contract.test.ts) judge every later one against the reference scheme.
 * The reference is memoised as a promise: concurrent tests asking at once share the first one's discovery.
 *
 *   const ref = await run.hash!.reference(params);   // { scheme?, tried, params, source }
 *   run.hash!.verifies(params, ref.scheme)             // later redirects must verify with it
 */
import type { Config, DigestName } from '../setup/config.ts';
import type { ReceivedWebhook } from '../api/receiver.ts';
import {
  findRedirectScheme,
  findWebhookSignature,
  redirectKind,
  redirectVerifies,
  webhookVerifies,
  type DigestScheme,
  type Found,
  type RedirectKind,
  type RedirectScheme,
  type WebhookSignature,
} from '../judge/schemes.ts';

export interface Reference<S, Seen> {
  /** What the scheme was found on (auto), or the first seen (configured). */
  seen: Seen;
  scheme?: S;
  /** The schemes that verified `seen` (`scheme` first; one for a configured scheme): later ones are judged against any. */
  alike: S[];
  source: 'configured' | 'discovered';
  /** What discovery tried when nothing matched. */
  tried: string;
}

export interface RedirectHashes {
  source: 'configured' | 'discovered';
  /** The key the hash is computed with (the client secret unless REDIRECT_HASH_KEY says otherwise). */
  readonly secret: string;
  record(params: Record<string, string>): void;
  /** Every redirect recorded in this run, by kind, in arrival order. */
  recorded(kind: RedirectKind): readonly Record<string, string>[];
  /** The scheme of redirects of this one's kind: configured, or discovered on the first of that kind this run. */
  reference(params: Record<string, string>): Promise<Reference<RedirectScheme, Record<string, string>>>;
  /** The reference already set for a kind, if any. */
  known(kind: RedirectKind): Promise<Reference<RedirectScheme, Record<string, string>>> | undefined;
  /** The redirect verifies with the reference's scheme (any of those its own redirect could not tell apart). */
  verifies(params: Record<string, string>, ref: Reference<RedirectScheme, Record<string, string>>): boolean;
}

/** A configured digest name (hmac-sha256, sha512, …) as a scheme. */
export function digestOf(name: DigestName, unkeyed: boolean, encoding: DigestScheme['encoding']): DigestScheme {
  const hmac = name.startsWith('hmac-');
  return { algorithm: (hmac ? name.slice(5) : name) as DigestScheme['algorithm'], hmac, key: unkeyed ? 'none' : 'client-secret', encoding };
}

export function createRedirectHashes(config: Config, clientSecret: string): RedirectHashes | undefined {
  const h = config.redirectHash;
  const algorithm = h.algorithm;
  if (algorithm === 'off') return undefined;
  const secret = h.key || clientSecret;
  const configured = (kind: RedirectKind, first: Record<string, string>): RedirectScheme | undefined => {
    if (algorithm === 'auto') return undefined;
    const scheme: RedirectScheme = { ...digestOf(algorithm, h.key === '', h.encoding), values: h.values, order: 'spec' };
    // An API (3DS) payment is hashed over the seven values of 6.3 whatever REDIRECT_HASH_ORDER says for links.
    if (kind === 'api') return scheme;
    if (h.order !== 'auto') return { ...scheme, order: h.order };
    const link: RedirectScheme = { ...scheme, order: 'link' };
    return !redirectVerifies(first, scheme, secret) && redirectVerifies(first, link, secret) ? link : scheme;
  };
  const seen: Record<RedirectKind, Record<string, string>[]> = { link: [], api: [] };
  const references = new Map<RedirectKind, Promise<Reference<RedirectScheme, Record<string, string>>>>();
  const source = algorithm === 'auto' ? 'discovered' : 'configured';
  return {
    source,
    secret,
    record(params) {
      seen[redirectKind(params)].push(params);
    },
    recorded: (kind) => seen[kind],
    reference(params) {
      const kind = redirectKind(params);
      let ref = references.get(kind);
      if (!ref) {
        // The first redirect of its kind recorded this run is the one discovery runs on (else this one).
        const first = seen[kind][0] ?? params;
        const scheme = configured(kind, first);
        ref = Promise.resolve(
          scheme ? { seen: first, scheme, alike: [scheme], source, tried: '' } : discovered(first, findRedirectScheme(first, secret, kind)),
        );
        references.set(kind, ref);
      }
      return ref;
    },
    known: (kind) => references.get(kind),
    verifies: (params, ref) => ref.alike.some((s) => redirectVerifies(params, s, secret)),
  };
}

function discovered<S, Seen>(seen: Seen, found: Found<S>): Reference<S, Seen> {
  return { seen, source: 'discovered', alike: found.alike ?? [], tried: found.tried, ...(found.scheme ? { scheme: found.scheme } : {}) };
}

export interface WebhookSignatures {
  source: 'configured' | 'discovered';
  reference(webhook: ReceivedWebhook): Promise<Reference<WebhookSignature, ReceivedWebhook>>;
  known(): Promise<Reference<WebhookSignature, ReceivedWebhook>> | undefined;
  verifies(webhook: ReceivedWebhook, ref: Reference<WebhookSignature, ReceivedWebhook>): boolean;
}

export function createWebhookSignatures(config: Config, clientSecret: string): WebhookSignatures | undefined {
  const w = config.webhook;
  if (w.signature === 'off') return undefined;
  const configured: WebhookSignature | undefined =
    w.signature === 'auto'
      ? undefined
      : { header: w.signatureHeader, scheme: digestOf(w.signature, w.signatureUnkeyed, w.signatureEncoding) };
  let ref: Promise<Reference<WebhookSignature, ReceivedWebhook>> | undefined;
  const source = configured ? 'configured' : 'discovered';
  return {
    source,
    reference(webhook) {
      ref ??= Promise.resolve(
        configured
          ? { seen: webhook, scheme: configured, alike: [configured], source, tried: '' }
          : discovered(webhook, findWebhookSignature(webhook.headers, webhook.rawBody, clientSecret, w.signatureHeader)),
      );
      return ref;
    },
    known: () => ref,
    verifies: (webhook, ref) => ref.alike.some((s) => webhookVerifies(webhook.headers, webhook.rawBody, s, clientSecret)),
  };
}
