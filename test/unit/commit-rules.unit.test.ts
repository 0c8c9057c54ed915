import { describe, expect, it } from "vitest";
import type { CreateSession, ExecutionOutcome } from "../../src/domain/commands.ts";
import {
  type Address,
  type Authorization,
  type CommandMetadata,
  type Hex,
  type Intent,
  NATIVE_TOKEN,
  type PinnedDestination,
  type SessionInput,
  type SessionState,
} from "../../src/domain/index.ts";
import { announceCommandId } from "../../src/domain/stealth.ts";
import { createSessionCommand } from "../support/driven-service.ts";
import { testSessionDecider as sessionDecider } from "../support/money.ts";

// The rules a commit and a pk-tagged creation are held to by the session core, on what the gateway
// verified and put on the command (src/domain/commit-rules.ts): the burner and authorization are the
// session's, a checkout Intent pays the merchant's pin, a pinned-only merchant's P2P session pays its
// pin. Each refusal keeps the code (and so the HTTP status) the gateway answered when it checked them.

const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const ID = "0b7d1f0e-9a7b-4c3d-8e2f-1a2b3c4d5e6f";
const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const SOURCE = 31337;
const DEST = 31338;
const USDC: Address = hex(0x05dc, 20);
const BURNER: Address = hex(0xb0, 20);
const PAYEE: Address = hex(0xd0, 20);
const STRANGER: Address = hex(0x5eed, 20);
const AUTH: Authorization = {
  address: hex(0xde, 20),
  chainId: SOURCE,
  nonce: 0,
  r: hex(1),
  s: hex(2),
  yParity: 0,
};
const PIN: PinnedDestination = { sourceChainId: SOURCE, destAddress: PAYEE, destChainId: DEST };

let seq = 0;
const meta = (): CommandMetadata => ({ commandId: `c${++seq}`, issuedAt: T0 + seq * 1000, replyTo: null });

const create = (over: Partial<CreateSession["data"]> = {}): SessionInput => ({
  ...createSessionCommand(ID, {
    burner: BURNER,
    auth: AUTH,
    destAddress: PAYEE,
    destChainId: DEST,
    appFeeRecipient: NATIVE_TOKEN,
    ...over,
  }),
  metadata: meta(),
});
/** A checkout session of merchant mer_1, pinned to PAYEE, its burner registered. */
const checkout = (): SessionInput[] => [
  create({
    flow: "checkout",
    merchantId: "mer_1",
    burner: null,
    auth: null,
    destAddress: null,
    destChainId: null,
    pinnedDestinations: [PIN],
    clientSecretHash: "ab".repeat(32),
    expectedAmount: 3_000_000n,
  }),
  {
    type: "RegisterBurner",
    data: { sessionId: ID, burner: BURNER, auth: AUTH, standingRefund: null, bounceSetup: null },
    metadata: meta(),
  },
];
const deposit = (): SessionInput => ({
  type: "RecordTransfer",
  data: {
    sessionId: ID,
    transfer: {
      chainId: SOURCE,
      token: USDC,
      amount: 3_000_000n,
      txHash: hex(0x1001),
      logIndex: 0,
      blockNumber: 101n,
      blockHash: hex(0x2001),
      from: STRANGER,
    },
    terms: null,
    finality: null,
  },
  metadata: meta(),
});
const intent = (over: Partial<Intent> = {}): Intent => ({
  destChainId: DEST,
  destAddr: PAYEE,
  minOut: 2_970_000n,
  deadline: Math.floor(T0 / 1000) + 3600,
  salt: hex(0x5a),
  inToken: USDC,
  maxIn: 3_000_000n,
  appFeeBps: 0,
  appFeeRecipient: NATIVE_TOKEN,
  ...over,
});
type Verified = Pick<
  Extract<SessionInput, { type: "CommitIntent" }>["data"],
  "burner" | "auth" | "merchantPins"
>;
const commit = (verified: Partial<Verified> = {}, over: Partial<Intent> = {}): SessionInput => ({
  type: "CommitIntent",
  data: {
    sessionId: ID,
    intent: intent(over),
    signature: hex(0x516, 65),
    sourceChainId: SOURCE,
    feeBps: 80,
    burner: BURNER,
    auth: AUTH,
    merchantPins: null,
    ...verified,
  },
  metadata: meta(),
});

