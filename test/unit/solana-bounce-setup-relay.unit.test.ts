import { describe, expect, it } from "vitest";
import { NATIVE_MINT } from "../../src/domain/bounce.ts";
import {
  type CommandMetadata,
  type CreateSession,
  type DepositTerms,
  decide,
  evolve,
  type RecordTransfer,
  type RegisterBurner,
  type SessionCommand,
  type SessionEvent,
  type SessionState,
  type Transfer,
} from "../../src/domain/index.ts";
import { given } from "../support/given-when-then.ts";
import { TEST_SOLANA_USDC, testDecide } from "../support/money.ts";

// Nothing relayer-paid before value exists (issue 27, item 3; docs/SOLANA.md, "When the setup is
// relayed"): a Solana burner's bounce setup is recorded at registration but relayed only once the
// session holds an accepted USDC deposit, once, whichever of the two came second.

const ID = "0f6b8e1a-2c3d-4e5f-8a9b-1c2d3e4f5a6b";
const SOLANA = 792703810;
const MINT = "GJdLMKMT8QAgdVHVYByWJd1Bnxbdw5sGgmewU9AysHya";
const BURNER = "8eyPT29SUUzVc1yqYCq8tS349594DWiQ1i6z3nzhv8a2";
const STRANGER = "3Lp5Jw6cU4Qk3jYkqSg2Zt5jYgXx9Z6s2yC8oQ1rWnVb";
const WALLET = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const DEST = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const SETUP_TX = "AQIDBA==";
const T0 = Date.UTC(2026, 11, 4, 12, 0, 0);
const ACCEPTED: DepositTerms = { accepted: true, minAmount: 10_000n };

const meta = (commandId: string, second: number): CommandMetadata => ({
  commandId,
  issuedAt: T0 + second * 1000,
  replyTo: null,
});

const create: CreateSession = {
  type: "CreateSession",
  data: {
    sessionId: ID,
    flow: "p2p_request",
    merchantId: null,
    pinnedOnly: false,
    burner: null,
    auth: null,
    destAddress: DEST,
    destChainId: SOLANA,
    pinnedDestinations: [],
    clientSecretHash: null,
    appFeeBps: 0,
    appFeeRecipient: "0x0000000000000000000000000000000000000000",
    appFeeRecipientSol: null,
    standingRefund: null,
    stealth: null,
    stealthDestinations: null,
    expiresAt: T0 / 1000 + 600,
    expectedAmount: null,
    originChainId: SOLANA,
    refundAddress: WALLET,
  },
  metadata: meta("create", 0),
};

const register = (
  withSetup: boolean,
  burner = BURNER,
  second = 1,
  transaction = SETUP_TX,
  refundTo = WALLET,
): RegisterBurner => ({
  type: "RegisterBurner",
  data: {
    sessionId: ID,
    burner,
    auth: null,
    standingRefund: null,
    bounceSetup: withSetup ? { refundTo, transaction } : null,
  },
  metadata: meta(`register ${burner} ${withSetup} ${second} ${transaction}`, second),
});

const transfer = (n: number, amount: bigint, token = MINT): Transfer => ({
  chainId: SOLANA,
  token,
  amount,
  txHash: `5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6U${n}`,
  logIndex: 0,
  blockNumber: 100n + BigInt(n),
  blockHash: `4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHir${n}`,
  from: DEST,
});
const usdc = transfer(1, 25_000_000n);
const dust = transfer(2, 9_999n);
const sol = transfer(3, 1_000_000_000n, NATIVE_MINT);

const record = (t: Transfer, second: number, terms: DepositTerms = ACCEPTED): RecordTransfer => ({
  type: "RecordTransfer",
  data: { sessionId: ID, transfer: t, terms, finality: "confirmed" },
  metadata: meta(`record ${t.txHash} ${second}`, second),
});

