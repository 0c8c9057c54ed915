import { describe, expect, it } from "vitest";
import { parseChainList } from "../../src/chains/config.ts";
import { DEFAULT_MIN_NATIVE, DEFAULT_MIN_USDC, depositTermsOf } from "../../src/chains/evm/config.ts";
import {
  type Address,
  type CommandMetadata,
  type CreateSession,
  type DepositTerms,
  evolve,
  type Hex,
  NATIVE_TOKEN,
  type RecordTransfer,
  type RetractTransfer,
  type SessionCommand,
  type SessionEvent,
  type SessionState,
  sessionView,
  type Transfer,
  type UnsupportedReason,
  unsupportedReason,
} from "../../src/domain/index.ts";
import { given } from "../support/given-when-then.ts";
import { testDecide as decide } from "../support/money.ts";

// Deposits are what the operator accepts (docs/SECURITY.md): the indexer attaches the chain's terms for
// a transfer's token, and the decider records any transfer outside them apart, as unsupported.

const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const address = (n: number): Address => hex(n, 20);
const ID = "7a4e2c1b-3d5f-4a6b-8c9d-0e1f2a3b4c5d";
const T0 = Date.UTC(2026, 10, 27, 10, 0, 0);
const CHAIN = 31337;
const USDC = address(0x05dc);
const FAKE = address(0xbad);

const ACCEPTED: DepositTerms = { accepted: true, minAmount: 10_000n };
const NOT_ACCEPTED: DepositTerms = { accepted: false, minAmount: 0n };

const meta = (commandId: string, minute: number): CommandMetadata => ({
  commandId,
  issuedAt: T0 + minute * 60_000,
  replyTo: null,
});

const create = (over: Partial<CreateSession["data"]> = {}): CreateSession => ({
  type: "CreateSession",
  data: {
    sessionId: ID,
    flow: "checkout",
    merchantId: "mer_1",
    pinnedOnly: false,
    burner: address(0xb0),
    auth: null,
    destAddress: address(0xd0),
    destChainId: 31338,
    pinnedDestinations: [],
    clientSecretHash: null,
    originChainId: null,
    appFeeRecipientSol: null,
    refundAddress: null,
    appFeeBps: 0,
    appFeeRecipient: NATIVE_TOKEN,
    standingRefund: { to: address(0x4e), deadline: 2_000_000_000, signatures: { [CHAIN]: hex(0x5, 65) } },
    stealth: null,
    stealthDestinations: null,
    expiresAt: T0 / 1000 + 1800,
    expectedAmount: 25_000_000n,
    ...over,
  },
  metadata: meta("create", 0),
});

const transfer = (token: Address, amount: bigint, n: number, blockHash: Hex = hex(0xa1)): Transfer => ({
  chainId: CHAIN,
  token,
  amount,
  txHash: hex(0x100 + n),
  logIndex: 0,
  blockNumber: 100n + BigInt(n),
  blockHash,
  from: address(0xf0 + n),
});
const fake = transfer(FAKE, 25_000_000n, 1);
const dust = transfer(USDC, 9_999n, 2);
const usdc = transfer(USDC, 25_000_000n, 3);

const record = (t: Transfer, terms: DepositTerms | null, minute = 1): RecordTransfer => ({
  type: "RecordTransfer",
  data: { sessionId: ID, transfer: t, terms, finality: null },
  metadata: meta(`record ${t.txHash} ${t.blockHash}`, minute),
});
const retract = (t: Transfer): RetractTransfer => ({
  type: "RetractTransfer",
  data: { sessionId: ID, chainId: t.chainId, txHash: t.txHash, logIndex: t.logIndex, blockHash: t.blockHash },
  metadata: meta(`retract ${t.txHash}`, 3),
});

/** The events a command's decision appends after `history`, and the state and outbox they lead to. */
function decided(history: SessionEvent[], command: SessionCommand) {
  const before = history.reduce<SessionState>(evolve, null);
  const decision = decide(command, before);
  if (!decision.ok) throw new Error(`rejected: ${decision.rejection.code}`);
  const state = decision.events.reduce<SessionState>(evolve, before);
  return { events: decision.events, outbox: decision.outbox, state, view: state && sessionView(state) };
}

