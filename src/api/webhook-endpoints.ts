import { z } from "zod";

// The merchant's webhook endpoint (/v1/webhook_endpoints).

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  created_at: z.string().describe("ISO 8601 UTC timestamp"),
});
export const webhookEndpointWithSecretSchema = webhookEndpointSchema.extend({
  secret: z.string().describe("the whsec_ signing secret: shown in this answer only, new on every PUT"),
});

/** The body of PUT /v1/webhook_endpoints. */
export const webhookEndpointBodySchema = z.object({ url: z.string().min(1).max(2048) });