function decided(history: SessionEvent[], command: SessionCommand) {
  const decision = decide(command, history.reduce<SessionState>(evolve, null));
  if (!decision.ok) throw new Error(`rejected: ${decision.rejection.code}`);
  return decision;
}
function journal(...commands: SessionCommand[]): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const c of commands) events.push(...decided(events, c).events);
  return events;
}
/** The executor work a command's decision sends after `history`. */
const executorWork = (history: SessionEvent[], command: SessionCommand) =>
  decided(history, command).outbox.flatMap((m) => (m.type === "Executor" ? [m.data] : []));
const setupRelay = {
  commandId: `${ID}:bounce-setup`,
  sessionId: ID,
  chainId: SOLANA,
  work: { type: "SolanaBounceSetup", burner: BURNER, transaction: SETUP_TX },
};

describe("a bounce setup registered before any deposit", () => {
  const created = journal(create);
  const registered = journal(create, register(true));

  it("is recorded, and registration asks the executor for nothing", () => {
    given(...created)
      .when(register(true))
      .thenState({ burner: BURNER, bounceTo: WALLET, bounceSetup: SETUP_TX });
    expect(executorWork(created, register(true))).toEqual([]);
  });

  it("is relayed with the first accepted USDC deposit, once", () => {
    given(...registered)
      .when(record(usdc, 5))
      .thenState({ status: "detected" });
    expect(executorWork(registered, record(usdc, 5))).toEqual([expect.objectContaining(setupRelay)]);
    const paid = [...registered, ...decided(registered, record(usdc, 5)).events];
    // Redelivered: nothing recorded, nothing sent again. A second deposit: no second relay.
    given(...paid)
      .when(record(usdc, 6))
      .thenNothing();
    expect(executorWork(paid, record(usdc, 6))).toEqual([]);
    expect(executorWork(paid, record(transfer(4, 5_000_000n), 7))).toEqual([]);
  });

  it("is not relayed for dust, an unaccepted token or SOL: the setup approves USDC only", () => {
    const c = record(dust, 5);
    given(...registered)
      .when(c)
      .thenState({ status: "pending", deposits: [] });
    expect(executorWork(registered, c)).toEqual([]);
    expect(executorWork(registered, record(usdc, 5, { accepted: false, minAmount: 0n }))).toEqual([]);
    expect(executorWork(registered, record(sol, 5))).toEqual([]);
    // After them, the first accepted USDC deposit is still the one that relays it.
    const after = journal(create, register(true), record(dust, 5), record(sol, 6));
    expect(executorWork(after, record(usdc, 7))).toEqual([expect.objectContaining(setupRelay)]);
  });

  it("is never relayed when the burner is never paid, whatever else happens", () => {
    const expire: SessionCommand = {
      type: "ExpireSession",
      data: { sessionId: ID, now: T0 / 1000 + 600 },
      metadata: meta("expire", 600),
    };
    expect(executorWork(registered, expire)).toEqual([]);
  });
});

describe("a bounce setup the same burner adds after detection", () => {
  const detected = journal(create, register(false), record(usdc, 5));

  it("is recorded and relayed at once", () => {
    given(...detected)
      .when(register(true, BURNER, 8))
      .thenState({ bounceTo: WALLET, bounceSetup: SETUP_TX });
    expect(decided(detected, register(true, BURNER, 8)).events.map((e) => e.type)).toEqual([
      "BounceSetupAttached",
    ]);
    expect(executorWork(detected, register(true, BURNER, 8))).toEqual([expect.objectContaining(setupRelay)]);
  });

  it("is taken once, from the session's burner only", () => {
    given(...detected)
      .when(register(true, STRANGER, 8))
      .thenRejects("already_registered");
    given(...detected, ...decided(detected, register(true, BURNER, 8)).events)
      .when(register(true, BURNER, 9))
      .thenRejects("already_registered");
  });

  it("is refused once the session ended", () => {
    const expired = journal(create, register(false), record(usdc, 5), {
      type: "ExpireSession",
      data: { sessionId: ID, now: T0 / 1000 + 600 },
      metadata: meta("expire", 600),
    });
    given(...expired)
      .when(register(true, BURNER, 601))
      .thenRejects("wrong_status");
  });
});

