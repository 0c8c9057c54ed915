import type { SessionCommand } from "../domain/commands.ts";
import type { SessionEvent } from "../domain/events.ts";
import type { Address, Transfer } from "../domain/types.ts";
import type { SessionView } from "../domain/view.ts";

/**
 * The values on each topic, as the TypeScript side sees them. Their Avro schemas in schemas/ are the
 * public contract; src/kafka/codecs.ts turns one into the other.
 */

/** chain.transfers: the indexer's output, keyed by session id: a Transfer and where it was seen. */
export interface TransferObserved extends Transfer {
  sessionId: string;
  burner: Address;
  /** Depth of the block when published (>= the chain's confirmation setting). */
  confirmations: number;
  observedAt: number; // unix ms
  /** true: the block that carried this transfer was dropped by a reorg; undo the observation. */
  retracted: boolean;
}

/** session.state: the Session object after each change, compacted by session id. */
export interface SessionStateRecord {
  version: number;
  session: SessionView;
}

/** gateway.replies: the owning actor's answer to a command a gateway waits on. */
export interface GatewayReply {
  gatewayId: string;
  correlationId: string;
  /** HTTP status the gateway should answer with. */
  status: number;
  /** Rejection code, or null on success. */
  code: string | null;
  message: string | null;
  /** The session after the command (null when it does not exist). */
  session: SessionStateRecord | null;
}

export type { SessionCommand, SessionEvent };