/** Decides `last` against the state the setup commands fold to. */
function decideAfter(setup: SessionInput[], last: SessionInput) {
  let state: SessionState = null;
  for (const c of setup) {
    const d = sessionDecider.decide(c, state);
    if (!d.ok) throw new Error(`setup command ${c.type} refused: ${d.rejection.code}`);
    for (const e of d.events) state = sessionDecider.evolve(state, e);
  }
  return sessionDecider.decide(last, state);
}
const refusal = (d: ReturnType<typeof decideAfter>) => (d.ok ? null : d.rejection);
const accepted = (d: ReturnType<typeof decideAfter>) =>
  d.ok ? d.events.map((e) => e.type) : d.rejection.code;

describe("a commit's burner and authorization", () => {
  it("are accepted when they are the session's, in any letter case", () => {
    const upper = `0x${BURNER.slice(2).toUpperCase()}` as Address;
    const auth = { ...AUTH, address: `0x${AUTH.address.slice(2).toUpperCase()}` as Address, r: hex(1, 31) };
    expect(accepted(decideAfter([create(), deposit()], commit({ burner: upper, auth })))).toEqual([
      "IntentCommitted",
    ]);
  });

  it("another burner is burner_mismatch, another authorization authorization_mismatch, and nothing is appended", () => {
    expect(refusal(decideAfter([create(), deposit()], commit({ burner: STRANGER })))).toEqual({
      code: "burner_mismatch",
      message: "burner is not this session's burner",
    });
    for (const auth of [
      { ...AUTH, nonce: 1 },
      { ...AUTH, chainId: 0 },
      { ...AUTH, s: hex(3) },
    ]) {
      expect(refusal(decideAfter([create(), deposit()], commit({ auth })))?.code).toBe(
        "authorization_mismatch",
      );
    }
  });

  it("before a checkout session has a burner, a commit is not_detected", () => {
    const [created] = checkout();
    expect(refusal(decideAfter([created as SessionInput], commit()))).toEqual({
      code: "not_detected",
      message: "no burner is registered on this session yet",
    });
  });

  it("are left to the gateway in a command written before the core checked them (null)", () => {
    const legacy = commit({ burner: null, auth: null, merchantPins: null });
    expect(accepted(decideAfter([create({ burner: STRANGER }), deposit()], legacy))).toEqual([
      "IntentCommitted",
    ]);
  });
});

describe("a checkout commit and the merchant's pins", () => {
  it("pays the pin of the deposit's chain: accepted", () => {
    expect(accepted(decideAfter([...checkout(), deposit()], commit({ merchantPins: [PIN] })))).toEqual([
      "IntentCommitted",
    ]);
  });

  it("no pin for the deposit's chain is no_destination; another destination is destination_mismatch", () => {
    const setup = [...checkout(), deposit()];
    expect(
      refusal(decideAfter(setup, commit({ merchantPins: [{ ...PIN, sourceChainId: 8453 }] })))?.code,
    ).toBe("no_destination");
    // The merchant re-pinned since the session was created: the pin as it is now is the one that counts.
    const moved = { ...PIN, destAddress: STRANGER };
    expect(refusal(decideAfter(setup, commit({ merchantPins: [moved] })))?.code).toBe("destination_mismatch");
    const otherChain = { ...PIN, destChainId: 8453 };
    expect(refusal(decideAfter(setup, commit({ merchantPins: [otherChain] })))?.code).toBe(
      "destination_mismatch",
    );
  });

  it("does not apply to a merchant's P2P session, whose creator named the destination", () => {
    const p2p = create({ merchantId: "mer_1", destAddress: STRANGER, pinnedDestinations: [PIN] });
    const d = decideAfter([p2p, deposit()], commit({ merchantPins: [PIN] }, { destAddr: STRANGER }));
    expect(accepted(d)).toEqual(["IntentCommitted"]);
  });
});

