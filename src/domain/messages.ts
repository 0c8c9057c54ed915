import type { Rejection } from "./rejections.ts";
import type { Address, Authorization, ChainAddress, Flow, Hex, Intent, SignedRefund, TxId } from "./types.ts";

/**
 * The outbox of a session decision: what the decision sends, written by the host in the same Kafka
 * transaction as its events. Pure data; the entity's wiring (src/entities/session.ts) turns each
 * into a record on its topic.
 */

/** The answer to a command someone waits on; the host attaches the session as it is after the command. */
export interface ReplyMessage {
  type: "Reply";
  data: { replyTo: { gatewayId: string; correlationId: string }; rejection: Rejection | null };
}

/** The interface's webhook event names for sessions (docs/API.md, "Webhooks"). */
export type SessionWebhookType =
  | "payment.detected"
  | "payment.processing"
  | "payment.succeeded"
  | "payment.overpaid"
  | "payment.underpaid"
  | "payment.failed"
  | "payment.refunded"
  | "payment.bounced";

/**
 * A webhook for the merchant that owns the session (anonymous sessions send none). The idempotency
 * key `<session_id>:<event_type>` is the interface's: the same status change reached twice (a
 * deposit retracted by a reorg and observed again) is one delivery.
 */
export interface WebhookMessage {
  type: "Webhook";
  data: {
    merchantId: string;
    sessionId: string;
    eventType: SessionWebhookType;
    idempotencyKey: string;
    /** Unix ms: the issuedAt of the command that caused it. */
    createdAt: number;
    /** The delivery body, as the interface names its fields. */
    body: {
      session_id: string;
      event_type: SessionWebhookType;
      amount: string | null;
      settled_amount: string | null;
      overpaid_amount: string | null;
      /** How the session was made: a merchant checkout, or a P2P request from a pk-tagged widget. */
      flow: Flow;
      /** Where the money goes (null: a checkout deposit on a chain the merchant pinned nothing for). */
      dest_address: ChainAddress | null;
      dest_chain_id: number | null;
      /** The destination is one the merchant had pinned when the session was created. */
      dest_pinned: boolean;
    };
  };
}

/** Work for the executor of one chain (executor.commands); its results come back on executor.results. */
export type ExecutorWork =
  | { type: "Settle"; burner: Address; auth: Authorization; intent: Intent; signature: Hex; feeBps: number }
  | ({
      type: "Refund";
      burner: Address;
      /** Carried by the transaction when the burner does not delegate yet (nothing was ever swept). */
      auth: Authorization | null;
    } & SignedRefund)
  | {
      type: "RefundAll";
      burner: Address;
      token: Address;
      to: Address;
      deadline: number;
      signature: Hex;
      auth: Authorization | null;
    }
  /** The fast fill on the EVM destination chain (src/domain/fast-fill.ts). */
  | { type: "FastFill"; to: Address; amount: bigint; sourceChainId: number; sourceTx: TxId }
  | {
      /**
       * A Solana-origin session's sweep (src/domain/solana-sweep.ts): the burner-signed transaction
       * (base64) the executor co-signs as fee payer and relays, with the amounts it moves, checked.
       */
      type: "RelaySolanaSweep";
      transaction: string;
      amountIn: bigint;
      feeAmount: bigint;
      appFeeAmount: bigint;
      deliveredAmount: bigint;
      /** true: delivered to the vault for the fast fill to an EVM destination. */
      bridged: boolean;
    }
  /** Co-sign and relay the burner-signed bounce setup (base64 wire form). */
  | { type: "SolanaBounceSetup"; burner: ChainAddress; transaction: string }
  /** The relayer, as the burner's delegate, moves its whole balance of `mint` to `to`. */
  | { type: "SolanaBounce"; burner: ChainAddress; mint: ChainAddress; to: ChainAddress }
  /** A Solana payer's refund (POST /sessions/:id/solana-refund): co-sign as fee payer and relay. */
  | { type: "RelaySolanaRefund"; burner: ChainAddress; transaction: string }
  /**
   * A Flow D session's announcement (src/domain/stealth.ts) on its destination chain, under the
   * scheme it was paid with: ERC-5564's announcer on EVM (docs/STEALTH.md).
   */
  | {
      type: "Announce";
      scheme: string;
      stealthAddress: ChainAddress;
      ephemeralPubkey: string;
      viewTag: number;
    };

export interface ExecutorMessage {
  type: "Executor";
  data: {
    /** The executor submits each id at most once; its results carry it back. */
    commandId: string;
    sessionId: string;
    chainId: number;
    /** Unix ms: the issuedAt of the command that caused it. */
    issuedAt: number;
    work: ExecutorWork;
  };
}

export type SessionMessage = ReplyMessage | WebhookMessage | ExecutorMessage;
