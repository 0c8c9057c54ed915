import { z } from "zod";
import { addressSchema } from "./wire.ts";

// The subscription resource (/v1/subscriptions): the payer-signed Mandate and the registered subscription.

export const hexSchema = z.string().regex(/^0x([0-9a-fA-F]{2})+$/, "must be 0x hex");
const bytes32Schema = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 32 bytes of 0x hex");
const uint = (max: number) => z.number().int().min(0).max(max);

/** The EIP-712 Mandate as signed (src/contracts/README.md), in the API's spelling. */
export const mandateSchema = z.strictObject({
  payer: addressSchema,
  token: addressSchema,
  amount: z.string().regex(/^[1-9]\d{0,77}$/, "must be a positive integer string in base units"),
  period: uint(Number.MAX_SAFE_INTEGER).min(1).describe("seconds"),
  start: uint(Number.MAX_SAFE_INTEGER).describe("unix seconds at which period 0 starts"),
  merchant: addressSchema.describe("receives each charge less the fees"),
  app_fee_bps: uint(10_000),
  app_fee_recipient: addressSchema,
  salt: bytes32Schema,
});

export const subscriptionSchema = z.object({
  id: z.string().describe("UUID derived from the mandate's EIP-712 digest"),
  object: z.literal("subscription"),
  status: z.enum(["active", "canceled"]),
  chain_id: z.number(),
  manager: z.string().describe("the SubscriptionManager the mandate is signed for"),
  digest: z.string(),
  mandate: z.object({
    payer: z.string(),
    token: z.string(),
    amount: z.string(),
    period: z.number(),
    start: z.number(),
    merchant: z.string(),
    app_fee_bps: z.number(),
    app_fee_recipient: z.string(),
    salt: z.string(),
  }),
  fee_bps: z.number().describe("the platform fee, fixed at registration"),
  created_at: z.string(),
  canceled_at: z.string().nullable(),
  canceled_by: z.enum(["merchant", "payer", "chain"]).nullable(),
  last_charged_period: z.number().nullable(),
  next_charge_at: z.string().nullable().describe("when the next charge attempt is due; null once canceled"),
});

/** The body of POST /v1/subscriptions: the signed Mandate to register. */
export const createSubscriptionBodySchema = z.strictObject({
  chain_id: z.number().int().positive(),
  mandate: mandateSchema,
  signature: hexSchema.describe("the payer's EIP-712 signature of the Mandate"),
});
/** The body of the payer's POST /subscriptions/:sub_id/cancel: the signed Cancel. */
export const cancelBodySchema = z.strictObject({ signature: hexSchema });
export const idParams = z.strictObject({ id: z.uuid() });
export const subIdParams = z.strictObject({ sub_id: z.uuid() });