/** The journal of commands each accepted in turn. */
function journal(...commands: SessionCommand[]): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const c of commands) events.push(...decided(events, c).events);
  return events;
}

const unsupportedObserved = (t: Transfer, reason: UnsupportedReason, c: RecordTransfer, version: number) => ({
  type: "UnsupportedDepositObserved" as const,
  data: { transfer: t, reason },
  metadata: { sessionId: ID, version, occurredAt: c.metadata.issuedAt, commandId: c.metadata.commandId },
});

describe("the acceptance rule", () => {
  it("takes an accepted token at or above its minimum", () => {
    expect(unsupportedReason({ amount: 10_000n }, ACCEPTED)).toBeNull();
    expect(unsupportedReason({ amount: 10n ** 30n }, ACCEPTED)).toBeNull();
  });

  it("calls an accepted token below its minimum below_minimum", () => {
    expect(unsupportedReason({ amount: 9_999n }, ACCEPTED)).toBe("below_minimum");
  });

  it("calls a token outside the chain's accepted tokens token_not_accepted, whatever its amount", () => {
    expect(unsupportedReason({ amount: 10n ** 30n }, NOT_ACCEPTED)).toBe("token_not_accepted");
  });

  it("takes a record without terms (written before the indexer attached them), as every transfer was then", () => {
    expect(unsupportedReason({ amount: 1n }, null)).toBeNull();
  });
});

describe("a chain's terms, from its CHAINS entry (what the indexer attaches to each transfer)", () => {
  const entry = (over: object = {}) => {
    const parsed = parseChainList([
      {
        family: "evm",
        name: "base",
        chainId: 8453,
        rpcUrl: "https://base.example",
        delegate: address(0xde),
        usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        ...over,
      },
    ]);
    const chain = parsed.ok ? parsed.chains[0] : undefined;
    if (chain?.family !== "evm") throw new Error(parsed.ok ? "no EVM chain" : parsed.issues.join("; "));
    return depositTermsOf(chain);
  };
  const usdcOnBase = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";

  it("without acceptedTokens: the chain's USDC and its coin, at the default minimums; nothing else", () => {
    const terms = entry();
    expect(terms(usdcOnBase)).toEqual({ accepted: true, minAmount: DEFAULT_MIN_USDC });
    expect(terms(NATIVE_TOKEN)).toEqual({ accepted: true, minAmount: DEFAULT_MIN_NATIVE });
    expect(terms(FAKE)).toEqual({ accepted: false, minAmount: 0n });
  });

  it("with acceptedTokens: exactly those, 'native' for the coin, whatever the letter case of an address", () => {
    const terms = entry({
      acceptedTokens: [
        { token: "0x50C5725949A6F0c72E6C4a641F24049A917DB0Cb", minAmount: "5000000000000000" },
        { token: "native", minAmount: "7" },
      ],
    });
    expect(terms("0x50c5725949a6f0c72e6c4a641f24049a917db0cb")).toEqual({
      accepted: true,
      minAmount: 5n * 10n ** 15n,
    });
    expect(terms(NATIVE_TOKEN)).toEqual({ accepted: true, minAmount: 7n });
    expect(terms(usdcOnBase)).toEqual({ accepted: false, minAmount: 0n });
  });

  it("refuses an entry whose token is not an address or whose minimum is not a decimal integer", () => {
    expect(parseChainList([{ acceptedTokens: [{ token: "usdc", minAmount: "1" }] }]).ok).toBe(false);
    const bad = parseChainList([
      {
        family: "evm",
        name: "base",
        chainId: 8453,
        rpcUrl: "https://base.example",
        delegate: address(0xde),
        acceptedTokens: [{ token: "native", minAmount: "0.5" }],
      },
    ]);
    expect(bad).toMatchObject({ ok: false, issues: [expect.stringContaining("minAmount")] });
  });
});

