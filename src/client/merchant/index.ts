/**
 * The merchant's client library (`deposit-settlement/merchant`): the payer's API client with the
 * merchant's secret key (`createMerchantClient`), one action per merchant `/v1` route (the merchant
 * record and keys, the webhook endpoint, its delivery log and redelivery, checkout sessions,
 * destinations, the app fee and the settings, the stealth meta-address and a Flow D session's
 * announcements, the event list and `allEvents` to walk it, payment links,
 * subscriptions), and `verifyWebhook`, which is asynchronous: ALWAYS await it, or a forged webhook
 * passes. Like the payer's library it loads no Node built-ins and no server code. docs/MERCHANT-CLIENT.md is its manual.
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
  type AllEventsErrorType,
  type AllEventsParameters,
  type AllEventsReturnType,
  allEvents,
} from "./actions/all-events.ts";
export {
  type CancelSubscriptionErrorType,
  type CancelSubscriptionParameters,
  type CancelSubscriptionReturnType,
  cancelSubscription,
} from "./actions/cancel-subscription.ts";
export {
  type CreatePaymentLinkErrorType,
  type CreatePaymentLinkParameters,
  type CreatePaymentLinkReturnType,
  createPaymentLink,
} from "./actions/create-payment-link.ts";
export {
  type CreatePaymentSessionErrorType,
  type CreatePaymentSessionParameters,
  type CreatePaymentSessionReturnType,
  createPaymentSession,
} from "./actions/create-payment-session.ts";
export {
  type CreateSubscriptionErrorType,
  type CreateSubscriptionParameters,
  type CreateSubscriptionReturnType,
  createSubscription,
} from "./actions/create-subscription.ts";
export {
  type DeactivatePaymentLinkErrorType,
  type DeactivatePaymentLinkParameters,
  type DeactivatePaymentLinkReturnType,
  deactivatePaymentLink,
} from "./actions/deactivate-payment-link.ts";
export {
  type DeleteWebhookEndpointErrorType,
  type DeleteWebhookEndpointParameters,
  type DeleteWebhookEndpointReturnType,
  deleteWebhookEndpoint,
} from "./actions/delete-webhook-endpoint.ts";
export {
  type GetAppFeeErrorType,
  type GetAppFeeParameters,
  type GetAppFeeReturnType,
  getAppFee,
} from "./actions/get-app-fee.ts";
export {
  type GetEventErrorType,
  type GetEventParameters,
  type GetEventReturnType,
  getEvent,
} from "./actions/get-event.ts";
export {
  type GetMerchantErrorType,
  type GetMerchantParameters,
  type GetMerchantReturnType,
  getMerchant,
} from "./actions/get-merchant.ts";
export {
  type GetPaymentLinkErrorType,
  type GetPaymentLinkParameters,
  type GetPaymentLinkReturnType,
  getPaymentLink,
} from "./actions/get-payment-link.ts";
export {
  type GetPaymentSessionErrorType,
  type GetPaymentSessionParameters,
  type GetPaymentSessionReturnType,
  getPaymentSession,
} from "./actions/get-payment-session.ts";
export {
  type GetSettingsErrorType,
  type GetSettingsParameters,
  type GetSettingsReturnType,
  getSettings,
} from "./actions/get-settings.ts";
export {
  type GetStealthAnnouncementsErrorType,
  type GetStealthAnnouncementsParameters,
  type GetStealthAnnouncementsReturnType,
  getStealthAnnouncements,
} from "./actions/get-stealth-announcements.ts";
export {
  type GetStealthMetaErrorType,
  type GetStealthMetaParameters,
  type GetStealthMetaReturnType,
  getStealthMeta,
} from "./actions/get-stealth-meta.ts";
export {
  type GetSubscriptionErrorType,
  type GetSubscriptionParameters,
  type GetSubscriptionReturnType,
  getSubscription,
} from "./actions/get-subscription.ts";
export {
  type GetWebhookDeliveryErrorType,
  type GetWebhookDeliveryParameters,
  type GetWebhookDeliveryReturnType,
  getWebhookDelivery,
} from "./actions/get-webhook-delivery.ts";
export {
  type GetWebhookEndpointErrorType,
  type GetWebhookEndpointParameters,
  type GetWebhookEndpointReturnType,
  getWebhookEndpoint,
} from "./actions/get-webhook-endpoint.ts";
export {
  type ListDestinationsErrorType,
  type ListDestinationsParameters,
  type ListDestinationsReturnType,
  listDestinations,
} from "./actions/list-destinations.ts";
export {
  type ListEventsErrorType,
  type ListEventsParameters,
  type ListEventsReturnType,
  listEvents,
} from "./actions/list-events.ts";
export {
  type ListWebhookDeliveriesErrorType,
  type ListWebhookDeliveriesParameters,
  type ListWebhookDeliveriesReturnType,
  listWebhookDeliveries,
} from "./actions/list-webhook-deliveries.ts";
export {
  type PinDestinationErrorType,
  type PinDestinationParameters,
  type PinDestinationReturnType,
  pinDestination,
} from "./actions/pin-destination.ts";
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
export {
  type SetAppFeeErrorType,
  type SetAppFeeParameters,
  type SetAppFeeReturnType,
  setAppFee,
} from "./actions/set-app-fee.ts";
export {
  type SetSettingsErrorType,
  type SetSettingsParameters,
  type SetSettingsReturnType,
  setSettings,
} from "./actions/set-settings.ts";
export {
  type SetStealthMetaErrorType,
  type SetStealthMetaParameters,
  type SetStealthMetaReturnType,
  setStealthMeta,
} from "./actions/set-stealth-meta.ts";
export {
  type SetWebhookEndpointErrorType,
  type SetWebhookEndpointParameters,
  type SetWebhookEndpointReturnType,
  setWebhookEndpoint,
} from "./actions/set-webhook-endpoint.ts";
export { createMerchantClient, type MerchantClient, type MerchantClientConfig } from "./merchant-client.ts";
export type {
  AppFee,
  Destination,
  EventPage,
  KeyType,
  Mandate,
  Merchant,
  MerchantEvent,
  MerchantKey,
  MerchantSettings,
  PaymentLink,
  PaymentSession,
  PaymentSessionCreated,
  PaymentSessionStatus,
  RolledKey,
  StealthAnnouncement,
  StealthMeta,
  Subscription,
  SubscriptionStatus,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookDeliveryState,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
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
