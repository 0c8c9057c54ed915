import { solanaBounces } from "./bounce.ts";
import type { CommandMetadata, CommitSolanaSweep } from "./commands.ts";
import { type Decision, DecisionBuilder, nothingToDo, refuse } from "./decision.ts";
import { detectedDeposit } from "./evolve.ts";
import { depositsFinal } from "./finality.ts";
import { reject } from "./rejections.ts";
import { budgetRefusal, type RelayerWork, type SessionPolicy } from "./relayer-work.ts";
import { MAX_FEE_BPS, settleCommandId } from "./settlement.ts";
import { stealthDestinationOf } from "./stealth.ts";
import { type ChainAddress, type Session, type SolanaSweep, type SolanaSweepLeg, sameId } from "./types.ts";
import { deliveryBelowFloor, valueRoute } from "./value.ts";
import { sessionWebhook } from "./webhooks.ts";

/**
 * Settlement of a Solana-origin session (docs/SOLANA.md, "The sweep"): after detection the payer's
 * client signs one transaction moving the burner's deposit; the gateway checked that the transaction
 * is exactly the sweep of the legs on the command (src/chains/solana/sweep.ts). Here the legs are
 * judged against what the session owes: the detected amount, split into the delivery, the platform
 * fee and the app fee, to the session's destination (the vault for an EVM one) and fee sinks. The
 * executor co-signs as fee payer and relays it once every deposit is final.
 */

/** What the session owes, in the order the sweep pays it; legs of 0 are left out. */
export function owedLegs(
  session: Pick<
    Session,
    "appFeeBps" | "appFeeRecipientSol" | "destAddress" | "destChainId" | "originChainId"
  >,
  terms: { amount: bigint; feeBps: number; feeRecipient: ChainAddress; vault: ChainAddress },
): { legs: SolanaSweepLeg[]; feeAmount: bigint; appFeeAmount: bigint; delivered: bigint; bridged: boolean } {
  const { amount, feeBps } = terms;
  const feeAmount = (amount * BigInt(feeBps)) / 10_000n;
  const appFeeAmount = (amount * BigInt(session.appFeeBps)) / 10_000n;
  const delivered = amount - feeAmount - appFeeAmount;
  // A destination on another chain is paid by the fast fill from the vault's inventory.
  const bridged = session.destChainId !== session.originChainId;
  const to = bridged ? terms.vault : (session.destAddress as string);
  const legs: SolanaSweepLeg[] = [{ to, amount: delivered }];
  if (feeAmount > 0n) legs.push({ to: terms.feeRecipient, amount: feeAmount });
  if (appFeeAmount > 0n && session.appFeeRecipientSol !== null)
    legs.push({ to: session.appFeeRecipientSol, amount: appFeeAmount });
  return { legs: legs.filter((l) => l.amount > 0n), feeAmount, appFeeAmount, delivered, bridged };
}

const sameLegs = (a: readonly SolanaSweepLeg[], b: readonly SolanaSweepLeg[]): boolean =>
  a.length === b.length && a.every((l, i) => sameId(l.to, b[i]?.to ?? "") && l.amount === b[i]?.amount);

