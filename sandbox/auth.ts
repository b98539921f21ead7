/**
 * Spec 5: the token issuer at {auth_url}/connect/token (OAuth 2.0 client credentials, errors per RFC 6749 5.2) and
 * the request authentication of spec 5.5: bearer token, account user and password (HTTP Basic — the sandbox's
 * decision, the spec does not show it), or either. Tokens expire by the sandbox clock.
 * Variant account-password-grant: the account authenticates only with an account token, issued for grant_type=password
 * (username, password; the client authenticated as for client credentials, any business's client) — HTTP Basic
 * is refused, and a business endpoint refuses an account token.
 */
import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyPluginAsync, FastifyReply, onRequestAsyncHookHandler } from 'fastify';
import type { Actor, SandboxContext } from './context.ts';
import { SEED, type Account } from './store.ts';
import { clockOf } from './tenants.ts';

export type AuthMode = 'bearer' | 'account' | 'either';

const AUDIENCE = 'service_api';
/** Fault token-audience-own: the audience the deployed service issues tokens for (its own name). */
const AUDIENCIA_PROPIA = 'pasarela_api';

function oauthError(reply: FastifyReply, status: 400 | 401, error: string, description: string): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description });
}

/** Splits an `Authorization: Basic` value into user and password; undefined when it is not one. */
function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The actor of a bearer token: a business token, or (`cuenta`) an account token. */
function bearer(ctx: SandboxContext, header: string | undefined, cuenta: boolean, expiryIgnored = false): Actor | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  if (match?.[1] === undefined) return undefined;
  const token = ctx.store.tokens.get(match[1]);
  if (token === undefined || (token.idCuenta !== undefined) !== cuenta) return undefined;
  if (token.expiresAtMs <= clockOf(ctx, token.idAplicativo).nowMs() && !ctx.fault('token-expiry-ignored') && !expiryIgnored)
    return undefined;
  if (token.idCuenta !== undefined) {
    const acc = ctx.store.accounts.get(token.idCuenta);
    return acc && actorOfAccount(ctx, acc);
  }
  const business = ctx.store.businesses.get(token.idAplicativo);
  const account = business && ctx.store.accounts.get(business.idCuenta);
  return business && account ? { via: 'bearer', account, business } : undefined;
}

/** An account acts as its first business. */
function actorOfAccount(ctx: SandboxContext, acc: Account): Actor | undefined {
  const business = acc.aplicativos[0] === undefined ? undefined : ctx.store.businesses.get(acc.aplicativos[0]);
  return business ? { via: 'account', account: acc, business } : undefined;
}

function accountOf(ctx: SandboxContext, user: string, password: string): Account | undefined {
  return [...ctx.store.accounts.values()].find((acc) => acc.emailLogin === user && acc.password === password);
}

/** The account's actor: HTTP Basic, or (account-password-grant) an account token only. */
function account(ctx: SandboxContext, header: string | undefined): Actor | undefined {
  if (ctx.variant('account-password-grant')) return bearer(ctx, header, true);
  const credentials = basicCredentials(header);
  const acc = credentials && accountOf(ctx, credentials.user, credentials.password);
  return acc && actorOfAccount(ctx, acc);
}

function seededActor(ctx: SandboxContext): Actor | null {
  const business = ctx.store.businesses.get(SEED.business.idAplicativo);
  const acc = business && ctx.store.accounts.get(business.idCuenta);
  return business && acc ? { via: 'bearer', account: acc, business } : null;
}

/**
 * onRequest hook (so authentication is judged before the body is parsed): sets `request.actor` or answers 401.
 * `optional` and `expiryIgnored` only serve faults: a request without credentials then acts as the seeded business; a
 * token past its expiry is still taken.
 */
export function requireAuth(mode: AuthMode, opts: { optional?: boolean; expiryIgnored?: boolean } = {}): onRequestAsyncHookHandler {
  return async (req, reply) => {
    const ctx = req.server.sandbox;
    const header = req.headers.authorization;
    const actor =
      (mode !== 'account' ? bearer(ctx, header, false, opts.expiryIgnored) : undefined) ??
      (mode !== 'bearer' ? account(ctx, header) : undefined);
    req.actor = actor ?? (opts.optional ? seededActor(ctx) : null);
    if (req.actor !== null) return;
    const porToken = ctx.variant('account-password-grant');
    const challenges = [
      ...(mode !== 'account' || porToken ? ['Bearer realm="service_api"'] : []),
      ...(mode !== 'bearer' && !porToken ? ['Basic realm="service_api"'] : []),
    ];
    const cuenta = porToken ? 'un token de la cuenta (grant_type=password)' : 'usuario y contraseña de la cuenta (HTTP Basic)';
    const esperado = { bearer: 'un token Bearer', account: cuenta, either: `un token Bearer o ${cuenta}` }[mode];
    return reply
      .code(401)
      .header('www-authenticate', challenges.join(', '))
      .send({ errores: [{ campo: 'authorization', mensaje: `se requiere ${esperado} válido y vigente` }] });
  };
}

