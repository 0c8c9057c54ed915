/**
 * The session's vocabulary. Pure data: no I/O, no clock, no randomness. Amounts are bigint in
 * state and decimal strings on the wire.
 */

export type Hex = `0x${string}`;

/**
 * An address on one of the configured chains, in its family's canonical spelling (EVM: lower-case
 * 0x hex; Solana: base58, whose letter case is part of the value). The family is known from the
 * chain id beside it. The chain adapter (src/chains/adapter.ts) and the gateway validate and
 * canonicalise addresses where they enter; the domain only stores and compares them, so a new
 * chain family needs nothing here.
 */
export type ChainAddress = string;

/** A transaction's id in its family's spelling (EVM: 0x hash; Solana: base58 signature). */
export type TxId = string;

/** A block's (EVM) or slot's (Solana) hash in its family's spelling. */
export type BlockId = string;

/**
 * An EVM address, lower-case 0x hex: what the burner's EIP-7702 authorization and the EIP-712
 * signatures (standing refunds) are made of, which only EVM chains have.
 */
export type Address = `0x${string}`;

export const FLOWS = ["p2p_request", "p2p_send", "checkout", "stealth_request"] as const;
export type Flow = (typeof FLOWS)[number];

export const STATUSES = ["pending", "detected", "sweeping", "swept", "failed", "bounced", "expired"] as const;
export type SessionStatus = (typeof STATUSES)[number];

export type Outcome = "succeeded" | "overpaid" | "underpaid";

/**
 * The EVM zero address stands for an EVM chain's native coin wherever a token address is expected
 * (a transfer's `logIndex` of -1 says the same in a chain-neutral way).
 */
export const NATIVE_TOKEN: Address = "0x0000000000000000000000000000000000000000";

export interface Authorization {
  address: Address;
  chainId: number;
  nonce: number;
  r: Hex;
  s: Hex;
  yParity: number;
}

export interface StandingRefund {
  to: Address;
  deadline: number;
  /** source chain id (decimal string) -> 0x signature */
  signatures: Record<string, Hex>;
}

/**
 * The settlement Intent the burner signs after detection (EIP-712 `Intent`, src/contracts/README.md):
 * what the delegate enforces on chain in the one sweep transaction.
 */
export interface Intent {
  destChainId: number;
  destAddr: Address;
  /** Floor of the swap's USDC output (of the amount itself for a USDC deposit). */
  minOut: bigint;
  /** Unix seconds. */
  deadline: number;
  salt: Hex;
  /** The detected token (NATIVE_TOKEN for the coin) and amount: the deposit identity. */
  inToken: Address;
  maxIn: bigint;
  appFeeBps: number;
  appFeeRecipient: Address;
}

/** One payment of a Solana sweep: to a wallet (its associated USDC account for USDC), base units or lamports. */
export interface SolanaSweepLeg {
  to: ChainAddress;
  amount: bigint;
}

/** A Solana-origin session's committed sweep (src/domain/solana-sweep.ts). */
export interface SolanaSweep {
  /** The burner-signed transaction, base64 wire form; the relayer signs it as fee payer when it relays. */
  transaction: string;
  /** The deposited token: the USDC mint, or the native mint for SOL. */
  token: ChainAddress;
  /** The delivery (to the destination, or the vault), then the platform fee, then the app fee. */
  legs: SolanaSweepLeg[];
  feeBps: number;
  amountIn: bigint;
  feeAmount: bigint;
  appFeeAmount: bigint;
  deliveredAmount: bigint;
  /** Delivered to the vault: an EVM destination, paid by the fast fill. */
  bridged: boolean;
}

/** A committed Intent: what the executor is asked to carry out. */
export interface Commitment {
  intent: Intent;
  /** The burner's signature of the Intent on the source chain (checked by the gateway). */
  signature: Hex;
  sourceChainId: number;
  /** The platform fee resolved at commit, in basis points (at most 100). */
  feeBps: number;
}

