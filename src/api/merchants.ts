import { z } from "zod";
import { KEY_KINDS } from "../domain/merchant/types.ts";

// The merchant resource (GET /v1/merchant, POST /v1/keys/roll): the routes answer with these
// schemas and the merchant library infers its types from them.

export const keySchema = z.object({
  id: z.string(),
  type: z.enum(KEY_KINDS),
  key: z.string().nullable().describe("the publishable key itself; null for a secret key"),
  last4: z.string(),
  created_at: z.string().describe("ISO 8601 UTC timestamp"),
  revoked_at: z.string().nullable().describe("ISO 8601 UTC timestamp, null while active"),
});
export const merchantSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  created_at: z.string().describe("ISO 8601 UTC timestamp"),
  livemode: z.boolean(),
  keys: z.array(keySchema),
});

export const rolledSchema = z.object({
  id: z.string(),
  type: z.enum(KEY_KINDS),
  key: z.string().describe("shown once"),
});

/** The operator's POST /v1/merchants: a new merchant, answered with its first keys. */
export const createMerchantBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: z.email().max(254),
});
export const merchantCreatedSchema = z.object({
  merchant: merchantSchema,
  publishable_key: z.string().describe("pk_: shown once"),
  secret_key: z.string().describe("sk_: shown once, stored only as a hash"),
});
/** The key type to roll; a POST without a body rolls the secret key (fastify hands it over as null). */
export const rollBodySchema = z.strictObject({ type: z.enum(KEY_KINDS).default("secret") }).nullish();

export const keyParamsSchema = z.object({ key_id: z.string().min(1).max(64) });
export const merchantParamsSchema = z.object({
  id: z.string().regex(/^mer_[0-9a-f]{24}$/, "must be a merchant id"),
});
export const merchantKeyParamsSchema = merchantParamsSchema.extend({ key_id: z.string().min(1).max(64) });
