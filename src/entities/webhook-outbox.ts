import { TOPIC } from "../../topics/catalogue.ts";
import type { OutboxRecord } from "../actors/entity.ts";
import type { Codecs } from "../kafka/codecs.ts";

/** A webhook an entity's decision sends (a session's payment.*, a subscription's subscription.*). */
export interface WebhookOutboxData {
  merchantId: string;
  idempotencyKey: string;
  eventType: string;
  /** The session it is about; absent for subscription events. */
  sessionId?: string | null;
  body: unknown;
  /** Unix ms. */
  createdAt: number;
}

/**
 * The webhook's record on webhook.events, keyed by merchant id: the webhooks worker's queue. The
 * body's bytes, the ones the worker signs and sends, are fixed here, once, with the event.
 */
export function webhookOutboxRecord(
  codecs: Pick<Codecs, "webhookEvent">,
  w: WebhookOutboxData,
): OutboxRecord {
  return {
    topic: TOPIC.webhookEvents,
    key: w.merchantId,
    value: codecs.webhookEvent.encode({
      idempotencyKey: w.idempotencyKey,
      merchantId: w.merchantId,
      eventType: w.eventType,
      sessionId: w.sessionId ?? null,
      payload: JSON.stringify(w.body),
      createdAt: w.createdAt,
    }),
  };
}
