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