export const authApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  await app.register(formbody);
  // RFC 6749 5.2: every malformed token request is invalid_request (413 kept for an oversized body).
  app.setErrorHandler<FastifyError>((err, _req, reply) => {
    if (err.statusCode === 413) return reply.code(413).send({ error: 'invalid_request', error_description: 'cuerpo demasiado grande' });
    return oauthError(reply, 400, 'invalid_request', 'cuerpo de la solicitud inválido');
  });

  app.post('/connect/token', async (req, reply) => {
    const contentType = req.headers['content-type'] ?? '';
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType) || typeof req.body !== 'object' || req.body === null) {
      return oauthError(reply, 400, 'invalid_request', 'el cuerpo debe ser application/x-www-form-urlencoded');
    }
    const form = req.body as Record<string, unknown>;
    for (const name of ['grant_type', 'audience', 'client_id', 'client_secret', 'scope', 'username', 'password']) {
      if (form[name] !== undefined && typeof form[name] !== 'string') {
        return oauthError(reply, 400, 'invalid_request', `el parámetro ${name} aparece más de una vez`);
      }
    }
    const field = (name: string): string | undefined => form[name] as string | undefined;
    if (field('grant_type') === undefined) return oauthError(reply, 400, 'invalid_request', 'falta grant_type');
    if (field('audience') === undefined) return oauthError(reply, 400, 'invalid_request', 'falta audience');

    const basic = basicCredentials(req.headers.authorization);
    if (basic !== undefined && (field('client_id') !== undefined || field('client_secret') !== undefined)) {
      return oauthError(reply, 400, 'invalid_request', 'use un solo método de autenticación del cliente');
    }
    const clientId = basic?.user ?? field('client_id');
    const clientSecret = basic?.password ?? field('client_secret');
    const business = [...ctx.store.businesses.values()].find((b) => b.clientIdApi === clientId);
    // Fault secret-case-blind: the secret compared as a case-insensitive string.
    const mismoSecreto = (s: string): boolean =>
      ctx.fault('secret-case-blind') ? s.toLowerCase() === business?.clientSecret.toLowerCase() : s === business?.clientSecret;
    if (
      business === undefined ||
      clientSecret === undefined ||
      (!mismoSecreto(clientSecret) && !ctx.fault('token-wrong-secret-accepted'))
    ) {
      if (basic !== undefined) reply.header('www-authenticate', 'Basic realm="service_api"');
      return oauthError(reply, 401, 'invalid_client', 'credenciales del cliente inválidas');
    }
    // account-password-grant: an account token for the account's own user and password (RFC 6749 4.3).
    const porCuenta = field('grant_type') === 'password' && ctx.variant('account-password-grant');
    if (field('grant_type') !== 'client_credentials' && !porCuenta) {
      const admitidos = ctx.variant('account-password-grant') ? 'client_credentials o password' : 'client_credentials';
      return oauthError(reply, 400, 'unsupported_grant_type', `solo se admite grant_type=${admitidos}`);
    }
    // Fault token-audience-own: the service's own audience instead of 5.1's (RFC 8707 invalid_target for another).
    const audiencia = ctx.fault('token-audience-own') ? AUDIENCIA_PROPIA : AUDIENCE;
    if (ctx.fault('token-audience-own') && field('audience') !== audiencia) {
      return oauthError(reply, 400, 'invalid_target', `audience desconocida; use ${audiencia}`);
    }
    // Variant token-scope-ignored: a requested scope is ignored, as RFC 6749 3.3 lets an issuer do (5.1 sends none).
    const otroAlcance = field('scope') !== undefined && field('scope') !== audiencia && !ctx.variant('token-scope-ignored');
    if (field('audience') !== audiencia || otroAlcance) {
      return oauthError(reply, 400, 'invalid_scope', `audience y scope deben ser ${audiencia}`);
    }
    let cuenta: Account | undefined;
    if (porCuenta) {
      const [user, password] = [field('username'), field('password')];
      if (user === undefined || password === undefined)
        return oauthError(reply, 400, 'invalid_request', 'grant_type=password requiere username y password');
      cuenta = accountOf(ctx, user, password);
      if (cuenta === undefined) return oauthError(reply, 400, 'invalid_grant', 'usuario o contraseña de la cuenta inválidos');
    }

    const accessToken = randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', '');
    const ttl = ctx.options.tokenTtlSeconds;
    // Expired tokens are dropped as new ones are issued, so a long-running sandbox does not grow without bound.
    const ahora = clockOf(ctx, business.idAplicativo).nowMs();
    if (!ctx.fault('token-expiry-ignored') && !ctx.fault('lookup-token-expiry-ignored')) {
      for (const [t, datos] of ctx.store.tokens)
        if (datos.expiresAtMs <= clockOf(ctx, datos.idAplicativo).nowMs()) ctx.store.tokens.delete(t);
    }
    ctx.store.tokens.set(accessToken, {
      idAplicativo: cuenta?.aplicativos[0] ?? business.idAplicativo,
      // Fault token-dies-early: the token lives a third of the expires_in it announces.
      expiresAtMs: ahora + (ttl * 1000) / (ctx.fault('token-dies-early') ? 3 : 1),
      ...(cuenta ? { idCuenta: cuenta.idCuenta } : {}),
    });
    return reply
      .header('cache-control', 'no-store')
      .header('pragma', 'no-cache')
      .send({
        access_token: accessToken,
        expires_in: ctx.fault('token-expires-in-string') ? String(ttl) : ttl,
        token_type: 'Bearer',
        scope: audiencia,
      });
  });

  // Fault token-audience-own: discovery of the issuer (IdentityServer style), which names the audience it issues for.
  if (ctx.fault('token-audience-own')) {
    app.get('/.well-known/openid-configuration', async () => {
      const emisor = `${ctx.origin}/auth`;
      return {
        issuer: emisor,
        token_endpoint: `${emisor}/connect/token`,
        scopes_supported: ['openid', AUDIENCIA_PROPIA],
        grant_types_supported: ctx.variant('account-password-grant') ? ['client_credentials', 'password'] : ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      };
    });
  }
};
