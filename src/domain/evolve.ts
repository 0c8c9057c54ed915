import type { SessionEvent } from "./events.ts";
import {
  REMEMBERED_COMMANDS,
  type Session,
  type SessionState,
  sameTransfer,
  type Transfer,
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
      appFeeBps: d.appFeeBps,
      appFeeRecipient: d.appFeeRecipient,
      appFeeRecipientSol: null,
      status: "pending",
      outcome: null,
      expiresAt: d.expiresAt,
      standingRefund: d.standingRefund,
      stealth: d.stealth,
      deposits: [],
      sweepTx: null,
      swapOutputAmount: null,
      feeAmount: null,
      bridgeAmount: null,
      bridgeTx: null,
      destTx: null,
      retryCount: 0,
      errorMessage: null,
      recentCommandIds: [meta.commandId],
    };
  }
  if (state === null) return state; // events of a session that was never created cannot be produced by decide()
  const next: Session = {
    ...state,
    version: meta.version,
    updatedAt: meta.occurredAt,
    recentCommandIds: remember(state.recentCommandIds, meta.commandId),
  };
  switch (event.type) {
    case "DepositObserved": {
      const transfer = event.data.transfer;
      const at = state.deposits.findIndex((t) => sameTransfer(t, transfer));
      // A known transfer observed again was re-mined in another block: it replaces, never doubles.
      next.deposits =
        at < 0
          ? [...state.deposits, event.data.transfer]
          : state.deposits.map((t, i) => (i === at ? event.data.transfer : t));
      if (state.status === "pending") next.status = "detected";
      return next;
    }
    case "DepositRetracted": {
      const retracted = event.data;
      next.deposits = state.deposits.filter((t) => !sameTransfer(t, retracted));
      if (state.status === "detected" && next.deposits.length === 0) next.status = "pending";
      return next;
    }
    case "SessionExpired":
      next.status = "expired";
      return next;
    default:
      return assertNever(event);
  }
}

function remember(ids: string[], id: string): string[] {
  if (ids.includes(id)) return ids;
  const kept = ids.length >= REMEMBERED_COMMANDS ? ids.slice(ids.length - REMEMBERED_COMMANDS + 1) : ids;
  return [...kept, id];
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