describe("a Flow D (stealth) checkout commit", () => {
  const STEALTH: Address = hex(0x57ea17, 20);
  const flowD = (): SessionInput[] => {
    const [created, registered] = checkout();
    const c = created as Extract<SessionInput, { type: "CreateSession" }>;
    const stealthPin = { ...PIN, destAddress: STEALTH };
    const destination = {
      scheme: "erc5564-1",
      ephemeralPubkey: hex(2, 33),
      viewTag: 7,
      stealthAddress: STEALTH,
    };
    return [
      { ...c, data: { ...c.data, pinnedDestinations: [stealthPin], stealthDestinations: [destination] } },
      registered as SessionInput,
    ];
  };

  it("pays the derived stealth address, whatever the merchant pins now", () => {
    const setup = [...flowD(), deposit()];
    expect(accepted(decideAfter(setup, commit({ merchantPins: [PIN] }, { destAddr: STEALTH })))).toEqual([
      "IntentCommitted",
    ]);
  });

  it("an Intent to the merchant's pinned address instead is destination_mismatch, and nothing is appended", () => {
    const setup = [...flowD(), deposit()];
    expect(refusal(decideAfter(setup, commit({ merchantPins: [PIN] })))?.code).toBe("destination_mismatch");
  });

  // The announcement (src/domain/stealth.ts): asked once the money is at the stealth address, on the
  // destination chain; never for another session or an unpaid one; recorded once, with its gas.
  const result = (executorCommandId: string, outcome: ExecutionOutcome): SessionInput => ({
    type: "RecordExecutionResult",
    data: { sessionId: ID, executorCommandId, chainId: DEST, outcome },
    metadata: meta(),
  });
  const burned = result(`${ID}:settle`, {
    type: "SweepConfirmed",
    txHash: hex(0x7001),
    blockNumber: 200n,
    amountIn: 3_000_000n,
    swapOutputAmount: 3_000_000n,
    feeAmount: 24_000n,
    appFeeAmount: 0n,
    deliveredAmount: 2_976_000n,
    bridged: true,
    swapped: false,
    gas: null,
  });
  const minted = () =>
    result(`${ID}:settle`, {
      type: "BridgeRelayed",
      txHash: hex(0x8001),
      blockNumber: 50n,
      destChainId: DEST,
      mintedAmount: 2_976_000n,
      gas: null,
    });
  const announcedOutcome: ExecutionOutcome = {
    type: "TransactionConfirmed",
    txHash: hex(0xa001),
    blockNumber: 51n,
    gas: { gasUsed: 30_000n, feeWei: 30_000_000n },
  };
  const announceWork = (d: ReturnType<typeof decideAfter>) =>
    d.outbox.flatMap((m) => (m.type === "Executor" && m.data.work.type === "Announce" ? [m.data] : []));
  const paid = () => [...flowD(), deposit(), commit({}, { destAddr: STEALTH }), burned];

  it("is announced once the bridge delivers to the stealth address, on the destination chain, and not before", () => {
    expect(
      announceWork(decideAfter([...flowD(), deposit(), commit({}, { destAddr: STEALTH })], burned)),
    ).toEqual([]);
    expect(announceWork(decideAfter(paid(), minted()))).toEqual([
      {
        commandId: announceCommandId(ID),
        sessionId: ID,
        chainId: DEST,
        issuedAt: expect.any(Number),
        work: {
          type: "Announce",
          scheme: "erc5564-1",
          ephemeralPubkey: hex(2, 33),
          viewTag: 7,
          stealthAddress: STEALTH,
        },
      },
    ]);
    // A repeated report of the delivery asks for nothing more.
    expect(announceWork(decideAfter([...paid(), minted()], minted()))).toEqual([]);
  });

  it("is never asked for a checkout that is not Flow D, nor for an unpaid Flow D session", () => {
    const plain = [...checkout(), deposit(), commit({ merchantPins: [PIN] }), burned];
    expect(announceWork(decideAfter(plain, minted()))).toEqual([]);
    const expire: SessionInput = {
      type: "ExpireSession",
      data: { sessionId: ID, now: 4_000_000_000 },
      metadata: meta(),
    };
    expect(accepted(decideAfter([...flowD(), deposit()], expire))).toEqual(["SessionExpired"]);
    expect(announceWork(decideAfter([...flowD(), deposit()], expire))).toEqual([]);
  });

  it("is recorded once when confirmed, with its gas; a repeat records nothing; the executor's give-up is recorded once, a try it repeats not at all", () => {
    const announced = result(announceCommandId(ID), announcedOutcome);
    expect(accepted(decideAfter([...paid(), minted()], announced))).toEqual([
      "StealthAnnounced",
      "RelayerGasSpent",
    ]);
    const d = decideAfter([...paid(), minted()], announced);
    expect(d.ok && d.events[0]?.data).toEqual({ scheme: "erc5564-1", chainId: DEST, txHash: hex(0xa001) });
    expect(accepted(decideAfter([...paid(), minted(), announced], announced))).toEqual([]);
    const failed = result(announceCommandId(ID), {
      type: "ExecutionFailed",
      errorMessage: "no announcer",
      retryable: false,
      txHash: null,
    });
    const gaveUp = decideAfter([...paid(), minted()], failed);
    expect(accepted(gaveUp)).toEqual(["StealthAnnounceFailed"]);
    expect(gaveUp.ok && gaveUp.events[0]?.data).toEqual({
      scheme: "erc5564-1",
      chainId: DEST,
      errorMessage: "no announcer",
    });
    // Recorded once; a try the executor repeats (retryable) records nothing; a late success still counts.
    const afterGiveUp = [...paid(), minted(), failed];
    expect(accepted(decideAfter(afterGiveUp, failed))).toEqual([]);
    const retried = result(announceCommandId(ID), {
      type: "ExecutionFailed",
      errorMessage: "announce: timeout",
      retryable: true,
      txHash: null,
    });
    expect(accepted(decideAfter([...paid(), minted()], retried))).toEqual([]);
    expect(accepted(decideAfter(afterGiveUp, announced))).toEqual(["StealthAnnounced", "RelayerGasSpent"]);
    // Once announced, a failure report changes nothing.
    expect(accepted(decideAfter([...paid(), minted(), announced], failed))).toEqual([]);
  });
});

