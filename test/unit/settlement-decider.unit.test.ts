import { describe, expect, it } from "vitest";
import {
  type Address,
  type CommandMetadata,
  type ExecutionOutcome,
  type Hex,
  type Intent,
  NATIVE_TOKEN,
  outcomeOf,
  refundCommandId,
  type SessionCommand,
  type SessionInput,
  settleCommandId,
  type Transfer,
} from "../../src/domain/index.ts";
import { sessionRun } from "../support/session-run.ts";

// A session on chain 31337 paying to chain 31338, driven command by command through the decider: each
// accepted decision is folded into the state the next command sees, as the actor host does.

const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const address = (n: number): Address => hex(n, 20);
const ID = "5d7c1f0e-9a7b-4c3d-8e2f-1a2b3c4d5e6f";
const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const SOURCE = 31337;
const DEST = 31338;
const USDC = address(0x05dc);
const DAI = address(0xda1);
const BURNER = address(0xb0);
const DEST_ADDR = address(0xd0);
const REFUND_TO = address(0x4e);

let clock = T0;
let commandSeq = 0;
/** Each command one second after the one before. */
function meta(replyTo = false): CommandMetadata {
  commandSeq += 1;
  clock += 1000;
  return {
    commandId: `c${commandSeq}`,
    issuedAt: clock,
    replyTo: replyTo ? { gatewayId: "gw", correlationId: `r${commandSeq}` } : null,
  };
}

function createCommand(
  over: Partial<Extract<SessionCommand, { type: "CreateSession" }>["data"]> = {},
): SessionCommand {
  return {
    type: "CreateSession",
    data: {
      sessionId: ID,
      flow: "p2p_request",
      merchantId: null,
      pinnedOnly: false,
      burner: BURNER,
      auth: { address: address(0xde), chainId: SOURCE, nonce: 0, r: hex(1), s: hex(2), yParity: 0 },
      destAddress: DEST_ADDR,
      destChainId: DEST,
      appFeeBps: 0,
      appFeeRecipient: NATIVE_TOKEN,
      standingRefund: null,
      stealth: null,
      stealthDestinations: null,
      expiresAt: Math.floor(T0 / 1000) + 1800,
      expectedAmount: null,
      pinnedDestinations: [],
      clientSecretHash: null,
      originChainId: null,
      appFeeRecipientSol: null,
      refundAddress: null,
      ...over,
    },
    metadata: meta(),
  };
}

const transfer = (token: Address, amount: bigint, n = 1, chainId = SOURCE): Transfer => ({
  chainId,
  token,
  amount,
  txHash: hex(0x1000 + n),
  logIndex: token === NATIVE_TOKEN ? -1 : 0,
  blockNumber: BigInt(100 + n),
  blockHash: hex(0x2000 + n),
  from: address(0xfa),
});

const intentFor = (token: Address, amount: bigint, over: Partial<Intent> = {}): Intent => ({
  destChainId: DEST,
  destAddr: DEST_ADDR,
  minOut: 1_000_000n,
  deadline: Math.floor(T0 / 1000) + 3600,
  salt: hex(0x5a),
  inToken: token,
  maxIn: amount,
  appFeeBps: 0,
  appFeeRecipient: NATIVE_TOKEN,
  ...over,
});

/** A session run, each accepted decision folded into the state the next command sees. */
const run = sessionRun;

