import { describe, expect, it } from "vitest";
import type { CreateSession, RecordTransfer, RetractTransfer } from "../../src/domain/commands.ts";
import type { SessionEvent } from "../../src/domain/events.ts";
import { depositsFinal, isFinal } from "../../src/domain/finality.ts";
import type { Finality, Session, SessionState, Transfer } from "../../src/domain/types.ts";
import { codecs } from "../support/codecs.ts";
import { testSessionDecider as sessionDecider } from "../support/money.ts";

/**
 * A Solana transfer, spelled as Solana spells it, fits the domain and the record contract as they
 * are: the domain holds addresses and ids as strings in their family's spelling (ChainAddress, TxId,
 * BlockId) and compares base58 exactly, letter case included.
 */

const SOLANA = 900_001; // a chain id the configuration would give a Solana chain
const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const PAYER = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const BURNER = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const SIGNATURE = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";
const SLOT_HASH = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
const SESSION_ID = "1d4e3f6a-2b7c-4d8e-9f01-23456789abcd";
const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);

const transfer: Transfer = {
  chainId: SOLANA,
  token: USDC_MINT,
  amount: 25_000_000n,
  txHash: SIGNATURE,
  logIndex: 2, // the instruction's position in its transaction
  blockNumber: 312_456_789n, // the slot
  blockHash: SLOT_HASH,
  from: PAYER,
};

const meta = (commandId: string, issuedAt: number) => ({ commandId, issuedAt, replyTo: null });

const create: CreateSession = {
  type: "CreateSession",
  data: {
    sessionId: SESSION_ID,
    flow: "p2p_request",
    pinnedOnly: false,
    merchantId: null,
    burner: BURNER,
    // EVM-only parts stay EVM-shaped: a Solana session has no EIP-7702 authorization to carry yet.
    auth: { address: `0x${"de".repeat(20)}`, chainId: 1, nonce: 0, r: "0x01", s: "0x02", yParity: 0 },
    destAddress: PAYER,
    destChainId: SOLANA,
    appFeeBps: 0,
    appFeeRecipient: "0x0000000000000000000000000000000000000000",
    standingRefund: null,
    stealth: null,
    stealthDestinations: null,
    expiresAt: T0 / 1000 + 3600,
    expectedAmount: null,
    pinnedDestinations: [],
    clientSecretHash: null,
    originChainId: null,
    appFeeRecipientSol: null,
    refundAddress: null,
  },
  metadata: meta("create", T0),
};

const record = (t: Transfer, commandId: string, finality: Finality = null): RecordTransfer => ({
  type: "RecordTransfer",
  data: { sessionId: SESSION_ID, transfer: t, terms: null, finality },
  metadata: meta(commandId, T0 + 60_000),
});

/** Decides and folds like the host does; answers the new state and the events decided. */
function step(state: SessionState, command: CreateSession | RecordTransfer | RetractTransfer) {
  const decision = sessionDecider.decide(command, state);
  if (!decision.ok) throw new Error(`refused: ${decision.rejection.code}`);
  return { state: decision.events.reduce(sessionDecider.evolve, state), events: decision.events };
}

