import { z } from "zod";

// The webhook delivery log (/v1/webhook_deliveries): a delivery and every attempt at it.

export const attemptSchema = z.object({
  attempt: z.number().int(),
  started_at: z.string().describe("ISO 8601 UTC timestamp"),
  url: z.string(),
  address: z
    .string()
    .nullable()
    .describe("the checked address connected to; null when refused before connecting"),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
});
export const deliverySchema = z.object({
  id: z.string().describe("the delivery's Idempotency-Key"),
  event_type: z.string(),
  session_id: z.string().nullable(),
  state: z.enum(["pending", "delivered", "failed", "skipped"]),
  attempts: z.number().int(),
  next_retry_at: z.string().nullable().describe("ISO 8601 UTC timestamp; null unless pending"),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string().describe("ISO 8601 UTC timestamp"),
  attempt_log: z.array(attemptSchema).describe("every attempt, first to last"),
});

export const deliveryListSchema = z.object({ data: z.array(deliverySchema) });
export const deliveryListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export const deliveryParamsSchema = z.object({ id: z.string().min(1).max(512) });
