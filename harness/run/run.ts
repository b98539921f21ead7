/**
 * The run as a conformance worker sees it: one instance per worker process (the conformance project is one test file,
 * suites/all.conformance.ts, so the token cache, the receiver and the interlock are shared by every suite).
 * Every API response goes through `call`, which applies the interlock and records the contract check
 * (harness/run/contract-observer.ts); every webhook the receiver gets is contract-checked the same way.
 */
import { inject } from 'vitest';
import { adoptConfig, type Config } from '../setup/config.ts';
import { loadContract, type Contract } from '../api/contract.ts';
import type { Exchange, Http } from '../api/http.ts';
import { noteStep } from '../record/transcript.ts';
import { waitingFor } from '../record/test-record.ts';
import { secrets } from '../record/redact.ts';
import { asBool, field } from '../judge/read.ts';
import { createTokenCache, type TokenCache } from '../api/tokens.ts';
import { createApiClient, defaultAuth, type CallOptions } from '../api/client.ts';
import { startReceiver, type Receiver } from '../api/receiver.ts';
import { aroundPayments, PayerMemory, unreadPagesThrow, type Payer, type PaymentOutcome } from '../payer/index.ts';
import { createControl, type Control } from '../api/control.ts';
import { Interlock, PURCHASE_OPERATIONS, type PayingAs } from '../setup/interlock.ts';
import { withAccountAuth } from '../discovery/account-auth.ts';
import { createRedirectHashes, createWebhookSignatures, type RedirectHashes, type WebhookSignatures } from '../discovery/run-schemes.ts';
import { contractRecord, observeResponse, observeWebhook, WEBHOOK, type ContractRecord } from './contract-observer.ts';
import { createRunHttp, createRunPayer, type Credentials, type TargetInfo } from '../setup/target.ts';

export type Call = (operationId: string, options?: CallOptions) => Promise<Exchange>;

export interface Run {
  config: Config;
  target: TargetInfo;
  contract: Contract;
  http: Http;
  interlock: Interlock;
  /** The primary business (CLIENT_ID) with the account (ACCOUNT_USER) for account operations. */
  call: Call;
  /** Calls as another business / account (e.g. the one without MPOS permission, the disposable account). */
  callAs(business: Credentials | undefined, account?: { user: string; password: string }): Call;
  /** Pays hosted screens; refuses (InterlockError) unless the primary business is known to be in development. */
  payer: Payer;
  /** What the payer learned in this run: origins paid, submissions, the field mappings noted once per kind of page. */
  payerMemory: PayerMemory;
  receiver(): Promise<Receiver>;
  control?: Control;
  /**
   * The redirect hash scheme, configured or discovered (harness/discovery/), or undefined when the run only observes
   * it (REDIRECT_HASH=off).
   */
  hash?: RedirectHashes;
  /** The webhook signature, configured or discovered, or undefined when the run only observes it (WEBHOOK_SIGNATURE=off). */
  signature?: WebhookSignatures;
  /**
   * On a target with the `tenants` capability: the run as a fresh test-control tenant sees it — `call`, `target.business`
   * and `target.account` are the tenant's, `control` moves its clock and reads its counters and outbox only.
   */
  tenant?(): Promise<Run>;
  /** Set on a tenant's run: the id of the tenant it acts as. */
  tenantId?: string;
  /** The operations that accepted a request (2xx) in this run, any tenant's: the positive control of rejection tests. */
  accepted: AcceptedOperations;
  /** A response the run's client did not send (a token asked outside the cache), checked against the contract as every other is. */
  observeContract(operationId: string, ex: Exchange): void;
  /** What the run-wide contract observer counted for an operation's responses, or for the webhooks (`webhook`). */
  contractRecord(direction: string): ContractRecord | undefined;
}

/**
 * Which operations accepted a request in this run, and the one positive control per operation a rejection test may
 * need (its canonical valid request, sent once per run however many tests ask).
 */
export class AcceptedOperations {
  readonly #seen = new Set<string>();
  readonly #controls = new Map<string, Promise<number>>();
  note(operationId: string, ex: Exchange): void {
    const status = ex.response?.status ?? 0;
    if (status >= 200 && status < 300) this.#seen.add(operationId);
  }
  has(operationId: string): boolean {
    return this.#seen.has(operationId);
  }
  /** The status the operation's canonical valid request answered (sent once per run). */
  control(operationId: string, send: () => Promise<Exchange>): Promise<number> {
    const pending = this.#controls.get(operationId);
    // Another test's control on its way: waiting for it is not this test's own time (its budget leaves it out).
    if (pending) return waitingFor(`the positive control of ${operationId} another test sent`, pending);
    const sent = send().then(
      (ex) => ex.response?.status ?? 0,
      () => 0,
    );
    this.#controls.set(operationId, sent);
    return sent;
  }
}

