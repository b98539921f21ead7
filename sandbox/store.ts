/**
 * All state of one sandbox lives in one Store object (nothing module-level, so two sandboxes in one process share
 * nothing). `createStore` returns the seeded state of docs/decisions.md; the test-control reset replaces the store.
 */
import type { Clock } from './clock.ts';

export type Mode = 'development' | 'production';

export interface Account {
  idCuenta: string;
  emailLogin: string;
  password: string;
  tipoPersoneria: string;
  nit: string | null;
  nombreCompletoContacto: string;
  nombreCuenta: string;
  nombreComercial: string;
  razonSocial: string | null;
  fechaRegistro: string;
  actividadEconomica: string;
  direccion: string;
  urbanizacion: string;
  calle: string;
  local: string;
  /** idAplicativo of its businesses; the first is the one the account acts as by default. */
  aplicativos: string[];
}

/** Notification settings, at business, link or transaction level (spec 4.1 configuracion, 4.3 configuracion). */
export interface Notificaciones {
  urlWebhook: string | null;
  emailsNotificacion: string | null;
  telefonosNotificacion: string | null;
  notificarTransaccionCliente: boolean | null;
}

export interface Business {
  idAplicativo: string;
  idCuenta: string;
  clientIdApi: string;
  clientSecret: string;
  numeroCuenta: string;
  nombre: string;
  urlAplicativo: string;
  estaProductivo: boolean;
  urlLogo: string;
  aplicaPagoConPuntos: boolean;
  aplicaPagoConBitcoin: boolean;
  aplicaPagoConQuickPay: boolean;
  cuotasDisponibles: { cantidadCuotas: number; tasa: number }[];
  tapOnPhone: null;
  /** The "additional permissions" of 4.7. */
  permisoMpos: boolean;
  notificaciones: Notificaciones;
}

export interface FormaPago {
  permitirTarjetaCreditoDebido: boolean;
  permitirPagoConPuntoPartner: boolean;
  permitirPagoEnCuotasPartner: boolean;
  permitirPagoEnBitcoin: boolean;
  permitePagoQuickPay: boolean;
}

export interface ConfiguracionEnlace extends Notificaciones {
  urlRedirect: string | null;
  esMontoEditable: boolean;
  esCantidadEditable: boolean;
  cantidadPorDefecto: number;
  duracionInterfazIntentoMinutos: number | null;
  urlRetorno: string | null;
  notificarTransaccionCliente: boolean;
}

export interface Link {
  idEnlace: number;
  /** Code of the short URL /l/:codigo. */
  codigo: string;
  /** Sandbox clock at creation (epoch ms). */
  creadoMs: number;
  idAplicativo: string;
  identificadorEnlaceComercio: string;
  nombreEnlace: string;
  monto: number;
  nombreProducto: string;
  formaPago: FormaPago;
  cantidadMaximaCuotas: number;
  idGrupoTarjetas: string | null;
  infoProducto: { descripcionProducto: string | null; urlImagenProducto: string | null };
  configuracion: ConfiguracionEnlace;
  vigencia: { fechaInicio: string | null; fechaFin: string | null };
  limitesDeUso: { cantidadMaximaPagosExitosos: number | null; cantidadMaximaPagosFallidos: number | null };
  datosAdicionales: Record<string, string> | null;
  /** False once the failure limit is reached; activar sets it back. */
  activo: boolean;
  cantidadIntentoPagoFallidos: number;
  cantidadPagosExitosos: number;
  /** Counters since the last activation: the usage limits apply to these (the totals above keep the history). */
  fallidosDesdeActivacion: number;
  exitososDesdeActivacion: number;
  transacciones: string[];
  idTransaccionCompra: string | null;
}

export type TipoTransaccion = 'enlace' | '3ds' | 'wallet' | 'pagoqr' | 'quickpay' | 'mpos';

export interface DatosBitcoin {
  urlQR: string;
  qrData: string;
  ammountInBitcoins: number;
  ammountInDollars: number;
  fechaVencimiento: string;
}

export interface Transaction {
  idTransaccion: string;
  tipo: TipoTransaccion;
  idAplicativo: string;
  /** The account that paid (PagoQr), so it can look the transaction up too. */
  idCuentaPagador: string | null;
  esReal: boolean;
  esAprobada: boolean;
  codigoAutorizacion: string | null;
  mensaje: string | null;
  formaPago: number;
  monto: number;
  montoOriginal: number;
  resultadoTransaccion: 0 | 1 | 2 | null;
  fechaTransaccion: string;
  idExterno: string | null;
  datosAdicionales: Record<string, string> | null;
  idEnlace: number | null;
  /** Effective notification settings (transaction over link over business). */
  notificaciones: Notificaciones;
  emailCliente: string | null;
  urlRedirect: string | null;
  /** Quick-pay expiry. */
  fechaVencimiento: string | null;
  datosBitcoin: DatosBitcoin | null;
}

