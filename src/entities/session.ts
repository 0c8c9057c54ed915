import { TOPIC } from "../../topics/catalogue.ts";
import type { EntityDefinition } from "../actors/entity.ts";
import { createEntityHost, type EntityHost, type EntityHostDeps } from "../actors/host/index.ts";
import { createSnapshotStore, type SnapshotStore } from "../actors/snapshots.ts";
import type { RecordExecutionResult, SessionCommand, SessionInput } from "../domain/commands.ts";
import { expires } from "../domain/decide.ts";
import type { SessionEvent } from "../domain/events.ts";
import type { SessionMessage } from "../domain/messages.ts";
import type { SessionPolicy } from "../domain/relayer-work.ts";
import { sessionDecider, sessionDeciderWith } from "../domain/session-decider.ts";
import type { Session, SessionState } from "../domain/types.ts";
import { sessionView } from "../domain/view.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { TransferObserved } from "../records/chain-transfers.ts";
import type { ExecutorResult } from "../records/executor-results.ts";
import type { SnapshotTable } from "../store/snapshots.ts";
import { stateFromJson, stateToJson } from "./session-json.ts";
import { webhookOutboxRecord } from "./webhook-outbox.ts";

/** The session actors' consumer group, and the prefix of their transactional ids. */
export const ACTORS_GROUP = "actors";
/** The entity's name: logs, metrics, snapshot rows. */
const SESSION = "session";

/** Status codes written on GatewayReply: coarse, kept for compatibility; the gateway answers from `code`. */
const ACCEPTED = 200;
const REFUSED = 409;

/**
 * The session entity: the session decider on its topics. Three inputs (the gateway's and timers'
 * commands, the indexer's transfers, the executor's results), the journal session.events, and the
 * outbox topics its decisions write to.
 */
export type SessionEntity = EntityDefinition<SessionInput, SessionEvent, SessionState, SessionMessage>;

/** States in snapshots: JSON with bigints as strings (session-json.ts). */
const sessionSnapshot: SessionEntity["snapshot"] = {
  encode: (s) => stateToJson(s as Session),
  decode: (text) => stateFromJson(text),
};

export const sessionEntity = (codecs: Codecs): SessionEntity => ({
  name: SESSION,
  group: ACTORS_GROUP,
  decider: sessionDecider,
  commandKey: (c) => c.data.sessionId,
  eventKey: (e) => e.metadata.sessionId,
  stateKey: (s) => (s as Session).id,
  inputs: [
    { topic: TOPIC.sessionCommands, toCommand: (v) => codecs.sessionCommand.decode(v) },
    { topic: TOPIC.chainTransfers, toCommand: (v) => transferCommand(codecs.transferObserved.decode(v)) },
    {
      topic: TOPIC.executorResults,
      toCommand: (v) => executionResultCommand(codecs.executorResult.decode(v)),
    },
  ],
  journal: {
    topic: TOPIC.sessionEvents,
    encode: (e) => codecs.sessionEvent.encode(e),
    // Only actor hosts write session.events, and their encoder checked every event before writing
    // it: the checks are not repeated on the way back (as in replay).
    decode: (v) => codecs.sessionEvent.decodeTrusted(v),
  },
  // Each committed state, in the transaction of its events: a gateway answers a write from the
  // owner's reply and finds the state on this topic without waiting for the projector.
  changelog: {
    topic: TOPIC.sessionState,
    encode: (s) => {
      const session = s as Session;
      return codecs.sessionState.encode({ version: session.version, session: sessionView(session) });
    },
  },
  outbox: {
    topics: [TOPIC.gatewayReplies, TOPIC.webhookEvents, TOPIC.executorCommands],
    route: (message, state) => {
      switch (message.type) {
        case "Reply": {
          const { replyTo, rejection } = message.data;
          const session = state ? { version: state.version, session: sessionView(state) } : null;
          return {
            topic: TOPIC.gatewayReplies,
            key: replyTo.gatewayId,
            value: codecs.gatewayReply.encode({
              ...replyTo,
              status: rejection ? REFUSED : ACCEPTED,
              code: rejection?.code ?? null,
              message: rejection?.message ?? null,
              session,
            }),
          };
        }
        case "Webhook":
          return webhookOutboxRecord(codecs, message.data);
        case "Executor": {
          const { work, ...command } = message.data;
          return {
            topic: TOPIC.executorCommands,
            key: command.sessionId,
            value: codecs.executorCommand.encode({ ...command, command: work }),
          };
        }
        default:
          return assertNoMessage(message);
      }
    },
  },
  timers: {
    topic: TOPIC.sessionCommands,
    // A session not committed by expires_at (unix seconds) expires then; any other needs no timer.
    dueAt: (s) => (s && expires(s) ? s.expiresAt * 1000 : null),
    command: (s, now): SessionCommand => {
      const id = (s as Session).id;
      return {
        type: "ExpireSession",
        data: { sessionId: id, now: Math.floor(now / 1000) },
        metadata: { commandId: `expire:${id}`, issuedAt: now, replyTo: null },
      };
    },
    encode: (c) => codecs.sessionCommand.encode(c as SessionCommand),
  },
  snapshot: sessionSnapshot,
});

