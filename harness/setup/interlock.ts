/**
 * The production interlock (principle 3: never charge). The run learns, before any purchase, the mode of every
 * business it purchases as; a purchase is sent only as an identity known to act as a development business:
 *
 *   - a business (bearer token): its own mode, probed with a link it created;
 *   - the account (ACCOUNT_USER): it acts as its FIRST business (docs/decisions.md), which the API cannot name.
 *     Allowed only when every probed business is in development AND either the target is the embedded sandbox
 *     (whose accounts own only businesses of its one mode) or the account activated the primary's probe link and
 *     saw estaProductivo=false. A remote account whose first business is some other, production one is the user's
 *     to avoid: ACCOUNT_USER must be the account of the CLIENT_ID business;
 *   - the second merchant of the tenant-isolation checks (OTHER_*): its business by its own probe; its account only
 *     when its business is in development AND (embedded sandbox, or its account activated its business's probe link
 *     and saw estaProductivo=false) — the same rule as the primary account, learned for the other tenant;
 *   - anyone else (no or made-up credentials, which a faulty target might accept): every probed business in development.
 *
 * After any esReal / esProductiva / estaProductivo = true seen anywhere in a response or a webhook, nothing is paid.
 */
import type { ModeProbe, TargetInfo } from './target.ts';

export const PRODUCTION_MESSAGE =
  'STOPPED: the target business is in production mode (estaProductivo=true on a created link). ' +
  'No purchase or payment request was sent: the suite only pays against a development business (spec 1.6, 7). ' +
  'Point CLIENT_ID/CLIENT_SECRET at a development business.';

export const REAL_TRANSACTION_MESSAGE =
  'STOPPED: the target reported a real transaction (esReal=true), so the business charges customers. ' +
  'No further purchase or payment request is sent. Point CLIENT_ID/CLIENT_SECRET at a development business.';

export const PRODUCTION_SEEN_MESSAGE =
  'STOPPED: the target reported production (estaProductivo or esProductiva = true) after the mode probe. ' +
  'No further purchase or payment request is sent. Point CLIENT_ID/CLIENT_SECRET at a development business.';

/** Operations that create a purchase: none of them is sent unless the business is known to be in development. */
export const PURCHASE_OPERATIONS: ReadonlySet<string> = new Set([
  'purchase3ds',
  'purchaseWallet',
  'purchasePagoQr',
  'purchaseQuickPay',
  'purchaseMposBanda',
]);

/** Who a purchase acts as: a business by client id, an account by user, or nobody known (no or made-up credentials). */
export type PayingAs = { business: string } | { account: string } | 'anyone';

/** The shape of the target the interlock needs. */
type Target = Pick<TargetInfo, 'kind' | 'business' | 'mode' | 'modes'> &
  Partial<Pick<TargetInfo, 'modeUnknownBecause' | 'account' | 'accountConfirmed' | 'other'>>;

export class InterlockError extends Error {
  override name = 'InterlockError';
}

export class Interlock {
  private stopped: string | undefined;
  #contradiction: { flag: string; where: string } | undefined;

  /** Test-control tenants: client id → account user (harness/run/run.ts `tenant()`). */
  readonly #tenants = new Map<string, string>();

  constructor(private readonly target: Target) {
    if (target.mode === 'production') this.stopped = PRODUCTION_MESSAGE;
  }

  get reason(): string | undefined {
    return this.stopped;
  }

