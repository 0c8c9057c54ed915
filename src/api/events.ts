import { z } from "zod";
import { EVENT_ID } from "../domain/webhooks.ts";

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

/** Stripe's list parameters: `limit` 1 to 100 (10 by default), `starting_after` an event id, `type`. */
export const eventListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(10),
    starting_after: z
      .string()
      .regex(EVENT_ID, "must be an event id (evt_ and 32 lowercase hex digits)")
      .optional()
      .describe("the id of the last event of the previous page: the page after it"),
    type: z
      .string()
      .max(100)
      .regex(/^[a-z_]+(\.[a-z_]+)+$/, "must be an event type, e.g. payment.succeeded")
      .optional()
      .describe("only events of exactly this type"),
  })
  .strict();
export const eventParamsSchema = z.object({ id: z.string().min(1).max(512) });