/** A burner-signed Refund (EIP-712 `Refund`, one chain) and its signature; the deadline in Unix seconds. */
export interface SignedRefund {
  token: Address;
  to: Address;
  amount: bigint;
  deadline: number;
  salt: Hex;
  signature: Hex;
}

/** What a sweep took, swapped, charged and delivered (or burned for the bridge), from its Swept log. */
export interface SweepAmounts {
  amountIn: bigint;
  swapOutputAmount: bigint;
  feeAmount: bigint;
  appFeeAmount: bigint;
  deliveredAmount: bigint;
  /** true when the delivery went through the bridge to another chain. */
  bridged: boolean;
}

/** bounce: a Solana session's automatic bounce, by the relayer as the burner's delegate (src/domain/bounce.ts). */
export type RefundKind = "refund" | "refund_all" | "bounce" | "solana_refund";
export type RefundStatus = "requested" | "submitted" | "confirmed" | "failed";

/**
 * A refund the session asked the executor for: a burner-signed Refund, the standing refund of one
 * asset, or a Solana bounce (its token a mint and its recipient a base58 address).
 */
export interface RefundRecord {
  /** The executor command's id. */
  id: string;
  kind: RefundKind;
  chainId: number;
  token: ChainAddress;
  to: ChainAddress;
  /** null for refund_all: the whole balance ("full"). */
  amount: bigint | null;
  /**
   * refund_all: how many deposits of the asset were recorded when it was asked. A deposit recorded
   * later may have been mined after the refund: it is bounced again once the refund is confirmed.
   */
  depositsCovered: number | null;
  txHash: TxId | null;
  status: RefundStatus;
  errorMessage: string | null;
}

/** What the relayer paid for one mined transaction it sent for a session (from the receipt). */
export interface GasSpent {
  gasUsed: bigint;
  /** gasUsed times the effective gas price, in the chain's smallest unit. */
  feeWei: bigint;
}

/** A relayer-paid transaction of the session: recorded once per (chain, transaction). */
export interface GasRecord extends GasSpent {
  chainId: number;
  txHash: TxId;
  /** The executor command it carried out. */
  commandId: string;
  /**
   * The fee in ledger units (USDC base units), priced when it was recorded; null on a record
   * written before the ledger, priced by its chain's fee price when summed (spentBy).
   */
  cost: bigint | null;
}

export interface StealthAnnouncement {
  ephemeralPubkey: Hex;
  viewTag: number;
}

/**
 * A Flow D session's destination under one stealth scheme (docs/STEALTH.md), derived by the gateway
 * from the merchant's meta-address with a fresh ephemeral key: where the money goes when the
 * session's destination chain is of the scheme's family, and what its announcement publishes.
 */
export interface StealthDestination {
  /** "erc5564-1" (EVM) or "solana-ed25519-1" (Solana). */
  scheme: string;
  /** 0x hex (EVM, compressed secp256k1) or the Solana scheme's 32-byte key as it spells it. */
  ephemeralPubkey: string;
  viewTag: number;
  /** In its family's spelling: lower-case 0x (EVM), base58 (Solana). */
  stealthAddress: ChainAddress;
}

/** A Flow D session's announcement, once on chain: the transaction that published it. */
export interface AnnouncedStealth {
  scheme: string;
  chainId: number;
  txHash: TxId;
}

/** A Flow D session's announcement the executor gave up on, after its retries: why. */
export interface StealthAnnounceFailure {
  scheme: string;
  chainId: number;
  errorMessage: string;
}

/**
 * One on-chain transfer into the burner, on a chain of any family; (chainId, txHash, logIndex)
 * identifies it.
 */
export interface Transfer {
  chainId: number;
  /** The token's address (EVM: the ERC-20 contract, NATIVE_TOKEN for the coin; Solana: the mint). */
  token: ChainAddress;
  amount: bigint;
  txHash: TxId;
  /**
   * Position of the transfer in its transaction (EVM: the ERC-20 Transfer's log index); -1 for a
   * native transfer (a transaction carries at most one value)
   */
  logIndex: number;
  /** height of the block (EVM) or slot (Solana) */
  blockNumber: bigint;
  blockHash: BlockId;
  from: ChainAddress;
}