export interface WebhookRecord {
  url: string;
  body: unknown;
  attempts: number;
  delivered: boolean;
  lastStatus: number | null;
}

export interface Outbox {
  webhooks: WebhookRecord[];
  emails: { to: string; subject: string; body: string }[];
  sms: { to: string; body: string }[];
}

/** A test-control tenant (sandbox/tenants.ts): an account and its businesses with their own clock, counters and outbox. */
export interface Tenant {
  id: string;
  clock: Clock;
  outbox: Outbox;
  stats: { purchaseRequests: number };
  idCuenta: string;
  aplicativos: string[];
}

/** What a processed payment-screen submission answered, so a replay of it answers the same (screen.ts). */
export type RespuestaIntento = { status: 303; location: string } | { status: 200; html: string };

/** Steps screen: a step 1 validated and waiting for its confirmation (the card stays here, never in a page). */
export interface PagoEnPasos {
  idEnlace: number;
  /** The intento of the step 1 shown: the screen's validity and the replay rule count from it. */
  intento: string;
  /** The session cookie the confirmation must come with. */
  sesion: string;
  /** Step 1's fields as posted (card included), read again when the payment is confirmed. */
  campos: Record<string, string>;
}

/** Frame screen: a one-time vault token, standing for a card typed in the card iframe. */
export interface TokenBoveda {
  idEnlace: number;
  tarjeta: { numeroTarjeta: string; cvv: string; mesVencimiento: number; anioVencimiento: number; nombreTitular: string | undefined };
  /** The link's monto when the card was tokenised (fault frame-token-wrong-amount charges it). */
  montoEnlace: number;
  usado: boolean;
}

export interface Store {
  mode: Mode;
  accounts: Map<string, Account>;
  businesses: Map<string, Business>;
  /** Issued tokens; `idCuenta`: an account token (variant account-password-grant), acting as that account. */
  tokens: Map<string, { idAplicativo: string; expiresAtMs: number; idCuenta?: string }>;
  links: Map<number, Link>;
  linkCodes: Map<string, number>;
  transactions: Map<string, Transaction>;
  nextIdEnlace: number;
  outbox: Outbox;
  stats: { purchaseRequests: number };
  tenants: Map<string, Tenant>;
  /** idAplicativo → its tenant (the seeded businesses have none). */
  tenantByBusiness: Map<string, Tenant>;
  nextTenant: number;
  /**
   * Payment-screen attempts already used (`idEnlace:intento`): what they answered, or null while being processed.
   * A showing of the screen pays at most once.
   */
  intentosUsados: Map<string, RespuestaIntento | null>;
  /** Steps screen: validated step 1s by their CSRF token. */
  pagosEnPasos: Map<string, PagoEnPasos>;
  /** Frame screen: vault tokens. */
  tokensBoveda: Map<string, TokenBoveda>;
}

/** Seeded credentials (docs/decisions.md, same values as the defaults in .env.example). */
export const SEED = {
  account: { user: 'merchant@sandbox.test', password: 'sandbox-password' },
  business: { idAplicativo: 'app-dev-1', clientId: 'sandbox-client', clientSecret: 'sandbox-secret' },
  businessNoMpos: { idAplicativo: 'app-dev-2', clientId: 'sandbox-client-nompos', clientSecret: 'sandbox-secret-nompos' },
  disposableAccount: { user: 'disposable@sandbox.test', password: 'disposable-password' },
  disposableBusiness: { idAplicativo: 'app-disposable', clientId: 'disposable-client', clientSecret: 'disposable-secret' },
  /** A second merchant (another tenant) with its own business: it must see and change nothing of the first. */
  otherAccount: { user: 'other-merchant@sandbox.test', password: 'other-password' },
  otherBusiness: { idAplicativo: 'app-other-1', clientId: 'other-client', clientSecret: 'other-secret' },
} as const;

const CUOTAS = [3, 6, 9, 12].map((cantidadCuotas) => ({ cantidadCuotas, tasa: 0 }));

export function createBusiness(
  seed: { idAplicativo: string; clientId: string; clientSecret: string },
  idCuenta: string,
  nombre: string,
  numeroCuenta: string,
  permisoMpos: boolean,
  mode: Mode,
): Business {
  const host = `https://${seed.idAplicativo}.merchant.sandbox.test`;
  return {
    idAplicativo: seed.idAplicativo,
    idCuenta,
    clientIdApi: seed.clientId,
    clientSecret: seed.clientSecret,
    numeroCuenta,
    nombre,
    urlAplicativo: `${host}/`,
    estaProductivo: mode === 'production',
    urlLogo: `${host}/logo.png`,
    aplicaPagoConPuntos: true,
    aplicaPagoConBitcoin: true,
    aplicaPagoConQuickPay: true,
    cuotasDisponibles: CUOTAS.map((c) => ({ ...c })),
    tapOnPhone: null,
    permisoMpos,
    notificaciones: {
      urlWebhook: null,
      emailsNotificacion: `ventas@${seed.idAplicativo}.merchant.sandbox.test`,
      telefonosNotificacion: null,
      notificarTransaccionCliente: false,
    },
  };
}