let current: Promise<Run> | undefined;

export function getRun(): Promise<Run> {
  current ??= createRun();
  return current;
}

async function createRun(): Promise<Run> {
  const probed = inject('target');
  // The clock and the counters are only ever a tenant's (tenantRun): a test moving or reading the target-wide ones
  // would depend on every other test of the run.
  const target: TargetInfo = { ...probed, capabilities: probed.capabilities.filter((c) => c !== 'clock' && c !== 'stats') };
  // The global setup's configuration (read once; its secrets registered here too), not a second reading of the env.
  const config = withAccountAuth(adoptConfig(inject('config')), target.accountAuth?.accountAuth);
  const contract = await loadContract();
  const http = createRunHttp(config, target.deadline);
  secrets.add(target.business.clientSecret, 'client-secret');
  if (target.account) secrets.add(target.account.password, 'account-password');
  if (target.deletion) secrets.add(target.deletion.password, 'deletion-password');
  const interlock = new Interlock(target);
  const operations = contract.operations;

  const pages = new PagedPurchases();
  const accepted = new AcceptedOperations();
  const clients = new Map<string, Call>();
  const tokenCaches: TokenCache[] = [];
  function callAs(business: Credentials | undefined, account?: { user: string; password: string }, caches = tokenCaches): Call {
    // The password is part of the key: a negative test's wrong password must not get the right client back.
    const key = JSON.stringify([business?.clientId, account?.user, account?.password]);
    const existing = clients.get(key);
    if (existing) return existing;
    if (business) secrets.add(business.clientSecret, 'client-secret');
    const tokenUrl = `${target.authUrl}/connect/token`;
    const tokens = business
      ? createTokenCache({
          http,
          tokenUrl,
          clientId: business.clientId,
          clientSecret: business.clientSecret,
          audience: config.tokenAudience,
        })
      : undefined;
    // ACCOUNT_AUTH=password-grant: the account's token comes from an OAuth2 password grant made with a business's client:
    // its own business's when known, else the primary business's (a client only identifies the application asking).
    const client = business ?? target.business;
    const accountTokens =
      account && config.accountAuth === 'password-grant'
        ? createTokenCache({
            http,
            tokenUrl,
            clientId: client.clientId,
            clientSecret: client.clientSecret,
            audience: config.tokenAudience,
            password: { username: account.user, password: account.password },
          })
        : undefined;
    caches.push(...[tokens, accountTokens].filter((c): c is TokenCache => c !== undefined));
    const api = createApiClient({
      http,
      baseUrl: target.baseUrl,
      authUrl: target.authUrl,
      operations,
      tokens,
      account,
      accountAuth: config.accountAuth,
      ...(accountTokens ? { accountTokens } : {}),
      // Its account may be deleted by another test at any moment (account-deletion.test.ts).
      deletable:
        target.deletion !== undefined &&
        ((business !== undefined && business.clientId === target.deletion.business?.clientId) || account?.user === target.deletion.user),
    });
    // The identity a purchase acts as follows from the auth it is sent with (an account acts as its first business).
    const payingAs = (operationId: string, options: CallOptions): PayingAs => {
      const operation = operations[operationId];
      const auth = options.auth ?? (operation ? defaultAuth(operation) : 'none');
      if (auth === 'bearer' && business) return { business: business.clientId };
      if (auth === 'account' && account) return { account: account.user };
      return 'anyone';
    };
    const call: Call = async (operationId, options = {}) => {
      if (PURCHASE_OPERATIONS.has(operationId)) interlock.assertMayPay(payingAs(operationId, options));
      const ex = await api.call(operationId, options);
      interlock.watch(ex.response?.json, `the answer to ${operationId}`);
      pages.learn(operationId, ex);
      accepted.note(operationId, ex);
      // A contract violation is recorded for the contract testcases (suites/contract.test.ts), never thrown here:
      // the test goes on to judge its own behaviour.
      observeResponse(contract, operationId, ex);
      return ex;
    };
    clients.set(key, call);
    return call;
  }

  // Screens pay links and purchases the primary business made (each purchase passed the interlock as itself).
  const hash = createRedirectHashes(config, target.business.clientSecret);
  const signature = createWebhookSignatures(config, target.business.clientSecret);
  // A page without a form on an origin never paid is a page the payer cannot read, never a verdict (unreadPagesThrow).
  const payerMemory = new PayerMemory();
  const rawPayer = unreadPagesThrow(createRunPayer(config, http, { memory: payerMemory }));
  const primaryCall = callAs(target.business, target.account);
  /** The run's payer as a business sees it: the interlock first, its redirects' hashes recorded, outcomes settled as it. */
  const payerFor = (hashes: RedirectHashes | undefined, call: Call): Payer =>
    settling(
      interlocked(
        rawPayer,
        () => interlock.assertMayPay(),
        (b) => interlock.watch(b, 'a redirect to urlRedirect'),
        (params) => hashes?.record(params),
      ),
      call,
      pages,
    );
  const payer = payerFor(hash, primaryCall);
  let receiver: Promise<Receiver> | undefined;
  const control = target.controlUrl && probed.capabilities.length > 0 ? createControl(http, target.controlUrl) : undefined;

  /** A fresh tenant's run: its own clients (token caches forgotten when its clock moves), control and hash key. */
  async function tenantRun(base: Run): Promise<Run> {
    const { grant, control: own } = await control!.createTenant();
    secrets.add(grant.business.clientSecret, 'client-secret');
    secrets.add(grant.account.password, 'account-password');
    interlock.addTenant(grant.business.clientId, grant.account.user);
    const caches: TokenCache[] = [];
    const business = { clientId: grant.business.clientId, clientSecret: grant.business.clientSecret };
    const tenantTarget: TargetInfo = { ...probed, business, account: grant.account };
    // Its redirects and webhooks are keyed with its own secret: judged against its own schemes, and its webhooks come
    // to the run's receiver tagged `tenant:<id>:…`, which the run-wide signature testcase leaves out.
    const tenantHash = createRedirectHashes(config, grant.business.clientSecret);
    const tenantSignature = createWebhookSignatures(config, grant.business.clientSecret);
    const { tenant: _, hash: _h, signature: _s, ...rest } = base;
    const call = callAs(business, grant.account, caches);
    return {
      ...rest,
      tenantId: grant.id,
      target: tenantTarget,
      call,
      control: agingTokensOnClockMoves(own, caches),
      payer: payerFor(tenantHash, call),
      receiver: async () => {
        const r = await base.receiver();
        return { ...r, webhookUrl: (tag?: string) => r.webhookUrl(`tenant:${grant.id}:${tag ?? ''}`) };
      },
      ...(tenantHash ? { hash: tenantHash } : {}),
      ...(tenantSignature ? { signature: tenantSignature } : {}),
    };
  }

  const run: Run = {
    config,
    target,
    contract,
    http,
    interlock,
    call: primaryCall,
    callAs,
    payer,
    payerMemory,
    accepted,
    observeContract: (operationId, ex) => void observeResponse(contract, operationId, ex),
    contractRecord: (direction) => contractRecord(direction === 'webhook' ? WEBHOOK : direction),
    receiver: () =>
      (receiver ??= startReceiver({
        host: config.receiver.host,
        port: config.receiver.port,
        ...(config.receiver.publicUrl ? { publicUrl: config.receiver.publicUrl } : {}),
        // A webhook saying esProductiva/esReal true stops payments like a response saying so.
        onWebhook: (w) => {
          interlock.watch(w.json, 'a webhook');
          observeWebhook(contract, w, config.webhook.fieldCase);
        },
      })),
    ...(control ? { control: agingTokensOnClockMoves(control, tokenCaches) } : {}),
    ...(hash ? { hash } : {}),
    ...(signature ? { signature } : {}),
  };
  if (control && probed.capabilities.includes('tenants')) run.tenant = () => tenantRun(run);
  return run;
}