/**
 * How final a transfer was when the indexer published it. null: the chain's confirmation depth is
 * its finality (EVM), so the transfer may be settled at once. "confirmed" (Solana): it detects the
 * session but must not be settled; the indexer publishes it again as "finalized" once its slot is.
 */
export const FINALITIES = ["confirmed", "finalized"] as const;
export type Finality = (typeof FINALITIES)[number] | null;

/** A transfer's identity, (chainId, txHash, logIndex). */
export type TransferRef = Pick<Transfer, "chainId" | "txHash" | "logIndex">;

/**
 * The operator's terms for one token on one chain, as the indexer found them in its chain's
 * configuration (CHAINS `acceptedTokens`) when it saw the transfer: whether the token is accepted at
 * all, and the least amount (base units) that counts as a payment.
 */
export interface DepositTerms {
  accepted: boolean;
  minAmount: bigint;
}

/** Why a transfer into the burner is not a payment: a token the operator does not take, or dust. */
export const UNSUPPORTED_REASONS = ["token_not_accepted", "below_minimum"] as const;
export type UnsupportedReason = (typeof UNSUPPORTED_REASONS)[number];

/**
 * A transfer into the burner that the operator does not accept: kept on the session (the payer may
 * get it back with a burner-signed refund), never detected, swept or bounced by the relayer.
 */
export interface UnsupportedDeposit extends Transfer {
  reason: UnsupportedReason;
}

export const transferKey = (t: Pick<Transfer, "chainId" | "txHash" | "logIndex">): string =>
  `${t.chainId}:${isHexSpelled(t.txHash) ? t.txHash.toLowerCase() : t.txHash}:${t.logIndex}`;

/**
 * transferKey(a) === transferKey(b), without building any string: the lookups of evolve and decide
 * run once per deposit already on the session, for every event, so a session flooded with deposits
 * costs n² comparisons, and lower-casing both hashes in each was most of a replay's time on such
 * sessions (two new strings per comparison).
 */
export const sameTransfer = (
  a: Pick<Transfer, "chainId" | "txHash" | "logIndex">,
  b: Pick<Transfer, "chainId" | "txHash" | "logIndex">,
): boolean => a.chainId === b.chainId && a.logIndex === b.logIndex && sameId(a.txHash, b.txHash);

/** "0x" or "0X" first: the EVM spelling, where letter case carries nothing. */
const isHexSpelled = (s: string): boolean => s.charCodeAt(0) === 48 && (s.charCodeAt(1) | 0x20) === 120;

/**
 * The same id or address: 0x hex up to letter case (EVM spells one hash in either case), any other
 * spelling exactly (base58 tells 'a' from 'A'). Setting bit 0x20 lower-cases A-F and X and leaves
 * digits alone; it would also confuse some non-hex characters, which a 0x value never holds
 * (checked where values enter: the chain adapter, the gateway, the record contract). A 0x value and
 * a base58 one are never the same: base58 has no '0'.
 */
export function sameId(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length !== b.length || !isHexSpelled(a) || !isHexSpelled(b)) return false;
  for (let i = 2; i < a.length; i++) {
    if ((a.charCodeAt(i) | 0x20) !== (b.charCodeAt(i) | 0x20)) return false;
  }
  return true;
}

/** A merchant's destination for deposits found on one source chain (PUT /v1/destinations). */
export interface PinnedDestination {
  sourceChainId: number;
  destAddress: ChainAddress;
  destChainId: number;
}