describe("pending", () => {
  const created = journal(create());

  it("a transfer of a token the operator does not accept is recorded as unsupported; the session stays pending", () => {
    const c = record(fake, NOT_ACCEPTED);
    given(...created)
      .when(c)
      .then(unsupportedObserved(fake, "token_not_accepted", c, 2))
      .thenState({
        status: "pending",
        deposits: [],
        unsupportedDeposits: [{ ...fake, reason: "token_not_accepted" }],
      });
  });

  it("an accepted token below its minimum is recorded as unsupported (below_minimum) and detects nothing", () => {
    const c = record(dust, ACCEPTED);
    given(...created)
      .when(c)
      .then(unsupportedObserved(dust, "below_minimum", c, 2))
      .thenState({ status: "pending", deposits: [] });
  });

  it("an unsupported deposit tells the merchant nothing and asks the executor for nothing", () => {
    expect(decided(created, record(fake, NOT_ACCEPTED)).outbox).toEqual([]);
  });

  it("the same unsupported transfer published again is recorded once", () => {
    given(...journal(create(), record(fake, NOT_ACCEPTED)))
      .when(record(fake, NOT_ACCEPTED, 2))
      .thenNothing()
      .thenState((s) => s?.unsupportedDeposits.length === 1);
  });

  it("the Session object lists it under unsupported_deposits and shows no detected deposit", () => {
    const { view } = decided(created, record(fake, NOT_ACCEPTED));
    expect(view).toMatchObject({
      status: "pending",
      source_chain_id: null,
      detected_token: null,
      detected_amount: null,
      deposits: [],
      unsupported_deposits: [
        {
          chain_id: CHAIN,
          token: FAKE,
          amount: "25000000",
          tx: fake.txHash,
          log_index: 0,
          block_number: 101,
          reason: "token_not_accepted",
        },
      ],
    });
  });
});

describe("after a stranger's fake deposit", () => {
  const faked = journal(create(), record(fake, NOT_ACCEPTED), record(dust, ACCEPTED));

  it("the real USDC deposit that follows detects the session and becomes its detected deposit", () => {
    const { events, state, view } = decided(faked, record(usdc, ACCEPTED, 2));
    expect(events.map((e) => e.type)).toEqual(["DepositObserved"]);
    expect(state?.status).toBe("detected");
    expect(view).toMatchObject({
      source_chain_id: CHAIN,
      detected_token: USDC,
      detected_amount: "25000000",
      detected_tx: usdc.txHash,
    });
    expect(view?.unsupported_deposits.map((d) => d.reason)).toEqual(["token_not_accepted", "below_minimum"]);
  });

  it("the merchant is told payment.detected once, for the real deposit", () => {
    const { outbox } = decided(faked, record(usdc, ACCEPTED, 2));
    expect(outbox).toMatchObject([
      { type: "Webhook", data: { eventType: "payment.detected", sessionId: ID } },
    ]);
  });

  it("retracting the fake deposit (its block reorged out) removes it and leaves the session pending", () => {
    given(...faked)
      .when(retract(fake))
      .thenState({ status: "pending", unsupportedDeposits: [{ ...dust, reason: "below_minimum" }] });
  });

  it("a fake deposit re-mined in another block keeps its class, even if the terms now accept its token", () => {
    const moved = { ...fake, blockHash: hex(0xb2) };
    given(...faked)
      .when(record(moved, ACCEPTED, 4))
      .thenState((s) => {
        expect(s?.status).toBe("pending");
        expect(s?.deposits).toEqual([]);
        expect(s?.unsupportedDeposits[0]).toEqual({ ...moved, reason: "token_not_accepted" });
      });
  });
});

describe("expired, with a standing refund", () => {
  const expired = journal(create(), {
    type: "ExpireSession",
    data: { sessionId: ID, now: T0 / 1000 + 1800 },
    metadata: meta("expire", 31),
  });

  it("an unsupported deposit is recorded but never bounced at the relayer's cost", () => {
    const { events, outbox } = decided(expired, record(fake, NOT_ACCEPTED, 40));
    expect(events.map((e) => e.type)).toEqual(["UnsupportedDepositObserved"]);
    expect(outbox).toEqual([]);
  });

  it("an accepted late deposit still bounces through the standing refund", () => {
    const { events, outbox } = decided(expired, record(usdc, ACCEPTED, 40));
    expect(events.map((e) => e.type)).toEqual(["DepositObserved", "RefundRequested"]);
    expect(outbox.map((m) => m.type)).toContain("Executor");
  });
});
