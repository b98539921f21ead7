/**
 * Convenient names for the types generated from spec/openapi.yaml (spec/types.gen.ts, `npm run spec:types`).
 * Aliases only: the contract is the single definition.
 */
import type { components, operations } from './types.gen.ts';

type Schemas = components['schemas'];

/** The API operations of the contract (the webhook, transactionSucceeded, is not one the suite calls). */
export type OperationId = Exclude<keyof operations, 'transactionSucceeded'>;

export type Dictionary = Schemas['Dictionary'];

// payment links (2.1, 2.3–2.5, 4.1, 4.2)
export type PaymentLinkCreateRequest = Schemas['PaymentLinkCreateRequest'];
export type FormaPagoRequest = Schemas['FormaPagoRequest'];
export type InfoProductoRequest = Schemas['InfoProductoRequest'];
export type ConfiguracionRequest = Schemas['ConfiguracionRequest'];
export type VigenciaRequest = Schemas['VigenciaRequest'];
export type LimitesDeUsoRequest = Schemas['LimitesDeUsoRequest'];
export type PaymentLinkCreated = Schemas['PaymentLinkCreated'];
export type PaymentLink = Schemas['PaymentLink'];
export type FormaPago = Schemas['FormaPago'];
export type InfoProducto = Schemas['InfoProducto'];
export type Configuracion = Schemas['Configuracion'];
export type Vigencia = Schemas['Vigencia'];
export type LimitesDeUso = Schemas['LimitesDeUso'];

// transactions (2.2, 4.3–4.8)
export type Transaction = Schemas['Transaction'];
export type TransactionDetail = Schemas['TransactionDetail'];
export type DatosBitcoin = Schemas['DatosBitcoin'];
export type PurchaseConfiguracion = Schemas['PurchaseConfiguracion'];
export type TarjetaCreditoDebido = Schemas['TarjetaCreditoDebido'];
export type Purchase3dsRequest = Schemas['Purchase3dsRequest'];
export type Purchase3dsResponse = Schemas['Purchase3dsResponse'];
export type PurchaseWalletRequest = Schemas['PurchaseWalletRequest'];
export type PurchaseWalletResponse = Schemas['PurchaseWalletResponse'];
export type PurchasePagoQrRequest = Schemas['PurchasePagoQrRequest'];
export type PurchasePagoQrResponse = Schemas['PurchasePagoQrResponse'];
export type QuickPayConfiguracion = Schemas['QuickPayConfiguracion'];
export type PurchaseQuickPayRequest = Schemas['PurchaseQuickPayRequest'];
export type PurchaseQuickPayResponse = Schemas['PurchaseQuickPayResponse'];
export type DatosQuickPay = Schemas['DatosQuickPay'];
export type MposBandaRequest = Schemas['MposBandaRequest'];
export type MposBandaResponse = Schemas['MposBandaResponse'];

// account (2.6, 2.7, 4.9)
export type Account = Schemas['Account'];
export type Business = Schemas['Business'];
export type TapOnPhone = Schemas['TapOnPhone'];

// authentication (5) and webhook (6.1)
export type TokenRequest = Schemas['TokenRequest'];
export type TokenResponse = Schemas['TokenResponse'];
export type TransactionSucceededWebhook = Schemas['TransactionSucceededWebhook'];
