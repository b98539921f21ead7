/** Helpers for the sandbox's own tests: an app driven with `inject`, valid request bodies, the screen flow. */
import { createHmac } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import jsqr from 'jsqr';
import { parse } from 'node-html-parser';
import { PNG } from 'pngjs';
import { type BuildOptions, buildApp } from '../../sandbox/index.ts';

export const ORIGIN = 'http://sandbox.test';
export const CUENTA = { user: 'merchant@sandbox.test', password: 'sandbox-password' };
export const DESECHABLE = { user: 'disposable@sandbox.test', password: 'disposable-password' };
export const NEGOCIO = { clientId: 'sandbox-client', clientSecret: 'sandbox-secret' };
export const NEGOCIO_SIN_MPOS = { clientId: 'sandbox-client-nompos', clientSecret: 'sandbox-secret-nompos' };
/** The second merchant (another tenant). */
export const OTRA_CUENTA = { user: 'other-merchant@sandbox.test', password: 'other-password' };
export const OTRO_NEGOCIO = { clientId: 'other-client', clientSecret: 'other-secret' };

type Cuerpo = Record<string, unknown>;

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function hmacHex(key: string, message: string): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/** Path and query of an absolute sandbox URL, for `inject`. */
export function ruta(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

export const enlaceValido = (extra: Cuerpo = {}): Cuerpo => ({
  identificadorEnlaceComercio: 'pedido-1',
  monto: 10,
  nombreProducto: 'Camisa',
  configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'ventas@merchant.test' },
  ...extra,
});

export const compra3dsValida = (extra: Cuerpo = {}): Cuerpo => ({
  tarjetaCreditoDebido: { numeroTarjeta: '4111111111111111', cvv: '123', mesVencimiento: 12, anioVencimiento: 2030 },
  monto: 25.5,
  urlRedirect: 'https://merchant.test/vuelta',
  nombre: 'Ana',
  apellido: 'Pérez',
  email: 'ana@cliente.test',
  ciudad: 'San Salvador',
  direccion: 'Calle 1',
  idPais: 'SV',
  idRegion: 'SV-SS',
  codigoPostal: '1101',
  telefono: '+503 7777 7777',
  ...extra,
});

export const walletValido = (extra: Cuerpo = {}): Cuerpo => ({ monto: 12.5, dui: '00000000-0', descripcion: 'Compra', ...extra });

export const mposValido = (extra: Cuerpo = {}): Cuerpo => ({
  posId: 'POS-0001',
  numeroTarjeta: '4111111111111111',
  mesVencimiento: 12,
  anioVencimiento: 2035,
  monto: 7.25,
  tarjetaBan: 'ENCTRACK2DATA',
  llaveTarjetaBan: 'FFFF9876543210E00001',
  ...extra,
});

export const tarjeta = (cvv = '123'): Record<string, string> => ({
  formaPago: '0',
  numeroTarjeta: '4111111111111111',
  cvv,
  mesVencimiento: '12',
  anioVencimiento: '2030',
  nombreTitular: 'Ana Pérez',
  email: 'ana@cliente.test',
});

/** The form of a hosted page: hidden fields with their values and the select options. */
export function formulario(html: string): { action: string; campos: Record<string, string>; opciones: Record<string, string[]> } {
  const form = parse(html).querySelector('form');
  if (form === null) throw new Error(`no form in page:\n${html}`);
  const campos: Record<string, string> = {};
  for (const input of form.querySelectorAll('input')) campos[input.getAttribute('name') ?? ''] = input.getAttribute('value') ?? '';
  const opciones: Record<string, string[]> = {};
  for (const select of form.querySelectorAll('select')) {
    opciones[select.getAttribute('name') ?? ''] = select.querySelectorAll('option').map((o) => o.getAttribute('value') ?? '');
  }
  return { action: form.getAttribute('action') ?? '', campos, opciones };
}

export function estado(html: string): string | undefined {
  return parse(html).querySelector('#estado')?.text;
}

export class Prueba {
  private tokens = new Map<string, string>();
  constructor(readonly app: FastifyInstance) {}

  get ctx() {
    return this.app.sandbox;
  }

  async token(c = NEGOCIO): Promise<string> {
    const cached = this.tokens.get(c.clientId);
    if (cached !== undefined) return cached;
    const res = await this.app.inject({
      method: 'POST',
      url: '/auth/connect/token',
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        audience: 'service_api',
        client_id: c.clientId,
        client_secret: c.clientSecret,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const token = (res.json() as { access_token: string }).access_token;
    this.tokens.set(c.clientId, token);
    return token;
  }

  async bearer(c = NEGOCIO): Promise<string> {
    return `Bearer ${await this.token(c)}`;
  }

  /** JSON request to the API (`/api` + path). `auth` is a ready Authorization header value, or none. */
  api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, auth?: string, body?: unknown): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = {};
    if (auth !== undefined) headers.authorization = auth;
    return this.app.inject({ method, url: `/api${path}`, headers, ...(body === undefined ? {} : { payload: body as Cuerpo }) });
  }

