import type { CommandMetadata, ExecutionOutcome } from "./commands.ts";
import { type Decision, DecisionBuilder, nothingToDo } from "./decision.ts";
import type { ExecutorMessage } from "./messages.ts";
import { type Session, type StealthDestination, sameId } from "./types.ts";

/** The one announcement command of a Flow D session (docs/STEALTH.md): the executor sends it at most once. */
export const announceCommandId = (sessionId: string): string => `${sessionId}:announce`;

/** The derived destination the session pays, once its destination is known: null for any other session. */
export function stealthDestinationOf(state: Session): StealthDestination | null {
  const dest = state.destAddress;
  if (dest === null) return null;
  return state.stealthDestinations.find((d) => sameId(d.stealthAddress, dest)) ?? null;
}

/**
 * What a Flow D session owes once it is swept to its stealth address: the announcement, on the
 * destination chain, of the scheme it was paid under. Asked for only where a session becomes swept
 * (the money is at the stealth address), so an unpaid session is never announced and a paid one once.
 */
export function stealthAnnouncement(state: Session, issuedAt: number): ExecutorMessage | null {
  const d = stealthDestinationOf(state);
  if (d === null || state.destChainId === null) return null;
  return {
    type: "Executor",
    data: {
      commandId: announceCommandId(state.id),
      sessionId: state.id,
      chainId: state.destChainId,
      issuedAt,
      work: {
        type: "Announce",
        scheme: d.scheme,
        stealthAddress: d.stealthAddress,
        ephemeralPubkey: d.ephemeralPubkey,
        viewTag: d.viewTag,
      },
    },
  };
}

/**
 * The executor's report on the announcement: confirmed, it is recorded once (the transaction the
 * recipient may also find on chain). A failed try that will be tried again changes nothing (the
 * executor retries it with backoff, as every command); the executor giving up is recorded once, and
 * the session stays swept: GET /sessions/:id/stealth still answers the announcement, with no transaction.
 */
export function decideAnnounceResult(
  state: Session,
  chainId: number,
  outcome: ExecutionOutcome,
  metadata: CommandMetadata,
): Decision {
  const d = stealthDestinationOf(state);
  if (d === null || state.stealthAnnounced.some((a) => a.scheme === d.scheme)) return nothingToDo();
  const b = DecisionBuilder.for(state, metadata);
  if (outcome.type === "TransactionConfirmed")
    return b
      .append({ type: "StealthAnnounced", data: { scheme: d.scheme, chainId, txHash: outcome.txHash } })
      .decision();
  // A try the executor will repeat (with backoff) is not the end; a give-up is recorded once.
  if (outcome.type !== "ExecutionFailed" || outcome.retryable) return nothingToDo();
  if (state.stealthAnnounceFailed.some((f) => f.scheme === d.scheme)) return nothingToDo();
  const { errorMessage } = outcome;
  return b
    .append({ type: "StealthAnnounceFailed", data: { scheme: d.scheme, chainId, errorMessage } })
    .decision();
}
