import { z } from "zod";

// The merchant's event list (GET /v1/events, GET /v1/events/:id).

export const LIST_URL = "/v1/events" as const;

export const eventSchema = z.object({
  id: z.string().describe("evt_ and 32 hex digits, derived from the Idempotency-Key"),
  object: z.literal("event"),
  type: z.string(),
  created: z.number().int().describe("when the event was queued, Unix seconds"),
  idempotency_key: z.string().describe("the Idempotency-Key of its webhook delivery"),
  session_id: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).describe("the webhook body, as delivered"),
});
export const eventListSchema = z.object({
  object: z.literal("list"),
  data: z.array(eventSchema).describe("newest first"),
  has_more: z.boolean(),
  url: z.literal(LIST_URL),
});
export type EventView = z.infer<typeof eventSchema>;