const deposit = (t: Transfer): SessionInput => ({
  type: "RecordTransfer",
  data: { sessionId: ID, transfer: t, terms: null, finality: null },
  metadata: meta(),
});
const commit = (intent: Intent, signature: Hex = hex(0x516, 65), sourceChainId = SOURCE): SessionInput => ({
  type: "CommitIntent",
  data: {
    sessionId: ID,
    intent,
    signature,
    sourceChainId,
    feeBps: 80,
    burner: null,
    auth: null,
    merchantPins: null,
  },
  metadata: meta(true),
});
const result = (executorCommandId: string, outcome: ExecutionOutcome): SessionInput => ({
  type: "RecordExecutionResult",
  data: { sessionId: ID, executorCommandId, chainId: SOURCE, outcome },
  metadata: meta(),
});
const submitted = (n: number): ExecutionOutcome => ({
  type: "TransactionSubmitted",
  txHash: hex(0x7000 + n),
});
const confirmed = (
  over: Partial<Extract<ExecutionOutcome, { type: "SweepConfirmed" }>> = {},
): ExecutionOutcome => ({
  type: "SweepConfirmed",
  txHash: hex(0x7001),
  blockNumber: 200n,
  amountIn: 10_000_000n,
  swapOutputAmount: 10_000_000n,
  feeAmount: 80_000n,
  appFeeAmount: 0n,
  deliveredAmount: 9_920_000n,
  bridged: true,
  swapped: false,
  gas: null,
  ...over,
});
const relayed: ExecutionOutcome = {
  type: "BridgeRelayed",
  txHash: hex(0x8001),
  blockNumber: 50n,
  destChainId: DEST,
  mintedAmount: 9_920_000n,
  gas: null,
};

const detected = (over = {}) => run(createCommand(over), deposit(transfer(USDC, 10_000_000n)));
const committed = (over = {}) => {
  const r = detected(over);
  r.send(commit(intentFor(USDC, 10_000_000n)));
  return r;
};

describe("commit", () => {
  it("before any deposit is refused: not_detected", () => {
    const r = run(createCommand());
    r.send(commit(intentFor(USDC, 1n)));
    expect(r.rejection()).toBe("not_detected");
  });

  it("accepted: IntentCommitted, one Settle for the executor on the source chain, the status stays detected", () => {
    const r = detected();
    const d = r.send(commit(intentFor(USDC, 10_000_000n)));
    expect(r.events()).toEqual(["IntentCommitted"]);
    expect(r.state.status).toBe("detected");
    expect(r.state.commitment?.feeBps).toBe(80);
    const work = r.outbox();
    expect(work).toHaveLength(1);
    expect(work[0]).toMatchObject({
      type: "Executor",
      data: {
        commandId: settleCommandId(ID),
        chainId: SOURCE,
        work: { type: "Settle", burner: BURNER, feeBps: 80 },
      },
    });
    // Whoever waits is answered: the reply is in the outbox too.
    expect(d.outbox.filter((m) => m.type === "Reply")).toHaveLength(1);
  });

  it("retried with the same Intent and signature answers as the first; another Intent is already_committed", () => {
    const r = committed();
    r.send(commit(intentFor(USDC, 10_000_000n)));
    expect(r.rejection()).toBeNull();
    expect(r.events()).toEqual([]);
    expect(r.outbox()).toEqual([]);
    r.send(commit(intentFor(USDC, 10_000_000n, { minOut: 2n })));
    expect(r.rejection()).toBe("already_committed");
    r.send(commit(intentFor(USDC, 10_000_000n), hex(0x999, 65)));
    expect(r.rejection()).toBe("already_committed");
  });

  it.each([
    ["another token", { inToken: DAI }],
    ["another amount", { maxIn: 9_999_999n }],
    ["another recipient", { destAddr: address(0xbad) }],
    ["another destination chain", { destChainId: 1 }],
    ["an app fee the session does not have", { appFeeBps: 25, appFeeRecipient: address(0xfee) }],
  ])("naming %s is intent_mismatch, with the field in the message", (_, over) => {
    const r = detected();
    const d = r.send(commit(intentFor(USDC, 10_000_000n, over as Partial<Intent>)));
    expect(r.rejection()).toBe("intent_mismatch");
    expect(d.ok ? "" : d.rejection.message).toMatch(/in_token|max_in|dest_addr|dest_chain_id|app_fee_bps/);
    expect(r.state.commitment).toBeNull();
  });

  it("signed for another chain than the deposit's is intent_mismatch", () => {
    const r = detected();
    r.send(commit(intentFor(USDC, 10_000_000n), hex(0x516, 65), DEST));
    expect(r.rejection()).toBe("intent_mismatch");
  });

  it("past its deadline is intent_expired", () => {
    const r = detected();
    r.send(commit(intentFor(USDC, 10_000_000n, { deadline: Math.floor(clock / 1000) - 1 })));
    expect(r.rejection()).toBe("intent_expired");
  });

  it("on an expired or failed session is session_closed", () => {
    const r = run(createCommand());
    r.send({
      type: "ExpireSession",
      data: { sessionId: ID, now: Math.floor(T0 / 1000) + 4000 },
      metadata: meta(),
    });
    r.send(deposit(transfer(USDC, 5n)));
    r.send(commit(intentFor(USDC, 5n)));
    expect(r.rejection()).toBe("session_closed");
  });
});

