/**
 * The pure discovery functions of harness/discovery/ on hand-built inputs: redirect hash schemes, webhook signature
 * headers and schemes, and the account authentication the probe's statuses show.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  describeRedirectScheme,
  findRedirectScheme,
  findWebhookSignature,
  redirectSchemeSettings,
  signatureHeaders,
  webhookVerifies,
} from '../../harness/judge/schemes.ts';
import { accountAuthFrom } from '../../harness/discovery/account-auth.ts';

const SECRET = 'client-secret-1';
const outcome = {
  idTransaccion: 'tx-1',
  monto: '10.5',
  esReal: 'False',
  formaPago: '0',
  esAprobada: 'True',
  codigoAutorizacion: 'A1',
  mensaje: 'ok',
};

describe('redirect hash scheme discovery', () => {
  it("finds HMAC-SHA-256 hex over 6.3's seven values as in the query", () => {
    const hash = createHmac('sha256', SECRET).update('tx-110.5False0TrueA1ok').digest('hex');
    const found = findRedirectScheme({ ...outcome, hash }, SECRET);
    expect(found.scheme).toEqual({
      algorithm: 'sha256',
      hmac: true,
      key: 'client-secret',
      encoding: 'hex',
      values: 'query',
      order: 'spec',
    });
    expect(describeRedirectScheme(found.scheme!)).toContain('HMAC-SHA-256');
  });

  it('finds upper-case hex of a plain SHA-1 with the secret appended, values normalised', () => {
    const hash = createHash('sha1').update(`tx-110.50false0trueA1ok${SECRET}`).digest('hex').toUpperCase();
    expect(findRedirectScheme({ ...outcome, hash }, SECRET).scheme).toMatchObject({
      algorithm: 'sha1',
      hmac: false,
      key: 'client-secret',
      encoding: 'hex',
      values: 'normalised',
    });
  });

  it('finds base64url SHA-512 without a key over the link order only on a link payment', () => {
    const link = { ...outcome, idEnlace: '42', identificadorEnlaceComercio: 'ord-9' };
    const hash = createHash('sha512').update('ord-9tx-14210.5').digest('base64url');
    const found = findRedirectScheme({ ...link, hash }, SECRET);
    expect(found.scheme).toMatchObject({ algorithm: 'sha512', key: 'none', encoding: 'base64url', order: 'link' });
    expect(redirectSchemeSettings(found.scheme!, 'link')).toMatchObject({
      REDIRECT_HASH: 'sha512',
      REDIRECT_HASH_KEY: 'none',
      REDIRECT_HASH_ORDER: 'link',
    });
    // Without idEnlace the redirect is an API payment's: the link order is not a candidate.
    expect(findRedirectScheme({ ...outcome, hash }, SECRET).scheme).toBeUndefined();
  });

  it('keeps every scheme one redirect cannot tell apart (monto already with two decimals)', () => {
    const twoDecimals = { ...outcome, monto: '12.30', esReal: 'false', esAprobada: 'true' };
    const hash = createHmac('sha256', SECRET).update('tx-112.30false0trueA1ok').digest('hex');
    const found = findRedirectScheme({ ...twoDecimals, hash }, SECRET);
    expect(found.alike?.map((s) => s.values)).toEqual(['query', 'normalised']);
  });

  it('says what it tried when nothing matches, and that there was no hash', () => {
    const none = findRedirectScheme({ ...outcome, hash: 'deadbeef' }, SECRET);
    expect(none.scheme).toBeUndefined();
    expect(none.tried).toMatch(/MD5, SHA-1, SHA-256, SHA-512.*base64url.*normalised/);
    expect(findRedirectScheme(outcome, SECRET).tried).toMatch(/no hash parameter/);
  });
});

describe('webhook signature discovery', () => {
  const body = Buffer.from('{"idTransaccion":"tx-1","monto":10}');

  it('finds a header named in Spanish carrying base64 HMAC-SHA-1', () => {
    const headers = { 'content-type': 'application/json', 'x-firma': createHmac('sha1', SECRET).update(body).digest('base64') };
    const found = findWebhookSignature(headers, body, SECRET);
    expect(found.scheme).toEqual({
      header: 'x-firma',
      scheme: { algorithm: 'sha1', hmac: true, key: 'client-secret', encoding: 'base64' },
    });
    expect(webhookVerifies(headers, body, found.scheme!, SECRET)).toBe(true);
    expect(webhookVerifies({ ...headers, 'x-firma': 'AAAA' }, body, found.scheme!, SECRET)).toBe(false);
  });

  it('reads a GitHub-style sha256= prefix, and a digest-shaped header of any name', () => {
    const hex = createHmac('sha256', SECRET).update(body).digest('hex');
    expect(findWebhookSignature({ 'x-hub-signature-256': `sha256=${hex}` }, body, SECRET).scheme?.header).toBe('x-hub-signature-256');
    expect(findWebhookSignature({ 'x-token-check': hex }, body, SECRET).scheme?.header).toBe('x-token-check');
  });

  it('lists signature-like headers (named, then shaped) and nothing ordinary', () => {
    expect(
      signatureHeaders({ 'content-type': 'application/json', firma: 'x', 'x-other': 'a'.repeat(64), 'user-agent': 'b'.repeat(64) }),
    ).toEqual(['firma', 'x-other']);
    const none = findWebhookSignature({ 'content-type': 'application/json' }, body, SECRET);
    expect(none.scheme).toBeUndefined();
    expect(none.tried).toMatch(/none named like a signature/);
  });
});

describe("account authentication from the probe's answers", () => {
  it('prefers HTTP Basic, then the password grant, else Basic with the reason', () => {
    expect(accountAuthFrom(200, undefined)).toMatchObject({ accountAuth: 'basic', found: true });
    expect(accountAuthFrom(401, 200)).toMatchObject({ accountAuth: 'password-grant', found: true });
    expect(accountAuthFrom(401, undefined, 'got no token (refused: 400)')).toMatchObject({
      accountAuth: 'basic',
      found: false,
      evidence: expect.stringContaining('got no token'),
    });
  });
});
