/**
 * The probes of the faults at the doors (who may call what, every door of a limit, a read after every write, money to the
 * cent) for faults.test.ts: each answers "is this behaviour correct?" — true on the clean sandbox, false with its fault.
 */
import type { FaultId } from '../../sandbox/index.ts';
import { ORIGIN, consulta, enlaceValido, formulario, mposValido, type Prueba, tarjeta } from './helpers.ts';

type Sonda = (p: Prueba, id: string) => Promise<boolean>;
type Cuerpo = Record<string, unknown>;

const configuracion = (extra: Cuerpo = {}): Cuerpo => ({ notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', ...extra });
const quickPay = async (p: Prueba): Promise<{ idTransaccion: string }> =>
  (await p.api('POST', '/TransaccionCompra/Quick-pay', await p.bearer(), { monto: 1 })).json();
const consultar = async (p: Prueba, id: string): Promise<Cuerpo> =>
  (await p.api('GET', `/TransaccionCompra/${id}`, await p.bearer())).json();

export const SONDAS_PUERTAS = {
  'amount-binary-float': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ monto: 0.1, configuracion: configuracion({ esCantidadEditable: true }) }));
    const { idTransaccion } = consulta(await p.pagar(link.urlEnlaceLargo, { ...tarjeta(), cantidad: '3' }));
    return (await consultar(p, idTransaccion!)).monto === 0.3;
  },
  'lookup-stale-cache': async (p) => {
    const { idTransaccion } = await quickPay(p);
    const antes = await consultar(p, idTransaccion);
    await p.enviarFormulario(`${ORIGIN}/qp/${idTransaccion}`, {});
    return antes.esAprobada === false && (await consultar(p, idTransaccion)).esAprobada === true;
  },
  'quickpay-expired-paid-by-post': async (p) => {
    const { idTransaccion } = await quickPay(p);
    const campos = formulario((await p.abrir(`${ORIGIN}/qp/${idTransaccion}`)).body).campos;
    await p.avanzar(660);
    return (await p.enviarFormulario(`${ORIGIN}/qp/${idTransaccion}`, campos)).statusCode === 410;
  },
  'lookup-token-expiry-ignored': async (p) => {
    const { idTransaccion } = await quickPay(p);
    const auth = await p.bearer();
    await p.avanzar(3601);
    return (await p.api('GET', `/TransaccionCompra/${idTransaccion}`, auth)).statusCode === 401;
  },
  'fechafin-calendar-date': async (p) => {
    // fechaFin at the start of today (UTC), written with Z: past by the instant, today by its written date.
    const fechaFin = `${new Date(p.ctx.clock.nowMs()).toISOString().slice(0, 10)}T00:00:00.000Z`;
    const link = await p.crearEnlace(enlaceValido({ vigencia: { fechaFin } }));
    return (await p.abrir(link.urlEnlaceLargo)).statusCode === 410;
  },
  'pagoqr-any-caller': async (p) => {
    const link = await p.crearEnlace();
    const res = await p.api('POST', '/TransaccionCompra/PagoQr', await p.bearer(), { urlEnlacePago: link.urlEnlace });
    return res.statusCode === 401;
  },
  'mpos-idaplicativo-overrides-tenant': async (p) => {
    const res = await p.api('POST', '/TransaccionCompra/Mpos/Banda', await p.bearer(), mposValido({ idAplicativo: 'app-other-1' }));
    if (res.statusCode !== 200) return true;
    return p.ctx.store.transactions.get((res.json() as { idTransaccion: string }).idTransaccion)?.idAplicativo === 'app-dev-1';
  },
} satisfies Partial<Record<FaultId, Sonda>>;
