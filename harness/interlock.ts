/**
 * The production interlock (principle 3: never charge). The run learns the business mode before any purchase;
 * in production, and after any esReal=true seen later, no purchase or payment request leaves the harness.
 */
import type { BusinessMode } from './target.ts';

export const PRODUCTION_MESSAGE =
  'STOPPED: the target business is in production mode (estaProductivo=true on a created link). ' +
  'No purchase or payment request was sent: the suite only pays against a development business (spec 1.6, 7). ' +
  'Point CLIENT_ID/CLIENT_SECRET at a development business.';

export const REAL_TRANSACTION_MESSAGE =
  'STOPPED: the target reported a real transaction (esReal=true), so the business charges customers. ' +
  'No further purchase or payment request is sent. Point CLIENT_ID/CLIENT_SECRET at a development business.';

/** Operations that create a purchase: none of them is sent unless the business is known to be in development. */
export const PURCHASE_OPERATIONS: ReadonlySet<string> = new Set([
  'purchase3ds',
  'purchaseWallet',
  'purchasePagoQr',
  'purchaseQuickPay',
  'purchaseMposBanda',
]);

export class InterlockError extends Error {
  override name = 'InterlockError';
}

export class Interlock {
  private stopped: string | undefined;

  constructor(mode: BusinessMode) {
    if (mode === 'production') this.stopped = PRODUCTION_MESSAGE;
  }

  get reason(): string | undefined {
    return this.stopped;
  }

  /** Throws before a purchase or payment unless the business is known to be in development. */
  assertMayPay(target: { mode: BusinessMode; modeUnknownBecause?: string }): void {
    if (this.stopped) throw new InterlockError(this.stopped);
    if (target.mode !== 'development') {
      const why = target.modeUnknownBecause ? ` (${target.modeUnknownBecause})` : '';
      throw new InterlockError(`STOPPED: the business mode of the target could not be learned${why}, so no purchase is sent.`);
    }
  }

  /** Watches every response: a real transaction anywhere stops all further payments. */
  watch(body: unknown): void {
    if (body && typeof body === 'object' && (body as { esReal?: unknown }).esReal === true) this.stopped ??= REAL_TRANSACTION_MESSAGE;
  }
}
