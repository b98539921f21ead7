/**
 * The sandbox under concurrency and replays, over real HTTP (a listening sandbox, requests sent at the same instant
 * with Promise.all): usage limits never overshoot, counters always equal the transactions listed, activar racing
 * payments leaves a consistent record, a replayed screen submission or 3DS completion charges nothing. The race
 * tests run with their fault too, to show they catch it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, createSandbox } from '../../sandbox/index.ts';
import { CUENTA, basic, compra3dsValida, enlaceValido, formulario, tarjeta } from './helpers.ts';

type Cuerpo = Record<string, unknown>;
const abiertos: Sandbox[] = [];
afterEach(async () => {
  for (const s of abiertos.splice(0)) await s.close();
});

async function iniciar(fault?: string): Promise<Sandbox> {
  const s = await createSandbox({ fault, webhookRetryDelaysMs: [] });
  abiertos.push(s);
  return s;
}

const cuenta = basic(CUENTA.user, CUENTA.password);
const WEBHOOK_CERRADO = 'http://127.0.0.1:9/closed';

async function bearer(s: Sandbox): Promise<string> {
  const res = await fetch(`${s.authUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      audience: 'service_api',
      client_id: s.credentials.business.clientId,
      client_secret: 'sandbox-secret',
    }),
  });
  return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
}

async function api(s: Sandbox, method: string, path: string, auth: string, body?: unknown): Promise<{ status: number; json: Cuerpo }> {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Cuerpo };
}

async function crearEnlace(s: Sandbox, extra: Cuerpo = {}): Promise<{ idEnlace: number; urlEnlace: string; urlEnlaceLargo: string }> {
  const res = await api(s, 'POST', '/EnlacePago', await bearer(s), enlaceValido(extra));
  expect(res.status).toBe(200);
  return res.json as { idEnlace: number; urlEnlace: string; urlEnlaceLargo: string };
}

/** The screen's form fields (one showing: one attempt). */
async function abrir(url: string): Promise<Record<string, string>> {
  return formulario(await (await fetch(url)).text()).campos;
}

interface Respuesta {
  status: number;
  location: string | null;
  body: string;
}
async function enviar(url: string, campos: Record<string, string>): Promise<Respuesta> {
  const res = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(campos),
  });
  return { status: res.status, location: res.headers.get('location'), body: await res.text() };
}
const aprobada = (r: Respuesta) => r.status === 303 && new URL(r.location ?? 'x:').searchParams.get('esAprobada') === 'true';
const declinada = (r: Respuesta) => r.status === 303 && new URL(r.location ?? 'x:').searchParams.get('esAprobada') === 'false';

/** Opens the screen `n` times, then submits every form at the same instant. */
async function pagarALaVez(url: string, n: number, campos: Record<string, string>): Promise<Respuesta[]> {
  const formularios = await Promise.all(Array.from({ length: n }, () => abrir(url)));
  return Promise.all(formularios.map((f) => enviar(url, { ...f, ...campos })));
}

async function registro(s: Sandbox, idEnlace: number): Promise<Cuerpo & { transacciones: Cuerpo[] }> {
  return (await api(s, 'PUT', `/EnlacePago/${idEnlace}/activar`, cuenta)).json as Cuerpo & { transacciones: Cuerpo[] };
}

/** The 2.1 counters equal what transacciones lists. */
function contadoresCuadran(r: Cuerpo & { transacciones: Cuerpo[] }): boolean {
  return (
    r.cantidadPagosExitosos === r.transacciones.filter((t) => t.esAprobada === true).length &&
    r.cantidadIntentoPagoFallidos === r.transacciones.filter((t) => t.resultadoTransaccion === 1).length
  );
}

