import { describe, expect, it } from 'vitest';
import { CUENTA, NEGOCIO, basic, enlaceValido, sandbox } from './helpers.ts';

const formulario = (campos: Record<string, string>) => new URLSearchParams(campos).toString();
const valido = {
  grant_type: 'client_credentials',
  audience: 'service_api',
  client_id: NEGOCIO.clientId,
  client_secret: NEGOCIO.clientSecret,
};

async function pedirToken(campos: Record<string, string>, headers: Record<string, string> = {}) {
  const p = await sandbox();
  return p.app.inject({
    method: 'POST',
    url: '/auth/connect/token',
    payload: formulario(campos),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

describe('token issuer (spec 5, RFC 6749 5.2)', () => {
  it('issues a bearer token with exactly the fields of 5.2', async () => {
    const res = await pedirToken(valido);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body).toMatchObject({ expires_in: 3600, token_type: 'Bearer', scope: 'service_api' });
    expect(typeof body.access_token).toBe('string');
    expect(body.access_token.length).toBeGreaterThanOrEqual(32);
  });

  it('accepts client credentials in HTTP Basic too (RFC 6749 2.3.1)', async () => {
    const res = await pedirToken(
      { grant_type: 'client_credentials', audience: 'service_api' },
      { authorization: basic(NEGOCIO.clientId, NEGOCIO.clientSecret) },
    );
    expect(res.statusCode).toBe(200);
  });

  it.each([
    ['wrong secret', { ...valido, client_secret: 'nope' }, 401, 'invalid_client'],
    ['unknown client', { ...valido, client_id: 'nobody' }, 401, 'invalid_client'],
    [
      'missing client_secret',
      { grant_type: 'client_credentials', audience: 'service_api', client_id: NEGOCIO.clientId },
      401,
      'invalid_client',
    ],
    [
      'missing grant_type',
      { audience: 'service_api', client_id: NEGOCIO.clientId, client_secret: NEGOCIO.clientSecret },
      400,
      'invalid_request',
    ],
    ['password grant', { ...valido, grant_type: 'password' }, 400, 'unsupported_grant_type'],
    [
      'missing audience',
      { grant_type: 'client_credentials', client_id: NEGOCIO.clientId, client_secret: NEGOCIO.clientSecret },
      400,
      'invalid_request',
    ],
    ['wrong audience', { ...valido, audience: 'other_api' }, 400, 'invalid_scope'],
    ['wrong scope', { ...valido, scope: 'admin' }, 400, 'invalid_scope'],
  ])('%s → %i %s', async (_name, campos, status, error) => {
    const res = await pedirToken(campos as Record<string, string>);
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toBe(error);
    expect(res.body).not.toContain('access_token');
  });

  it('rejects a repeated parameter and a JSON body as invalid_request', async () => {
    const p = await sandbox();
    const repetido = await p.app.inject({
      method: 'POST',
      url: '/auth/connect/token',
      payload: `${formulario(valido)}&grant_type=client_credentials`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(repetido.statusCode).toBe(400);
    expect(repetido.json().error).toBe('invalid_request');
    const json = await p.app.inject({ method: 'POST', url: '/auth/connect/token', payload: valido });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toBe('invalid_request');
    const texto = await p.app.inject({
      method: 'POST',
      url: '/auth/connect/token',
      payload: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(texto.statusCode).toBe(400);
    expect(texto.json().error).toBe('invalid_request');
    expect(p.ctx.store.tokens.size).toBe(0);
  });
});

describe('request authentication (spec 5.3, 5.5)', () => {
  it('a token works until expires_in by the sandbox clock, then 401', async () => {
    const p = await sandbox({ tokenTtlSeconds: 60 });
    const auth = await p.bearer();
    expect((await p.api('POST', '/EnlacePago', auth, enlaceValido())).statusCode).toBe(200);
    await p.avanzar(59);
    expect((await p.api('POST', '/EnlacePago', auth, enlaceValido())).statusCode).toBe(200);
    await p.avanzar(1);
    const vencido = await p.api('POST', '/EnlacePago', auth, enlaceValido());
    expect(vencido.statusCode).toBe(401);
    expect(vencido.headers['www-authenticate']).toContain('Bearer');
    expect(vencido.json().errores[0].campo).toBe('authorization');
  });

  it.each([
    ['no header', undefined],
    ['malformed', 'Bearer'],
    ['foreign token', 'Bearer 0123456789abcdef0123456789abcdef'],
    ['wrong scheme', 'Token abc'],
    ['account credentials on a bearer endpoint', basic(CUENTA.user, CUENTA.password)],
  ])('bearer endpoint with %s → 401, nothing created', async (_name, header) => {
    const p = await sandbox();
    const res = await p.api('POST', '/EnlacePago', header, enlaceValido());
    expect(res.statusCode).toBe(401);
    expect(p.ctx.store.links.size).toBe(0);
  });

  it('a token of another sandbox is foreign', async () => {
    const a = await sandbox();
    const b = await sandbox();
    expect((await b.api('POST', '/EnlacePago', await a.bearer(), enlaceValido())).statusCode).toBe(401);
  });

  it('account endpoints take HTTP Basic and refuse a bearer token or a wrong password', async () => {
    const p = await sandbox();
    const { idEnlace } = await p.crearEnlace();
    expect((await p.api('PUT', `/EnlacePago/${idEnlace}/activar`, basic(CUENTA.user, CUENTA.password))).statusCode).toBe(200);
    const conToken = await p.api('PUT', `/EnlacePago/${idEnlace}/activar`, await p.bearer());
    expect(conToken.statusCode).toBe(401);
    expect(conToken.headers['www-authenticate']).toContain('Basic');
    expect((await p.api('PUT', `/EnlacePago/${idEnlace}/activar`, basic(CUENTA.user, 'wrong'))).statusCode).toBe(401);
    expect((await p.api('PUT', `/EnlacePago/${idEnlace}/activar`, 'Basic !!!')).statusCode).toBe(401);
  });

  it('"account or business" endpoints take either', async () => {
    const p = await sandbox();
    for (const auth of [await p.bearer(), basic(CUENTA.user, CUENTA.password)]) {
      expect((await p.api('POST', '/TransaccionCompra/Quick-pay', auth, { monto: 1 })).statusCode).toBe(200);
    }
    expect((await p.api('POST', '/TransaccionCompra/Quick-pay', undefined, { monto: 1 })).statusCode).toBe(401);
  });

  it('authentication is judged before the body: bad JSON without credentials is 401', async () => {
    const p = await sandbox();
    const res = await p.app.inject({
      method: 'POST',
      url: '/api/EnlacePago',
      payload: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(401);
  });

  it('drops expired tokens as new ones are issued (a long-running sandbox stays bounded)', async () => {
    const p = await sandbox();
    const issue = () =>
      p.app.inject({
        method: 'POST',
        url: '/auth/connect/token',
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          audience: 'service_api',
          client_id: NEGOCIO.clientId,
          client_secret: NEGOCIO.clientSecret,
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    for (let i = 0; i < 5; i++) await issue();
    expect(p.ctx.store.tokens.size).toBe(5);
    await p.avanzar(3601);
    await issue();
    expect(p.ctx.store.tokens.size).toBe(1);
  });
});
