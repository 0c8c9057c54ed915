import { solanaBounces } from "./bounce.ts";
import type { CommandMetadata, CommitIntent, ExecutionOutcome } from "./commands.ts";
import { commitRefusal } from "./commit-rules.ts";
import { type Decision, DecisionBuilder, nothingToDo, refuse } from "./decision.ts";
import { completeBridge } from "./delivery.ts";
import { detectedDeposit } from "./evolve.ts";
import { fastFillMessage, paidByFastFill } from "./fast-fill.ts";
import { outcomeOf } from "./outcome.ts";
import { standingRefunds } from "./refunds.ts";
import { reject } from "./rejections.ts";
import { budgetRefusal, type RelayerWork, type SessionPolicy } from "./relayer-work.ts";
import { stealthAnnouncement, stealthDestinationOf } from "./stealth.ts";
import { type Authorization, type Intent, type Session, sameId } from "./types.ts";
import { deliveryBelowFloor, valueRoute } from "./value.ts";
import { OUTCOME_EVENTS, overpaidBy, sessionWebhook } from "./webhooks.ts";

/** The platform fee's cap (the interface's limit, enforced again on chain by the delegate). */
export const MAX_FEE_BPS = 100;

/** The one executor command a session's settlement is: a session commits once. */
export const settleCommandId = (sessionId: string): string => `${sessionId}:settle`;

const CLOSED = new Set<Session["status"]>(["swept", "failed", "expired", "bounced"]);

/**
 * POST /sessions/:id/commit, after the gateway checked the signature: the Intent must name the
 * detected deposit, the session's destination and app fee, and still be in time. Accepted, the
 * executor is asked to settle it; the status stays detected until the sweep is broadcast. The
 * relayer pays for the sweep: a session whose relayer budget would be passed (after refunds) is not swept.
 */
export function decideCommit(command: CommitIntent, state: Session, policy: SessionPolicy): Decision {
  const { intent, signature, sourceChainId, feeBps } = command.data;
  // What the gateway verified against the session and its merchant, before anything else (as it
  // was when the gateway checked it against the read model).
  const refused = commitRefusal(command.data, state);
  if (refused) return refuse(refused);
  if (CLOSED.has(state.status)) return refuse(reject("session_closed"));
  if (state.commitment !== null) {
    // A retried commit answers as the first did; another Intent is a conflict, never a second sweep.
    return sameCommitment(state.commitment.intent, intent) && sameId(state.commitment.signature, signature)
      ? nothingToDo()
      : refuse(reject("already_committed"));
  }
  if (state.originChainId !== null) return refuse(reject("solana_sweep_expected"));
  const detected = detectedDeposit(state);
  if (state.status !== "detected" || detected === null) return refuse(reject("not_detected"));
  // Checkout: the money arrived on a chain its merchant pinned no destination for.
  if (state.destAddress === null) return refuse(reject("no_destination"));
  const mismatch = intentMismatch(state, intent, detected.first.token, detected.amount);
  if (mismatch !== null)
    return refuse(reject("intent_mismatch", `the intent does not match the session: ${mismatch}`));
  if (sourceChainId !== detected.first.chainId) {
    return refuse(
      reject("intent_mismatch", "the intent must be signed for the chain of the detected deposit"),
    );
  }
  if (intent.deadline * 1000 <= command.metadata.issuedAt) return refuse(reject("intent_expired"));
  // What the deposit is worth, and where it may go: the one money rule (src/domain/value.ts). A
  // swapped deposit is worth at least the payer's min_out; the settlement asset, its own amount.
  const route = valueRoute(policy.chains, {
    deposit: { chainId: detected.first.chainId, token: detected.first.token },
    destChainId: intent.destChainId,
    priced: state.expectedAmount !== null,
  });
  if (route.type === "refused") return refuse(route.rejection);
  const tooSmall = deliveryBelowFloor(
    route,
    route.type === "settle" && route.swap ? intent.minOut : detected.amount,
    "relay",
  );
  if (tooSmall !== null) return refuse(tooSmall);
  // Everything the relayer pays for this settlement, admitted together: the sweep, the bridge
  // relay on the destination, a Flow D announcement there.
  const work: RelayerWork[] = [{ chainId: sourceChainId, action: "sweep" }];
  if (intent.destChainId !== sourceChainId) work.push({ chainId: intent.destChainId, action: "relay" });
  if (stealthDestinationOf(state) !== null) work.push({ chainId: intent.destChainId, action: "announce" });
  const spent = budgetRefusal(state, policy, work);
  if (spent !== null) return refuse(spent);
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > MAX_FEE_BPS) {
    throw new RangeError(`platform fee ${feeBps} bps is outside 0..${MAX_FEE_BPS}`);
  }
  return DecisionBuilder.for(state, command.metadata)
    .append({ type: "IntentCommitted", data: { intent, signature, sourceChainId, feeBps } })
    .send({
      type: "Executor",
      data: {
        commandId: settleCommandId(state.id),
        sessionId: state.id,
        chainId: sourceChainId,
        issuedAt: command.metadata.issuedAt,
        work: {
          type: "Settle",
          // A detected session has its burner: the deposit was found by watching it.
          burner: state.burner as Intent["destAddr"],
          auth: state.auth as Authorization,
          intent,
          signature,
          feeBps,
        },
      },
    })
    .decision();
}

