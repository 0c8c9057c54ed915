import type { z } from "zod";
import type { merchantSchema, rolledSchema } from "../../gateway/routes/merchants.ts";
import type { deliverySchema } from "../../gateway/routes/webhook-deliveries.ts";

// The merchant library's wire types, inferred from the merchant routes' own zod schemas, so they
// cannot drift from what the gateway serialises. Type-only imports, erased at compilation: neither
// zod nor the gateway is loaded at run time (test/unit/client-bundle holds the entry to that).

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