describe("a Solana-shaped transfer (base58 token, payer and signature; a slot as block number)", () => {
  const created = step(sessionDecider.initialState(), create).state;

  it("goes through the session decider unchanged and detects the deposit", () => {
    const { state, events } = step(created, record(transfer, "record 1"));
    expect(events).toHaveLength(1);
    const [event] = events as [SessionEvent];
    expect(event.type).toBe("DepositObserved");
    expect(event.type === "DepositObserved" && event.data.transfer).toStrictEqual(transfer);
    expect(state?.status).toBe("detected");
    expect(state?.burner).toBe(BURNER);
    expect(state?.deposits).toStrictEqual([transfer]);
  });

  it("goes through the session.events codec unchanged", () => {
    const [event] = step(created, record(transfer, "record 1")).events as [SessionEvent];
    const bytes = codecs.sessionEvent.encode(event);
    expect(codecs.sessionEvent.decode(bytes)).toStrictEqual(event);
    expect(codecs.sessionEvent.decodeTrusted(bytes)).toStrictEqual(event);
  });

  it("goes through the chain.transfers codec unchanged", () => {
    const observed = {
      sessionId: SESSION_ID,
      burner: BURNER,
      ...transfer,
      confirmations: 32,
      observedAt: T0,
      retracted: false,
      terms: { accepted: true, minAmount: 1_000n },
      finality: "confirmed" as const,
    };
    expect(codecs.transferObserved.decode(codecs.transferObserved.encode(observed))).toStrictEqual(observed);
  });

  it("is the same transfer only with the same signature letter for letter (base58 is case-sensitive)", () => {
    const afterFirst = step(created, record(transfer, "record 1")).state;
    const again = step(afterFirst, record({ ...transfer }, "record again"));
    expect(again.events).toEqual([]); // a known transfer in the same slot: nothing new

    const flipped = SIGNATURE.replace("v", "V"); // another valid signature, not a re-spelling
    expect(flipped).not.toBe(SIGNATURE);
    const other = step(afterFirst, record({ ...transfer, txHash: flipped }, "record 2"));
    expect(other.events.map((e) => e.type)).toEqual(["DepositObserved"]);
    expect(other.state?.deposits).toHaveLength(2);
  });

  it("is retracted by its base58 ids", () => {
    const afterFirst = step(created, record(transfer, "record 1")).state;
    const retract: RetractTransfer = {
      type: "RetractTransfer",
      data: {
        sessionId: SESSION_ID,
        chainId: SOLANA,
        txHash: SIGNATURE,
        logIndex: 2,
        blockHash: SLOT_HASH,
      },
      metadata: meta("retract 1", T0 + 120_000),
    };
    const { state, events } = step(afterFirst, retract);
    expect(events.map((e) => e.type)).toEqual(["DepositRetracted"]);
    expect(state?.deposits).toEqual([]);
    const [event] = events as [SessionEvent];
    expect(codecs.sessionEvent.decode(codecs.sessionEvent.encode(event))).toStrictEqual(event);
  });
});

describe("finality: detected at confirmed, settled only once the slot is finalized", () => {
  const created = step(sessionDecider.initialState(), create).state;
  const retract = (commandId: string): RetractTransfer => ({
    type: "RetractTransfer",
    data: { sessionId: SESSION_ID, chainId: SOLANA, txHash: SIGNATURE, logIndex: 2, blockHash: SLOT_HASH },
    metadata: meta(commandId, T0 + 120_000),
  });

  it("detects at confirmed and keeps the deposit awaiting finality", () => {
    const { state, events } = step(created, record(transfer, "confirmed 1", "confirmed"));
    expect(events.map((e) => e.type)).toEqual(["DepositObserved"]);
    expect(events[0]?.type === "DepositObserved" && events[0].data.finality).toBe("confirmed");
    expect(state?.status).toBe("detected");
    expect(isFinal(state as Session, transfer)).toBe(false);
    expect(depositsFinal(state as Session)).toBe(false);
  });

  it("finalizes when the same deposit comes again at finalized, once", () => {
    const confirmed = step(created, record(transfer, "confirmed 1", "confirmed")).state;
    const { state, events } = step(confirmed, record(transfer, "finalized 1", "finalized"));
    expect(events.map((e) => e.type)).toEqual(["DepositFinalized"]);
    expect(events[0]?.data).toEqual({ chainId: SOLANA, txHash: SIGNATURE, logIndex: 2 });
    expect(isFinal(state as Session, transfer)).toBe(true);
    expect(state?.deposits).toStrictEqual([transfer]); // finalizing neither adds nor moves a deposit
    // re-delivered (an indexer that crashed before recording it): nothing new
    expect(step(state, record(transfer, "finalized 2", "finalized")).events).toEqual([]);
    // a late "confirmed" copy does not make a final deposit unfinal
    expect(step(state, record(transfer, "confirmed 2", "confirmed")).events).toEqual([]);
    const [event] = events as [SessionEvent];
    expect(codecs.sessionEvent.decode(codecs.sessionEvent.encode(event))).toStrictEqual(event);
  });

  it("is final at once when first seen at finalized (an indexer catching up), as on EVM (null)", () => {
    for (const finality of ["finalized", null] as const) {
      const { state, events } = step(created, record(transfer, `first ${finality}`, finality));
      expect(events.map((e) => e.type)).toEqual(["DepositObserved"]);
      expect(depositsFinal(state as Session)).toBe(true);
    }
  });

  it("stops awaiting a deposit a reorg retracted", () => {
    const confirmed = step(created, record(transfer, "confirmed 1", "confirmed")).state;
    const { state } = step(confirmed, retract("retract 1"));
    expect(state?.deposits).toEqual([]);
    expect(state?.awaitingFinality).toEqual([]);
  });
});
