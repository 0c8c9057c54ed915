import type { z } from "zod";
import type { appFeeSchema } from "../../api/app-fee.ts";
import type { destinationSchema } from "../../api/destinations.ts";
import type { eventListSchema, eventSchema } from "../../api/events.ts";
import type { merchantSchema, rolledSchema } from "../../api/merchants.ts";
import type { paymentLinkSchema } from "../../api/payment-links.ts";
import type { PaymentSessionCreated as Created, PaymentSessionObject } from "../../api/payment-sessions.ts";
import type { settingsSchema } from "../../api/settings.ts";
import type { StealthAnnouncementObject } from "../../api/stealth-announcements.ts";
import type { StealthMetaObject } from "../../api/stealth-meta.ts";
import type { subscriptionSchema } from "../../api/subscriptions.ts";
import type { deliverySchema } from "../../api/webhook-deliveries.ts";
import type { webhookEndpointSchema, webhookEndpointWithSecretSchema } from "../../api/webhook-endpoints.ts";

// The merchant library's wire types, inferred from the zod schemas the merchant routes answer with
// (src/api/, one file per resource), so they cannot drift from what the gateway sends.
// Type-only imports, erased at compilation: neither zod nor the gateway is loaded at run time
// (test/unit/client-bundle holds the entry to that).

/** The answer of `GET /v1/merchant`: the merchant's record and its keys, never a secret key. */
export type Merchant = z.output<typeof merchantSchema>;
/** One key of the merchant record: `key` is the publishable key itself, null for a secret key. */
export type MerchantKey = Merchant["keys"][number];
export type KeyType = MerchantKey["type"];
/** The answer of `POST /v1/keys/roll`: the new key `{ id, type, key }`, shown this once. */
export type RolledKey = z.output<typeof rolledSchema>;
/** A webhook delivery of the log, with every attempt (`attempt_log`), first to last. */
export type WebhookDelivery = z.output<typeof deliverySchema>;
export type WebhookDeliveryState = WebhookDelivery["state"];
export type WebhookDeliveryAttempt = WebhookDelivery["attempt_log"][number];

/** The merchant's webhook endpoint `{ id, url, created_at }`, as `GET /v1/webhook_endpoints` shows it. */
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;
/** The answer of `PUT /v1/webhook_endpoints`: the endpoint and its new `whsec_` secret, shown once. */
export type WebhookEndpointWithSecret = z.output<typeof webhookEndpointWithSecretSchema>;

/** A checkout session as the merchant API shows it (`GET /v1/payment_sessions/:id`). */
export type PaymentSession = PaymentSessionObject;
/** The answer of `POST /v1/payment_sessions`: the payment session and its `cs_` client secret, once. */
export type PaymentSessionCreated = Created;
export type PaymentSessionStatus = PaymentSession["status"];

/** Where checkout money found on `source_chain_id` goes (one pin per source chain). */
export type Destination = z.output<typeof destinationSchema>;
/**
 * The merchant's app fee: what its checkout sessions sign into their Intents. `app_fee_bps` is 0 to
 * 9900 basis points; `app_fee_recipient` is the zero address when the fee is 0 and none was set.
 */
export type AppFee = z.output<typeof appFeeSchema>;

/**
 * The merchant's settings `{ object: "settings", p2p_pinned_destinations_only }` (`GET /v1/settings`):
 * with `p2p_pinned_destinations_only`, a P2P session made with your `pk_` must pay your pinned destination.
 */
export type MerchantSettings = z.output<typeof settingsSchema>;

/**
 * The merchant's stealth meta-address `{ object: "stealth_meta", meta_address, sol_spend_pubkey,
 * sol_view_pubkey }` (`GET /v1/stealth-meta`): public keys only; the Solana ones null when not given.
 */
export type StealthMeta = StealthMetaObject;
/**
 * One announcement of a Flow D session: `{ scheme, ephemeral_pubkey, view_tag, stealth_address,
 * chain_id, tx }`, `tx` null until it is on chain (docs/STEALTH.md).
 */
export type StealthAnnouncement = StealthAnnouncementObject;

/** An event of the list: `data` is the webhook body as delivered (`GET /v1/events`). */
export type MerchantEvent = z.output<typeof eventSchema>;
/** One page of the event list `{ object: "list", data, has_more, url }`, newest first. */
export type EventPage = z.output<typeof eventListSchema>;

/** A payment link: a hosted page (`url`) that takes a fixed USDC amount. */
export type PaymentLink = z.output<typeof paymentLinkSchema>;

/** A registered subscription: its payer-signed mandate, status and charging schedule. */
export type Subscription = z.output<typeof subscriptionSchema>;
/** The EIP-712 Mandate as the payer signed it, in the API's spelling (amount a decimal string). */
export type Mandate = Subscription["mandate"];
export type SubscriptionStatus = Subscription["status"];
