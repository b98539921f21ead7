/**
 * The one door suite authors come in by (as Playwright's test authors import `test` and `expect` from one module):
 * declaring a test and its handle, the named checks, the tolerant readers, the waits, shared work and the payer's
 * outcome types. The rooms behind it (harness/README.md) may change freely; suites import nothing else of harness/.
 */

// Declaring a test: its spec, its handle, its identity, and how a suite file is declared.
export { clauseTest, testName, type ClauseTestSpec, type Need, type TestHandle } from './run/conformance.ts';
export { quoted, testcase, type Testcase } from './record/testcase.ts';
export { declareSuites } from './run/suite-files.ts';
export type { Call } from './run/run.ts';

// The named checks (the oracle) and what their evidence is made of.
export {
  absoluteUrl,
  amountDue,
  amountEquals,
  approvalOf,
  bodyOf,
  CheckFailure,
  containsPairs,
  pairsAsSent,
  queryKept,
  textAsSent,
  counterexampleFound,
  createdNothing,
  dateAfter,
  describeExchange,
  echoed,
  fail,
  fieldEquals,
  fieldIn,
  flagEquals,
  hashVerifies,
  holds,
  isImage,
  notAccepted,
  paymentApproved,
  paymentDeclined,
  paymentNotApproved,
  paymentWentThrough,
  redirectSeen,
  rejected,
  succeeded,
  unreadPage,
  type CheckName,
  type JudgedEvidence,
} from './judge/checks.ts';
export { checkAhead } from './judge/property-cases.ts';
export { describeRedirectScheme, describeWebhookSignature, signatureHeaders } from './judge/schemes.ts';
export type { CheckEvidence } from './record/meta.ts';

// Reading what the target wrote, tolerantly.
export {
  asBool,
  asEnum,
  asInt,
  asNumber,
  asString,
  field,
  FORMA_PAGO,
  keyOf,
  readBool,
  readInt,
  readResponse,
  readString,
  RESULTADO,
} from './judge/read.ts';
export type { ReceivedWebhook } from './api/receiver.ts';
export { forTransaction, webhookBodyField, webhookField, webhookPairs } from './judge/webhook.ts';

// Waiting for the target's time, and work other tests share.
export {
  beforeDeadline,
  hasClock,
  lateBy,
  letTimePass,
  notLate,
  onOurClock,
  paymentRead,
  skipUnlessTimeCanPass,
  targetNow,
  waitingTimeoutMs,
  withDeadline,
} from './run/waits.ts';
export { sharedWork, waitingFor } from './record/test-record.ts';

// Why a test ends unjudged.
export { NotJudged, UnreadPage } from './record/errors.ts';
export { NoFormError, PayerError } from './payer/errors.ts';
export { AmbiguousAnswerError, TokenError } from './api/errors.ts';

// The payer's outcomes, and reading a page as a person does.
export { outcomeOfPage, type CardPayment, type PaymentOutcome, type Screen, type ScreenForm } from './payer/index.ts';
export type { PageInput } from './payer/types.ts';
export { noFormMessage } from './payer/http.ts';
export { consent, pressGoOn } from './payer/steps.ts';
export { decodeQrPng } from './payer/qr.ts';
export { mapPage } from './payer/field-mapping.ts';

// Talking to the target, and the run-wide records the contract testcases read.
export type { Auth, CallOptions } from './api/client.ts';
export { EARLY_REFUSAL_TESTCASE } from './api/client.ts';
export { loadContract, type OperationMeta } from './api/contract.ts';
export type { Outbox } from './api/control.ts';
export type { Exchange } from './api/http.ts';
export { earlyRefusals } from './api/tokens.ts';
export { redactValue } from './record/redact.ts';
export type { ContractRecord } from './run/contract-observer.ts';
export type { Credentials } from './setup/target.ts';
export { PURCHASE_OPERATIONS } from './setup/interlock.ts';