/** Moving the target's clock brings every cached token's expiry nearer: one it expires is fetched anew. */
function agingTokensOnClockMoves(control: Control, caches: TokenCache[]): Control {
  return {
    ...control,
    async advanceClock(seconds) {
      // Marked before it is sent: a request refused while the target's clock moved is not a token refused early.
      for (const cache of caches) cache.clockMoving();
      let done = 0;
      try {
        await control.advanceClock(seconds);
        done = seconds;
      } finally {
        for (const cache of caches) cache.clockMoved(done);
      }
    },
  };
}

/**
 * The pages purchases lead to (4.3 urlCompletarPago3Ds, 4.6 urlQR) and the transaction each pays, learnt from the
 * purchases' answers: a page after paying one of them that the payer cannot read is settled by looking that
 * transaction up.
 */
class PagedPurchases {
  readonly #ids = new Map<string, string>();
  learn(operationId: string, ex: Exchange): void {
    const body = ex.response && ex.response.status < 300 ? ex.response.json : undefined;
    const id = field(body, 'idTransaccion');
    if (typeof id !== 'string' || id === '') return;
    const url =
      operationId === 'purchase3ds'
        ? field(body, 'urlCompletarPago3Ds')
        : operationId === 'purchaseQuickPay'
          ? field(field(body, 'datosQuickPay'), 'urlQR')
          : undefined;
    if (typeof url !== 'string' || url === '') return;
    this.#ids.set(url, id);
    if (URL.canParse(url, ex.request.url)) this.#ids.set(new URL(url, ex.request.url).href, id);
  }
  idOf(url: string): string | undefined {
    return this.#ids.get(url);
  }
}

