import { unsupportedReason } from "./acceptance.ts";
import {
  bounceSetupCommandId,
  holdsBounceable,
  relayBounceSetup,
  setupRelayAsked,
  solanaBounces,
} from "./bounce.ts";
import type { SessionInput } from "./commands.ts";
import { pinnedOnlyRefusal } from "./commit-rules.ts";
import { type Decision, DecisionBuilder, nothingToDo, refuse } from "./decision.ts";
import { assertNever, evolve } from "./evolve.ts";
import { decideFillResult, fillCommandId, paidByFastFill } from "./fast-fill.ts";
import { isFinal } from "./finality.ts";
import {
  decideAttachStandingRefund,
  decideRefund,
  decideRefundAll,
  decideRefundResult,
  standingRefunds,
} from "./refunds.ts";
import { reject } from "./rejections.ts";
import { DEFAULT_SESSION_POLICY, type SessionPolicy, withGasSpent } from "./relayer-work.ts";
import { decideCommit, decideSettlementResult, settleCommandId } from "./settlement.ts";
import { decideSolanaRefund } from "./solana-refund.ts";
import { afterRetraction, decideSolanaCommit, relayWhenFinal } from "./solana-sweep.ts";
import { announceCommandId, decideAnnounceResult } from "./stealth.ts";
import { type Session, type SessionState, sameId, sameTransfer } from "./types.ts";
import { sessionWebhook } from "./webhooks.ts";

export type { Decision } from "./decision.ts";

/**
 * The session's decision, with the reply to whoever waits for it in the outbox. `policy`: the
 * operator's limits on relayer-paid work (src/domain/relayer-work.ts).
 */
export function decide(
  command: SessionInput,
  state: SessionState,
  policy: SessionPolicy = DEFAULT_SESSION_POLICY,
): Decision {
  const decision = decideCore(command, state, policy);
  const replyTo = command.metadata.replyTo;
  if (replyTo) {
    const rejection = decision.ok ? null : decision.rejection;
    decision.outbox.push({ type: "Reply", data: { replyTo, rejection } });
  }
  return decision;
}