/** Why the Intent cannot settle this session, or null when it can. */
function intentMismatch(state: Session, intent: Intent, token: string, amount: bigint): string | null {
  if (!sameId(intent.inToken, token)) return "in_token is not the detected token";
  if (intent.maxIn !== amount) return "max_in is not the detected amount";
  // The session's destination is the one place its money may go (an anonymous requester chose it
  // when creating the session; a merchant's is pinned): a payer cannot redirect it by signing.
  if (intent.destChainId !== state.destChainId) return "dest_chain_id is not the session's destination chain";
  if (state.destAddress === null || !sameId(intent.destAddr, state.destAddress))
    return "dest_addr is not the session's destination address";
  if (intent.appFeeBps !== state.appFeeBps) return "app_fee_bps is not the session's app fee";
  if (!sameId(intent.appFeeRecipient, state.appFeeRecipient)) return "app_fee_recipient is not the session's";
  return null;
}

function sameCommitment(a: Intent, b: Intent): boolean {
  return (
    a.destChainId === b.destChainId &&
    sameId(a.destAddr, b.destAddr) &&
    a.minOut === b.minOut &&
    a.deadline === b.deadline &&
    sameId(a.salt, b.salt) &&
    sameId(a.inToken, b.inToken) &&
    a.maxIn === b.maxIn &&
    a.appFeeBps === b.appFeeBps &&
    sameId(a.appFeeRecipient, b.appFeeRecipient)
  );
}

/**
 * What the executor reports about the session's settlement. Results arrive at least once and may
 * be re-published after an executor restart, so each moves the session only forward: a result for
 * a step already taken changes nothing.
 */
export function decideSettlementResult(
  state: Session,
  outcome: ExecutionOutcome,
  metadata: CommandMetadata,
  policy: SessionPolicy,
): Decision {
  const inFlight = state.status === "detected" || state.status === "sweeping";
  if (!inFlight || (state.commitment === null && state.solanaSweep === null)) return nothingToDo();
  const b = DecisionBuilder.for(state, metadata);
  const at = metadata.issuedAt;
  switch (outcome.type) {
    case "TransactionSubmitted": {
      if (state.sweepTx !== null && sameId(state.sweepTx, outcome.txHash)) return nothingToDo();
      if (state.feeAmount !== null) return nothingToDo(); // already confirmed: a late report of a replaced hash
      b.append({ type: "SweepSubmitted", data: { txHash: outcome.txHash } });
      if (state.status === "detected") b.send(sessionWebhook(state, "payment.processing", at));
      return b.decision();
    }
    case "SweepConfirmed": {
      if (state.feeAmount !== null) return nothingToDo();
      if (state.status === "detected") {
        // The submission report was lost or overtaken: the session still passes through sweeping.
        b.send(sessionWebhook(state, "payment.processing", at));
      }
      const o = outcomeOf(state.expectedAmount, outcome.swapOutputAmount, outcome.swapped);
      b.append({
        type: "SweepCompleted",
        data: {
          txHash: outcome.txHash,
          amountIn: outcome.amountIn,
          swapOutputAmount: outcome.swapOutputAmount,
          feeAmount: outcome.feeAmount,
          appFeeAmount: outcome.appFeeAmount,
          deliveredAmount: outcome.deliveredAmount,
          bridged: outcome.bridged,
          outcome: o,
        },
      });
      if (!outcome.bridged) {
        const overpaid = overpaidBy(state, outcome.swapOutputAmount, o);
        b.send(sessionWebhook(state, OUTCOME_EVENTS[o], at, { settled: outcome.deliveredAmount, overpaid }));
        b.send(stealthAnnouncement(state, at));
      } else if (paidByFastFill(state)) {
        // The vault holds the money (its sweep reported once final): the destination's inventory pays.
        const fill = fastFillMessage(state, outcome, at, policy.chains);
        if ("refused" in fill) {
          b.append({ type: "SettlementFailed", data: { errorMessage: fill.refused } });
          b.send(sessionWebhook(state, "payment.failed", at));
        } else b.send(fill);
      }
      return b.decision();
    }
    case "BridgeRelayed":
      return completeBridge(state, b, outcome, at);
    case "ExecutionFailed": {
      if (outcome.retryable) {
        return b
          .append({ type: "SettlementRetried", data: { errorMessage: outcome.errorMessage } })
          .decision();
      }
      b.append({ type: "SettlementFailed", data: { errorMessage: outcome.errorMessage } });
      b.send(sessionWebhook(state, "payment.failed", at));
      // Nothing left the burner unless the sweep was confirmed: its deposits go back where a
      // standing refund says.
      if (state.feeAmount === null) {
        standingRefunds({ ...state, status: "failed" }, b, null, policy);
        solanaBounces({ ...state, status: "failed" }, b, policy);
      }
      return b.decision();
    }
    case "TransactionConfirmed":
      // A settlement is confirmed by SweepConfirmed and BridgeRelayed, which carry what moved.
      return nothingToDo();
    default:
      return outcome satisfies never;
  }
}
