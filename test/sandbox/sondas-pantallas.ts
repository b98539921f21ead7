/**
 * The probes of the faults only other kinds of hosted screens can make (steps, frame) for faults.test.ts: each
 * answers "is this behaviour correct?" on a sandbox serving that screen — true without the fault, false with it.
 */
import type { FaultId } from '../../sandbox/index.ts';
import type { Pantalla } from '../../sandbox/context.ts';
import { type Prueba, consulta, enlaceValido, pagarEnMarco, pasoUno, sandbox, tarjeta } from './helpers.ts';

type Sonda = (p: Prueba, id: string) => Promise<boolean>;

/** Runs `sonda` on a sandbox serving `pantalla`, with the fault the given one was started with (if any). */
function enPantalla(pantalla: Pantalla, sonda: (q: Prueba) => Promise<boolean>): Sonda {
  return async (p) => {
    const q = await sandbox({
      screen: pantalla,
      ...(p.ctx.options.fault ? { fault: p.ctx.options.fault } : {}),
      webhookRetryDelaysMs: [5],
    });
    try {
      return await sonda(q);
    } finally {
      await q.app.close();
    }
  };
}

const configuracion = { notificarTransaccionCliente: false, emailsNotificacion: 'a@b.test' };

export const SONDAS_PANTALLAS = {
  'steps-confirm-amount-differs': enPantalla('steps', async (q) => {
    const link = await q.crearEnlace(enlaceValido({ monto: 10.5, configuracion: { ...configuracion, esCantidadEditable: true } }));
    const { confirmar } = await pasoUno(q, link.urlEnlaceLargo, { ...tarjeta(), cantidad: '4' });
    return consulta(await confirmar()).monto === '42.00';
  }),
  'steps-confirm-twice-charges-twice': enPantalla('steps', async (q) => {
    const link = await q.crearEnlace();
    const { confirmar } = await pasoUno(q, link.urlEnlaceLargo);
    await confirmar();
    await confirmar();
    return (await q.registro(link.idEnlace)).cantidadPagosExitosos === 1;
  }),
  'frame-token-wrong-amount': enPantalla('frame', async (q) => {
    const link = await q.crearEnlace(enlaceValido({ monto: 10.5, configuracion: { ...configuracion, cantidadPorDefecto: 3 } }));
    return consulta(await pagarEnMarco(q, link.urlEnlaceLargo)).monto === '31.50';
  }),
} satisfies Partial<Record<FaultId, Sonda>>;
