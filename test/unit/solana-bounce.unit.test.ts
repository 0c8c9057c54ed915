import { describe, expect, it } from "vitest";
import { MAX_BOUNCES, NATIVE_MINT } from "../../src/domain/bounce.ts";
import type { ExecutionOutcome, SessionInput } from "../../src/domain/commands.ts";
import {
  type CommandMetadata,
  type CreateSession,
  evolve,
  type SessionState,
  type Transfer,
} from "../../src/domain/index.ts";
import type { SessionMessage } from "../../src/domain/messages.ts";
import { settleCommandId } from "../../src/domain/settlement.ts";
import { testDecide as decide } from "../support/money.ts";

// The automatic bounce of a Solana session (docs/SOLANA.md, "The bounce"), decided by the session core:
// each case drives the real decide() and evolve() through a session's life and reads what it appends
// and what it sends (the executor's work, the merchant's webhook).

const ID = "5b0c7c1e-3a2f-4f7e-9a61-0d9e8c7b6a55";
const SOLANA = 792703810;
const MINT = "GJdLMKMT8QAgdVHVYByWJd1Bnxbdw5sGgmewU9AysHya";
const BURNER = "8eyPT29SUUzVc1yqYCq8tS349594DWiQ1i6z3nzhv8a2";
const WALLET = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const OTHER = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const SETUP_TX = "AQIDBA==";
const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const EXPIRES_AT = T0 / 1000 + 60;

let n = 0;
const meta = (issuedAt = T0 + n * 1000): CommandMetadata => ({
  commandId: `c${++n}`,
  issuedAt,
  replyTo: null,
});

const create = (refundAddress: string | null, merchantId: string | null = "m1"): CreateSession => ({
  type: "CreateSession",
  data: {
    sessionId: ID,
    flow: merchantId ? "checkout" : "p2p_request",
    merchantId,
    burner: null,
    auth: null,
    destAddress: OTHER,
    destChainId: SOLANA,
    appFeeBps: 0,
    appFeeRecipient: "0x0000000000000000000000000000000000000000",
    standingRefund: null,
    stealth: null,
    stealthDestinations: null,
    expiresAt: EXPIRES_AT,
    expectedAmount: null,
    pinnedDestinations: [],
    pinnedOnly: false,
    clientSecretHash: null,
    originChainId: SOLANA,
    appFeeRecipientSol: null,
    refundAddress,
  },
  metadata: meta(T0),
});

const register = (refundTo: string | null): SessionInput => ({
  type: "RegisterBurner",
  data: {
    sessionId: ID,
    burner: BURNER,
    auth: null,
    standingRefund: null,
    bounceSetup: refundTo === null ? null : { refundTo, transaction: SETUP_TX },
  },
  metadata: meta(),
});

let slot = 100n;
const deposit = (over: Partial<Transfer> = {}): Transfer => {
  slot += 1n;
  return {
    chainId: SOLANA,
    token: MINT,
    amount: 25_000_000n,
    txHash: `5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6U${slot}`,
    logIndex: 0,
    blockNumber: slot,
    blockHash: `4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHir${slot}`,
    from: OTHER,
    ...over,
  };
};

const record = (t: Transfer, finality: "confirmed" | "finalized"): SessionInput => ({
  type: "RecordTransfer",
  data: { sessionId: ID, transfer: t, terms: { accepted: true, minAmount: 1n }, finality },
  metadata: meta(),
});
const expire = (): SessionInput => ({
  type: "ExpireSession",
  data: { sessionId: ID, now: EXPIRES_AT },
  metadata: meta(EXPIRES_AT * 1000),
});
const result = (executorCommandId: string, outcome: ExecutionOutcome): SessionInput => ({
  type: "RecordExecutionResult",
  data: { sessionId: ID, executorCommandId, chainId: SOLANA, outcome },
  metadata: meta(),
});
const confirmed = (txHash: string): ExecutionOutcome => ({
  type: "TransactionConfirmed",
  txHash,
  blockNumber: 500n,
  gas: { gasUsed: 1n, feeWei: 5_000n },
});

