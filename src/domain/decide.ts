import type { SessionInput } from "./commands.ts";
import type { Decision as DeciderDecision } from "./decider.ts";
import type { EventMetadata, SessionEvent } from "./events.ts";
import { assertNever } from "./evolve.ts";
import type { SessionMessage, WebhookMessage } from "./messages.ts";
import { type Rejection, type RejectionCode, reject } from "./rejections.ts";
import { type SessionState, sameId, sameTransfer, type Transfer } from "./types.ts";

/**
 * What a command does to a session: the events to append and the messages to send, or a typed
 * rejection. No events means "already done" (a retried command, a transfer seen before): the reply
 * answers with the current state and nothing is appended.
 */
export type Decision = DeciderDecision<SessionEvent, SessionMessage, RejectionCode>;

const accept = (...events: SessionEvent[]) => ({ ok: true as const, events, outbox: [] as SessionMessage[] });
const refuse = (rejection: Rejection): Decision => ({ ok: false, rejection, outbox: [] });

/** The session's decision, with the reply to whoever waits for it in the outbox. */
export function decide(command: SessionInput, state: SessionState): Decision {
  const decision = decideCore(command, state);
  const replyTo = command.metadata.replyTo;
  if (replyTo) {
    const rejection = decision.ok ? null : decision.rejection;
    decision.outbox.push({ type: "Reply", data: { replyTo, rejection } });
  }
  return decision;
}

function decideCore(command: SessionInput, state: SessionState): Decision {
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
      if (known && sameId(known.blockHash, command.data.transfer.blockHash)) return accept();
      // Every confirmed transfer is recorded, whatever the status: funds that reach a burner late
      // (after detection, after expiry) must stay visible so they can be swept or refunded.
      const decided = accept({
        type: "DepositObserved",
        data: { transfer: command.data.transfer },
        metadata: meta(state.id),
      });
      // The first deposit of a pending session detects it: its merchant (if any) is told.
      if (state.status === "pending" && state.merchantId !== null) {
        decided.outbox.push(detectedWebhook(state.merchantId, state.id, transfer, command.metadata.issuedAt));
      }
      return decided;
    }
    case "RetractTransfer": {
      if (state === null) return refuse(reject("session_not_found"));
      const retract = command.data;
      const known = state.deposits.find((t) => sameTransfer(t, retract));
      // Only the block that carried the deposit can retract it: a retraction for another block hash
      // (the transfer was re-mined in the new chain) must not erase it.
      if (!known || !sameId(known.blockHash, command.data.blockHash)) return accept();
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
    case "RecordExecutionResult": {
      if (state === null) return refuse(reject("session_not_found"));
      // A session sends the executor nothing before settlement (the commit route), so no result can
      // be one of its own yet: a result is refused, never guessed at. Settlement gives sessions
      // their executor commands and turns these results into sweep events.
      return refuse(reject("execution_unknown"));
    }
    default:
      return assertNever(command);
  }
}

function detectedWebhook(
  merchantId: string,
  sessionId: string,
  transfer: Transfer,
  at: number,
): WebhookMessage {
  const eventType = "payment.detected";
  return {
    type: "Webhook",
    data: {
      merchantId,
      sessionId,
      eventType,
      idempotencyKey: `${sessionId}:${eventType}`,
      createdAt: at,
      // Nothing is settled yet: the settled and overpaid amounts are known once the sweep confirms.
      body: {
        session_id: sessionId,
        event_type: eventType,
        amount: transfer.amount.toString(),
        settled_amount: null,
        overpaid_amount: null,
      },
    },
  };
}
