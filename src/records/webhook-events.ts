import * as f from "../record-fields/fields.ts";

/** webhook.events: one delivery for the webhook worker, keyed by merchant id. */
export const webhookEvent = f.record({
  /** Sent as the Idempotency-Key header; unique in the queue. */
  idempotencyKey: f.string,
  merchantId: f.string,
  /** The interface's event name, e.g. payment.detected. */
  eventType: f.string,
  sessionId: f.nullable(f.string),
  /** The JSON text to sign and send, byte for byte. */
  payload: f.string,
  /** Unix ms. */
  createdAt: f.number,
});
export type WebhookEvent = f.Infer<typeof webhookEvent>;
