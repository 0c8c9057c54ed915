import type {
  Address,
  Authorization,
  ChainAddress,
  DepositTerms,
  Finality,
  Flow,
  GasSpent,
  Hex,
  Intent,
  PinnedDestination,
  SignedRefund,
  SolanaSweepLeg,
  StandingRefund,
  StealthAnnouncement,
  StealthDestination,
  SweepAmounts,
  Transfer,
} from "./types.ts";

/** Who sent a command and where its reply goes. Time and ids arrive here, never from a clock. */
export interface CommandMetadata {
  /** Idempotency key: a retry carries the same id and is not applied twice. */
  commandId: string;
  /** Unix ms at which the command was issued. */
  issuedAt: number;
  /** Present when a gateway waits for the answer. */
  replyTo: { gatewayId: string; correlationId: string } | null;
}

export interface CreateSession {
  type: "CreateSession";
  data: {
    sessionId: string;
    flow: Flow;
    merchantId: string | null;
    /** null: a checkout session, whose burner is registered later (RegisterBurner). */
    burner: ChainAddress | null;
    auth: Authorization | null;
    /** null: a checkout session, whose destination is the one pinned for the deposit's chain. */
    destAddress: string | null;
    destChainId: number | null;
    /**
     * The merchant's pinned destinations when the session is created (checkout, and a pk-tagged P2P
     * session, whose webhooks say whether it pays one of them); [] otherwise.
     */
    pinnedDestinations: PinnedDestination[];
    /**
     * A pk-tagged P2P session whose merchant set `p2p_pinned_destinations_only`: the destination
     * must be the pin of the authorization's chain (src/domain/commit-rules.ts). Not kept in the event.
     */
    pinnedOnly: boolean;
    /** Checkout: SHA-256 of the client secret the creation answered; null otherwise. */
    clientSecretHash: string | null;
    appFeeBps: number;
    appFeeRecipient: Address;
    standingRefund: StandingRefund | null;
    stealth: StealthAnnouncement | null;
    /**
     * Flow D (POST /v1/payment_sessions with stealth: true): the destination derived per scheme, the
     * same addresses `pinnedDestinations` name. null on every other session and in older records.
     */
    stealthDestinations: StealthDestination[] | null;
    expiresAt: number;
    /** USDC base units the payer is asked for; null: any positive deposit succeeds. */
    expectedAmount: bigint | null;
    /**
     * The one chain the session takes its deposit on: a Solana-origin session's Solana chain (POST
     * /sessions/solana), whose burner is an ed25519 key with no EIP-7702 authorization. null: an EVM
     * session, paid on any configured EVM chain its burner is watched on.
     */
    originChainId: number | null;
    /** The app fee's sink for a Solana settlement (base58), from the merchant's settings; null: none. */
    appFeeRecipientSol: ChainAddress | null;
    /** Where the automatic bounce of a Solana session sends the balance (base58); null: none. */
    refundAddress: ChainAddress | null;
  };
  metadata: CommandMetadata;
}

/**
 * POST /sessions/:id/commit: settle the detected deposit under this Intent. The gateway has checked
 * that the authorization and the signature recover to `burner` and resolved the platform fee; the
 * session core checks that `burner` and `auth` are the session's and, for checkout, that the Intent
 * pays the merchant's pin (src/domain/commit-rules.ts). null in commands written before it did.
 */
export interface CommitIntent {
  type: "CommitIntent";
  data: {
    sessionId: string;
    intent: Intent;
    signature: Hex;
    sourceChainId: number;
    feeBps: number;
    burner: ChainAddress | null;
    auth: Authorization | null;
    /** The merchant's pinned destinations when the commit was made; null for a session of no merchant. */
    merchantPins: PinnedDestination[] | null;
  };
  metadata: CommandMetadata;
}

/**
 * POST /sessions/:id/register (checkout): the widget's burner and authorization, checked by the
 * gateway like POST /sessions; a standing refund may come with it. POST /sessions/:id/solana-burner
 * (a Solana-origin session): the payer's ed25519 burner, with no authorization (auth null). Accepted
 * once, while pending; a Solana burner's bounce setup may come once more later, until the commit.
 */
export interface RegisterBurner {
  type: "RegisterBurner";
  data: {
    sessionId: string;
    burner: ChainAddress;
    /** null for a Solana burner (no EIP-7702 on Solana). */
    auth: Authorization | null;
    standingRefund: StandingRefund | null;
    /**
     * A Solana burner's bounce setup, checked by the gateway (src/chains/solana/bounce-setup.ts): the
     * refund address its memo names and the burner-signed transaction to relay. null: no bounce.
     */
    bounceSetup: { refundTo: ChainAddress; transaction: string } | null;
  };
  metadata: CommandMetadata;
}

/** POST /sessions/:id/standing-refund: the gateway has checked every signature recovers to the burner. */
export interface AttachStandingRefund {
  type: "AttachStandingRefund";
  data: { sessionId: string; standingRefund: StandingRefund };
  metadata: CommandMetadata;
}

