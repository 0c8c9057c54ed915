import { detectedDeposit } from "./evolve.ts";
import type { SessionWebhookType, WebhookMessage } from "./messages.ts";
import type { Outcome, Session } from "./types.ts";

/** The webhook event a swept session's outcome fires (docs/API.md, "Webhooks"). */
export const OUTCOME_EVENTS: Record<Outcome, SessionWebhookType> = {
  succeeded: "payment.succeeded",
  overpaid: "payment.overpaid",
  underpaid: "payment.underpaid",
};

/** What a webhook body says about the money, as the session stands after the change. */
export interface WebhookAmounts {
  /** USDC delivered to (or minted for) the destination, once swept. */
  settled: bigint | null;
  /** How much more than the expected amount the deposit was worth, for payment.overpaid. */
  overpaid: bigint | null;
}

/**
 * The webhook for the merchant that owns the session; null for anonymous sessions, which send none.
 * The idempotency key `<session_id>:<event_type>` is the interface's: the same status change reached
 * twice (a deposit retracted by a reorg and observed again) is one delivery.
 */
export function sessionWebhook(
  session: Session,
  eventType: SessionWebhookType,
  at: number,
  amounts: WebhookAmounts = { settled: null, overpaid: null },
): WebhookMessage | null {
  if (session.merchantId === null) return null;
  const detected = detectedDeposit(session);
  return {
    type: "Webhook",
    data: {
      merchantId: session.merchantId,
      sessionId: session.id,
      eventType,
      idempotencyKey: `${session.id}:${eventType}`,
      createdAt: at,
      body: {
        session_id: session.id,
        event_type: eventType,
        amount: detected ? detected.amount.toString() : null,
        settled_amount: amounts.settled?.toString() ?? null,
        overpaid_amount: amounts.overpaid?.toString() ?? null,
      },
    },
  };
}

/** The amount over the expected one, for an overpaid outcome. */
export function overpaidBy(session: Session, swapOutput: bigint, outcome: Outcome): bigint | null {
  return outcome === "overpaid" && session.expectedAmount !== null
    ? swapOutput - session.expectedAmount
    : null;
}
