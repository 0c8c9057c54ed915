import type { SessionCommand } from "../domain/commands.ts";
import type { SessionEvent } from "../domain/events.ts";
import type { Address, Hex, Transfer } from "../domain/types.ts";
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

/** Where an actor sends its answer to a command a gateway waits on (topic gateway.replies). */
export interface ReplyTo {
  gatewayId: string;
  correlationId: string;
}

/** executor.commands: work for a chain's executor; `command.type` is the Avro union branch. */
export interface ExecutorCommand {
  /** Idempotency key: the executor submits each command id at most once. */
  commandId: string;
  issuedAt: number; // unix ms
  /** null for subscription charges. */
  sessionId: string | null;
  chainId: number;
  command: ExecutorWork;
}

export type ExecutorWork =
  | { type: "Sweep"; burner: Address; token: Address; amount: bigint }
  | {
      type: "Refund";
      burner: Address;
      token: Address;
      to: Address;
      amount: bigint;
      deadline: number; // unix seconds
      salt: Hex;
      signature: Hex;
    }
  | { type: "RefundAll"; burner: Address; token: Address; to: Address; deadline: number; signature: Hex }
  | { type: "Charge"; subscriptionId: string; periodIndex: number; token: Address; amount: bigint };

/** executor.results: what became of an executor command. */
export interface ExecutorResult {
  commandId: string;
  sessionId: string | null;
  chainId: number;
  occurredAt: number; // unix ms
  result: ExecutionOutcome;
}

export type ExecutionOutcome =
  | { type: "TransactionSubmitted"; txHash: Hex }
  | { type: "TransactionConfirmed"; txHash: Hex; blockNumber: bigint }
  | { type: "ExecutionFailed"; errorMessage: string; retryable: boolean; txHash: Hex | null };

/** webhook.events: one delivery for the webhook worker, keyed by merchant id. */
export interface WebhookEvent {
  /** Sent as the Idempotency-Key header; unique in the queue. */
  idempotencyKey: string;
  merchantId: string;
  /** The interface's event name, e.g. payment.detected. */
  eventType: string;
  sessionId: string | null;
  /** The JSON text to sign and send, byte for byte. */
  payload: string;
  createdAt: number; // unix ms
}

/** merchant.commands: a command to one merchant's actor, keyed by merchant id. */
export interface MerchantCommand {
  commandId: string;
  issuedAt: number; // unix ms
  replyTo: ReplyTo | null;
  merchantId: string;
  command:
    | { type: "SetWebhookEndpoint"; endpointId: string; url: string }
    | { type: "RemoveWebhookEndpoint" };
}

/** merchant.events: the merchant journal, kept forever. */
export interface MerchantEvent {
  merchantId: string;
  /** The merchant's version after this event: 1, then +1 per event. */
  version: number;
  occurredAt: number; // unix ms
  commandId: string;
  event: { type: "WebhookEndpointSet"; endpointId: string; url: string } | { type: "WebhookEndpointRemoved" };
}

export type { SessionCommand, SessionEvent };
