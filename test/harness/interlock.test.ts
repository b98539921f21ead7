import { describe, expect, it } from 'vitest';
import {
  Interlock,
  InterlockError,
  PRODUCTION_MESSAGE,
  PRODUCTION_SEEN_MESSAGE,
  REAL_TRANSACTION_MESSAGE,
} from '../../harness/setup/interlock.ts';
import type { ModeProbe, TargetInfo } from '../../harness/setup/target.ts';

const dev = (variable: string): ModeProbe => ({ variable, mode: 'development' });

function target(overrides: Partial<TargetInfo> = {}): TargetInfo {
  return {
    kind: 'remote',
    baseUrl: 'http://api.test',
    authUrl: 'http://auth.test',
    capabilities: [],
    business: { clientId: 'main', clientSecret: 's' },
    businessNoMpos: { clientId: 'second', clientSecret: 's2' },
    account: { user: 'merchant@x.test', password: 'p' },
    mode: 'development',
    modes: { main: dev('CLIENT_ID'), second: dev('SECOND_CLIENT_ID') },
    accountConfirmed: true,
    deadline: Date.now() + 60_000,
    ...overrides,
  };
}

const refusal = (interlock: Interlock, ...args: Parameters<Interlock['assertMayPay']>): string | undefined => {
  try {
    interlock.assertMayPay(...args);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(InterlockError);
    return (err as Error).message;
  }
};

describe('Interlock: the second merchant of the tenant-isolation checks (OTHER_*)', () => {
  const other = (o: Partial<NonNullable<TargetInfo['other']>> = {}) => ({
    business: { clientId: 'other', clientSecret: 'o' },
    account: { user: 'other@x.test', password: 'op' },
    probe: dev('OTHER_CLIENT_ID'),
    accountConfirmed: true as const,
    ...o,
  });

  it('lets its business and its confirmed account pay when its own probe says development', () => {
    const i = new Interlock(target({ other: other() }));
    for (const as of [{ business: 'other' }, { account: 'other@x.test' }, 'anyone' as const]) expect(refusal(i, as)).toBeUndefined();
  });

  it('refuses its account when its business is in production or unprobed, or (remote) the account is unconfirmed; the primary is unaffected', () => {
    const production = new Interlock(target({ other: other({ probe: { variable: 'OTHER_CLIENT_ID', mode: 'production' } }) }));
    expect(refusal(production, { account: 'other@x.test' })).toMatch(/OTHER_CLIENT_ID is in production mode/);
    expect(refusal(production, { business: 'other' })).toMatch(/OTHER_CLIENT_ID is in production mode/);
    expect(refusal(production, 'anyone')).toMatch(/OTHER_CLIENT_ID/);
    expect(refusal(production, { account: 'merchant@x.test' })).toBeUndefined();
    const { probe: _unprobed, ...rest } = other();
    expect(refusal(new Interlock(target({ other: rest })), { account: 'other@x.test' })).toMatch(/could not be learned/);
    const unconfirmed = new Interlock(target({ other: other({ accountConfirmed: 'its business is in production mode' }) }));
    expect(refusal(unconfirmed, { account: 'other@x.test' })).toMatch(/OTHER_ACCOUNT_USER .*could not be confirmed/);
    expect(
      refusal(new Interlock(target({ kind: 'embedded', other: other({ accountConfirmed: 'x' }) })), { account: 'other@x.test' }),
    ).toBeUndefined();
  });
});