/** The one transaction id a page shows (a UUID, as public integrations show them), if exactly one. */
function idShownOn(o: PaymentOutcome & { kind: 'page' }): string | undefined {
  const ids = new Set(
    o.html.replace(/<script[\s\S]*?<\/script>/gi, '').match(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi) ?? [],
  );
  return ids.size === 1 ? [...ids][0] : undefined;
}

/**
 * Every payment on a hosted screen passes the interlock first; redirect outcomes are watched for esReal=true, and
 * each redirect's hash is recorded, to be judged against the run's scheme (suites/contract.test.ts).
 */
function interlocked(
  payer: Payer,
  assertMayPay: () => void,
  watch: (body: unknown) => void,
  redirected: (params: Record<string, string>) => void,
): Payer {
  return aroundPayments(payer, async (_method, pay) => {
    assertMayPay();
    const o = await pay();
    if (o.kind === 'redirect') {
      watch({ esReal: o.params['esReal'] === 'true' });
      redirected(o.params);
    }
    return o;
  });
}

/**
 * Settling, once for every payment: a redirect that does not say whether the payment was approved (no esAprobada)
 * is settled from the source of truth, the transaction lookup (4.8), as the business that paid: the redirect's own
 * deviation is judged once, by the 6.3 test, and every other test still judges its own behaviour. A page after the
 * payment that is neither a redirect, a refusal nor a next step is settled the same way where the transaction is
 * known (the purchase the page pays, or the one id the page shows); the judges read what is left unsettled as unread
 * (checks.ts unreadPage). A link's record is not read for it: activar, its only reading (4.2), changes the link's
 * state a test may be judging.
 */
function settling(payer: Payer, call: Call, pages: PagedPurchases): Payer {
  const lookUp = async (id: string, why: string, pendingSettles = true): Promise<'true' | 'false' | undefined> => {
    const ex = await call('getTransaction', { pathParams: { id }, auth: 'bearer', label: `outcome from the lookup (${why})` });
    const esAprobada = ex.response && ex.response.status < 300 ? asBool(field(ex.response.json, 'esAprobada')) : undefined;
    // For a page, a transaction still pending (not approved, no result yet) settles nothing: the page may be a step.
    const resultado = ex.response && ex.response.status < 300 ? field(ex.response.json, 'resultadoTransaccion') : undefined;
    if (!pendingSettles && esAprobada === false && (resultado === null || resultado === undefined)) return undefined;
    return esAprobada === undefined ? undefined : esAprobada ? 'true' : 'false';
  };
  return aroundPayments(payer, async (_method, pay, url) => {
    const o = await pay();
    if (o.kind === 'page') {
      // `url`: the page a purchase leads to (a link's URL is no purchase's page, and finds none).
      const id = (url === undefined ? undefined : pages.idOf(url)) ?? idShownOn(o);
      if (id === undefined) return o;
      const esAprobada = await lookUp(id, 'the page after the payment does not say it', false);
      noteStep({
        kind: 'api',
        title:
          esAprobada === undefined
            ? `the page after the payment does not say its outcome, nor did the lookup of ${id}`
            : `the page after the payment does not say its outcome: the lookup of ${id} says esAprobada ${esAprobada}`,
      });
      return esAprobada === undefined ? o : { ...o, settled: { esAprobada, from: 'lookup', idTransaccion: id } };
    }
    if (o.kind !== 'redirect') return o;
    const id = o.params['idTransaccion'];
    if (o.params['esAprobada'] !== undefined || !id) return o;
    const esAprobada = await lookUp(id, 'the redirect has no esAprobada');
    noteStep({
      kind: 'api',
      title:
        esAprobada === undefined
          ? `the redirect has no esAprobada, nor did the lookup of ${id} say it`
          : `the redirect has no esAprobada: the lookup of ${id} says esAprobada ${esAprobada}`,
    });
    return esAprobada === undefined ? o : { ...o, settled: { esAprobada, from: 'lookup' } };
  });
}