function decideCore(command: SessionInput, state: SessionState, policy: SessionPolicy): Decision {
  if (state?.recentCommandIds.includes(command.metadata.commandId)) return nothingToDo();
  if (command.type === "CreateSession") {
    const unpinned = pinnedOnlyRefusal(command.data);
    if (unpinned) return refuse(unpinned);
    // A Solana-origin session's sweep pays its app fee to app_fee_recipient_sol and nowhere else.
    const { appFeeBps, appFeeRecipientSol, originChainId } = command.data;
    if (originChainId !== null && appFeeBps > 0 && appFeeRecipientSol === null)
      return refuse(reject("app_fee_sink_missing"));
    if (state !== null) return refuse(reject("session_exists"));
    const { sessionId, pinnedOnly: _, ...data } = command.data;
    return new DecisionBuilder(sessionId, 0, command.metadata)
      .append({ type: "SessionCreated", data })
      .decision();
  }
  if (state === null) return refuse(reject("session_not_found"));

  switch (command.type) {
    case "RecordTransfer":
      return decideTransfer(command, state, policy);
    case "RetractTransfer": {
      const retract = command.data;
      const known =
        state.deposits.find((t) => sameTransfer(t, retract)) ??
        state.unsupportedDeposits.find((t) => sameTransfer(t, retract));
      // Only the block that carried the deposit can retract it: a retraction for another block hash
      // (the transfer was re-mined in the new chain) must not erase it.
      if (!known || !sameId(known.blockHash, retract.blockHash)) return nothingToDo();
      const { chainId, txHash, logIndex } = retract;
      const b = DecisionBuilder.for(state, command.metadata).append({
        type: "DepositRetracted",
        data: { chainId, txHash, logIndex },
      });
      // A committed Solana sweep waiting on the dropped deposit is relayed, or failed and bounced.
      afterRetraction(state, evolve(state, b.events[0] as never) as Session, b, command.metadata, policy);
      return b.decision();
    }
    case "ExpireSession": {
      if (!expires(state)) return nothingToDo(); // committed in time: the timer has nothing to do
      if (command.data.now < state.expiresAt) return refuse(reject("expiry_not_due"));
      const b = DecisionBuilder.for(state, command.metadata).append({ type: "SessionExpired", data: {} });
      // Money already in the burner (a deposit nobody committed) bounces where the standing refund
      // (EVM) or the burner's bounce setup (Solana) says.
      if (state.deposits.length > 0) {
        const expired = evolve(state, b.events[0] as never) as Session;
        standingRefunds(expired, b, null, policy);
        solanaBounces(expired, b, policy);
      }
      return b.decision();
    }
    case "CommitIntent":
      return decideCommit(command, state, policy);
    case "AttachStandingRefund":
      return decideAttachStandingRefund(command, state, policy);
    case "RequestRefund":
      return decideRefund(command, state, policy);
    case "RequestRefundAll":
      return decideRefundAll(command, state, policy);
    case "RegisterBurner":
      return decideRegister(command, state, policy);
    case "CommitSolanaSweep":
      return decideSolanaCommit(command, state, policy);
    case "RequestSolanaRefund":
      return decideSolanaRefund(command, state, policy);
    case "RecordExecutionResult": {
      const { executorCommandId, outcome } = command.data;
      // The bounce setup's relay: nothing to record but its fee. The bounce reads the chain, so an
      // approval that never landed is seen then (nothing is sent).
      if (executorCommandId === bounceSetupCommandId(state.id) && state.bounceTo !== null) {
        return withGasSpent(state, command, nothingToDo(), policy);
      }
      const committed = state.commitment !== null || state.solanaSweep !== null;
      if (executorCommandId === settleCommandId(state.id) && committed) {
        return withGasSpent(
          state,
          command,
          decideSettlementResult(state, outcome, command.metadata, policy),
          policy,
        );
      }
      if (executorCommandId === announceCommandId(state.id) && state.stealthDestinations.length > 0) {
        const { chainId } = command.data;
        return withGasSpent(
          state,
          command,
          decideAnnounceResult(state, chainId, outcome, command.metadata),
          policy,
        );
      }
      if (executorCommandId === fillCommandId(state.id) && paidByFastFill(state)) {
        return withGasSpent(state, command, decideFillResult(state, outcome, command.metadata), policy);
      }
      const refund = state.refunds.find((r) => r.id === executorCommandId);
      if (refund) {
        const decision = decideRefundResult(state, refund, outcome, command.metadata, policy);
        return withGasSpent(state, command, decision, policy);
      }
      // A result is never guessed at: the session sent no command with this id.
      return refuse(reject("execution_unknown"));
    }
    default:
      return assertNever(command);
  }
}

/**
 * A session expires at expires_at unless an Intent was committed by then: a pending one (no money),
 * and a detected one whose payer never signed (a closed payment page holds the only burner key, so
 * the session could never settle; expiring it lets the standing refund return the money).
 */
export const expires = (s: Session): boolean =>
  s.status === "pending" || (s.status === "detected" && s.commitment === null && s.solanaSweep === null);

/**
 * A checkout session's burner (with its EIP-7702 authorization), or a Solana-origin session's
 * ed25519 burner (none): filled once, while pending. The slot is the session's, so two
 * registrations racing reach this one actor in turn: the first fills it, the second is refused.
 * A Solana burner may add its bounce setup later, until the session is committed, and replace it
 * with a newer one until it is relayed (src/domain/bounce.ts, `setupRelayAsked`): a setup's blockhash
 * expires, so the payer's page keeps a fresh one here while it waits, and the one held when an
 * accepted deposit is recorded is the one relayed, once.
 */
function decideRegister(
  command: Extract<SessionInput, { type: "RegisterBurner" }>,
  state: Session,
  policy: SessionPolicy,
): Decision {
  // The burner's family is the session's: an EVM burner on a Solana session could never be paid.
  if (command.data.auth === null) {
    if (state.originChainId === null) return refuse(reject("not_solana_session"));
  } else if (state.clientSecretHash === null || state.originChainId !== null) {
    return refuse(reject("not_checkout"));
  }
  const { burner, auth, standingRefund, bounceSetup } = command.data;
  const addsSetup =
    auth === null &&
    state.burner !== null &&
    sameId(state.burner, burner) &&
    bounceSetup !== null &&
    !setupRelayAsked(state, policy);
  if (state.burner !== null && !addsSetup) return refuse(reject("already_registered"));
  if (state.status !== "pending" && !(addsSetup && expires(state))) return refuse(reject("wrong_status"));
  if (bounceSetup !== null) {
    if (auth !== null) return refuse(reject("not_solana_session"));
    // The address given at creation is a wish; the one the burner signs is what the bounce uses.
    if (state.refundAddress !== null && !sameId(state.refundAddress, bounceSetup.refundTo))
      return refuse(reject("refund_address_mismatch"));
  }
  const b = DecisionBuilder.for(state, command.metadata);
  if (!addsSetup) b.append({ type: "BurnerRegistered", data: { burner, auth } });
  if (standingRefund) b.append({ type: "StandingRefundAttached", data: { standingRefund } });
  if (bounceSetup !== null && state.originChainId !== null) {
    b.append({ type: "BounceSetupAttached", data: bounceSetup });
    // Relayed only once the burner holds an accepted USDC deposit (now, or when one is recorded).
    relayBounceSetup(state, b.events.reduce(evolve, state) as Session, b, policy);
  }
  return b.decision();
}

