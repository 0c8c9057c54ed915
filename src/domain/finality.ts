import type { Session, TransferRef } from "./types.ts";
import { sameTransfer } from "./types.ts";

/**
 * When a deposit may be settled. An EVM chain's indexer publishes a transfer only at the chain's
 * confirmation depth, which is final for this service (finality null). A Solana chain's publishes
 * it at "confirmed", which detects the session, and again at "finalized" once its slot is: the
 * decider records the first as awaiting finality and the second as DepositFinalized
 * (docs/SOLANA.md, "Finality"). Anything that moves money on the strength of a deposit (a sweep, a
 * fast fill, a bounce) asks these first.
 */

/** The deposit is final: it was not observed at "confirmed", or its DepositFinalized came since. */
export const isFinal = (session: Session, transfer: TransferRef): boolean =>
  !session.awaitingFinality.some((t) => sameTransfer(t, transfer));

/** Every accepted deposit on the session is final (none still awaits its finalized slot). */
export const depositsFinal = (session: Session): boolean => session.awaitingFinality.length === 0;