describe('Interlock: per identity', () => {
  it('lets every identity pay when every probed business is in development and the account is confirmed', () => {
    const i = new Interlock(target());
    for (const as of [undefined, { business: 'main' }, { business: 'second' }, { account: 'merchant@x.test' }, 'anyone' as const])
      expect(refusal(i, as)).toBeUndefined();
  });

  it('refuses purchases as a business in production, or never probed, and as the account then, but not as the primary', () => {
    const i = new Interlock(target({ modes: { main: dev('CLIENT_ID'), second: { variable: 'SECOND_CLIENT_ID', mode: 'production' } } }));
    expect(refusal(i, { business: 'main' })).toBeUndefined();
    expect(refusal(i, { business: 'second' })).toMatch(/SECOND_CLIENT_ID is in production mode/);
    expect(refusal(i, { account: 'merchant@x.test' })).toMatch(/SECOND_CLIENT_ID is in production mode/);
    expect(refusal(i, 'anyone')).toMatch(/SECOND_CLIENT_ID/);
    expect(refusal(i, { business: 'disposable' })).toMatch(/could not be learned \(its mode was not probed\)/);
  });

  it('refuses account purchases on a remote target unless the account was confirmed (embedded: no need)', () => {
    const unconfirmed = target({ accountConfirmed: 'its business is in production mode' });
    expect(refusal(new Interlock(unconfirmed), { account: 'merchant@x.test' })).toMatch(
      /first business.*\(its business is in production mode\)/,
    );
    expect(refusal(new Interlock(unconfirmed), { business: 'main' })).toBeUndefined();
    expect(refusal(new Interlock(target()), { account: 'other@x.test' })).toMatch(/first business/);
    const { accountConfirmed: _none, ...embedded } = target({ kind: 'embedded' });
    expect(refusal(new Interlock(embedded), { account: 'disposable@sandbox.test' })).toBeUndefined();
  });

  it("refuses everything when the primary is in production, and names an unknown mode's reason", () => {
    expect(
      refusal(new Interlock(target({ mode: 'production', modes: { main: { variable: 'CLIENT_ID', mode: 'production' } } })), 'anyone'),
    ).toBe(PRODUCTION_MESSAGE);
    const unknown = target({
      mode: 'unknown',
      modes: { main: { variable: 'CLIENT_ID', mode: 'unknown', unknownBecause: 'POST /EnlacePago answered 500' } },
    });
    expect(refusal(new Interlock(unknown))).toMatch(/mode of CLIENT_ID could not be learned \(POST \/EnlacePago answered 500\)/);
  });
});

describe('Interlock.watch', () => {
  const stoppedBy = (body: unknown): string | undefined => {
    const i = new Interlock(target());
    i.watch(body);
    return refusal(i, { business: 'main' });
  };

  it('stops on a true flag anywhere in a body: activar record, later links, webhooks (any case)', () => {
    expect(stoppedBy({ idEnlace: 1, transaccionCompra: { esReal: true } })).toBe(REAL_TRANSACTION_MESSAGE);
    expect(stoppedBy({ transacciones: [{ esReal: false }, { esReal: true }] })).toBe(REAL_TRANSACTION_MESSAGE);
    expect(stoppedBy({ idEnlace: 2, estaProductivo: true })).toBe(PRODUCTION_SEEN_MESSAGE);
    expect(stoppedBy({ IdTransaccion: 't', EsProductiva: true })).toBe(PRODUCTION_SEEN_MESSAGE);
    expect(stoppedBy([{ esReal: true }])).toBe(REAL_TRANSACTION_MESSAGE);
  });

  it('stops on a flag written as the text "True" (services that write booleans as text)', () => {
    expect(stoppedBy({ esReal: 'False', estaProductivo: 'True' })).toBe(PRODUCTION_SEEN_MESSAGE);
    expect(stoppedBy({ transacciones: [{ esReal: ' true ' }] })).toBe(REAL_TRANSACTION_MESSAGE);
  });

  it("does not stop on false, other non-boolean flags or the merchant's own datosAdicionales", () => {
    expect(stoppedBy({ esReal: false, estaProductivo: 'False', transacciones: [{ esReal: 1 }] })).toBeUndefined();
    expect(stoppedBy({ esReal: false, datosAdicionales: { esReal: true } })).toBeUndefined();
    expect(stoppedBy(undefined)).toBeUndefined();
    expect(stoppedBy('esReal=true')).toBeUndefined();
  });
});
