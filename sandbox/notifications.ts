/**
 * Spec 6.1/6.2 notifications of a successful transaction: the webhook (JSON body signed in `x-signature`, delivered
 * in the background with bounded retries, every attempt recorded in the outbox), e-mails and SMS (outbox only).
 * Delivery never blocks the API response; closing or resetting the sandbox cancels pending retries.
 */
import type { Notifier, SandboxContext } from './context.ts';
import { hmacHex, montoTexto } from './hash.ts';
import type { Link, Transaction, WebhookRecord } from './store.ts';
import { fechaServicio, vistaTransaccion } from './views.ts';
import { datosNumericos, datosRecasados, formaCuerpo } from './respuestas.ts';
import { clockOf, outboxOf } from './tenants.ts';

export type { Notifier } from './context.ts';

const WEBHOOK_TIMEOUT_MS = 5000;

/** Variant webhook-late: how long after the payment the first delivery starts. */
const RETRASO_TARDIO_MS = 1500;

/**
 * Variant webhook-pascalcase: IdTransaccion, Monto, EsProductiva (the keys of nested objects too, not dictionary
 * keys: neither datosAdicionales' nor the pairs `pares` wherever webhook-pairs-* put them).
 */
// Stryker disable all: only variant webhook-pascalcase calls it (plumbing, off by default; npm run mutation:stryker)
function pascal(value: unknown, pares: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((v) => pascal(v, pares));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      pares.has(k) ? k : k.charAt(0).toUpperCase() + k.slice(1),
      k === 'datosAdicionales' ? v : pascal(v, pares),
    ]),
  );
}
// Stryker restore all