/**
 * What the gateway read from the chain for a refund, so the core judges it without I/O: the
 * burner's balance of the token, and the amount a relayer-paid refund must exceed (the gas it costs
 * in the token's value, or the configured minimum). null only in commands written before it existed.
 */
export interface ChainBalance {
  balance: bigint;
  dustFloor: bigint;
}

/** POST /sessions/:id/refund: a burner-signed Refund (signature checked by the gateway) to submit. */
export interface RequestRefund {
  type: "RequestRefund";
  data: { sessionId: string; chainId: number; onChain: ChainBalance | null } & SignedRefund;
  metadata: CommandMetadata;
}

/** POST /sessions/:id/refund-all: run the stored standing refund for one asset on one chain. */
export interface RequestRefundAll {
  type: "RequestRefundAll";
  /** token: NATIVE_TOKEN for the coin. */
  data: { sessionId: string; chainId: number; token: Address; onChain: ChainBalance | null };
  metadata: CommandMetadata;
}

/**
 * POST /sessions/:id/solana-refund (docs/SOLANA.md, "The payer's refund"): a transaction the burner
 * signed that moves its whole balance of `token` (`amount`, as the gateway read it on chain) to `to`,
 * checked by the gateway to do nothing else; the relayer co-signs it as fee payer and relays it.
 * `signature` is the burner's signature of it (base58): the refund record's id.
 */
export interface RequestSolanaRefund {
  type: "RequestSolanaRefund";
  data: {
    sessionId: string;
    transaction: string;
    signature: string;
    burner: ChainAddress;
    token: ChainAddress;
    to: ChainAddress;
    amount: bigint;
  };
  metadata: CommandMetadata;
}

/**
 * From the indexer: a confirmed transfer into the session's burner, with the operator's terms for its
 * token on its chain (null on records from before the indexer attached them: accepted).
 */
export interface RecordTransfer {
  type: "RecordTransfer";
  data: { sessionId: string; transfer: Transfer; terms: DepositTerms | null; finality: Finality };
  metadata: CommandMetadata;
}

/** From the indexer: a transfer it reported earlier sat in a block that a reorg dropped. */
export interface RetractTransfer {
  type: "RetractTransfer";
  data: {
    sessionId: string;
    chainId: number;
    txHash: Transfer["txHash"];
    logIndex: number;
    blockHash: Transfer["blockHash"];
  };
  metadata: CommandMetadata;
}

/** From the actor host's timer: the session's expiry time has come. */
export interface ExpireSession {
  type: "ExpireSession";
  data: { sessionId: string; now: number /* unix seconds */ };
  metadata: CommandMetadata;
}

/** What became of an executor command, as the executor reports it on executor.results. */
export type ExecutionOutcome =
  | { type: "TransactionSubmitted"; txHash: Transfer["txHash"] }
  | { type: "TransactionConfirmed"; txHash: Transfer["txHash"]; blockNumber: bigint; gas: GasSpent | null }
  | { type: "ExecutionFailed"; errorMessage: string; retryable: boolean; txHash: Transfer["txHash"] | null }
  | ({
      type: "SweepConfirmed";
      txHash: Transfer["txHash"];
      blockNumber: bigint;
      /** false for a USDC deposit, which the delegate does not swap. */
      swapped: boolean;
      gas: GasSpent | null;
    } & SweepAmounts)
  | {
      type: "BridgeRelayed";
      txHash: Transfer["txHash"];
      blockNumber: bigint;
      destChainId: number;
      mintedAmount: bigint;
      gas: GasSpent | null;
    };

/** From the executor: the outcome of a command this session sent it (settlement). */
export interface RecordExecutionResult {
  type: "RecordExecutionResult";
  data: { sessionId: string; executorCommandId: string; chainId: number; outcome: ExecutionOutcome };
  metadata: CommandMetadata;
}

/**
 * POST /sessions/:id/commit with a Solana body: the gateway checked that `transaction` is exactly the
 * sweep of `legs` out of `burner`'s `token`, fee payer the relayer, signed by the burner; the decider
 * judges the legs against what the session owes. `feeRecipient` (the relayer) and `vault` are the
 * chain's configuration as the gateway found it.
 */
export interface CommitSolanaSweep {
  type: "CommitSolanaSweep";
  data: {
    sessionId: string;
    transaction: string;
    burner: ChainAddress;
    token: ChainAddress;
    legs: SolanaSweepLeg[];
    feeBps: number;
    feeRecipient: ChainAddress;
    vault: ChainAddress;
  };
  metadata: CommandMetadata;
}

/** The commands that travel on session.commands (the gateway's, the indexer's mapped, the timers'). */
export type SessionCommand =
  | CreateSession
  | RecordTransfer
  | RetractTransfer
  | ExpireSession
  | CommitIntent
  | AttachStandingRefund
  | RequestRefund
  | RequestRefundAll
  | RegisterBurner
  | CommitSolanaSweep
  | RequestSolanaRefund;
/** Everything a session decides: its commands and the executor's results (from executor.results). */
export type SessionInput = SessionCommand | RecordExecutionResult;
export type SessionCommandType = SessionCommand["type"];