  async crearEnlace(
    body: Cuerpo = enlaceValido(),
  ): Promise<{ idEnlace: number; urlEnlace: string; urlEnlaceLargo: string; urlQrCodeEnlace: string }> {
    const res = await this.api('POST', '/EnlacePago', await this.bearer(), body);
    if (res.statusCode !== 200) throw new Error(`link creation failed: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  abrir(url: string): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: 'GET', url: ruta(url) });
  }

  enviarFormulario(url: string, campos: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.app.inject({
      method: 'POST',
      url: ruta(url),
      payload: new URLSearchParams(campos).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }

  /** Opens the screen of a link and submits its form with `campos` added. */
  async pagar(urlEnlaceLargo: string, campos: Record<string, string> = tarjeta()): Promise<LightMyRequestResponse> {
    const pantalla = await this.abrir(urlEnlaceLargo);
    if (pantalla.statusCode !== 200) return pantalla;
    const form = formulario(pantalla.body);
    return this.enviarFormulario(urlEnlaceLargo, { ...form.campos, ...campos });
  }

  async registro(idEnlace: number): Promise<Cuerpo> {
    const res = await this.api('PUT', `/EnlacePago/${idEnlace}/activar`, basic(CUENTA.user, CUENTA.password));
    return res.json();
  }

  avanzar(seconds: number): Promise<LightMyRequestResponse> {
    return this.app.inject({ method: 'POST', url: '/__sandbox/clock/advance', payload: { seconds } });
  }
}

export async function sandbox(options: BuildOptions = {}): Promise<Prueba> {
  const app = buildApp({ origin: ORIGIN, ...options });
  await app.ready();
  return new Prueba(app);
}

/** The query of a 303 redirect. */
export function consulta(res: LightMyRequestResponse): Record<string, string> {
  const location = res.headers.location;
  if (typeof location !== 'string') throw new Error(`no redirect: ${res.statusCode} ${res.body}`);
  return Object.fromEntries(new URL(location).searchParams);
}

export function decodificarQr(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  // jsqr is CommonJS: its default import is module.exports, whose `default` is the decoder.
  return jsqr.default(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
}

/** The steps screen's session cookie (`name=value`) set by an answer. */
export function cookiePasos(res: LightMyRequestResponse): string {
  const set = res.headers['set-cookie'];
  const valor = (Array.isArray(set) ? set : [set ?? '']).find((c) => c.startsWith('sesion_pasos='));
  if (valor === undefined) throw new Error(`no session cookie: ${JSON.stringify(set)}`);
  return valor.split(';')[0]!;
}

/** A form post to a path, with a cookie. */
export function postar(p: Prueba, url: string, campos: Record<string, string>, cookie?: string): Promise<LightMyRequestResponse> {
  return p.app.inject({
    method: 'POST',
    url,
    payload: new URLSearchParams(campos).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === undefined ? {} : { cookie }) },
  });
}

/**
 * Steps screen: step 1 shown and posted with `campos`. Its answer (step 2, or step 1 again), the session cookie, the
 * step 1 page, and `confirmar()` posting step 2's form (which it reads from the answer).
 */
export async function pasoUno(p: Prueba, urlEnlaceLargo: string, campos: Record<string, string> = tarjeta()) {
  const pantalla = await p.abrir(urlEnlaceLargo);
  if (pantalla.statusCode !== 200) throw new Error(`step 1 answered ${pantalla.statusCode}`);
  const cookie = cookiePasos(pantalla);
  const form = formulario(pantalla.body);
  const res = await postar(p, form.action, { ...form.campos, ...campos }, cookie);
  const confirmar = () => {
    const f = formulario(res.body);
    return postar(p, f.action, f.campos, cookie);
  };
  return { res, cookie, pantalla, confirmar };
}

/** Frame screen: the shell's attempt (`intento`) and its JSON endpoint, as its inline data gives them. */
export function datosPantallaMarco(html: string): {
  intento: string;
  api: string;
  retorno: string | null;
  sinTarjeta: string[];
  nombreForma: string;
} {
  const json = parse(html).querySelector('#datos-pantalla')?.text;
  if (json === undefined) throw new Error(`no frame shell:\n${html}`);
  return JSON.parse(json);
}

/** Frame screen: a card into the vault; its answer. */
export function tokenizar(p: Prueba, idEnlace: number, cvv = '123'): Promise<LightMyRequestResponse> {
  return p.app.inject({
    method: 'POST',
    url: '/vault/tokens',
    headers: { host: 'localhost:80' },
    payload: {
      idEnlace,
      numeroTarjeta: '4111111111111111',
      cvv,
      mesVencimiento: '12',
      anioVencimiento: '2030',
      nombreTitular: 'Ana Pérez',
    },
  });
}

/**
 * Frame screen, as its scripts do: shell opened, card tokenised, JSON submitted (formaPago 0 unless `campos` say
 * otherwise). The JSON answer as a 303 (`{redirect}` → location) so `consulta` reads it, else as it came.
 */
export async function pagarEnMarco(
  p: Prueba,
  urlEnlaceLargo: string,
  campos: Record<string, string> = {},
  cvv = '123',
): Promise<LightMyRequestResponse> {
  const shell = await p.abrir(urlEnlaceLargo);
  if (shell.statusCode !== 200) return shell;
  const datos = datosPantallaMarco(shell.body);
  const link = Number(/\/(\d+)\/api/.exec(datos.api)?.[1] ?? /[?&]e=(\d+)/.exec(datos.api)?.[1]);
  const token = (await tokenizar(p, link, cvv)).json().token as string;
  const res = await p.app.inject({
    method: 'POST',
    url: datos.api,
    payload: { intento: datos.intento, formaPago: '0', cantidad: '', email: 'ana@cliente.test', token, ...campos },
  });
  const redirect = res.statusCode === 200 ? (res.json() as { redirect?: string }).redirect : undefined;
  return redirect === undefined
    ? res
    : ({ ...res, statusCode: 303, headers: { ...res.headers, location: redirect } } as LightMyRequestResponse);
}
