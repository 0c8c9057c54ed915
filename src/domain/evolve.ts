import type { SessionEvent } from "./events.ts";
import {
  type Finality,
  REMEMBERED_COMMANDS,
  type Session,
  type SessionState,
  sameTransfer,
  type Transfer,
  type TransferRef,
} from "./types.ts";

/** Applies one event to the state. Total: it never throws for an event that decide() produced. */
export function evolve(state: SessionState, event: SessionEvent): SessionState {
  const meta = event.metadata;
  if (event.type === "SessionCreated") {
    const d = event.data;
    return {
      id: meta.sessionId,
      version: meta.version,
      createdAt: meta.occurredAt,
      updatedAt: meta.occurredAt,
      flow: d.flow,
      merchantId: d.merchantId,
      burner: d.burner,
      auth: d.auth,
      destAddress: d.destAddress,
      destChainId: d.destChainId,
      // Written before checkout existed: no pinned destinations, no client secret.
      pinnedDestinations: d.pinnedDestinations ?? [],
      clientSecretHash: d.clientSecretHash ?? null,
      appFeeBps: d.appFeeBps,
      appFeeRecipient: d.appFeeRecipient,
      // Written before Solana sessions existed: EVM sessions, with no Solana fee sink or bounce address.
      appFeeRecipientSol: d.appFeeRecipientSol ?? null,
      originChainId: d.originChainId ?? null,
      refundAddress: d.refundAddress ?? null,
      bounceTo: null,
      bounceSetup: null,
      expectedAmount: d.expectedAmount,
      status: "pending",
      outcome: null,
      expiresAt: d.expiresAt,
      standingRefund: d.standingRefund,
      stealth: d.stealth,
      stealthDestinations: d.stealthDestinations ?? [],
      stealthAnnounced: [],
      stealthAnnounceFailed: [],
      deposits: [],
      unsupportedDeposits: [],
      awaitingFinality: [],
      commitment: null,
      solanaSweep: null,
      sweepTx: null,
      swapOutputAmount: null,
      feeAmount: null,
      appFeeAmount: null,
      settledAmount: null,
      bridgeAmount: null,
      bridgeTx: null,
      destTx: null,
      retryCount: 0,
      errorMessage: null,
      refunds: [],
      gasSpent: [],
      recentCommandIds: [meta.commandId],
    };
  }
  if (state === null) return state; // events of a session that was never created cannot be produced by decide()
  // A copy the event may change, down to the arrays it appends to: the caller's state stays as it was.
  const next: Session = {
    ...state,
    deposits: [...state.deposits],
    unsupportedDeposits: [...state.unsupportedDeposits],
    awaitingFinality: [...state.awaitingFinality],
    refunds: [...state.refunds],
    gasSpent: [...state.gasSpent],
    stealthAnnounced: [...state.stealthAnnounced],
    stealthAnnounceFailed: [...state.stealthAnnounceFailed],
    recentCommandIds: [...state.recentCommandIds],
  };
  return applyInPlace(next, event);
}

/**
 * evolve for a fold that holds the only reference to its states (a replay of the journal): applies
 * the event by changing `state` itself instead of copying it. The same rules as evolve, which uses it
 * on a copy; a replay saves three allocations per event, the largest part of its garbage.
 */
export function evolveInPlace(state: SessionState, event: SessionEvent): SessionState {
  if (event.type === "SessionCreated" || state === null) return evolve(state, event);
  return applyInPlace(state, event);
}

