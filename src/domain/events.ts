import type { CreateSession } from "./commands.ts";
import type {
  AnnouncedStealth,
  Authorization,
  ChainAddress,
  Commitment,
  Finality,
  GasRecord,
  Outcome,
  RefundKind,
  RefundRecord,
  RefundStatus,
  SolanaSweep,
  StandingRefund,
  StealthAnnounceFailure,
  SweepAmounts,
  Transfer,
  TransferRef,
  TxId,
  UnsupportedReason,
} from "./types.ts";

export interface EventMetadata {
  sessionId: string;
  /** The session's version after this event: 1 for SessionCreated, +1 per event. */
  version: number;
  /** Unix ms: the issuedAt of the command that caused it. */
  occurredAt: number;
  /** The command that caused it, for idempotent retries and tracing. */
  commandId: string;
}

export interface SessionCreated {
  type: "SessionCreated";
  /** Everything the command carried but the id, which the metadata holds. */
  data: Omit<CreateSession["data"], "sessionId" | "pinnedOnly">;
  metadata: EventMetadata;
}

/**
 * A confirmed transfer reached the burner. The first one moves a pending session to detected; one
 * already known (same chain, tx, log index) in a new block replaces the old record (re-mined).
 */
export interface DepositObserved {
  type: "DepositObserved";
  /** finality "confirmed": the deposit detects but waits for a DepositFinalized before it settles. */
  data: { transfer: Transfer; finality: Finality };
  metadata: EventMetadata;
}

/**
 * A confirmed transfer reached the burner that the operator does not accept (a token outside the
 * chain's accepted tokens, or less than its minimum). Kept for a burner-signed refund; it leaves the
 * status, the detected deposit and the standing refunds alone.
 */
export interface UnsupportedDepositObserved {
  type: "UnsupportedDepositObserved";
  data: { transfer: Transfer; reason: UnsupportedReason };
  metadata: EventMetadata;
}

/**
 * A reorg dropped the block of a deposit observed earlier (accepted or unsupported: the transfer's
 * ids name it in either list); the deposit no longer counts.
 */
export interface DepositRetracted {
  type: "DepositRetracted";
  data: { chainId: number; txHash: Transfer["txHash"]; logIndex: number };
  metadata: EventMetadata;
}

export interface SessionExpired {
  type: "SessionExpired";
  data: Record<string, never>;
  metadata: EventMetadata;
}

/** The Intent was accepted; the executor is asked to settle it. The status stays detected. */
export interface IntentCommitted {
  type: "IntentCommitted";
  data: Commitment;
  metadata: EventMetadata;
}

/** The sweep transaction was broadcast (again, with a new hash, after a fee-bump replacement). */
export interface SweepSubmitted {
  type: "SweepSubmitted";
  data: { txHash: TxId };
  metadata: EventMetadata;
}

/**
 * The sweep was mined and its effects checked. Delivered on the same chain: the session is swept.
 * Burned for the bridge: it stays sweeping until the mint on the destination.
 */
export interface SweepCompleted {
  type: "SweepCompleted";
  data: {
    txHash: TxId;
    /** Against the expected amount (src/domain/outcome.ts); shown once the session is swept. */
    outcome: Outcome;
  } & SweepAmounts;
  metadata: EventMetadata;
}

/** The bridge message was received on the destination chain: the USDC was minted there. */
export interface BridgeCompleted {
  type: "BridgeCompleted";
  data: { txHash: TxId; mintedAmount: bigint };
  metadata: EventMetadata;
}

/** An attempt of the executor failed and it tries again. */
export interface SettlementRetried {
  type: "SettlementRetried";
  data: { errorMessage: string };
  metadata: EventMetadata;
}

/** The executor gave up (or the sweep reverted): the session is failed. */
export interface SettlementFailed {
  type: "SettlementFailed";
  data: { errorMessage: string };
  metadata: EventMetadata;
}

/** The standing refund as it stands after the command (signatures of the same `to` and deadline merged). */
export interface StandingRefundAttached {
  type: "StandingRefundAttached";
  data: { standingRefund: StandingRefund };
  metadata: EventMetadata;
}

/** A refund was asked of the executor. */
export interface RefundRequested {
  type: "RefundRequested";
  data: {
    id: string;
    kind: RefundKind;
    chainId: number;
    token: RefundRecord["token"];
    to: RefundRecord["to"];
    amount: bigint | null;
    /** refund_all: how many deposits of the asset the session had recorded when it was asked. */
    depositsCovered: number | null;
  };
  metadata: EventMetadata;
}

/** What became of a refund: broadcast, confirmed or given up. */
export interface RefundUpdated {
  type: "RefundUpdated";
  data: { id: string; status: RefundStatus; txHash: TxId | null; errorMessage: string | null };
  metadata: EventMetadata;
}

/**
 * A checkout session's burner and authorization (null for a Solana burner) were registered: indexing
 * of the burner begins.
 */
export interface BurnerRegistered {
  type: "BurnerRegistered";
  data: { burner: ChainAddress; auth: Authorization | null };
  metadata: EventMetadata;
}

/**
 * A Solana burner's bounce setup was accepted: `refundTo` is the refund address the burner signed,
 * the only one the session's USDC is bounced to; `transaction` is what the relayer co-signs and relays.
 */
export interface BounceSetupAttached {
  type: "BounceSetupAttached";
  data: { refundTo: ChainAddress; transaction: string };
  metadata: EventMetadata;
}

/** A transaction the relayer paid for on the session's behalf was mined: what it cost (once per transaction). */
export interface RelayerGasSpent {
  type: "RelayerGasSpent";
  data: GasRecord;
  metadata: EventMetadata;
}

/** A deposit observed at "confirmed" (Solana) is in a finalized slot now: it may be settled. */
export interface DepositFinalized {
  type: "DepositFinalized";
  data: TransferRef;
  metadata: EventMetadata;
}

/** A Solana-origin session's sweep was accepted; the executor relays it once every deposit is final. */
export interface SolanaSweepCommitted {
  type: "SolanaSweepCommitted";
  data: SolanaSweep;
  metadata: EventMetadata;
}

/** A Flow D session's announcement is on chain (docs/STEALTH.md): once per session. */
export interface StealthAnnounced {
  type: "StealthAnnounced";
  data: AnnouncedStealth;
  metadata: EventMetadata;
}

/**
 * The executor gave up on a Flow D session's announcement (docs/STEALTH.md), its retries spent or the
 * failure final: recorded once; the session stays swept and GET /sessions/:id/stealth keeps `tx` null.
 */
export interface StealthAnnounceFailed {
  type: "StealthAnnounceFailed";
  data: StealthAnnounceFailure;
  metadata: EventMetadata;
}

export type SessionEvent =
  | SessionCreated
  | DepositObserved
  | DepositRetracted
  | SessionExpired
  | IntentCommitted
  | SweepSubmitted
  | SweepCompleted
  | BridgeCompleted
  | SettlementRetried
  | SettlementFailed
  | StandingRefundAttached
  | RefundRequested
  | RefundUpdated
  | BurnerRegistered
  | UnsupportedDepositObserved
  | RelayerGasSpent
  | DepositFinalized
  | SolanaSweepCommitted
  | BounceSetupAttached
  | StealthAnnounced
  | StealthAnnounceFailed;
export type SessionEventType = SessionEvent["type"];