describe("executor results", () => {
  it("submitted -> sweeping, confirmed with a bridge -> sweeping with bridge fields, relayed -> swept", () => {
    const r = committed();
    r.send(result(settleCommandId(ID), submitted(1)));
    expect(r.state).toMatchObject({ status: "sweeping", sweepTx: hex(0x7001) });
    r.send(result(settleCommandId(ID), confirmed()));
    expect(r.state).toMatchObject({
      status: "sweeping",
      swapOutputAmount: 10_000_000n,
      feeAmount: 80_000n,
      bridgeAmount: 9_920_000n,
      bridgeTx: hex(0x7001),
      destTx: null,
    });
    r.send(result(settleCommandId(ID), relayed));
    expect(r.state).toMatchObject({
      status: "swept",
      outcome: "succeeded",
      destTx: hex(0x8001),
      settledAmount: 9_920_000n,
    });
  });

  it("a same-chain sweep is swept at confirmation, dest_tx the sweep itself", () => {
    const r = detected({ destChainId: SOURCE });
    r.send(commit(intentFor(USDC, 10_000_000n, { destChainId: SOURCE })));
    r.send(result(settleCommandId(ID), confirmed({ bridged: false })));
    expect(r.state).toMatchObject({
      status: "swept",
      destTx: hex(0x7001),
      bridgeTx: null,
      bridgeAmount: null,
    });
  });

  it("re-published results change nothing: each moves the session only forward", () => {
    const r = committed();
    r.send(result(settleCommandId(ID), submitted(1)));
    r.send(result(settleCommandId(ID), submitted(1)));
    expect(r.events()).toEqual([]);
    r.send(result(settleCommandId(ID), confirmed()));
    r.send(result(settleCommandId(ID), confirmed()));
    expect(r.events()).toEqual([]);
    r.send(result(settleCommandId(ID), relayed));
    r.send(result(settleCommandId(ID), relayed));
    expect(r.events()).toEqual([]);
    r.send(result(settleCommandId(ID), submitted(2))); // a replaced hash reported late
    expect(r.events()).toEqual([]);
    expect(r.state.status).toBe("swept");
  });

  it("a fee-bump replacement moves sweep_tx to the new hash", () => {
    const r = committed();
    r.send(result(settleCommandId(ID), submitted(1)));
    r.send(result(settleCommandId(ID), submitted(2)));
    expect(r.events()).toEqual(["SweepSubmitted"]);
    expect(r.state.sweepTx).toBe(hex(0x7002));
  });

  it("retryable failures count in retry_count; a terminal one fails the session with its message", () => {
    const r = committed();
    const failed = (retryable: boolean): ExecutionOutcome => ({
      type: "ExecutionFailed",
      errorMessage: retryable ? "rpc timeout" : "swap output below min_out",
      retryable,
      txHash: null,
    });
    r.send(result(settleCommandId(ID), failed(true)));
    r.send(result(settleCommandId(ID), failed(true)));
    expect(r.state).toMatchObject({ status: "detected", retryCount: 2, errorMessage: "rpc timeout" });
    r.send(result(settleCommandId(ID), failed(false)));
    expect(r.state).toMatchObject({ status: "failed", errorMessage: "swap output below min_out" });
  });

  it("a result for a command the session never sent is refused: execution_unknown", () => {
    const r = detected();
    r.send(result(settleCommandId(ID), submitted(1))); // not committed yet
    expect(r.rejection()).toBe("execution_unknown");
    r.send(result("someone-else:settle", submitted(1)));
    expect(r.rejection()).toBe("execution_unknown");
  });
});