function applyInPlace(session: Session, event: Exclude<SessionEvent, { type: "SessionCreated" }>): Session {
  const meta = event.metadata;
  session.version = meta.version;
  session.updatedAt = meta.occurredAt;
  remember(session.recentCommandIds, meta.commandId);
  switch (event.type) {
    case "DepositObserved": {
      const transfer = event.data.transfer;
      const at = session.deposits.findIndex((t) => sameTransfer(t, transfer));
      // A known transfer observed again was re-mined in another block: it replaces, never doubles.
      if (at < 0) session.deposits.push(transfer);
      else session.deposits[at] = transfer;
      markFinality(session, transfer, event.data.finality);
      if (session.status === "pending") session.status = "detected";
      // Checkout: the destination is the one pinned for the chain the money arrived on.
      if (session.destAddress === null && session.deposits[0] === transfer) {
        const pin = session.pinnedDestinations.find((p) => p.sourceChainId === transfer.chainId);
        if (pin) {
          session.destAddress = pin.destAddress;
          session.destChainId = pin.destChainId;
        }
      }
      return session;
    }
    case "UnsupportedDepositObserved": {
      const { transfer, reason } = event.data;
      const at = session.unsupportedDeposits.findIndex((t) => sameTransfer(t, transfer));
      // Re-mined in another block: it replaces, never doubles. The status is left alone.
      if (at < 0) session.unsupportedDeposits.push({ ...transfer, reason });
      else session.unsupportedDeposits[at] = { ...transfer, reason };
      return session;
    }
    case "DepositRetracted": {
      const retracted = event.data;
      for (let i = session.deposits.length - 1; i >= 0; i--) {
        if (sameTransfer(session.deposits[i] as Transfer, retracted)) session.deposits.splice(i, 1);
      }
      for (let i = session.unsupportedDeposits.length - 1; i >= 0; i--) {
        if (sameTransfer(session.unsupportedDeposits[i] as Transfer, retracted))
          session.unsupportedDeposits.splice(i, 1);
      }
      markFinality(session, retracted, "finalized"); // no longer awaited: it is gone
      if (session.status === "detected" && session.deposits.length === 0) session.status = "pending";
      return session;
    }
    case "SessionExpired":
      session.status = "expired";
      return session;
    case "IntentCommitted":
      session.commitment = event.data;
      return session;
    case "SolanaSweepCommitted":
      session.solanaSweep = event.data;
      return session;
    case "SweepSubmitted":
      session.sweepTx = event.data.txHash;
      if (session.status === "detected") session.status = "sweeping";
      return session;
    case "SweepCompleted": {
      const d = event.data;
      session.status = "sweeping";
      session.sweepTx = d.txHash;
      session.swapOutputAmount = d.swapOutputAmount;
      session.feeAmount = d.feeAmount;
      session.appFeeAmount = d.appFeeAmount;
      // Decided by the swap's output; the view shows it once the session is swept.
      session.outcome = d.outcome;
      if (d.bridged) {
        // The delivery was burned in the sweep transaction: the bridge leg starts there.
        session.bridgeAmount = d.deliveredAmount;
        session.bridgeTx = d.txHash;
      } else {
        session.destTx = d.txHash;
        settle(session, d.deliveredAmount);
      }
      return session;
    }
    case "BridgeCompleted":
      session.destTx = event.data.txHash;
      settle(session, event.data.mintedAmount);
      return session;
    case "SettlementRetried":
      session.retryCount += 1;
      session.errorMessage = event.data.errorMessage;
      return session;
    case "SettlementFailed":
      session.status = "failed";
      session.errorMessage = event.data.errorMessage;
      return session;
    case "BurnerRegistered":
      session.burner = event.data.burner;
      session.auth = event.data.auth;
      return session;
    case "StandingRefundAttached":
      session.standingRefund = event.data.standingRefund;
      return session;
    case "RefundRequested":
      session.refunds.push({
        ...event.data,
        // Written before the field existed: such a refund covers what it found.
        depositsCovered: event.data.depositsCovered ?? null,
        txHash: null,
        status: "requested",
        errorMessage: null,
      });
      return session;
    case "RefundUpdated": {
      const d = event.data;
      const at = session.refunds.findIndex((r) => r.id === d.id);
      const known = session.refunds[at];
      if (known) {
        session.refunds[at] = {
          ...known,
          status: d.status,
          txHash: d.txHash ?? known.txHash,
          errorMessage: d.errorMessage,
        };
        // A Solana session whose balance went back to its refund address has bounced.
        if (known.kind === "bounce" && d.status === "confirmed") session.status = "bounced";
      }
      return session;
    }
    case "RelayerGasSpent":
      session.gasSpent.push(event.data);
      return session;
    case "DepositFinalized":
      markFinality(session, event.data, "finalized");
      return session;
    case "StealthAnnounced":
      session.stealthAnnounced.push(event.data);
      return session;
    case "StealthAnnounceFailed":
      session.stealthAnnounceFailed.push(event.data);
      return session;
    case "BounceSetupAttached":
      session.bounceTo = event.data.refundTo;
      session.bounceSetup = event.data.transaction;
      session.refundAddress = event.data.refundTo;
      return session;
    default:
      return assertNever(event);
  }
}

/** Keeps `awaitingFinality` naming exactly the deposits last seen at "confirmed". */
function markFinality(session: Session, transfer: TransferRef, finality: Finality): void {
  const at = session.awaitingFinality.findIndex((t) => sameTransfer(t, transfer));
  if (finality === "confirmed") {
    const { chainId, txHash, logIndex } = transfer;
    if (at < 0) session.awaitingFinality.push({ chainId, txHash, logIndex });
  } else if (at >= 0) session.awaitingFinality.splice(at, 1);
}

/** The session is swept: what reached the destination. */
function settle(session: Session, settled: bigint): void {
  session.status = "swept";
  session.settledAmount = settled;
  // A retry's reason (e.g. a fast fill that waited for inventory) is no longer true once it settled.
  session.errorMessage = null;
}

/** Adds the command id to the session's recent ones, forgetting the oldest beyond the limit. */
function remember(ids: string[], id: string): void {
  if (ids.includes(id)) return;
  ids.push(id);
  if (ids.length > REMEMBERED_COMMANDS) ids.splice(0, ids.length - REMEMBERED_COMMANDS);
}

/**
 * The deposit that detected the session and the amount that counts towards it: every deposit of the
 * same token on the same chain adds up (the sweep moves the burner's whole balance of that token);
 * deposits of other tokens or chains are kept on the session for refund but not counted.
 */
export function detectedDeposit(session: Session): { first: Transfer; amount: bigint } | null {
  const first = session.deposits[0];
  if (!first) return null;
  let amount = 0n;
  for (const t of session.deposits) {
    if (t.chainId === first.chainId && t.token === first.token) amount += t.amount;
  }
  return { first, amount };
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
