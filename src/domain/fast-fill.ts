import type { CommandMetadata, ExecutionOutcome } from "./commands.ts";
import { type Decision, DecisionBuilder, nothingToDo } from "./decision.ts";
import { completeBridge } from "./delivery.ts";
import { detectedDeposit } from "./evolve.ts";
import type { ExecutorMessage } from "./messages.ts";
import { type Address, type Session, sameId, type TxId } from "./types.ts";
import { type ChainMoney, inSettlementUnits, moneyOf } from "./value.ts";
import { sessionWebhook } from "./webhooks.ts";

/**
 * The fast fill (docs/SOLANA.md, "EVM destinations: the fast fill"): a Solana-origin session whose
 * destination is on an EVM chain is swept into the service's vault on Solana; once that sweep is
 * final the relayer's USDC on the destination chain pays the destination. One fill per session.
 */
export const fillCommandId = (sessionId: string): string => `${sessionId}:fill`;

/** Whether a bridged sweep of this session is a vault sweep that the fast fill completes. */
export const paidByFastFill = (state: Session): boolean =>
  state.originChainId !== null && state.destChainId !== null && state.destChainId !== state.originChainId;

/**
 * The fill the vault sweep of a session `paidByFastFill` asks for: the vault received
 * `deliveredAmount` of the swept token for the destination (the platform and app fees already
 * taken). Only the settlement asset is filled, converted into the destination's units
 * (src/domain/value.ts); anything else (a sweep committed before the money rule) is never filled
 * elsewhere: the reason, to be failed with, is returned instead.
 */
export function fastFillMessage(
  state: Session,
  sweep: { txHash: TxId; deliveredAmount: bigint },
  issuedAt: number,
  chains: readonly ChainMoney[],
): ExecutorMessage | { refused: string } {
  const source = moneyOf(chains, state.originChainId as number);
  const dest = moneyOf(chains, state.destChainId as number);
  // What the vault received: the swept token (the detected one: a sweep moves nothing else).
  const token = state.solanaSweep?.token ?? detectedDeposit(state)?.first.token ?? null;
  if (source === null || dest === null || token === null || source.settlementToken === null)
    return { refused: "the fast fill has no money facts for its chains: nothing is filled" };
  if (!sameId(token, source.settlementToken))
    return {
      refused: `the vault received ${token}, not the settlement asset: it is never filled as USDC on another chain`,
    };
  return {
    type: "Executor",
    data: {
      commandId: fillCommandId(state.id),
      sessionId: state.id,
      chainId: dest.chainId,
      issuedAt,
      work: {
        type: "FastFill",
        // An EVM destination: the route took a 0x address for it.
        to: state.destAddress as Address,
        amount: inSettlementUnits(sweep.deliveredAmount, source, dest),
        sourceChainId: source.chainId,
        sourceTx: sweep.txHash,
      },
    },
  };
}

/**
 * What the executor reports about the fill: paid (BridgeRelayed, read as for a CCTP relay: the
 * destination's transaction, the session swept, its outcome webhook), waiting for inventory (a
 * retryable failure: the reason shows in error_message), or refused for good (the session fails; its
 * money is in the vault). Repeated reports change nothing.
 */
export function decideFillResult(
  state: Session,
  outcome: ExecutionOutcome,
  metadata: CommandMetadata,
): Decision {
  if (state.status !== "sweeping" || state.bridgeTx === null || state.destTx !== null) return nothingToDo();
  const b = DecisionBuilder.for(state, metadata);
  switch (outcome.type) {
    case "BridgeRelayed":
      return completeBridge(state, b, outcome, metadata.issuedAt);
    case "ExecutionFailed":
      if (outcome.retryable) {
        if (state.errorMessage === outcome.errorMessage) return nothingToDo();
        return b
          .append({ type: "SettlementRetried", data: { errorMessage: outcome.errorMessage } })
          .decision();
      }
      b.append({ type: "SettlementFailed", data: { errorMessage: outcome.errorMessage } });
      b.send(sessionWebhook(state, "payment.failed", metadata.issuedAt));
      return b.decision();
    case "TransactionSubmitted":
    case "TransactionConfirmed":
    case "SweepConfirmed":
      // The fill reports none of these.
      return nothingToDo();
    default:
      return outcome satisfies never;
  }
}