describe("webhooks", () => {
  const merchant = { merchantId: "m_1", expectedAmount: 10_000_000n };
  const types = (r: ReturnType<typeof run>) =>
    r.outbox().flatMap((m) => (m.type === "Webhook" ? [m.data.idempotencyKey] : []));

  it("a merchant session fires detected, processing and the outcome, keyed <id>:<event>", () => {
    const r = run(createCommand(merchant));
    r.send(deposit(transfer(USDC, 10_000_000n)));
    expect(types(r)).toEqual([`${ID}:payment.detected`]);
    r.send(commit(intentFor(USDC, 10_000_000n)));
    r.send(result(settleCommandId(ID), submitted(1)));
    expect(types(r)).toEqual([`${ID}:payment.processing`]);
    r.send(result(settleCommandId(ID), confirmed()));
    expect(types(r)).toEqual([]); // not swept until the mint
    r.send(result(settleCommandId(ID), relayed));
    expect(types(r)).toEqual([`${ID}:payment.succeeded`]);
    const hook = r.outbox()[0];
    const body = hook?.type === "Webhook" ? hook.data.body : null;
    expect(body).toEqual({
      session_id: ID,
      event_type: "payment.succeeded",
      amount: "10000000",
      settled_amount: "9920000",
      overpaid_amount: null,
      flow: "p2p_request",
      dest_address: DEST_ADDR,
      dest_chain_id: DEST,
      dest_pinned: false,
    });
  });

  it("an anonymous session fires none", () => {
    const r = detected();
    expect(r.outbox()).toEqual([]);
    r.send(commit(intentFor(USDC, 10_000_000n)));
    for (const o of [submitted(1), confirmed(), relayed]) {
      r.send(result(settleCommandId(ID), o));
      expect(r.outbox().filter((m) => m.type === "Webhook")).toEqual([]);
    }
  });

  it("overpaid names the amount over the expected one; a failure fires payment.failed", () => {
    const r = run(
      createCommand({ ...merchant, expectedAmount: 9_000_000n }),
      deposit(transfer(USDC, 10_000_000n)),
    );
    r.send(commit(intentFor(USDC, 10_000_000n)));
    // Confirmed without a submission report first: the session still passes through processing.
    r.send(result(settleCommandId(ID), confirmed({ bridged: false })));
    expect(r.state.outcome).toBe("overpaid");
    expect(types(r)).toEqual([`${ID}:payment.processing`, `${ID}:payment.overpaid`]);
    const hook = r.outbox()[1];
    expect(hook?.type === "Webhook" && hook.data.body).toMatchObject({
      event_type: "payment.overpaid",
      overpaid_amount: "1000000",
    });
    const f = run(createCommand(merchant), deposit(transfer(USDC, 10_000_000n)));
    f.send(commit(intentFor(USDC, 10_000_000n)));
    f.send(
      result(settleCommandId(ID), {
        type: "ExecutionFailed",
        errorMessage: "x",
        retryable: false,
        txHash: null,
      }),
    );
    expect(types(f)).toEqual([`${ID}:payment.failed`]);
  });
});

