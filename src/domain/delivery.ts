import { type Decision, type DecisionBuilder, nothingToDo } from "./decision.ts";
import { stealthAnnouncement } from "./stealth.ts";
import type { Session, TxId } from "./types.ts";
import { OUTCOME_EVENTS, overpaidBy, sessionWebhook } from "./webhooks.ts";

/**
 * The money arrived on the destination chain (a CCTP relay, or the fast fill's payout): the
 * destination's transaction, the session swept, its outcome webhook. Once: a repeated report of the
 * delivery changes nothing.
 */
export function completeBridge(
  state: Session,
  b: DecisionBuilder,
  delivered: { txHash: TxId; mintedAmount: bigint },
  at: number,
): Decision {
  if (state.bridgeTx === null || state.destTx !== null || state.outcome === null) return nothingToDo();
  b.append({
    type: "BridgeCompleted",
    data: { txHash: delivered.txHash, mintedAmount: delivered.mintedAmount },
  });
  const overpaid = overpaidBy(state, state.swapOutputAmount ?? 0n, state.outcome);
  // The body names the detected amount, which the delivery does not change: the state before serves.
  b.send(
    sessionWebhook(state, OUTCOME_EVENTS[state.outcome], at, { settled: delivered.mintedAmount, overpaid }),
  );
  // A Flow D session's money is at its stealth address now: it is announced, once.
  b.send(stealthAnnouncement(state, at));
  return b.decision();
}