  /**
   * Throws before a purchase or payment unless `who` is known to act as a development business. Without `who`: the
   * primary business, which created the links and purchases paid.
   */
  assertMayPay(who: PayingAs = { business: this.target.business.clientId }): void {
    if (this.stopped) throw new InterlockError(this.stopped);
    if (typeof who === 'object' && 'business' in who) return this.#assertDevelopment(this.#probeOf(who.business));
    const tenant = typeof who === 'object' ? [...this.#tenants].find(([, user]) => user === who.account) : undefined;
    if (tenant) return this.#assertDevelopment(this.#probeOf(tenant[0]));
    const other = this.target.other;
    if (other && typeof who === 'object' && who.account === other.account.user) return this.#assertOtherAccount(other);
    for (const probe of this.#probes()) this.#assertDevelopment(probe);
    if (who === 'anyone' && other) this.#assertDevelopment(this.#probeOf(other.business.clientId));
    if (who === 'anyone' || this.target.kind === 'embedded') return;
    const confirmed = this.target.account?.user === who.account ? this.target.accountConfirmed : undefined;
    if (confirmed !== true) {
      const why = typeof confirmed === 'string' ? confirmed : 'not the configured ACCOUNT_USER, or no account probe';
      throw new InterlockError(
        `STOPPED: a purchase as an account acts as the account's first business, which could not be confirmed to be in ` +
          `development (${why}), so none is sent. Set ACCOUNT_USER to the account of the CLIENT_ID development business.`,
      );
    }
  }

  /**
   * A test-control tenant (a fresh account and business the sandbox created in its one mode, docs/decisions.md): it
   * pays as the primary business's probed mode allows, never more; its account acts as its only business.
   */
  addTenant(clientId: string, accountUser: string): void {
    this.#tenants.set(clientId, accountUser);
  }

  /** Watches every response and webhook: a real transaction or a production flag anywhere stops all further payments. */
  watch(body: unknown, where = 'an answer'): void {
    const flag = productionFlag(body, 0);
    if (!flag) return;
    // After a probe that said development, the flag contradicts it: the target's deviation, judged once at the end
    // (suites/contract.test.ts), whichever test's purchase met it first.
    if (this.stopped === undefined) this.#contradiction = { flag, where };
    this.stopped ??= flag === 'esreal' ? REAL_TRANSACTION_MESSAGE : PRODUCTION_SEEN_MESSAGE;
  }

  /** The first production flag (esreal, esproductiva, estaproductivo) seen after the probe said development, and where. */
  get contradiction(): { flag: string; where: string } | undefined {
    return this.#contradiction;
  }

  #probes(): ModeProbe[] {
    const primary = this.#probeOf(this.target.business.clientId);
    return [
      primary,
      ...Object.entries(this.target.modes)
        .filter(([id]) => id !== this.target.business.clientId)
        .map(([, p]) => p),
    ];
  }

  /** The second merchant's account pays as its business, which must be probed in development and confirmed as its. */
  #assertOtherAccount(other: NonNullable<Target['other']>): void {
    this.#assertDevelopment(this.#probeOf(other.business.clientId));
    if (this.target.kind === 'embedded' || other.accountConfirmed === true) return;
    const why = typeof other.accountConfirmed === 'string' ? other.accountConfirmed : 'no account probe';
    throw new InterlockError(
      `STOPPED: a purchase as OTHER_ACCOUNT_USER acts as that account's first business, which could not be confirmed ` +
        `to be in development (${why}), so none is sent. Set OTHER_ACCOUNT_USER to the account of the OTHER_CLIENT_ID ` +
        `development business.`,
    );
  }

  #probeOf(clientId: string): ModeProbe {
    if (this.#tenants.has(clientId)) {
      const primary = this.#probeOf(this.target.business.clientId);
      return { ...primary, variable: `the test-control tenant's business (created in the mode of ${primary.variable})` };
    }
    const probe = this.target.modes[clientId] ?? (this.target.other?.business.clientId === clientId ? this.target.other.probe : undefined);
    if (probe) return probe;
    if (clientId === this.target.business.clientId) {
      // A target without `modes` (built by hand): its primary mode is all there is.
      return {
        variable: 'CLIENT_ID',
        mode: this.target.mode,
        ...(this.target.modeUnknownBecause ? { unknownBecause: this.target.modeUnknownBecause } : {}),
      };
    }
    return { variable: `the business ${clientId}`, mode: 'unknown', unknownBecause: 'its mode was not probed' };
  }

  #assertDevelopment(probe: ModeProbe): void {
    if (probe.mode === 'development') return;
    if (probe.mode === 'production') {
      throw new InterlockError(
        `STOPPED: the business of ${probe.variable} is in production mode (estaProductivo=true on a link it created), ` +
          `so no purchase is sent as it or as an account.`,
      );
    }
    const why = probe.unknownBecause ? ` (${probe.unknownBecause})` : '';
    throw new InterlockError(`STOPPED: the business mode of ${probe.variable} could not be learned${why}, so no purchase is sent.`);
  }
}

const PRODUCTION_FLAGS = new Set(['esreal', 'esproductiva', 'estaproductivo']);

/** The first of esReal / esProductiva / estaProductivo that is true anywhere in a body (any case: webhooks in the wild use PascalCase). */
function productionFlag(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object' || depth > 32) return undefined;
  const entries = Array.isArray(value) ? value.map((v): [string, unknown] => ['', v]) : Object.entries(value);
  for (const [key, v] of entries) {
    const lower = key.toLowerCase();
    // "True" counts too: a service that writes booleans as text must stop payments all the same.
    if ((v === true || (typeof v === 'string' && v.trim().toLowerCase() === 'true')) && PRODUCTION_FLAGS.has(lower)) return lower;
    // The merchant's own data is echoed, not a statement of the service.
    if (lower === 'datosadicionales') continue;
    const found = productionFlag(v, depth + 1);
    if (found) return found;
  }
  return undefined;
}
