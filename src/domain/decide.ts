import type { SessionCommand } from "./commands.ts";
import type { EventMetadata, SessionEvent } from "./events.ts";
import { assertNever } from "./evolve.ts";
import { type Rejection, reject } from "./rejections.ts";
import { type SessionState, sameTransfer } from "./types.ts";

/**
 * What a command does to a session: the events to append, or a typed rejection.
 * An empty list means "already done" (a retried command, a transfer seen before): the caller answers
 * with the current state and appends nothing.
 */
export type Decision = { ok: true; events: SessionEvent[] } | { ok: false; rejection: Rejection };

const accept = (...events: SessionEvent[]): Decision => ({ ok: true, events });
const refuse = (r: Rejection): Decision => ({ ok: false, rejection: r });

export function decide(command: SessionCommand, state: SessionState): Decision {
  if (state?.recentCommandIds.includes(command.metadata.commandId)) return accept();

  const meta = (sessionId: string): EventMetadata => ({
    sessionId,
    version: (state?.version ?? 0) + 1,
    occurredAt: command.metadata.issuedAt,
    commandId: command.metadata.commandId,
  });

  switch (command.type) {
    case "CreateSession": {
      if (state !== null) return refuse(reject("session_exists"));
      const { sessionId, ...data } = command.data;
      return accept({ type: "SessionCreated", data, metadata: meta(sessionId) });
    }
    case "RecordTransfer": {
      if (state === null) return refuse(reject("session_not_found"));
      const transfer = command.data.transfer;
      const known = state.deposits.find((t) => sameTransfer(t, transfer));
      // Seen in this very block: a re-publication. Seen in another block: the transfer was re-mined
      // after a reorg, and observing it again moves it to its new block (so the old block's late
      // retraction no longer matches it).
      if (known && sameHash(known.blockHash, command.data.transfer.blockHash)) return accept();
      // Every confirmed transfer is recorded, whatever the status: funds that reach a burner late
      // (after detection, after expiry) must stay visible so they can be swept or refunded.
      return accept({
        type: "DepositObserved",
        data: { transfer: command.data.transfer },
        metadata: meta(state.id),
      });
    }
    case "RetractTransfer": {
      if (state === null) return refuse(reject("session_not_found"));
      const retract = command.data;
      const known = state.deposits.find((t) => sameTransfer(t, retract));
      // Only the block that carried the deposit can retract it: a retraction for another block hash
      // (the transfer was re-mined in the new chain) must not erase it.
      if (!known || !sameHash(known.blockHash, command.data.blockHash)) return accept();
      const { chainId, txHash, logIndex } = command.data;
      return accept({
        type: "DepositRetracted",
        data: { chainId, txHash, logIndex },
        metadata: meta(state.id),
      });
    }
    case "ExpireSession": {
      if (state === null) return refuse(reject("session_not_found"));
      if (state.status !== "pending") return accept(); // detected in time: the timer has nothing to do
      if (command.data.now < state.expiresAt) return refuse(reject("expiry_not_due"));
      return accept({ type: "SessionExpired", data: {}, metadata: meta(state.id) });
    }
    default:
      return assertNever(command);
  }
}

const sameHash = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
