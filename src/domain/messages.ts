import type { Rejection } from "./rejections.ts";

/**
 * The outbox of a session decision: what the decision sends, written by the host in the same Kafka
 * transaction as its events. Pure data; the entity's wiring (src/entities/session.ts) turns each
 * into a record on its topic.
 */

/** The answer to a command someone waits on; the host attaches the session as it is after the command. */
export interface ReplyMessage {
  type: "Reply";
  data: { replyTo: { gatewayId: string; correlationId: string }; rejection: Rejection | null };
}

/** The interface's webhook event names for sessions (docs/API.md, "Webhooks"). */
export type SessionWebhookType = "payment.detected";

/**
 * A webhook for the merchant that owns the session (anonymous sessions send none). The idempotency
 * key `<session_id>:<event_type>` is the interface's: the same status change reached twice (a
 * deposit retracted by a reorg and observed again) is one delivery.
 */
export interface WebhookMessage {
  type: "Webhook";
  data: {
    merchantId: string;
    sessionId: string;
    eventType: SessionWebhookType;
    idempotencyKey: string;
    /** Unix ms: the issuedAt of the command that caused it. */
    createdAt: number;
    /** The delivery body, as the interface names its fields. */
    body: {
      session_id: string;
      event_type: SessionWebhookType;
      amount: string | null;
      settled_amount: string | null;
      overpaid_amount: string | null;
    };
  };
}

export type SessionMessage = ReplyMessage | WebhookMessage;
