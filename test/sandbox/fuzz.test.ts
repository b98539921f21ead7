/**
 * Property: randomly malformed requests across every endpoint (random methods, paths, JSON and non-JSON bodies,
 * wrong types, missing fields, random headers, with and without valid auth) never get a 5xx, API errors carry the
 * error body, and the store is exactly as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CUENTA, basic, compra3dsValida, enlaceValido, mposValido, ruta, sandbox, walletValido } from './helpers.ts';

type Cuerpo = Record<string, unknown>;

type Tipo = 'texto' | 'numero' | 'objeto';

/** Valid bodies and their required fields: corrupting one of those always makes the request invalid. */
const PLANTILLAS: { path: string; auth: 'bearer' | 'account'; body: Cuerpo; requeridos: Record<string, Tipo> }[] = [
  {
    path: '/api/EnlacePago',
    auth: 'bearer',
    body: enlaceValido(),
    requeridos: { identificadorEnlaceComercio: 'texto', monto: 'numero', nombreProducto: 'texto', configuracion: 'objeto' },
  },
  {
    path: '/api/TransaccionCompra/3DS',
    auth: 'bearer',
    body: compra3dsValida(),
    requeridos: {
      tarjetaCreditoDebido: 'objeto',
      monto: 'numero',
      urlRedirect: 'texto',
      nombre: 'texto',
      email: 'texto',
      idPais: 'texto',
      idRegion: 'texto',
    },
  },
  {
    path: '/api/TransaccionCompra/Wallet',
    auth: 'bearer',
    body: walletValido(),
    requeridos: { monto: 'numero', dui: 'texto', descripcion: 'texto' },
  },
  { path: '/api/TransaccionCompra/PagoQr', auth: 'account', body: { urlEnlacePago: 'x' }, requeridos: { urlEnlacePago: 'texto' } },
  { path: '/api/TransaccionCompra/Quick-pay', auth: 'bearer', body: { monto: 5, idExterno: 'a' }, requeridos: { monto: 'numero' } },
  {
    path: '/api/TransaccionCompra/Mpos/Banda',
    auth: 'bearer',
    body: mposValido(),
    requeridos: {
      posId: 'texto',
      numeroTarjeta: 'texto',
      mesVencimiento: 'numero',
      anioVencimiento: 'numero',
      monto: 'numero',
      tarjetaBan: 'texto',
      llaveTarjetaBan: 'texto',
    },
  },
  { path: '/__sandbox/clock/advance', auth: 'bearer', body: { seconds: 1 }, requeridos: { seconds: 'numero' } },
];

/** Values that are wrong for a required field of each type: wrong JSON type (no coercion), null, empty, out of range. */
const comunes = [null, true, [], [1], { a: 1 }];
const VALOR_MALO: Record<Tipo, fc.Arbitrary<unknown>> = {
  texto: fc.constantFrom(...comunes, 0, 10.5, '', '   '),
  numero: fc.constantFrom(...comunes, '10.00', '1', '', -1, -0.5),
  objeto: fc.constantFrom(...comunes, 'x', 7, {}),
};