/**
 * A confirmed transfer into the burner. Every one is recorded, whatever the status: funds that reach
 * a burner late (after detection, after expiry) stay visible so they can be swept or refunded. One
 * the operator does not accept (src/domain/acceptance.ts) is recorded apart, as unsupported: it never
 * detects the session, never tells a merchant anything and is never bounced at the relayer's cost, so
 * a stranger's fake Transfer log cannot take the place of the payment that follows it.
 */
function decideTransfer(
  command: Extract<SessionInput, { type: "RecordTransfer" }>,
  state: Session,
  policy: SessionPolicy,
): Decision {
  const { transfer, terms, finality } = command.data;
  // A transfer keeps the class it was first recorded with: re-mined after a reorg, it moves to its
  // new block in the same list (terms changed in between must not put it in both).
  const unsupported = state.unsupportedDeposits.find((t) => sameTransfer(t, transfer));
  const known = unsupported ? undefined : state.deposits.find((t) => sameTransfer(t, transfer));
  const reason = unsupported ? unsupported.reason : known ? null : unsupportedReason(transfer, terms);
  // Seen in this very block: a re-publication. Seen in another block: the transfer was re-mined
  // after a reorg, and observing it again moves it to its new block (so the old block's late
  // retraction no longer matches it).
  const seen = unsupported ?? known;
  if (seen && sameId(seen.blockHash, transfer.blockHash)) {
    // The same deposit published again once its slot is finalized: now it may be settled.
    if (known && finality !== "confirmed" && !isFinal(state, known)) {
      const { chainId, txHash, logIndex } = known;
      const b = DecisionBuilder.for(state, command.metadata).append({
        type: "DepositFinalized",
        data: { chainId, txHash, logIndex },
      });
      // Money that reached an ended Solana session is bounced once it is final.
      solanaBounces(evolve(state, b.events[0] as never) as Session, b, policy, known.token);
      // A Solana sweep committed before its deposit was final is relayed now.
      relayWhenFinal(state, evolve(state, b.events[0] as never) as Session, b, command.metadata);
      return b.decision();
    }
    return nothingToDo();
  }
  if (reason !== null) {
    return DecisionBuilder.for(state, command.metadata)
      .append({ type: "UnsupportedDepositObserved", data: { transfer, reason } })
      .decision();
  }
  const b = DecisionBuilder.for(state, command.metadata).append({
    type: "DepositObserved",
    data: { transfer, finality },
  });
  // The state after the deposit is needed only to tell a merchant or to bounce late money: built
  // then, not for every transfer of the ingest path (evolve copies the session and its deposits).
  const merchantDetected = state.status === "pending" && state.merchantId !== null;
  const late =
    !known && (state.status === "expired" || state.status === "failed" || state.status === "bounced");
  // Accepted USDC worth bouncing is what lets a stored bounce setup be relayed.
  const setupDue = state.bounceSetup !== null && !holdsBounceable(state, policy);
  if (!merchantDetected && !late && !setupDue) return b.decision();
  const after = evolve(state, b.events[0] as never) as Session;
  relayBounceSetup(state, after, b, policy);
  // The first deposit of a pending session detects it: its merchant is told.
  if (merchantDetected) b.send(sessionWebhook(after, "payment.detected", command.metadata.issuedAt));
  // Money that reaches a session that ended expired or failed bounces where its standing refund says.
  if (late) {
    standingRefunds(after, b, { chainId: transfer.chainId, token: transfer.token }, policy);
    solanaBounces(after, b, policy, transfer.token);
  }
  return b.decision();
}
