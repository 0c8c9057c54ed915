import { detectedDeposit } from "./evolve.ts";
import type { SessionWebhookType, WebhookMessage } from "./messages.ts";
import { type Outcome, type Session, sameId } from "./types.ts";

/**
 * An event id is `evt_` and 32 hex digits (the first 128 bits of its Idempotency-Key's SHA-256,
 * src/store/merchant-events.ts): the HTTP contract checks a path's id by it, the store names events by it.
 */
export const EVENT_ID = /^evt_[0-9a-f]{32}$/;

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
        // What a merchant checks before fulfilling (docs/WEBHOOKS.md): anyone holding the pk_ can
        // make a P2P session of the merchant's that pays somewhere else.
        flow: session.flow,
        dest_address: session.destAddress,
        dest_chain_id: session.destChainId,
        dest_pinned: hasPinnedDestination(session),
      },
    },
  };
}

/**
 * The session pays one of the destinations its merchant had pinned when it was created (checkout:
 * always, once a pin gave it one; a pk-tagged P2P session: when its creator named one of them).
 */
export function hasPinnedDestination(
  session: Pick<Session, "destAddress" | "destChainId" | "pinnedDestinations">,
): boolean {
  const { destAddress, destChainId } = session;
  if (destAddress === null) return false;
  return session.pinnedDestinations.some(
    (p) => p.destChainId === destChainId && sameId(p.destAddress, destAddress),
  );
}

/** The amount over the expected one, for an overpaid outcome. */
export function overpaidBy(session: Session, swapOutput: bigint, outcome: Outcome): bigint | null {
  return outcome === "overpaid" && session.expectedAmount !== null
    ? swapOutput - session.expectedAmount
    : null;
}