describe("outcomes", () => {
  it("without an expected amount any positive deposit succeeds", () => {
    expect(outcomeOf(null, 1n, true)).toBe("succeeded");
  });
  it("USDC is held to the unit; a swapped deposit within 50 bps succeeds", () => {
    expect(outcomeOf(1_000_000n, 999_999n, false)).toBe("underpaid");
    expect(outcomeOf(1_000_000n, 1_000_001n, false)).toBe("overpaid");
    expect(outcomeOf(1_000_000n, 1_000_000n, false)).toBe("succeeded");
    expect(outcomeOf(1_000_000n, 995_000n, true)).toBe("succeeded");
    expect(outcomeOf(1_000_000n, 994_999n, true)).toBe("underpaid");
    expect(outcomeOf(1_000_000n, 1_005_001n, true)).toBe("overpaid");
  });
});

describe("refunds", () => {
  const standingRefund = {
    to: REFUND_TO,
    deadline: Math.floor(T0 / 1000) + 86_400,
    signatures: { [SOURCE]: hex(0x55, 65) },
  };
  const refundAll = (token: Address = USDC): SessionInput => ({
    type: "RequestRefundAll",
    data: { sessionId: ID, chainId: SOURCE, token, onChain: null },
    metadata: meta(true),
  });
  const expire = (): SessionInput => ({
    type: "ExpireSession",
    data: { sessionId: ID, now: Math.floor(T0 / 1000) + 4000 },
    metadata: meta(),
  });

  it("a burner-signed refund is one executor command per salt; its results fill the record", () => {
    const r = detected();
    const refund: SessionInput = {
      type: "RequestRefund",
      data: {
        sessionId: ID,
        chainId: SOURCE,
        token: USDC,
        to: REFUND_TO,
        amount: 5n,
        deadline: Math.floor(T0 / 1000) + 3600,
        salt: hex(0xabc),
        signature: hex(0x51, 65),
        onChain: null,
      },
      metadata: meta(true),
    };
    r.send(refund);
    const id = refundCommandId(ID, SOURCE, hex(0xabc));
    expect(r.outbox()[0]).toMatchObject({
      type: "Executor",
      data: { commandId: id, work: { type: "Refund", amount: 5n } },
    });
    r.send({ ...refund, metadata: meta(true) });
    expect(r.events()).toEqual([]);
    r.send(result(id, submitted(9)));
    r.send(result(id, { type: "TransactionConfirmed", txHash: hex(0x7009), blockNumber: 300n, gas: null }));
    expect(r.state.refunds).toEqual([
      expect.objectContaining({ id, kind: "refund", status: "confirmed", txHash: hex(0x7009), amount: 5n }),
    ]);
  });

  it("refund-all on a pending session is wrong_status; on an expired one without a standing refund no_standing_refund", () => {
    const r = run(createCommand());
    r.send(refundAll());
    expect(r.rejection()).toBe("wrong_status");
    r.send(expire());
    r.send(refundAll());
    expect(r.rejection()).toBe("no_standing_refund");
  });

  it("concurrent refund-all calls join the one in flight: one executor command", () => {
    const r = run(createCommand({ standingRefund }), expire(), deposit(transfer(DAI, 7n)));
    // The late deposit bounced at once (the poller's job): one refund_all in flight for DAI.
    expect(r.state.refunds).toHaveLength(1);
    r.send(refundAll(DAI));
    expect(r.rejection()).toBeNull();
    expect(r.events()).toEqual([]);
    r.send(refundAll(USDC)); // an asset never deposited: nothing for the relayer to move
    expect(r.rejection()).toBe("asset_not_deposited");
    expect(r.state.refunds.map((x) => x.token)).toEqual([DAI]);
  });

  it("a failed sweep bounces every asset through the standing refund; a late deposit after expiry does too", () => {
    const r = run(createCommand({ standingRefund }), deposit(transfer(USDC, 10_000_000n)));
    r.send(commit(intentFor(USDC, 10_000_000n)));
    r.send(
      result(settleCommandId(ID), {
        type: "ExecutionFailed",
        errorMessage: "reverted",
        retryable: false,
        txHash: null,
      }),
    );
    expect(r.events()).toEqual(["SettlementFailed", "RefundRequested"]);
    expect(r.outbox().find((m) => m.type === "Executor")).toMatchObject({
      data: { work: { type: "RefundAll", token: USDC, to: REFUND_TO, signature: hex(0x55, 65) } },
    });
    const late = run(createCommand({ standingRefund }), expire());
    // Above the refund's cost in ETH (100,000 gas at 1 gwei: 10^14 wei).
    late.send(deposit(transfer(NATIVE_TOKEN, 10n ** 14n + 1n)));
    expect(late.events()).toEqual(["DepositObserved", "RefundRequested"]);
    expect(late.state.status).toBe("expired");
  });

  it("a late deposit worth less than the refund that would return it is not bounced at the relayer's cost", () => {
    const late = run(createCommand({ standingRefund }), expire());
    late.send(deposit(transfer(NATIVE_TOKEN, 10n ** 14n)));
    expect(late.events()).toEqual(["DepositObserved"]);
    expect(late.outbox().filter((m) => m.type === "Executor")).toEqual([]);
  });

  it("a deposit nobody committed by expires_at bounces through the standing refund; a committed one never expires", () => {
    // The payer's page closed after paying: nothing will sign the Intent, the session expires.
    const r = run(createCommand({ standingRefund }), deposit(transfer(USDC, 10_000_000n)));
    r.send(expire());
    expect(r.events()).toEqual(["SessionExpired", "RefundRequested"]);
    expect(r.state.status).toBe("expired");
    expect(r.outbox().find((m) => m.type === "Executor")).toMatchObject({
      data: { work: { type: "RefundAll", token: USDC, to: REFUND_TO, signature: hex(0x55, 65) } },
    });
    // Committed in time (the sweep not yet submitted, still `detected`): the expiry is too late.
    const c = committed({ standingRefund });
    c.send(expire());
    expect(c.events()).toEqual([]);
    expect(c.state.status).toBe("detected");
  });

  it("money recorded while a bounce of its asset is in flight is bounced again once that one is confirmed", () => {
    const r = run(createCommand({ standingRefund }), expire(), deposit(transfer(USDC, 4n, 1)));
    const first = r.state.refunds[0]?.id as string;
    r.send(deposit(transfer(USDC, 6n, 2))); // may be mined after the first bounce's transaction
    expect(r.events()).toEqual(["DepositObserved"]); // joins the bounce in flight
    r.send(result(first, { type: "TransactionConfirmed", txHash: hex(0x7010), blockNumber: 9n, gas: null }));
    expect(r.events()).toEqual(["RefundUpdated", "RefundRequested"]);
    expect(r.state.refunds.map((x) => [x.status, x.depositsCovered])).toEqual([
      ["confirmed", 1],
      ["requested", 2],
    ]);
    // Confirmed with nothing recorded after it: no third bounce.
    const second = r.state.refunds[1]?.id as string;
    r.send(
      result(second, { type: "TransactionConfirmed", txHash: hex(0x7011), blockNumber: 10n, gas: null }),
    );
    expect(r.events()).toEqual(["RefundUpdated"]);
  });

  it("a standing refund attached after expiry bounces what is there; one for another recipient replaces it", () => {
    const r = run(createCommand(), expire(), deposit(transfer(USDC, 3n)));
    expect(r.state.refunds).toEqual([]);
    r.send({ type: "AttachStandingRefund", data: { sessionId: ID, standingRefund }, metadata: meta(true) });
    expect(r.events()).toEqual(["StandingRefundAttached", "RefundRequested"]);
    r.send({ type: "AttachStandingRefund", data: { sessionId: ID, standingRefund }, metadata: meta(true) });
    expect(r.events()).toEqual([]);
    const other = { ...standingRefund, to: address(0x77), signatures: { [DEST]: hex(0x66, 65) } };
    r.send({
      type: "AttachStandingRefund",
      data: { sessionId: ID, standingRefund: other },
      metadata: meta(true),
    });
    expect(r.state.standingRefund).toEqual(other);
  });
});

