/**
 * The merchant's client library (`deposit-settlement/merchant`): the payer's API client with the
 * merchant's secret key (`createMerchantClient`), one action per merchant route (the merchant
 * record, key roll and revoke, the webhook delivery log and redelivery), and `verifyWebhook`, which
 * is asynchronous: ALWAYS await it, or a forged webhook passes. Like the payer's library it loads
 * no Node built-ins and no server code. docs/MERCHANT-CLIENT.md is its manual.
 */

// The error model and the retry policy are the payer library's, re-exported so a merchant needs one import.
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from "../api-client.ts";
export {
  ApiError,
  type ApiErrorKind,
  ClientError,
  type ClientErrorCode,
  clientErrorCode,
} from "../errors.ts";
export {
  type GetMerchantErrorType,
  type GetMerchantParameters,
  type GetMerchantReturnType,
  getMerchant,
} from "./actions/get-merchant.ts";
export {
  type GetWebhookDeliveryErrorType,
  type GetWebhookDeliveryParameters,
  type GetWebhookDeliveryReturnType,
  getWebhookDelivery,
} from "./actions/get-webhook-delivery.ts";
export {
  type ListWebhookDeliveriesErrorType,
  type ListWebhookDeliveriesParameters,
  type ListWebhookDeliveriesReturnType,
  listWebhookDeliveries,
} from "./actions/list-webhook-deliveries.ts";
export {
  type RedeliverWebhookErrorType,
  type RedeliverWebhookParameters,
  type RedeliverWebhookReturnType,
  redeliverWebhook,
} from "./actions/redeliver-webhook.ts";
export {
  type RevokeKeyErrorType,
  type RevokeKeyParameters,
  type RevokeKeyReturnType,
  revokeKey,
} from "./actions/revoke-key.ts";
export {
  type RollKeyErrorType,
  type RollKeyParameters,
  type RollKeyReturnType,
  rollKey,
} from "./actions/roll-key.ts";
export { createMerchantClient, type MerchantClient, type MerchantClientConfig } from "./merchant-client.ts";
export type {
  KeyType,
  Merchant,
  MerchantKey,
  RolledKey,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookDeliveryState,
} from "./types.ts";
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  type VerifyWebhookErrorType,
  type VerifyWebhookParameters,
  type VerifyWebhookReturnType,
  verifyWebhook,
  type WebhookBody,
} from "./verify-webhook.ts";