export interface Session {
  id: string;
  version: number;
  createdAt: number; // unix ms
  updatedAt: number; // unix ms
  flow: Flow;
  merchantId: string | null;
  /**
   * The one-time deposit address (EVM: an EIP-7702 account, hence `auth`). null on a checkout
   * session until the widget registers one (POST /sessions/:id/register), which happens once.
   */
  burner: ChainAddress | null;
  auth: Authorization | null;
  /**
   * Where the money goes. null on a checkout session until its deposit is detected: then the
   * destination pinned for the deposit's chain (`pinnedDestinations`), or still null if it has none.
   */
  destAddress: ChainAddress | null;
  destChainId: number | null;
  /** Checkout: the merchant's destinations per source chain when the session was created. */
  pinnedDestinations: PinnedDestination[];
  /** Checkout: SHA-256 (hex) of the session's `cs_` client secret; the secret itself is never kept. */
  clientSecretHash: string | null;
  appFeeBps: number;
  appFeeRecipient: Address;
  /** The app fee's sink for a Solana settlement (base58); null when unset. */
  appFeeRecipientSol: ChainAddress | null;
  /**
   * The one chain a Solana-origin session takes its deposit on (CreateSession.originChainId); null:
   * an EVM session.
   */
  originChainId: number | null;
  /** A Solana session's bounce address (base58); null: none given. */
  refundAddress: ChainAddress | null;
  /**
   * The refund address the burner signed in its bounce setup (docs/SOLANA.md, "The bounce"): the only
   * address the service bounces a Solana session's USDC to. null: no setup, no automatic bounce.
   */
  bounceTo: ChainAddress | null;
  /**
   * That setup, as the burner signed it (base64): relayed only once the session holds an accepted
   * USDC deposit (src/domain/bounce.ts, `relayBounceSetup`). null: no setup.
   */
  bounceSetup: string | null;
  /** What the payer is asked for, in USDC base units (merchant sessions); null: any positive deposit. */
  expectedAmount: bigint | null;
  status: SessionStatus;
  outcome: Outcome | null;
  expiresAt: number; // unix seconds
  standingRefund: StandingRefund | null;
  stealth: StealthAnnouncement | null;
  /**
   * Flow D: one destination per scheme the merchant registered keys for ([] on every other session).
   * Its `pinnedDestinations` name the stealth address of each destination chain's family.
   */
  stealthDestinations: StealthDestination[];
  /** Flow D: the announcements on chain (one, once the session is swept to its stealth address). */
  stealthAnnounced: AnnouncedStealth[];
  /** Flow D: the announcement given up on (at most one per scheme; the payment is swept all the same). */
  stealthAnnounceFailed: StealthAnnounceFailure[];
  /** Every confirmed transfer of an accepted token into the burner, in the order observed. */
  deposits: Transfer[];
  /** Confirmed transfers the operator does not accept (src/domain/acceptance.ts), in the order observed. */
  unsupportedDeposits: UnsupportedDeposit[];
  /**
   * Deposits observed at "confirmed" whose slot is not finalized yet (Solana): they detect the
   * session, but settlement waits until this list no longer names them (src/domain/finality.ts).
   */
  awaitingFinality: TransferRef[];
  /** The committed Intent, once POST /sessions/:id/commit was accepted. */
  commitment: Commitment | null;
  /** A Solana-origin session's committed sweep, once its commit was accepted. */
  solanaSweep: SolanaSweep | null;
  sweepTx: TxId | null;
  swapOutputAmount: bigint | null;
  /** Platform fee taken by the sweep, in USDC base units. */
  feeAmount: bigint | null;
  /** App fee taken by the sweep, in USDC base units. */
  appFeeAmount: bigint | null;
  /** USDC delivered to the destination (same chain) or minted there (through the bridge). */
  settledAmount: bigint | null;
  bridgeAmount: bigint | null;
  bridgeTx: TxId | null;
  destTx: TxId | null;
  retryCount: number;
  errorMessage: string | null;
  /** Refunds asked of the executor, oldest first. */
  refunds: RefundRecord[];
  /** Every mined transaction the relayer paid for this session, oldest first (its relayer budget). */
  gasSpent: GasRecord[];
  /** Recently applied command ids: a retried command is answered, never applied twice. */
  recentCommandIds: string[];
}

/** Absent until SessionCreated; the decider's initial state. */
export type SessionState = Session | null;

export const initialState = (): SessionState => null;

/** How many command ids a session remembers for idempotent retries. */
export const REMEMBERED_COMMANDS = 32;