describe("a pk-tagged P2P session of a pinned-only merchant", () => {
  const pinnedOnly = (over: Parameters<typeof create>[0] = {}) =>
    create({ merchantId: "mer_1", pinnedDestinations: [PIN], pinnedOnly: true, ...over });

  it("setting off: any destination; on: the pin of the authorization's chain, in any letter case", () => {
    expect(
      accepted(
        decideAfter([], create({ merchantId: "mer_1", destAddress: STRANGER, pinnedDestinations: [PIN] })),
      ),
    ).toEqual(["SessionCreated"]);
    const upper = `0x${PAYEE.slice(2).toUpperCase()}`;
    const d = decideAfter([], pinnedOnly({ destAddress: upper }));
    expect(accepted(d)).toEqual(["SessionCreated"]);
    // The setting decides the creation; the session does not keep it.
    expect(d.ok && d.events[0]?.data).not.toHaveProperty("pinnedOnly");
  });

  it("another address, another chain, no pin for the chain or an authorization for every chain is destination_not_pinned", () => {
    const cases = [
      pinnedOnly({ destAddress: STRANGER }),
      pinnedOnly({ destChainId: SOURCE }),
      pinnedOnly({ auth: { ...AUTH, chainId: 8453 } }),
      pinnedOnly({ auth: { ...AUTH, chainId: 0 } }),
    ];
    for (const c of cases) {
      const r = refusal(decideAfter([], c));
      expect(r?.code).toBe("destination_not_pinned");
      expect(r?.message).toMatch(/pinned/);
    }
    expect(refusal(decideAfter([], pinnedOnly({ pinnedDestinations: [] })))?.message).toMatch(
      /pinned none for chain 31337/,
    );
    expect(refusal(decideAfter([], pinnedOnly({ auth: { ...AUTH, chainId: 0 } })))?.message).toMatch(
      /chainId 0 is for every chain/,
    );
  });
});