/** A merchant account with the seeded merchant's data (the tenants' accounts). */
export function createAccount(a: { idCuenta: string; emailLogin: string; password: string; aplicativos: string[] }): Account {
  return { ...merchantAccount(), ...a };
}

function merchantAccount(): Account {
  return {
    idCuenta: 'cuenta-sandbox-1',
    emailLogin: SEED.account.user,
    password: SEED.account.password,
    tipoPersoneria: 'Jurídica',
    nit: '0614-010190-101-1',
    nombreCompletoContacto: 'Ana María Pérez',
    nombreCuenta: 'Comercio Sandbox',
    nombreComercial: 'Tienda Sandbox',
    razonSocial: 'Comercio Sandbox, S.A. de C.V.',
    fechaRegistro: '2024-01-15T09:30:00.000Z',
    actividadEconomica: 'Venta al por menor',
    direccion: 'Avenida Principal 123, San Salvador',
    urbanizacion: 'Colonia Escalón',
    calle: 'Calle El Mirador',
    local: 'Local 4',
    aplicativos: [SEED.business.idAplicativo, SEED.businessNoMpos.idAplicativo],
  };
}

export function createStore(mode: Mode): Store {
  const merchant = merchantAccount();
  const disposable: Account = {
    idCuenta: 'cuenta-desechable-1',
    emailLogin: SEED.disposableAccount.user,
    password: SEED.disposableAccount.password,
    tipoPersoneria: 'Natural',
    nit: null,
    nombreCompletoContacto: 'José Martínez',
    nombreCuenta: 'Cuenta Desechable',
    nombreComercial: 'Prueba de Borrado',
    razonSocial: null,
    fechaRegistro: '2025-06-01T12:00:00.000Z',
    actividadEconomica: 'Servicios',
    direccion: 'Calle Secundaria 45, Santa Tecla',
    urbanizacion: 'Residencial Las Palmas',
    calle: 'Pasaje 3',
    local: 'Casa 7',
    aplicativos: [SEED.disposableBusiness.idAplicativo],
  };
  const other: Account = {
    ...disposable,
    idCuenta: 'cuenta-otro-comercio-1',
    emailLogin: SEED.otherAccount.user,
    password: SEED.otherAccount.password,
    tipoPersoneria: 'Jurídica',
    nombreCompletoContacto: 'Luis Hernández',
    nombreCuenta: 'Otro Comercio',
    nombreComercial: 'Otra Tienda',
    razonSocial: 'Otro Comercio, S.A. de C.V.',
    aplicativos: [SEED.otherBusiness.idAplicativo],
  };
  const businesses = [
    createBusiness(SEED.business, merchant.idCuenta, 'Tienda Sandbox', '1234567890', true, mode),
    createBusiness(SEED.businessNoMpos, merchant.idCuenta, 'Tienda Sandbox sin MPOS', '1234567891', false, mode),
    createBusiness(SEED.disposableBusiness, disposable.idCuenta, 'Prueba de Borrado', '9876543210', false, mode),
    // With the MPOS permission, so a refused MPOS as another's idAplicativo is about the tenant, not the permission.
    createBusiness(SEED.otherBusiness, other.idCuenta, 'Otra Tienda', '5555555555', true, mode),
  ];
  return {
    mode,
    accounts: new Map([merchant, disposable, other].map((a) => [a.idCuenta, a])),
    businesses: new Map(businesses.map((b) => [b.idAplicativo, b])),
    tokens: new Map(),
    links: new Map(),
    linkCodes: new Map(),
    transactions: new Map(),
    nextIdEnlace: 1,
    outbox: { webhooks: [], emails: [], sms: [] },
    stats: { purchaseRequests: 0 },
    tenants: new Map(),
    tenantByBusiness: new Map(),
    nextTenant: 1,
    intentosUsados: new Map(),
    pagosEnPasos: new Map(),
    tokensBoveda: new Map(),
  };
}

/**
 * Variant business-notifies-customer, beside the businesses' data: their own settings e-mail the customer (4.3:
 * a purchase's configuracion, or its link's, that says false still wins). Applied where a store is made.
 */
export function conVariantes(store: Store, variant: (id: 'business-notifies-customer') => boolean): Store {
  if (!variant('business-notifies-customer')) return store;
  for (const b of store.businesses.values()) b.notificaciones.notificarTransaccionCliente = true;
  return store;
}
