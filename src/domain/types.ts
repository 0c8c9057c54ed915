/**
 * The session's vocabulary. Pure data: no I/O, no clock, no randomness. Amounts are bigint in
 * state and decimal strings on the wire.
 */

export type Hex = `0x${string}`;

/**
 * An address on one of the configured chains, in its family's canonical spelling (EVM: lower-case
 * 0x hex; Solana: base58). The family is known from the chain id beside it. The chain adapter
 * (src/chains/adapter.ts) validates and canonicalises addresses where they enter; the domain only
 * stores and compares them, so a new chain family needs nothing here. The transfer's and session's
 * fields below still say `Address` until the record contract (src/kafka/codecs.ts) stops checking
 * them as 0x hex; they become ChainAddress together.
 */
export type ChainAddress = string;

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

export interface StealthAnnouncement {
  ephemeralPubkey: Hex;
  viewTag: number;
}

/** One on-chain transfer into the burner; (chainId, txHash, logIndex) identifies it. */
export interface Transfer {
  chainId: number;
  token: Address;
  amount: bigint;
  // Still 0x hex: widening the transaction and block ids to a family's spelling (Solana: base58)
  // waits for the session commands and events and the record contract to take plain strings.
  txHash: Hex;
  /**
   * Position of the transfer in its transaction (EVM: the ERC-20 Transfer's log index); -1 for a
   * native transfer (a transaction carries at most one value)
   */
  logIndex: number;
  /** height of the block (EVM) or slot (Solana) */
  blockNumber: bigint;
  blockHash: Hex;
  from: Address;
}

export const transferKey = (t: Pick<Transfer, "chainId" | "txHash" | "logIndex">): string =>
  `${t.chainId}:${t.txHash.toLowerCase()}:${t.logIndex}`;

/**
 * transferKey(a) === transferKey(b), without building any string: the lookups of evolve and decide
 * run once per deposit already on the session, for every event, so a session flooded with deposits
 * costs n² comparisons, and lower-casing both hashes in each was most of a replay's time on such
 * sessions (two new strings per comparison).
 */
export const sameTransfer = (
  a: Pick<Transfer, "chainId" | "txHash" | "logIndex">,
  b: Pick<Transfer, "chainId" | "txHash" | "logIndex">,
): boolean => a.chainId === b.chainId && a.logIndex === b.logIndex && sameHex(a.txHash, b.txHash);

/**
 * Equal 0x-hex strings up to letter case. Setting bit 0x20 lower-cases A-F and X and leaves digits
 * alone; it would also confuse some non-hex characters, which a Hex never holds (checked where
 * values enter: the gateway, the codecs).
 */
export function sameHex(a: Hex, b: Hex): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if ((a.charCodeAt(i) | 0x20) !== (b.charCodeAt(i) | 0x20)) return false;
  }
  return true;
}

export interface Session {
  id: string;
  version: number;
  createdAt: number; // unix ms
  updatedAt: number; // unix ms
  flow: Flow;
  merchantId: string | null;
  burner: Address;
  auth: Authorization;
  destAddress: string;
  destChainId: number;
  appFeeBps: number;
  appFeeRecipient: Address;
  appFeeRecipientSol: string | null;
  status: SessionStatus;
  outcome: Outcome | null;
  expiresAt: number; // unix seconds
  standingRefund: StandingRefund | null;
  stealth: StealthAnnouncement | null;
  /** Every confirmed transfer into the burner, in the order observed. */
  deposits: Transfer[];
  sweepTx: Hex | null;
  swapOutputAmount: bigint | null;
  feeAmount: bigint | null;
  bridgeAmount: bigint | null;
  bridgeTx: Hex | null;
  destTx: string | null;
  retryCount: number;
  errorMessage: string | null;
  /** Recently applied command ids: a retried command is answered, never applied twice. */
  recentCommandIds: string[];
}

/** Absent until SessionCreated; the decider's initial state. */
export type SessionState = Session | null;

export const initialState = (): SessionState => null;

/** How many command ids a session remembers for idempotent retries. */
export const REMEMBERED_COMMANDS = 32;
