/**
 * The card fields of the hosted pages (payment screen; 3DS and quick-pay pages with the `pages-ask-card` variant) and
 * the hidden session token they may require back: one place, so every page names, labels, orders and reads its
 * card inputs the same way. The spec shows none of this (1: "a payment screen hosted by the service"), so each
 * variant of sandbox/variants.ts is a choice a vendor may make: inputs named by their HTML autofill tokens
 * (`pages-autofill-names`), English labels and another order (`pages-english`), a session cookie whose token the
 * form must send back (`pages-session-token`), the deployed service's form (`pages-deployed-form`: .NET names, the
 * expiry as selects), one expiry input "MM/AA" (`pages-expiry-joined`), the payer's last name, phone and address
 * (`pages-billing-details`), the e-mail asked twice (`pages-email-confirmation`).
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext } from './context.ts';
import { campo, esc } from './html.ts';
import type { Lector } from './validate.ts';
import { EMAIL } from './validate.ts';

export type CampoTarjeta = 'numeroTarjeta' | 'cvv' | 'mesVencimiento' | 'anioVencimiento' | 'nombreTitular' | 'email';

/**
 * The input names of docs/decisions.md, or (pages-autofill-names) the HTML autofill token of each field, or
 * (pages-opaque-names) names that say nothing.
 */
export function nombresTarjeta(ctx: SandboxContext): Record<CampoTarjeta, string> {
  if (ctx.variant('pages-opaque-names')) {
    return { numeroTarjeta: 'f1', cvv: 'f4', mesVencimiento: 'f2', anioVencimiento: 'f3', nombreTitular: 'f5', email: 'f6' };
  }
  if (ctx.variant('pages-autofill-names')) {
    return {
      numeroTarjeta: 'cc-number',
      cvv: 'cc-csc',
      mesVencimiento: 'cc-exp-month',
      anioVencimiento: 'cc-exp-year',
      nombreTitular: 'cc-name',
      email: 'email',
    };
  }
  if (ctx.variant('pages-deployed-form')) {
    // The names of a server-rendered .NET form (model binding): nothing the suite should rely on.
    return {
      numeroTarjeta: 'Tarjeta.Numero',
      cvv: 'Tarjeta.Cvv',
      mesVencimiento: 'Tarjeta.MesVencimiento',
      anioVencimiento: 'Tarjeta.AnioVencimiento',
      nombreTitular: 'Tarjeta.NombreTitular',
      email: 'Email',
    };
  }
  return {
    numeroTarjeta: 'numeroTarjeta',
    cvv: 'cvv',
    mesVencimiento: 'mesVencimiento',
    anioVencimiento: 'anioVencimiento',
    nombreTitular: 'nombreTitular',
    email: 'email',
  };
}

/** The one expiry input of pages-expiry-joined. */
// Stryker disable next-line all: only variant pages-expiry-joined reads it (plumbing, off by default; npm run mutation:stryker)
const VENCIMIENTO = 'vencimiento';

/** The payer's details pages-billing-details asks on the payment screen: input name, Spanish and English label, type. */
const PERSONA: [string, string, string, string][] = [
  ['apellidoCliente', 'Apellido', 'Last name', 'text'],
  ['telefonoCliente', 'Teléfono', 'Phone', 'tel'],
  ['direccionCliente', 'Dirección', 'Address', 'text'],
];

/** pages-billing-details: each of the payer's details is required (max 200 characters). */
export function leerPersona(ctx: SandboxContext, f: Lector): void {
  if (!ctx.variant('pages-billing-details')) return;
  for (const [nombre] of PERSONA) f.texto(nombre, { requerido: true, max: 200 });
}

/** The input of pages-email-confirmation: the e-mail typed again. */
const CONFIRMACION = 'emailConfirmacion';

/** pages-email-confirmation: the e-mail typed again must be the e-mail (both may be left empty); the refusal's message, else undefined. */
export function confirmacionDistinta(
  ctx: SandboxContext,
  f: Lector,
  email: string | undefined,
): { campo: string; mensaje: string } | undefined {
  if (!ctx.variant('pages-email-confirmation')) return undefined;
  const otra = f.texto(CONFIRMACION, { max: 200 }) ?? '';
  return otra === (email ?? '')
    ? undefined
    : { campo: CONFIRMACION, mensaje: texto(ctx, 'debe coincidir con el correo electrónico', 'must match the e-mail') };
}