describe("a bounce setup under the chain's money facts (the one dust rule)", () => {
  // The facts of the test Solana chain: a bounce there costs more than 0.01 USDC moves.
  const at = (n: number, amount: bigint) => ({ ...transfer(n, amount), token: TEST_SOLANA_USDC });
  const work = (history: SessionEvent[], command: SessionCommand) => {
    const decision = testDecide(command, history.reduce<SessionState>(evolve, null));
    if (!decision.ok) throw new Error(`rejected: ${decision.rejection.code}`);
    return {
      events: decision.events,
      sent: decision.outbox.flatMap((m) => (m.type === "Executor" ? [m.data.work.type] : [])),
    };
  };
  const registered = journal(create, register(true));

  it("is not relayed for a deposit at the accepted minimum, worth less than its bounce", () => {
    expect(work(registered, record(at(1, 10_000n), 5)).sent).toEqual([]);
  });

  it("is relayed once the USDC held is worth bouncing, by a later deposit", () => {
    const first = work(registered, record(at(1, 10_000n), 5));
    const held = [...registered, ...first.events];
    expect(work(held, record(at(2, 25_000_000n), 6)).sent).toEqual(["SolanaBounceSetup"]);
  });
});

describe("a bounce setup kept fresh by the payer's page before the deposit", () => {
  // The page re-signs the setup on a new blockhash every third of a blockhash's life while it waits
  // (docs/LINKS.md, "A Solana tab closed before detection"): each one replaces the last, none is sent.
  const NEWER = "BQYHCA==";
  const NEWEST = "CQoLDA==";
  const kept = journal(
    create,
    register(true),
    register(true, BURNER, 21, NEWER),
    register(true, BURNER, 41, NEWEST),
  );

  it("replaces the one held, and asks the executor for nothing", () => {
    given(...journal(create, register(true)))
      .when(register(true, BURNER, 21, NEWER))
      .thenState({ bounceTo: WALLET, bounceSetup: NEWER });
    expect(executorWork(journal(create, register(true)), register(true, BURNER, 21, NEWER))).toEqual([]);
    given(...journal(create, register(true), register(true, BURNER, 21, NEWER)))
      .when(register(true, BURNER, 41, NEWEST))
      .thenState({ bounceSetup: NEWEST });
  });

  it("relays only the newest, once, with the first accepted USDC deposit", () => {
    expect(executorWork(kept, record(usdc, 50))).toEqual([
      expect.objectContaining({ ...setupRelay, work: { ...setupRelay.work, transaction: NEWEST } }),
    ]);
  });

  it("is final once relayed: a later one is refused and nothing more is sent, so the relayer relays one setup", () => {
    const relayed = [...kept, ...decided(kept, record(usdc, 50)).events];
    given(...relayed)
      .when(register(true, BURNER, 61, SETUP_TX))
      .thenRejects("already_registered");
    expect(executorWork(relayed, record(transfer(4, 5_000_000n), 62))).toEqual([]);
  });

  it("may still be replaced while the burner holds only dust, SOL or a token the operator does not take", () => {
    const unworthy = journal(create, register(true), record(dust, 5), record(sol, 6));
    given(...unworthy)
      .when(register(true, BURNER, 21, NEWER))
      .thenState({ bounceSetup: NEWER });
    expect(executorWork(unworthy, register(true, BURNER, 21, NEWER))).toEqual([]);
  });

  it("is replaced only by the session's burner, for the refund address already signed", () => {
    given(...kept)
      .when(register(true, STRANGER, 50, NEWER))
      .thenRejects("already_registered");
    given(...kept)
      .when(register(true, BURNER, 50, NEWER, DEST))
      .thenRejects("refund_address_mismatch");
  });
});
