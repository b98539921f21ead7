/**
 * The probes of the faults of a link's own settings, fields on the wrong outcome and free content (faults.test.ts):
 * each answers "is this behaviour correct?" — true on the clean sandbox, false with its fault.
 */
import type { FaultId } from '../../sandbox/index.ts';
import { consulta, enlaceValido, type Prueba, tarjeta, walletValido } from './helpers.ts';

type Sonda = (p: Prueba, id: string) => Promise<boolean>;
type Cuerpo = Record<string, unknown>;

const configuracion = (extra: Cuerpo = {}): Cuerpo => ({ notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test', ...extra });
const soloTarjeta = {
  permitirTarjetaCreditoDebido: true,
  permitirPagoConPuntoPartner: false,
  permitirPagoEnCuotasPartner: false,
  permitirPagoEnBitcoin: false,
  permitePagoQuickPay: false,
};
const consultar = async (p: Prueba, id: string): Promise<Cuerpo> =>
  (await p.api('GET', `/TransaccionCompra/${id}`, await p.bearer())).json();

export const SONDAS_CLASES = {
  'link-formapago-not-enforced': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ formaPago: soloTarjeta }));
    const res = await p.pagar(link.urlEnlaceLargo, { ...tarjeta(), formaPago: '1' });
    return res.statusCode === 400 && (await p.registro(link.idEnlace)).cantidadPagosExitosos === 0;
  },
  'cuotas-not-limited-by-link': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({ formaPago: { ...soloTarjeta, permitirPagoEnCuotasPartner: true }, cantidadMaximaCuotas: 'Tres' }),
    );
    const res = await p.pagar(link.urlEnlaceLargo, { ...tarjeta(), formaPago: '2', cuotas: '12' });
    return res.statusCode === 400 && (await p.registro(link.idEnlace)).cantidadPagosExitosos === 0;
  },
  'cantidad-fraction-accepted': async (p) => {
    const link = await p.crearEnlace(enlaceValido({ configuracion: configuracion({ esCantidadEditable: true }) }));
    return (await p.pagar(link.urlEnlaceLargo, { ...tarjeta(), cantidad: '0.5' })).statusCode === 400;
  },
  'redirect-query-dropped': async (p) => {
    const link = await p.crearEnlace(
      enlaceValido({ configuracion: configuracion({ urlRedirect: 'https://shop.test/gracias?pedido=A-17' }) }),
    );
    const q = consulta(await p.pagar(link.urlEnlaceLargo));
    return q.pedido === 'A-17' && q.idTransaccion !== undefined;
  },
  'declined-has-codigo-autorizacion': async (p) => {
    const link = await p.crearEnlace();
    const { idTransaccion } = consulta(await p.pagar(link.urlEnlaceLargo, tarjeta('111')));
    const tx = await consultar(p, idTransaccion!);
    return tx.esAprobada === false && tx.codigoAutorizacion === null;
  },
  'datos-adicionales-numeric-coerced': async (p) => {
    const res = (
      await p.api('POST', '/TransaccionCompra/Wallet', await p.bearer(), walletValido({ datosAdicionales: { pedido: '00123' } }))
    ).json();
    const tx = await consultar(p, res.idTransaccion);
    return res.datosAdicionales?.pedido === '00123' && (tx.datosAdicionales as Cuerpo | null)?.pedido === '00123';
  },
} satisfies Partial<Record<FaultId, Sonda>>;