describe('usage limits under simultaneous payments', () => {
  it.each([undefined, 'race-success-limit'])(
    'screen and PagoQr payments at once never approve past cantidadMaximaPagosExitosos (fault %s)',
    async (fault) => {
      const s = await iniciar(fault);
      const link = await crearEnlace(s, { limitesDeUso: { cantidadMaximaPagosExitosos: 3 } });
      const formularios = await Promise.all(Array.from({ length: 6 }, () => abrir(link.urlEnlaceLargo)));
      const [pantallas, qrs] = await Promise.all([
        Promise.all(formularios.map((f) => enviar(link.urlEnlaceLargo, { ...f, ...tarjeta() }))),
        Promise.all(
          Array.from({ length: 4 }, () => api(s, 'POST', '/TransaccionCompra/PagoQr', cuenta, { urlEnlacePago: link.urlEnlace })),
        ),
      ]);
      const aprobadas = pantallas.filter(aprobada).length + qrs.filter((r) => r.status === 200).length;
      const r = await registro(s, link.idEnlace);
      const correcto = aprobadas === 3 && r.cantidadPagosExitosos === 3 && r.transacciones.length === 3 && contadoresCuadran(r);
      expect(correcto).toBe(fault === undefined);
      if (fault === undefined) {
        expect(pantallas.filter((p) => p.status === 410).length + qrs.filter((q) => q.status === 400).length).toBe(7);
      }
    },
  );

  it.each([undefined, 'race-failure-counter'])(
    'declines at once stop exactly at cantidadMaximaPagosFallidos, counted one by one (fault %s)',
    async (fault) => {
      const s = await iniciar(fault);
      const link = await crearEnlace(s, { limitesDeUso: { cantidadMaximaPagosFallidos: 3 } });
      const respuestas = await pagarALaVez(link.urlEnlaceLargo, 6, tarjeta('111'));
      const procesadas = respuestas.filter(declinada).length;
      const cerrado = (await fetch(link.urlEnlaceLargo)).status === 410;
      const r = await registro(s, link.idEnlace);
      const correcto = procesadas === 3 && cerrado && r.cantidadIntentoPagoFallidos === 3 && contadoresCuadran(r);
      expect(correcto).toBe(fault === undefined);
    },
  );

  it('approvals and declines at once on a link with both limits: counters equal the transactions listed', async () => {
    const s = await iniciar();
    const link = await crearEnlace(s, { limitesDeUso: { cantidadMaximaPagosExitosos: 2, cantidadMaximaPagosFallidos: 2 } });
    const formularios = await Promise.all(Array.from({ length: 10 }, () => abrir(link.urlEnlaceLargo)));
    const respuestas = await Promise.all(
      formularios.map((f, i) => enviar(link.urlEnlaceLargo, { ...f, ...tarjeta(i % 2 === 0 ? '111' : '123') })),
    );
    expect(respuestas.filter(aprobada).length).toBeLessThanOrEqual(2);
    expect(respuestas.filter(declinada).length).toBeLessThanOrEqual(2);
    const r = await registro(s, link.idEnlace);
    expect(contadoresCuadran(r)).toBe(true);
    expect(r.transacciones.length).toBe(respuestas.filter((x) => x.status === 303).length);
  });

  it('activar racing declines leaves a consistent record: the link is inactive exactly when its failures since activation reach the limit', async () => {
    const s = await iniciar();
    const link = await crearEnlace(s, { limitesDeUso: { cantidadMaximaPagosFallidos: 2 } });
    for (let ronda = 0; ronda < 3; ronda++) {
      const formularios = await Promise.all(Array.from({ length: 4 }, () => abrir(link.urlEnlaceLargo)));
      await Promise.all([
        ...formularios.map((f) => enviar(link.urlEnlaceLargo, { ...f, ...tarjeta('111') })),
        api(s, 'PUT', `/EnlacePago/${link.idEnlace}/activar`, cuenta),
      ]);
      const enlace = s.app.sandbox.store.links.get(link.idEnlace)!;
      expect(enlace.activo).toBe(enlace.fallidosDesdeActivacion < 2);
      expect(contadoresCuadran(await registro(s, link.idEnlace))).toBe(true);
    }
  });
});