/** A session driven command by command; each step must be accepted, and its events are folded in. */
function session(...commands: SessionInput[]) {
  let state: SessionState = null;
  let last: { events: string[]; outbox: SessionMessage[] } = { events: [], outbox: [] };
  const run = (command: SessionInput) => {
    const d = decide(command, state);
    if (!d.ok) expect.fail(`${command.type} was refused: ${d.rejection.code}`);
    state = d.events.reduce(evolve, state);
    last = { events: d.events.map((e) => e.type), outbox: d.outbox };
    return api;
  };
  const api = {
    run,
    refuses: (command: SessionInput) => {
      const d = decide(command, state);
      return d.ok ? "accepted" : d.rejection.code;
    },
    get state() {
      if (state === null) throw new Error("no session");
      return state;
    },
    get last() {
      return last;
    },
    executorWork: () => last.outbox.flatMap((m) => (m.type === "Executor" ? [m.data] : [])),
    webhooks: () => last.outbox.flatMap((m) => (m.type === "Webhook" ? [m.data.eventType] : [])),
  };
  for (const c of commands) run(c);
  return api;
}

describe("registering a Solana burner with its bounce setup", () => {
  it("keeps the signed refund address; the setup is relayed once the first deposit is recorded", () => {
    const s = session(create(null), register(WALLET));
    expect(s.last.events).toEqual(["BurnerRegistered", "BounceSetupAttached"]);
    expect(s.executorWork()).toEqual([]);
    expect(s.state).toMatchObject({ bounceTo: WALLET, refundAddress: WALLET });
    s.run(record(deposit(), "confirmed"));
    expect(s.executorWork()).toEqual([
      expect.objectContaining({
        commandId: `${ID}:bounce-setup`,
        chainId: SOLANA,
        work: { type: "SolanaBounceSetup", burner: BURNER, transaction: SETUP_TX },
      }),
    ]);
    // The relay's confirmation records its fee and nothing else.
    s.run(result(`${ID}:bounce-setup`, confirmed("setupSig1111111111111111111111111111111111111111")));
    expect(s.last.events).toEqual(["RelayerGasSpent"]);
  });

  it("refuses a setup naming another address than the one the session was created with", () => {
    const s = session(create(WALLET));
    expect(s.refuses(register(OTHER))).toBe("refund_address_mismatch");
  });

  it("without a setup, bounces nothing", () => {
    const s = session(create(WALLET), register(null), record(deposit(), "finalized"), expire());
    expect(s.last.events).toEqual(["SessionExpired"]);
    expect(s.executorWork()).toEqual([]);
  });
});

