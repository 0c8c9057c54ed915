/**
 * Realistic records for the Kafka benchmarks: the shapes and sizes the live service writes (UUID
 * session ids, 32-byte hashes, indexer command ids), not the edge cases of test/support/generate.ts.
 * Random bytes come from node:crypto in 64 KiB draws: one call per hash would dominate a million records.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { SessionCommand } from "../../src/domain/commands.ts";
import type { SessionEvent } from "../../src/domain/events.ts";
import type { Address, Hex, Transfer } from "../../src/domain/types.ts";
import type { TransferObserved } from "../../src/records/chain-transfers.ts";

let pool = Buffer.alloc(0);
let used = 0;
const hex = (bytes: number): Hex => {
  if (used + bytes > pool.length) {
    pool = randomBytes(64 * 1024);
    used = 0;
  }
  used += bytes;
  return `0x${pool.toString("hex", used - bytes, used)}`;
};
const address = (): Address => hex(20);

/** The local stack's source chain and its test USDC (see .local/stack.json). */
export const CHAIN_ID = 31337;
const USDC: Address = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const DELEGATE: Address = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";

export const newSessionId = (): string => randomUUID();

/** What a gateway's CreateSession carries for a plain p2p request. */
export function creation(nowMs: number): Extract<SessionEvent, { type: "SessionCreated" }>["data"] {
  return {
    flow: "p2p_request",
    merchantId: null,
    burner: address(),
    auth: { address: DELEGATE, chainId: CHAIN_ID, nonce: 0, r: hex(32), s: hex(32), yParity: 1 },
    destAddress: address(),
    destChainId: 8453,
    appFeeBps: 50,
    appFeeRecipient: address(),
    standingRefund: null,
    stealth: null,
    stealthDestinations: null,
    // An hour, like SESSION_TTL_SECONDS: nothing expires while a benchmark runs.
    expiresAt: Math.floor(nowMs / 1000) + 3600,
    expectedAmount: null,
    pinnedDestinations: [],
    clientSecretHash: null,
    originChainId: null,
    appFeeRecipientSol: null,
    refundAddress: null,
  };
}

/** A USDC transfer of up to 1,000 USDC (6 decimals) in a recent block. */
export function transfer(blockNumber: number): Transfer {
  return {
    chainId: CHAIN_ID,
    token: USDC,
    amount: BigInt(1 + Math.floor(Math.random() * 1_000_000_000)),
    txHash: hex(32),
    logIndex: Math.floor(Math.random() * 200),
    blockNumber: BigInt(blockNumber),
    blockHash: hex(32),
    from: address(),
  };
}

/** The indexer's command id for a transfer (src/entities/session.ts transferCommand), the journal's longest string. */
const recordCommandId = (t: Transfer, observedAt: number) =>
  `record:${t.chainId}:${t.txHash}:${t.logIndex}:${t.blockHash}:${observedAt}`;

export function sessionCreated(sessionId: string, nowMs: number): SessionEvent {
  return {
    type: "SessionCreated",
    data: creation(nowMs),
    metadata: { sessionId, version: 1, occurredAt: nowMs, commandId: randomUUID() },
  };
}

export function depositObserved(
  sessionId: string,
  version: number,
  nowMs: number,
  block: number,
): SessionEvent {
  const t = transfer(block);
  return {
    type: "DepositObserved",
    data: { transfer: t, finality: null },
    metadata: { sessionId, version, occurredAt: nowMs, commandId: recordCommandId(t, nowMs) },
  };
}

export function createSession(sessionId: string, nowMs: number): SessionCommand {
  return {
    type: "CreateSession",
    data: { sessionId, ...creation(nowMs), pinnedOnly: false },
    metadata: { commandId: randomUUID(), issuedAt: nowMs, replyTo: null },
  };
}

export function transferObserved(sessionId: string, nowMs: number, block: number): TransferObserved {
  return {
    sessionId,
    burner: address(),
    ...transfer(block),
    confirmations: 2,
    observedAt: nowMs,
    retracted: false,
    // USDC's terms on the local stack: most amounts pass, the few below the minimum are unsupported.
    terms: { accepted: true, minAmount: 10_000n },
    finality: null,
  };
}

// ---------------------------------------------------------------------------------------------------
// Printing

export const perSecond = (n: number, ms: number): number => (n * 1000) / ms;
export const fmtRate = (r: number): string => Math.round(r).toLocaleString("en");
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