/** Whether the pages speak English (pages-english); Spanish otherwise. */
export function enIngles(ctx: SandboxContext): boolean {
  return ctx.variant('pages-english');
}

/** A label in the pages' language. */
export function texto(ctx: SandboxContext, es: string, en: string): string {
  return enIngles(ctx) ? en : es;
}

/**
 * The labelled card inputs, in the pages' order. `extra`: the holder's name and e-mail too (the payment screen).
 * pages-english puts the e-mail first and the expiry year before the month.
 */
export function camposTarjeta(ctx: SandboxContext, extra: boolean): string[] {
  const n = nombresTarjeta(ctx);
  const t = (es: string, en: string) => texto(ctx, es, en);
  // pages-opaque-names: plain text inputs, no autofill token nor placeholder (only the label tells them apart).
  const opacos = ctx.variant('pages-opaque-names');
  const entrada = (campoId: CampoTarjeta, atributos: string) =>
    `<input id="campo-${campoId}" name="${esc(n[campoId])}" ${opacos ? 'type="text"' : atributos}>`;
  const numero = campo(
    'campo-numeroTarjeta',
    t('Número de tarjeta', 'Card number'),
    entrada('numeroTarjeta', 'type="text" inputmode="numeric" autocomplete="cc-number" placeholder="0000 0000 0000 0000"'),
  );
  // pages-deployed-form: the expiry as two selects, the month 01…12 and four-digit years from the current one.
  const desplegado = ctx.variant('pages-deployed-form') && !opacos;
  // Stryker disable all: only pages-deployed-form uses the selects (plumbing, off by default; npm run mutation:stryker)
  const lista = (campoId: CampoTarjeta, valores: string[]) =>
    `<select id="campo-${campoId}" name="${esc(n[campoId])}">${valores.map((v) => `<option value="${v}">${v}</option>`).join('')}</select>`;
  // Stryker restore all
  const anioActual = ctx.clock.now().getUTCFullYear();
  const mes = campo(
    'campo-mesVencimiento',
    t('Mes de vencimiento', 'Expiry month'),
    desplegado
      ? lista(
          'mesVencimiento',
          Array.from({ length: 12 }, (_, i) => String(i + 1).padStart(2, '0')),
        )
      : entrada('mesVencimiento', 'type="number" min="1" max="12" autocomplete="cc-exp-month" placeholder="MM"'),
  );
  const anio = campo(
    'campo-anioVencimiento',
    t('Año de vencimiento', 'Expiry year'),
    desplegado
      ? lista(
          'anioVencimiento',
          Array.from({ length: 15 }, (_, i) => String(anioActual + i)),
        )
      : entrada('anioVencimiento', `type="number" autocomplete="cc-exp-year" placeholder="${t('AAAA', 'YYYY')}"`),
  );
  const cvv = campo(
    'campo-cvv',
    t('CVV', 'Security code (CVC)'),
    entrada('cvv', `type="password" inputmode="numeric" autocomplete="cc-csc" placeholder="${t('3 o 4 dígitos', '3 or 4 digits')}"`),
  );
  const titular = campo(
    'campo-nombreTitular',
    t('Nombre del titular', 'Name on card'),
    entrada('nombreTitular', 'type="text" autocomplete="cc-name"'),
  );
  const email = campo(
    'campo-email',
    t('Correo electrónico', 'E-mail'),
    entrada('email', 'type="email" autocomplete="email"'),
    t('(para el comprobante)', '(for the receipt)'),
  );
  // pages-expiry-joined: one input for the expiry, "MM/AA", only its label and placeholder saying so.
  const vencimiento = ctx.variant('pages-expiry-joined')
    ? campo(
        'campo-vencimiento',
        t('Vencimiento', 'Expiry date'),
        `<input id="campo-vencimiento" name="${VENCIMIENTO}" type="text" inputmode="numeric" maxlength="7" placeholder="${t('MM/AA', 'MM/YY')}">`,
      )
    : undefined;
  // pages-billing-details: the payer's last name, phone and address too, required, only their labels saying so.
  const persona =
    extra && ctx.variant('pages-billing-details')
      ? PERSONA.map(([nombre, es, en, tipo]) =>
          campo(`campo-${nombre}`, t(es, en), `<input id="campo-${nombre}" name="${nombre}" type="${tipo}" required>`),
        )
      : [];
  // pages-email-confirmation: the e-mail asked again below it, only its label saying so (no autofill token).
  const otraVez =
    extra && ctx.variant('pages-email-confirmation')
      ? [
          campo(
            `campo-${CONFIRMACION}`,
            t('Confirme su correo electrónico', 'Confirm your e-mail'),
            `<input id="campo-${CONFIRMACION}" name="${CONFIRMACION}" type="email" autocomplete="off">`,
          ),
        ]
      : [];
  if (enIngles(ctx))
    return [
      ...(extra ? [email, ...otraVez, titular] : []),
      ...persona,
      numero,
      vencimiento ?? `<div class="fila">${anio}${mes}</div>`,
      cvv,
    ];
  return [numero, vencimiento ?? `<div class="fila">${mes}${anio}</div>`, cvv, ...(extra ? [titular, ...persona, email, ...otraVez] : [])];
}

