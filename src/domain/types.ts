/**
 * The session's vocabulary. Pure data: no I/O, no clock, no randomness. Amounts are bigint in
 * state and decimal strings on the wire; addresses are lower-case 0x hex.
 */

export type Hex = `0x${string}`;
export type Address = `0x${string}`;

export const FLOWS = ["p2p_request", "p2p_send", "checkout", "stealth_request"] as const;
export type Flow = (typeof FLOWS)[number];

export const STATUSES = ["pending", "detected", "sweeping", "swept", "failed", "bounced", "expired"] as const;
export type SessionStatus = (typeof STATUSES)[number];

export type Outcome = "succeeded" | "overpaid" | "underpaid";

/** The zero address stands for the chain's native coin wherever a token address is expected. */
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
  txHash: Hex;
  /** log index of the ERC-20 Transfer; -1 for a native transfer (a transaction carries at most one value) */
  logIndex: number;
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