function assertNoMessage(message: never): never {
  throw new Error(`no route for outbox message ${JSON.stringify(message)}`);
}

export type SessionHost = EntityHost<SessionState>;

/** Session snapshots in the shared snapshot table. */
export const sessionSnapshots = (table: SnapshotTable): SnapshotStore<SessionState> =>
  createSnapshotStore(table, { name: SESSION, snapshot: sessionSnapshot });

/**
 * The session actors: the generic host running the session entity, under the operator's limits on
 * relayer-paid work (the default policy when none is given).
 */
export function createSessionHost(
  deps: EntityHostDeps<SessionState> & { codecs: Codecs },
  policy?: SessionPolicy,
): SessionHost {
  return createEntityHost(policy ? sessionEntityWith(deps.codecs, policy) : sessionEntity(deps.codecs), deps);
}

/** The session entity under the operator's limits on relayer-paid work. */
export const sessionEntityWith = (codecs: Codecs, policy: SessionPolicy): SessionEntity => ({
  ...sessionEntity(codecs),
  decider: sessionDeciderWith(policy),
});

/** An indexer record as a command; its id names the observation, so a re-published one is a retry. */
export function transferCommand(t: TransferObserved): SessionCommand {
  const metadata = {
    // observedAt tells a block that came back after a reorg from a re-published record of the same block.
    commandId: `${t.retracted ? "retract" : "record"}:${t.chainId}:${t.txHash}:${t.logIndex}:${t.blockHash}:${t.observedAt}${t.finality ? `:${t.finality}` : ""}`,
    issuedAt: t.observedAt,
    replyTo: null,
  };
  if (t.retracted) {
    return {
      type: "RetractTransfer",
      data: {
        sessionId: t.sessionId,
        chainId: t.chainId,
        txHash: t.txHash,
        logIndex: t.logIndex,
        blockHash: t.blockHash,
      },
      metadata,
    };
  }
  const { chainId, token, amount, txHash, logIndex, blockNumber, blockHash, from } = t;
  return {
    type: "RecordTransfer",
    data: {
      sessionId: t.sessionId,
      transfer: { chainId, token, amount, txHash, logIndex, blockNumber, blockHash, from },
      terms: t.terms,
      finality: t.finality,
    },
    metadata,
  };
}

/**
 * An executor result as a command. The id names the result (one per command and outcome kind and
 * transaction), so the executor re-publishing it is a retry. A failure for good is a kind of its
 * own: it often follows a retryable failure of the same command with no transaction (a fast fill
 * that waited for inventory, a step that ran out of tries), and sharing that one's id would make the
 * session drop it as a repeat and stay `sweeping`. A result without a session (a subscription
 * charge) is not a session's and cannot be read here.
 */
export function executionResultCommand(r: ExecutorResult): RecordExecutionResult {
  if (r.sessionId === null) throw new Error(`executor result ${r.commandId} names no session`);
  const tx = r.result.txHash ?? "none";
  const kind = r.result.type === "ExecutionFailed" && !r.result.retryable ? "ExecutionGaveUp" : r.result.type;
  return {
    type: "RecordExecutionResult",
    data: { sessionId: r.sessionId, executorCommandId: r.commandId, chainId: r.chainId, outcome: r.result },
    metadata: {
      commandId: `result:${r.commandId}:${kind}:${tx}`,
      issuedAt: r.occurredAt,
      replyTo: null,
    },
  };
}