export function decideSolanaCommit(
  command: CommitSolanaSweep,
  state: Session,
  policy: SessionPolicy,
): Decision {
  const d = command.data;
  if (state.originChainId === null) return refuse(reject("not_solana_session"));
  if (["swept", "failed", "expired", "bounced"].includes(state.status))
    return refuse(reject("session_closed"));
  if (state.solanaSweep !== null)
    // A retried commit answers as the first did; another transaction is a conflict, never a second sweep.
    return state.solanaSweep.transaction === d.transaction
      ? nothingToDo()
      : refuse(reject("already_committed"));
  const detected = detectedDeposit(state);
  if (state.status !== "detected" || detected === null || state.burner === null)
    return refuse(reject("not_detected"));
  // A fee with nowhere to go on Solana: refused at creation too (decideCore), so only older sessions reach this.
  if (state.appFeeBps > 0 && state.appFeeRecipientSol === null) return refuse(reject("app_fee_sink_missing"));
  if (!Number.isInteger(d.feeBps) || d.feeBps < 0 || d.feeBps > MAX_FEE_BPS)
    throw new RangeError(`platform fee ${d.feeBps} bps is outside 0..${MAX_FEE_BPS}`);
  // What the deposit is worth, and where it may go: the one money rule (src/domain/value.ts).
  const route = valueRoute(policy.chains, {
    deposit: { chainId: detected.first.chainId, token: detected.first.token },
    destChainId: state.destChainId ?? detected.first.chainId,
    priced: state.expectedAmount !== null,
  });
  if (route.type === "refused") return refuse(route.rejection);
  const owed = owedLegs(state, { amount: detected.amount, ...d });
  const tooSmall = deliveryBelowFloor(route, owed.delivered, "fill");
  if (tooSmall !== null) return refuse(tooSmall);
  const mismatch = !sameId(d.burner, state.burner)
    ? "it is not signed by the session's burner"
    : !sameId(d.token, detected.first.token)
      ? "it does not move the detected token"
      : !sameLegs(d.legs, owed.legs)
        ? "it does not pay exactly the detected amount to the destination and the fees"
        : null;
  if (mismatch !== null)
    return refuse(reject("intent_mismatch", `the sweep does not match the session: ${mismatch}`));
  // Everything the relayer pays for this settlement, admitted together: the sweep's fees, the
  // fast fill on the destination, a Flow D announcement and the stealth account the sweep opens.
  const chainId = detected.first.chainId;
  const destChainId = state.destChainId ?? chainId;
  const work: RelayerWork[] = [{ chainId, action: "sweep" }];
  if (destChainId !== chainId) work.push({ chainId: destChainId, action: "fill" });
  if (stealthDestinationOf(state) !== null)
    work.push({ chainId: destChainId, action: "announce" }, { chainId, action: "account_open" });
  const spent = budgetRefusal(state, policy, work);
  if (spent !== null) return refuse(spent);
  const sweep: SolanaSweep = {
    transaction: d.transaction,
    token: d.token,
    legs: d.legs,
    feeBps: d.feeBps,
    amountIn: detected.amount,
    feeAmount: owed.feeAmount,
    appFeeAmount: owed.appFeeAmount,
    deliveredAmount: owed.delivered,
    bridged: owed.bridged,
  };
  const b = DecisionBuilder.for(state, command.metadata).append({
    type: "SolanaSweepCommitted",
    data: sweep,
  });
  // Money moves only on final deposits; otherwise the sweep is sent when the last one is (below).
  if (depositsFinal(state)) b.send(relayCommand(state, sweep, command.metadata));
  return b.decision();
}

/**
 * The executor command that co-signs and relays the committed sweep, once every deposit is final:
 * sent by the commit, or by the DepositFinalized that makes the last deposit final after it.
 */
export function relayWhenFinal(
  before: Session,
  after: Session,
  b: DecisionBuilder,
  metadata: CommandMetadata,
) {
  if (
    after.solanaSweep !== null &&
    !depositsFinal(before) &&
    depositsFinal(after) &&
    after.status === "detected"
  )
    b.send(relayCommand(after, after.solanaSweep, metadata));
}

/**
 * A retraction (a reorg dropped a deposit that was only confirmed) under a committed, not yet relayed
 * sweep: the sweep is relayed if it still moves exactly what the burner holds and every deposit is now
 * final; if it no longer does, it can never land (the relayer would pay for a failed transaction), so
 * the settlement fails and what is left bounces. Either way the session goes on to settle or to end.
 */
export function afterRetraction(
  before: Session,
  after: Session,
  b: DecisionBuilder,
  metadata: CommandMetadata,
  policy: SessionPolicy,
) {
  const sweep = after.solanaSweep;
  if (sweep === null || after.sweepTx !== null || after.feeAmount !== null) return;
  if (after.status !== "detected" && after.status !== "pending") return;
  const detected = detectedDeposit(after);
  const stillOwed =
    detected !== null && sameId(detected.first.token, sweep.token) && detected.amount === sweep.amountIn;
  if (stillOwed) {
    if (depositsFinal(after) && !depositsFinal(before)) b.send(relayCommand(after, sweep, metadata));
    return;
  }
  b.append({
    type: "SettlementFailed",
    data: {
      errorMessage:
        "a deposit the committed sweep moves was dropped by a reorg: the sweep can no longer land, and what the burner holds is returned",
    },
  });
  b.send(sessionWebhook(after, "payment.failed", metadata.issuedAt));
  solanaBounces({ ...after, status: "failed" }, b, policy);
}

function relayCommand(state: Session, sweep: SolanaSweep, metadata: CommandMetadata) {
  return {
    type: "Executor" as const,
    data: {
      commandId: settleCommandId(state.id),
      sessionId: state.id,
      chainId: state.originChainId as number,
      issuedAt: metadata.issuedAt,
      work: {
        type: "RelaySolanaSweep" as const,
        transaction: sweep.transaction,
        amountIn: sweep.amountIn,
        feeAmount: sweep.feeAmount,
        appFeeAmount: sweep.appFeeAmount,
        deliveredAmount: sweep.deliveredAmount,
        bridged: sweep.bridged,
      },
    },
  };
}