describe('replays', () => {
  it('each showing of the screen carries its own attempt token', async () => {
    const s = await iniciar();
    const link = await crearEnlace(s);
    const intentos = (await Promise.all(Array.from({ length: 5 }, () => abrir(link.urlEnlaceLargo)))).map((f) => f.intento);
    expect(new Set(intentos).size).toBe(5);
  });

  it.each([undefined, 'screen-replay-double-charge'])(
    'the same submission posted three times at once charges once and answers the same redirect (fault %s)',
    async (fault) => {
      const s = await iniciar(fault);
      const link = await crearEnlace(s);
      const campos = { ...(await abrir(link.urlEnlaceLargo)), ...tarjeta() };
      const respuestas = await Promise.all([1, 2, 3].map(() => enviar(link.urlEnlaceLargo, campos)));
      const r = await registro(s, link.idEnlace);
      const correcto =
        respuestas.every((x) => x.status === 303 && x.location === respuestas[0]!.location) &&
        r.transacciones.length === 1 &&
        r.cantidadPagosExitosos === 1;
      expect(correcto).toBe(fault === undefined);
    },
  );

  it('a replayed decline answers the same decline and counts no second failure', async () => {
    const s = await iniciar();
    const link = await crearEnlace(s, { limitesDeUso: { cantidadMaximaPagosFallidos: 2 } });
    const campos = { ...(await abrir(link.urlEnlaceLargo)), ...tarjeta('111') };
    const primera = await enviar(link.urlEnlaceLargo, campos);
    const segunda = await enviar(link.urlEnlaceLargo, campos);
    expect(declinada(primera)).toBe(true);
    expect(segunda.location).toBe(primera.location);
    expect((await fetch(link.urlEnlaceLargo)).status).toBe(200);
    const r = await registro(s, link.idEnlace);
    expect(r).toMatchObject({ cantidadIntentoPagoFallidos: 1 });
    expect(r.transacciones).toHaveLength(1);
  });

  it('a replayed Bitcoin submission shows the same pending payment, no second transaction', async () => {
    const s = await iniciar();
    const formaPago = {
      permitirTarjetaCreditoDebido: false,
      permitirPagoConPuntoPartner: false,
      permitirPagoEnCuotasPartner: false,
      permitirPagoEnBitcoin: true,
      permitePagoQuickPay: false,
    };
    const link = await crearEnlace(s, { formaPago });
    const campos = { ...(await abrir(link.urlEnlaceLargo)), formaPago: '3' };
    const [a, b] = [await enviar(link.urlEnlaceLargo, campos), await enviar(link.urlEnlaceLargo, campos)];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body).toBe(a.body);
    expect((await registro(s, link.idEnlace)).transacciones).toHaveLength(1);
  });

  it('a submission that was refused (a missing card field) does not use up its attempt', async () => {
    const s = await iniciar();
    const link = await crearEnlace(s);
    const campos = { ...(await abrir(link.urlEnlaceLargo)), ...tarjeta() };
    const { cvv: _cvv, ...sinCvv } = campos;
    expect((await enviar(link.urlEnlaceLargo, sinCvv)).status).toBe(400);
    expect(aprobada(await enviar(link.urlEnlaceLargo, campos))).toBe(true);
  });

  it.each([undefined, '3ds-replay-double'])(
    'the 3DS completion posted twice at once approves and notifies once (fault %s)',
    async (fault) => {
      const s = await iniciar(fault);
      const compra = (
        await api(s, 'POST', '/TransaccionCompra/3DS', await bearer(s), compra3dsValida({ configuracion: { urlWebhook: WEBHOOK_CERRADO } }))
      ).json;
      const url = String(compra.urlCompletarPago3Ds);
      const respuestas = await Promise.all([1, 2].map(() => enviar(url, { desafio: 'aprobado' })));
      const segunda = await enviar(url, { desafio: 'aprobado' });
      const correcto =
        respuestas.filter((x) => x.status === 303).length === 1 &&
        segunda.status === 410 &&
        s.app.sandbox.store.outbox.webhooks.length === 1;
      expect(correcto).toBe(fault === undefined);
    },
  );
});