/** Reads and validates the posted card (the page's own input names); returns the cvv. `extra`: name and e-mail too. */
export function leerTarjeta(ctx: SandboxContext, f: Lector, extra: boolean): { cvv: string | undefined; email: string | undefined } {
  const n = nombresTarjeta(ctx);
  const cvv = f.texto(n.cvv, {
    requerido: true,
    patron: /^\d{3,4}$/,
    mensajePatron: texto(ctx, 'debe tener 3 o 4 dígitos', 'must have 3 or 4 digits'),
  });
  f.texto(n.numeroTarjeta, {
    requerido: true,
    patron: /^\d{12,19}$/,
    mensajePatron: texto(ctx, 'debe tener de 12 a 19 dígitos, sin espacios', 'must have 12 to 19 digits, no spaces'),
  });
  if (ctx.variant('pages-expiry-joined'))
    f.texto(VENCIMIENTO, {
      requerido: true,
      patron: /^(0?[1-9]|1[0-2]) ?\/ ?(\d{2}|\d{4})$/,
      mensajePatron: texto(ctx, 'debe ser MM/AA', 'must be MM/YY'),
    });
  else {
    f.numero(n.mesVencimiento, { requerido: true, entero: true, min: 1, max: 12 });
    f.numero(n.anioVencimiento, { requerido: true, entero: true, min: 0, max: 2199 });
  }
  if (!extra) return { cvv, email: undefined };
  f.texto(n.nombreTitular, { max: 200 });
  const email = f.texto(n.email, {
    patron: EMAIL,
    mensajePatron: texto(ctx, 'debe ser un correo electrónico', 'must be an e-mail address'),
  });
  return { cvv, email };
}

// --- pages-session-token: a session cookie set when a page is shown, whose token the form must send back -----------

const COOKIE = 'sesion_pago';
const CAMPO = 'token_sesion';

// Stryker disable all: only variant pages-session-token calls it (plumbing, off by default; npm run mutation:stryker)
function tokenDe(ctx: SandboxContext, sesion: string): string {
  return createHmac('sha256', ctx.claveIntento).update(`sesion.${sesion}`).digest('base64url').slice(0, 32);
}
// Stryker restore all

/** With pages-session-token: sets a new session cookie and returns the hidden input carrying its token; else ''. */
export function campoSesion(ctx: SandboxContext, reply: FastifyReply): string {
  if (!ctx.variant('pages-session-token')) return '';
  const sesion = randomBytes(16).toString('base64url');
  void reply.header('set-cookie', `${COOKIE}=${sesion}; Path=/; HttpOnly; SameSite=Lax`);
  return `<input type="hidden" name="${CAMPO}" value="${esc(tokenDe(ctx, sesion))}">`;
}

/** With pages-session-token: whether the post carries back the token of its session cookie (always true otherwise). */
export function sesionValida(ctx: SandboxContext, req: FastifyRequest): boolean {
  if (!ctx.variant('pages-session-token')) return true;
  const cookie = /(?:^|;\s*)sesion_pago=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  const enviado = (req.body as Record<string, unknown> | undefined)?.[CAMPO];
  return cookie !== undefined && typeof enviado === 'string' && enviado === tokenDe(ctx, cookie);
}

/** The errors of a refused post, shown above the form shown again (one `<li data-campo>` per field). */
export function listaErrores(errores: { campo: string; mensaje: string }[]): string {
  if (errores.length === 0) return '';
  return (
    `<ul id="errores" class="errores" ` +
    `role="alert">\n${errores.map((e) => `<li data-campo="${esc(e.campo)}">${esc(e.campo)}: ${esc(e.mensaje)}</li>`).join('\n')}\n</ul>`
  );
}