describe("the bounce", () => {
  it("a session that expires and then receives a late deposit bounces it once final, then is bounced", () => {
    const s = session(create(null), register(WALLET), expire());
    expect(s.state.status).toBe("expired");
    expect(s.executorWork()).toEqual([]);
    const late = deposit();
    // Seen at confirmed: recorded, not moved (the slot can still be dropped); the setup is relayed.
    s.run(record(late, "confirmed"));
    expect(s.last.events).toEqual(["DepositObserved"]);
    expect(s.executorWork().map((w) => w.work.type)).toEqual(["SolanaBounceSetup"]);
    // Final: the whole balance goes back to the signed address.
    s.run(record(late, "finalized"));
    expect(s.last.events).toEqual(["DepositFinalized", "RefundRequested"]);
    const [work] = s.executorWork();
    expect(work?.work).toEqual({ type: "SolanaBounce", burner: BURNER, mint: MINT, to: WALLET });
    expect(s.state.refunds).toEqual([
      expect.objectContaining({ kind: "bounce", token: MINT, to: WALLET, amount: null, status: "requested" }),
    ]);
    const id = work?.commandId ?? "";
    s.run(result(id, confirmed("bounceSig11111111111111111111111111111111111111111")));
    expect(s.last.events).toEqual(["RefundUpdated", "RelayerGasSpent"]);
    expect(s.state.status).toBe("bounced");
    expect(s.webhooks()).toEqual(["payment.bounced"]);
    // Reported again after a crash: nothing more.
    s.run(result(id, confirmed("bounceSig11111111111111111111111111111111111111111")));
    expect(s.last).toEqual({ events: [], outbox: [] });
  });

  it("a deposit nobody committed bounces when the session expires; an anonymous session sends no webhook", () => {
    const s = session(create(null, null), register(WALLET), record(deposit(), "finalized"), expire());
    expect(s.last.events).toEqual(["SessionExpired", "RefundRequested"]);
    const id = s.executorWork()[0]?.commandId ?? "";
    s.run(result(id, confirmed("bounceSig22222222222222222222222222222222222222222")));
    expect(s.state.status).toBe("bounced");
    expect(s.webhooks()).toEqual([]);
  });

  it("a sweep that fails for good before anything moved fails the session and bounces its deposit", () => {
    const feePayer = OTHER;
    const commit: SessionInput = {
      type: "CommitSolanaSweep",
      data: {
        sessionId: ID,
        transaction: "c3dlZXA=",
        burner: BURNER,
        token: MINT,
        // 25 USDC less the 0.8% platform fee to the destination, the fee to the relayer.
        legs: [
          { to: OTHER, amount: 24_800_000n },
          { to: feePayer, amount: 200_000n },
        ],
        feeBps: 80,
        feeRecipient: feePayer,
        vault: WALLET,
      },
      metadata: meta(),
    };
    const s = session(create(null), register(WALLET), record(deposit(), "finalized"), commit);
    expect(s.executorWork()).toEqual([expect.objectContaining({ commandId: settleCommandId(ID) })]);
    s.run(
      result(settleCommandId(ID), {
        type: "ExecutionFailed",
        errorMessage: "blockhash expired",
        retryable: false,
        txHash: null,
      }),
    );
    expect(s.state.status).toBe("failed");
    expect(s.last.events).toEqual(["SettlementFailed", "RefundRequested"]);
    expect(s.webhooks()).toEqual(["payment.failed"]);
    expect(s.executorWork().map((w) => w.work)).toEqual([
      { type: "SolanaBounce", burner: BURNER, mint: MINT, to: WALLET },
    ]);
    const id = s.executorWork()[0]?.commandId ?? "";
    s.run(result(id, confirmed("bounceSig44444444444444444444444444444444444444444")));
    expect(s.state.status).toBe("bounced");
    expect(s.webhooks()).toEqual(["payment.bounced"]);
  });

  it("never bounces SOL: lamports move only with the burner's key", () => {
    const s = session(create(null), register(WALLET), record(deposit({ token: NATIVE_MINT }), "finalized"));
    s.run(expire());
    expect(s.last.events).toEqual(["SessionExpired"]);
    expect(s.executorWork()).toEqual([]);
  });

  it("a bounce the executor gives up on leaves the session expired with the reason", () => {
    const s = session(create(null), register(WALLET), record(deposit(), "finalized"), expire());
    const id = s.executorWork()[0]?.commandId ?? "";
    s.run(result(id, { type: "ExecutionFailed", errorMessage: "revoked", retryable: false, txHash: null }));
    expect(s.state.status).toBe("expired");
    expect(s.state.refunds[0]).toMatchObject({ status: "failed", errorMessage: "revoked" });
  });

  it("money arriving after the bounce bounces again, at most MAX_BOUNCES times in all", () => {
    const s = session(create(null), register(WALLET), record(deposit(), "finalized"), expire());
    for (let i = 0; i < MAX_BOUNCES; i++) {
      const id = s.executorWork()[0]?.commandId ?? "";
      expect(id).toBe(`${ID}:bounce:${SOLANA}:${MINT}:${i}`);
      s.run(result(id, confirmed(`bounceSig${i}3333333333333333333333333333333333333333`)));
      s.run(record(deposit(), "finalized"));
    }
    // The relayer pays for MAX_BOUNCES bounces; what comes after is the burner key's to move.
    expect(s.last.events).toEqual(["DepositObserved"]);
    expect(s.executorWork()).toEqual([]);
    expect(s.state.refunds.filter((r) => r.kind === "bounce")).toHaveLength(MAX_BOUNCES);
  });
});