describe("checkout: a session without a burner, registered once, paid to the pinned destination", () => {
  const checkout = {
    flow: "checkout" as const,
    merchantId: "mer_1",
    burner: null,
    auth: null,
    destAddress: null,
    destChainId: null,
    expectedAmount: 10_000_000n,
    clientSecretHash: "ab".repeat(32),
    originChainId: null,
    appFeeRecipientSol: null,
    refundAddress: null,
    pinnedDestinations: [{ sourceChainId: SOURCE, destAddress: DEST_ADDR, destChainId: DEST }],
  };
  const register = (burner: Address = BURNER): SessionInput => ({
    type: "RegisterBurner",
    data: {
      sessionId: ID,
      burner,
      auth: { address: address(0xde), chainId: SOURCE, nonce: 0, r: hex(1), s: hex(2), yParity: 0 },
      standingRefund: null,
      bounceSetup: null,
    },
    metadata: meta(true),
  });

  it("the first registration fills the slot; a second is refused already_registered and changes nothing", () => {
    const r = run(createCommand(checkout));
    expect(r.state.burner).toBeNull();
    r.send(register());
    expect(r.events()).toEqual(["BurnerRegistered"]);
    expect(r.state.burner).toBe(BURNER);
    r.send(register(address(0xb1)));
    expect(r.rejection()).toBe("already_registered");
    expect(r.state.burner).toBe(BURNER);
  });

  it("a standing refund bundled with the registration is attached in the same decision", () => {
    const r = run(createCommand(checkout));
    const standingRefund = { to: REFUND_TO, deadline: 2_000_000_000, signatures: { [SOURCE]: hex(9, 65) } };
    const cmd = register();
    if (cmd.type === "RegisterBurner") cmd.data.standingRefund = standingRefund;
    r.send(cmd);
    expect(r.events()).toEqual(["BurnerRegistered", "StandingRefundAttached"]);
    expect(r.state.standingRefund).toEqual(standingRefund);
  });

  it("is refused on an anonymous session (not_checkout) and once the session is no longer pending", () => {
    const anonymous = run(createCommand());
    anonymous.send(register());
    expect(anonymous.rejection()).toBe("not_checkout");
    const expired = run(createCommand(checkout), {
      type: "ExpireSession",
      data: { sessionId: ID, now: Math.floor(T0 / 1000) + 1800 },
      metadata: meta(),
    });
    expired.send(register());
    expect(expired.rejection()).toBe("wrong_status");
  });

  it("detection resolves the destination pinned for the deposit's chain; the commit is held to it", () => {
    const r = run(createCommand(checkout), register(), deposit(transfer(USDC, 10_000_000n)));
    expect(r.state.destAddress).toBe(DEST_ADDR);
    expect(r.state.destChainId).toBe(DEST);
    r.send(commit(intentFor(USDC, 10_000_000n, { destAddr: address(0xbad) })));
    expect(r.rejection()).toBe("intent_mismatch");
    r.send(commit(intentFor(USDC, 10_000_000n)));
    expect(r.events()).toEqual(["IntentCommitted"]);
  });

  it("money on a chain with no pinned destination leaves it null: the commit is refused no_destination", () => {
    const other = SOURCE + 100;
    const r = run(createCommand(checkout), register(), deposit(transfer(USDC, 10_000_000n, 1, other)));
    expect(r.state.destAddress).toBeNull();
    r.send(commit(intentFor(USDC, 10_000_000n), hex(0x516, 65), other));
    expect(r.rejection()).toBe("no_destination");
  });
});