interface Solicitud {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

describe('fuzz: malformed requests', () => {
  it('10,000 random malformed requests: zero 5xx, error bodies on API errors, store unchanged', { timeout: 60_000 }, async () => {
    const p = await sandbox();
    const bearer = await p.bearer();
    const cuenta = basic(CUENTA.user, CUENTA.password);
    // Some state for the random requests to aim at.
    const link = await p.crearEnlace(enlaceValido({ limitesDeUso: { cantidadMaximaPagosFallidos: 3 } }));
    const tds = (await p.api('POST', '/TransaccionCompra/3DS', bearer, compra3dsValida())).json();
    const qp = (await p.api('POST', '/TransaccionCompra/Quick-pay', bearer, { monto: 2 })).json();
    await p.api('POST', '/TransaccionCompra/Wallet', bearer, walletValido());
    // Hosted completion POSTs to real ids are valid whatever the body, so only GETs aim at them.
    const reales = [
      ruta(link.urlEnlace),
      ruta(link.urlEnlaceLargo),
      ruta(link.urlQrCodeEnlace),
      ruta(tds.urlCompletarPago3Ds),
      `/qp/${qp.idTransaccion}`,
      `/qp/${qp.idTransaccion}.png`,
      `/api/TransaccionCompra/${tds.idTransaccion}`,
      `/api/EnlacePago/${link.idEnlace}/activar`,
    ];
    const rutas = [
      '/api/EnlacePago',
      '/api/EnlacePago/1/activar',
      '/api/EnlacePago/x/activar',
      '/api/EnlacePago/99999999999999999999/activar',
      '/api/TransaccionCompra/3DS',
      '/api/TransaccionCompra/Wallet',
      '/api/TransaccionCompra/PagoQr',
      '/api/TransaccionCompra/Quick-pay',
      '/api/TransaccionCompra/Mpos/Banda',
      '/api/TransaccionCompra/abc',
      '/api/TransaccionCompra/%E0%A4%A',
      '/api/Cuenta',
      '/auth/connect/token',
      '/pagar/1',
      '/pagar/-1',
      '/pagar/abc',
      '/l/zz',
      '/qr/enlace/1.png.png',
      '/qr/enlace/x',
      '/3ds/x',
      '/qp/x',
      '/qp/x.png',
      '/qr/bitcoin/x.png',
      '/__sandbox',
      '/__sandbox/clock',
      '/__sandbox/outbox',
      '/__sandbox/stats',
      '/__sandbox/clock/advance',
      '/',
      '//',
      '/api',
      '/api/%',
      '/api/EnlacePago?monto=1',
      `/api/${'x'.repeat(3000)}`,
    ];

    const auth = fc.constantFrom<string | undefined>(
      undefined,
      bearer,
      cuenta,
      'Bearer nope',
      'Basic Zm9vOmJhcg==',
      'Basic',
      '',
      'Digest x',
      `Bearer ${bearer}x`,
    );
    const contentType = fc.constantFrom<string | undefined>(
      undefined,
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/json-patch+json',
      '*/*',
      'garbage',
    );
    const cabecerasExtra = fc.dictionary(
      fc.constantFrom('x-foo', 'accept', 'accept-encoding', 'x-forwarded-for', 'cookie', 'origin'),
      fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
      { maxKeys: 3 },
    );
    const cuerpoCualquiera = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 200 }),
      fc.constantFrom(
        '{',
        '{"monto": }',
        '[',
        'null',
        '""',
        '{"__proto__": {"a": 1}}',
        '{"constructor": {"prototype": {"a": 1}}}',
        'grant_type=client_credentials&audience=service_api&client_id=sandbox-client&client_secret=x',
        '\u0000\u0001',
      ),
    );
    const metodo = fc.constantFrom<Solicitud['method']>('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS');

    // Any method on any path, random body and headers; no valid account credentials on DELETE /Cuenta (that is valid).
    const aleatoria: fc.Arbitrary<Solicitud> = fc
      .record({
        method: metodo,
        url: fc.oneof(
          fc.constantFrom(...rutas),
          fc.constantFrom(...reales),
          fc.webPath().map((w) => w || '/'),
        ),
        auth,
        contentType,
        extra: cabecerasExtra,
        payload: fc.option(cuerpoCualquiera, { nil: undefined }),
      })
      .filter((r) => !(r.url.startsWith('/api/Cuenta') && r.auth === cuenta) && !(r.method === 'POST' && reales.includes(r.url)))
      .map((r) => ({
        method: r.method,
        url: r.url,
        headers: {
          ...r.extra,
          ...(r.auth === undefined ? {} : { authorization: r.auth }),
          ...(r.contentType === undefined ? {} : { 'content-type': r.contentType }),
        },
        payload: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.payload,
      }));

    // A valid body of an endpoint with one required field corrupted or removed, with the right auth.
    const corrompida: fc.Arbitrary<Solicitud> = fc
      .constantFrom(...PLANTILLAS)
      .chain((t) =>
        fc.constantFrom(...Object.entries(t.requeridos)).chain(([campo, tipo]) =>
          fc.record({
            t: fc.constant(t),
            campo: fc.constant(campo),
            valor: fc.option(VALOR_MALO[tipo], { nil: undefined }),
            tipo: contentType,
          }),
        ),
      )
      .map(({ t, campo, valor, tipo }) => {
        const body: Cuerpo = { ...t.body };
        if (valor === undefined) delete body[campo];
        else body[campo] = valor;
        return {
          method: 'POST' as const,
          url: t.path,
          headers: { authorization: t.auth === 'bearer' ? bearer : cuenta, 'content-type': tipo ?? 'application/json' },
          payload: JSON.stringify(body),
        };
      });

    // Token requests with exactly one thing wrong.
    const tokenMalo: fc.Arbitrary<Solicitud> = fc
      .record({
        quitar: fc.constantFrom('grant_type', 'audience', 'client_id', 'client_secret', 'none'),
        grant: fc.constantFrom('client_credentials', 'password', ''),
        audience: fc.constantFrom('service_api', 'x', ''),
        secret: fc.constantFrom('sandbox-secret', 'wrong'),
        tipo: fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'),
      })
      .filter(
        (r) =>
          !(
            r.quitar === 'none' &&
            r.grant === 'client_credentials' &&
            r.audience === 'service_api' &&
            r.secret === 'sandbox-secret' &&
            r.tipo === 'application/x-www-form-urlencoded'
          ),
      )
      .map((r) => {
        const campos: Record<string, string> = {
          grant_type: r.grant,
          audience: r.audience,
          client_id: 'sandbox-client',
          client_secret: r.secret,
        };
        delete campos[r.quitar];
        return {
          method: 'POST' as const,
          url: '/auth/connect/token',
          headers: { 'content-type': r.tipo },
          payload: new URLSearchParams(campos).toString(),
        };
      });

    const foto = (): unknown =>
      JSON.parse(JSON.stringify({ ...p.ctx.store, stats: undefined }, (_k, v: unknown) => (v instanceof Map ? [...v.entries()] : v)));
    const antes = foto();
    let cuenta5xx = 0;

    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ arbitrary: aleatoria, weight: 6 }, { arbitrary: corrompida, weight: 3 }, { arbitrary: tokenMalo, weight: 1 }),
        async (s) => {
          const res = await p.app.inject({
            method: s.method,
            url: s.url,
            headers: s.headers,
            ...(s.payload === undefined ? {} : { payload: s.payload }),
          });
          if (res.statusCode >= 500) cuenta5xx += 1;
          expect(res.statusCode, `${s.method} ${s.url.slice(0, 80)} → ${res.statusCode} ${res.body.slice(0, 200)}`).toBeLessThan(500);
          if (s.url.startsWith('/api/') && res.statusCode >= 400 && s.method !== 'HEAD') {
            const errores = (res.json() as { errores?: { campo: unknown; mensaje: unknown }[] }).errores;
            expect(errores?.length).toBeGreaterThan(0);
            for (const e of errores ?? []) expect([typeof e.campo, typeof e.mensaje]).toEqual(['string', 'string']);
          }
        },
      ),
      { numRuns: 10_000, seed: 20261122 },
    );
    expect(cuenta5xx).toBe(0);
    expect(foto()).toEqual(antes);
    expect(p.ctx.store.stats.purchaseRequests).toBeGreaterThan(1000);
  });
});
