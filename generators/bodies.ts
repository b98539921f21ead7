/**
 * Valid request bodies, one builder per operation: the fixed examples the suites send, and the base that the
 * fast-check arbitraries mutate into "violates exactly one rule" bodies. Values are test data only: the card is
 * the public test number, never a real one.
 */
import type {
  MposBandaRequest,
  PaymentLinkCreateRequest,
  PurchaseQuickPayRequest,
  Purchase3dsRequest,
  PurchaseWalletRequest,
  PurchasePagoQrRequest,
} from '../spec/types.ts';

/** The shape of the harness's TEST_* settings (config.testData). */
export interface TestData {
  cardNumber: string;
  cvv: string;
  walletDui: string;
  mpos: { posId: string; track2: string; ksn: string };
}

export const defaultTestData: TestData = {
  cardNumber: '4111111111111111',
  cvv: '123',
  walletDui: '00000000-0',
  mpos: { posId: 'POS-0001', track2: 'ENC-TRACK2-TEST', ksn: 'FFFF9876543210E00001' },
};

/** A card expiry safely in the future (January, three years ahead). */
export function futureExpiry(now = new Date()): { mesVencimiento: number; anioVencimiento: number } {
  return { mesVencimiento: 1, anioVencimiento: now.getUTCFullYear() + 3 };
}

/** Unique per call, so links and orders never collide across runs against a shared target. */
export function uniqueRef(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

export function paymentLinkMinimal(overrides: Partial<PaymentLinkCreateRequest> = {}): PaymentLinkCreateRequest {
  return {
    identificadorEnlaceComercio: uniqueRef('conf-link'),
    monto: 10.5,
    nombreProducto: 'Producto de prueba',
    configuracion: { notificarTransaccionCliente: false, emailsNotificacion: 'conformance@example.com' },
    ...overrides,
  };
}

export function paymentLinkFull(webhookUrl: string, redirectUrl: string): PaymentLinkCreateRequest {
  return {
    identificadorEnlaceComercio: uniqueRef('conf-link-full'),
    monto: 25.75,
    nombreProducto: 'Producto completo',
    formaPago: {
      permitirTarjetaCreditoDebido: true,
      permitirPagoConPuntoPartner: true,
      permitirPagoEnCuotasPartner: true,
      permitirPagoEnBitcoin: false,
      permitePagoQuickPay: false,
    },
    cantidadMaximaCuotas: 'Seis',
    infoProducto: { descripcionProducto: 'Descripción extendida del producto', urlImagenProducto: 'https://example.com/p.png' },
    configuracion: {
      urlRedirect: redirectUrl,
      esMontoEditable: false,
      esCantidadEditable: true,
      cantidadPorDefecto: 2,
      duracionInterfazIntentoMinutos: 30,
      urlRetorno: 'https://example.com/volver',
      emailsNotificacion: 'ventas@example.com,soporte@example.com',
      urlWebhook: webhookUrl,
      // Digits only: the spec states no telephone format, and services that enforce one take digits (the '+' form
      // is judged on its own, suites/links.test.ts and suites/3ds.test.ts).
      telefonosNotificacion: '50370000000',
      notificarTransaccionCliente: true,
    },
    vigencia: { fechaInicio: new Date(Date.now() - 3_600_000).toISOString(), fechaFin: new Date(Date.now() + 86_400_000).toISOString() },
    limitesDeUso: { cantidadMaximaPagosExitosos: 10, cantidadMaximaPagosFallidos: 5 },
  };
}

export function purchase3ds(
  redirectUrl: string,
  data: TestData = defaultTestData,
  overrides: Partial<Purchase3dsRequest> = {},
): Purchase3dsRequest {
  return {
    tarjetaCreditoDebido: { numeroTarjeta: data.cardNumber, cvv: data.cvv, ...futureExpiry() },
    monto: 12.34,
    urlRedirect: redirectUrl,
    nombre: 'Ana María',
    apellido: 'Pérez López',
    email: 'ana@example.com',
    ciudad: 'San Salvador',
    direccion: 'Calle 1, Casa 2',
    idPais: 'SV',
    idRegion: 'SV-SS',
    codigoPostal: '01101',
    telefono: '50370000000',
    ...overrides,
  };
}

export function purchaseWallet(data: TestData = defaultTestData, overrides: Partial<PurchaseWalletRequest> = {}): PurchaseWalletRequest {
  return { monto: 7.25, dui: data.walletDui, descripcion: 'Compra de prueba', idExterno: uniqueRef('ord'), ...overrides };
}

export function purchasePagoQr(urlEnlacePago: string, overrides: Partial<PurchasePagoQrRequest> = {}): PurchasePagoQrRequest {
  return { urlEnlacePago, ...overrides };
}

export function purchaseQuickPay(overrides: Partial<PurchaseQuickPayRequest> = {}): PurchaseQuickPayRequest {
  return { monto: 3.5, idExterno: uniqueRef('qp').slice(0, 50), ...overrides };
}

export function purchaseMposBanda(data: TestData = defaultTestData, overrides: Partial<MposBandaRequest> = {}): MposBandaRequest {
  return {
    posId: data.mpos.posId,
    numeroTarjeta: data.cardNumber,
    ...futureExpiry(),
    monto: 15,
    tarjetaBan: data.mpos.track2,
    llaveTarjetaBan: data.mpos.ksn,
    ...overrides,
  };
}