export function createNotifier(ctx: Pick<SandboxContext, 'store' | 'options' | 'fault' | 'variant' | 'clock' | 'network'>): Notifier {
  const timers = new Set<NodeJS.Timeout>();
  const enCurso = new Set<AbortController>();
  // Bumped by cancelar(): a delivery started in an older generation records nothing and never retries.
  let generacion = 0;

  /** The signature's header: x-signature, or another name (variants webhook-signature-header, webhook-vendor-header). */
  function cabeceraFirma(): string {
    if (ctx.variant('webhook-vendor-header')) return 'sandbox_hash';
    return ctx.variant('webhook-signature-header') ? 'x-payment-signature' : 'x-signature';
  }

  /** Runs `fn` after `ms` (at once for 0), cancelled by cancelar(). */
  function despues(ms: number, fn: () => void): void {
    if (ms <= 0) return fn();
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    timers.add(timer);
  }

  /** One POST of the webhook; its answer's status, or null after a connection error. */
  function enviar(url: string, raw: string, firma: string): Promise<number | null> {
    const controller = new AbortController();
    enCurso.add(controller);
    return fetch(url, {
      method: 'POST',
      // Variant webhook-signature-header: the same signature in a header of another name.
      headers: { 'content-type': 'application/json', [cabeceraFirma()]: firma, 'user-agent': 'payment-service-sandbox' },
      body: raw,
      redirect: 'manual',
      signal: AbortSignal.any([controller.signal, AbortSignal.timeout(WEBHOOK_TIMEOUT_MS)]),
    })
      .then(
        async (res) => {
          await res.body?.cancel();
          return res.status;
        },
        () => null,
      )
      .finally(() => enCurso.delete(controller));
  }

  /**
   * One attempt of the sender, through the network when there is one: late, and maybe delivered twice (the copy is
   * the network's, so the outbox records the attempt once).
   */
  function intentar(registro: WebhookRecord, raw: string, firma: string, gen: number): void {
    const [retraso = 0, ...copias] = ctx.network?.webhookPlan() ?? [0];
    despues(retraso, () => entregar(registro, raw, firma, gen));
    for (const ms of copias) despues(ms, () => void enviar(registro.url, raw, firma));
  }

  function entregar(registro: WebhookRecord, raw: string, firma: string, gen: number): void {
    void enviar(registro.url, raw, firma).then((status) => {
      if (gen !== generacion) return;
      registro.attempts += 1;
      registro.lastStatus = status;
      registro.delivered = status !== null && status >= 200 && status < 300;
      const espera = ctx.options.webhookRetryDelaysMs[registro.attempts - 1];
      // Variant webhook-sent-once: sent once, whatever the answer (6: retries "not shown").
      if (registro.delivered || espera === undefined || ctx.fault('webhook-no-retry') || ctx.variant('webhook-sent-once')) return;
      despues(espera, () => intentar(registro, raw, firma, gen));
    });
  }

  function webhook(tx: Transaction, link: Link | null, secret: string): void {
    const url = tx.notificaciones.urlWebhook;
    if (url === null || ctx.fault('webhook-missing')) return;
    const pares = tx.datosAdicionales ?? {};
    let body: Record<string, unknown> = {
      ...vistaTransaccion(tx, ctx.fault),
      datosAdicionales: pares,
      esProductiva: ctx.fault('webhook-esproductiva-true') ? true : tx.esReal,
    };
    if (ctx.fault('webhook-without-datosadicionales')) delete body.datosAdicionales;
    // Fault webhook-monto-string: amounts written as text ("29.00"), as a captured deployed webhook shows.
    if (ctx.fault('webhook-monto-string')) {
      body.monto = montoTexto(tx.monto);
      if (typeof body.montoOriginal === 'number') body.montoOriginal = montoTexto(body.montoOriginal);
    }
    // Variant webhook-no-esaprobada: only successes are notified, so the body does not say it.
    if (ctx.variant('webhook-no-esaprobada')) delete body.esAprobada;
    if (link !== null) {
      body.idEnlace = link.idEnlace;
      body.identificadorEnlaceComercio = link.identificadorEnlaceComercio;
      // Fault webhook-monto-unit-price: the link's unit price instead of the amount charged.
      if (ctx.fault('webhook-monto-unit-price')) body.monto = link.monto;
    }
    // 6 does not show where the purchase's pairs travel: variant webhook-pairs-nested puts them in the customer's
    // object, webhook-pairs-top-level beside the transaction's fields (which win a clash of names).
    if (ctx.variant('webhook-pairs-top-level') && 'datosAdicionales' in body) {
      const { datosAdicionales: _, ...resto } = body;
      body = { ...pares, ...resto };
    } else if (ctx.variant('webhook-pairs-nested') && 'datosAdicionales' in body) {
      const { datosAdicionales: _, ...resto } = body;
      body = { ...resto, cliente: { nombre: null, email: tx.emailCliente, ...pares } };
    }
    // The payload is "not shown" (6): variants wrap it, write its keys in PascalCase, reorder them, add fields.
    const datos = ctx.fault('datos-adicionales-numeric-coerced') ? datosNumericos(body) : body;
    const forma = formaCuerpo(ctx.variant, ctx.fault('datos-keys-recased') ? datosRecasados(datos) : datos);
    const envuelto = ctx.variant('webhook-wrapped')
      ? { evento: 'transaccion.aprobada', fecha: fechaServicio(ctx.variant, clockOf(ctx, tx.idAplicativo).nowMs()), transaccion: forma }
      : forma;
    const enviado = (ctx.variant('webhook-pascalcase') ? pascal(envuelto, new Set(Object.keys(pares))) : envuelto) as Record<
      string,
      unknown
    >;
    // Fault webhook-bom: a UTF-8 byte-order mark before the JSON (signed with it, as sent).
    const raw = `${ctx.fault('webhook-bom') ? '\uFEFF' : ''}${JSON.stringify(enviado)}`;
    const firmado = ctx.fault('webhook-bad-signature') ? JSON.stringify(enviado, null, 2) : raw;
    const registro: WebhookRecord = { url, body: enviado, attempts: 0, delivered: false, lastStatus: null };
    outboxOf(ctx.store, tx.idAplicativo).webhooks.push(registro);
    const gen = generacion;
    const firma = hmacHex(secret, firmado);
    despues(ctx.variant('webhook-late') ? RETRASO_TARDIO_MS : 0, () => intentar(registro, raw, firma, gen));
  }

  function correosYSms(tx: Transaction, link: Link | null): void {
    const outbox = outboxOf(ctx.store, tx.idAplicativo);
    const prueba = tx.esReal ? '' : '\nTRANSACCIÓN DE PRUEBA: no se realizó ningún cargo al cliente.';
    const referencia = link === null ? '' : `\nEnlace: ${link.identificadorEnlaceComercio} (${link.idEnlace})`;
    const detalle = `Transacción ${tx.idTransaccion} aprobada por $${montoTexto(tx.monto)}.${referencia}${prueba}`;
    const lista = (texto: string | null): string[] =>
      (texto ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    for (const to of lista(tx.notificaciones.emailsNotificacion)) {
      outbox.emails.push({ to, subject: `Transacción aprobada ${tx.idTransaccion}`, body: detalle });
    }
    if (tx.notificaciones.notificarTransaccionCliente && tx.emailCliente !== null) {
      outbox.emails.push({ to: tx.emailCliente, subject: 'Comprobante de su pago', body: detalle });
    }
    for (const to of lista(tx.notificaciones.telefonosNotificacion)) {
      outbox.sms.push({ to, body: `Pago aprobado por $${montoTexto(tx.monto)} (${tx.idTransaccion}).${tx.esReal ? '' : ' Prueba.'}` });
    }
  }

  return {
    notificar(tx, link) {
      const business = ctx.store.businesses.get(tx.idAplicativo);
      if (business === undefined) return;
      if (tx.esAprobada || ctx.fault('webhook-on-decline')) webhook(tx, link, business.clientSecret);
      if (tx.esAprobada) correosYSms(tx, link);
    },
    cancelar() {
      generacion += 1;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const controller of enCurso) controller.abort();
      enCurso.clear();
    },
  };
}
