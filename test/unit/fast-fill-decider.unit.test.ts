import { describe, expect, it } from "vitest";
import {
  type Address,
  type CommandMetadata,
  type ExecutionOutcome,
  fillCommandId,
  type Hex,
  sessionView,
  settleCommandId,
} from "../../src/domain/index.ts";
import { executionResultCommand } from "../../src/entities/session.ts";
import { SOLANA_CHAIN_ID, sessionRun, solanaDeposit, solanaSessionCreated } from "../support/session-run.ts";

// The session's side of the fast fill: a Solana-origin session paying an EVM destination, its vault
// sweep reported (bridged) once final, then the fill's results. Each accepted decision is folded into
// the state the next input sees, as the actor host does.

const ID = "0b8e6c1a-3f5d-4e2a-9c7b-6d5e4f3a2b1c";
const SOLANA = SOLANA_CHAIN_ID;
const EVM = 31338;
const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const BURNER = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const SIG = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";
const DEST: Address = "0x00000000000000000000000000000000000000d0";
const hex = (n: number): Hex => `0x${n.toString(16).padStart(64, "0")}`;

let clock = Date.UTC(2026, 10, 27, 13, 0, 0);
let seq = 0;
function meta(): CommandMetadata {
  seq += 1;
  clock += 1000;
  return { commandId: `c${seq}`, issuedAt: clock, replyTo: null };
}

function session(over: { destChainId?: number; destAddress?: string; token?: string } = {}) {
  const run = sessionRun(
    solanaSessionCreated(
      {
        sessionId: ID,
        merchantId: "mer_fill",
        burner: BURNER,
        destAddress: over.destAddress ?? DEST,
        destChainId: over.destChainId ?? EVM,
      },
      meta(),
    ),
    solanaDeposit(
      ID,
      {
        token: over.token ?? MINT,
        amount: 10_000_000n,
        txHash: "3nT1pZmvm4uDcX1ZrGxUq1pb9vjH7VnF5WyB8cKXKkqvA5Hb1y2sFqR9TtD2uBfSg8Xy6qDe4nQhL7vRzKmJ3aPb",
        blockHash: "8GkMLnHeXf2xbC9Xh3n7DqjTyP2YzVbW5rA1sE6uQ4tK",
      },
      "finalized",
      meta(),
    ),
  );
  // How the sweep was committed is the Solana sweep's business (the payer signs it); a commitment is
  // what the settlement's results need, so the fold gets one here.
  const s = run.state;
  run.fold({
    type: "IntentCommitted",
    data: {
      intent: {
        destChainId: s.destChainId as number,
        destAddr: s.destAddress as Address,
        minOut: 1n,
        deadline: Math.floor(clock / 1000) + 3600,
        salt: hex(1),
        inToken: hex(2).slice(0, 42) as Address,
        maxIn: 10_000_000n,
        appFeeBps: 0,
        appFeeRecipient: "0x0000000000000000000000000000000000000000",
      },
      signature: hex(3),
      sourceChainId: SOLANA,
      feeBps: 80,
    },
    metadata: { sessionId: ID, version: s.version + 1, occurredAt: clock, commandId: "commit" },
  });
  return Object.assign(run, {
    result: (commandId: string, outcome: ExecutionOutcome) =>
      run.send({
        type: "RecordExecutionResult",
        data: { sessionId: ID, executorCommandId: commandId, chainId: SOLANA, outcome },
        metadata: meta(),
      }),
  });
}

const vaultSwept: ExecutionOutcome = {
  type: "SweepConfirmed",
  txHash: SIG,
  blockNumber: 140n,
  amountIn: 10_000_000n,
  swapOutputAmount: 10_000_000n,
  feeAmount: 80_000n,
  appFeeAmount: 0n,
  deliveredAmount: 9_920_000n,
  bridged: true,
  swapped: false,
  gas: null,
};
const paid: ExecutionOutcome = {
  type: "BridgeRelayed",
  txHash: hex(0x8001),
  blockNumber: 51n,
  destChainId: EVM,
  mintedAmount: 9_920_000n,
  gas: { gasUsed: 40_000n, feeWei: 40_000_000n },
};
const failed = (errorMessage: string, retryable: boolean): ExecutionOutcome => ({
  type: "ExecutionFailed",
  errorMessage,
  retryable,
  txHash: null,
});

describe("the fast fill, the session's side", () => {
  it("a vault sweep of anything but the settlement asset (SOL, committed before the money rule) fails the session and asks for no fill", () => {
    const s = session({ token: "So11111111111111111111111111111111111111112" });
    s.result(settleCommandId(ID), vaultSwept);
    expect(s.events()).toEqual(["SweepCompleted", "SettlementFailed"]);
    expect(s.state.errorMessage).toMatch(/not the settlement asset/);
    expect(s.outbox().filter((m) => m.type === "Executor")).toEqual([]);
  });

  it("a final vault sweep to an EVM destination asks for one FastFill of the delivered amount on the destination chain", () => {
    const s = session();
    s.result(settleCommandId(ID), vaultSwept);
    expect(s.events()).toEqual(["SweepCompleted"]);
    expect(s.state).toMatchObject({ status: "sweeping", bridgeTx: SIG, bridgeAmount: 9_920_000n });
    const [processing, fill] = s.outbox();
    expect(processing).toMatchObject({ type: "Webhook", data: { eventType: "payment.processing" } });
    expect([fill]).toEqual([
      {
        type: "Executor",
        data: {
          commandId: fillCommandId(ID),
          sessionId: ID,
          chainId: EVM,
          issuedAt: clock,
          work: { type: "FastFill", to: DEST, amount: 9_920_000n, sourceChainId: SOLANA, sourceTx: SIG },
        },
      },
    ]);
    // Reported again (an executor restart): nothing more, no second fill.
    s.result(settleCommandId(ID), vaultSwept);
    expect(s.events()).toEqual([]);
    expect(s.outbox()).toEqual([]);
  });

  it("the fill paid: swept, dest_tx the payout, payment.succeeded with the settled amount, the relayer's gas counted; once", () => {
    const s = session();
    s.result(settleCommandId(ID), vaultSwept);
    s.result(fillCommandId(ID), paid);
    expect(s.events()).toEqual(["BridgeCompleted", "RelayerGasSpent"]);
    const view = sessionView(s.state);
    expect(view).toMatchObject({
      status: "swept",
      dest_tx: hex(0x8001),
      sweep_tx: SIG,
      outcome: "succeeded",
    });
    expect(s.outbox()).toMatchObject([
      { type: "Webhook", data: { eventType: "payment.succeeded", body: { settled_amount: "9920000" } } },
    ]);

    s.result(fillCommandId(ID), paid);
    expect(s.events()).toEqual([]);
    expect(s.outbox()).toEqual([]);
  });

  it("a fill waiting for inventory shows why and stays sweeping; refused for good, the session fails with the shortfall", () => {
    const s = session();
    s.result(settleCommandId(ID), vaultSwept);
    const waits = "fast fill waits for inventory: needs 9920000 USDC base units on chain 31338, 5 free";
    s.result(fillCommandId(ID), failed(waits, true));
    expect(s.events()).toEqual(["SettlementRetried"]);
    expect(s.state).toMatchObject({ status: "sweeping", errorMessage: waits });

    const refused = "fast fill refused: the relayer's USDC inventory is short: needs 9920000 ...";
    s.result(fillCommandId(ID), failed(refused, false));
    expect(s.events()).toEqual(["SettlementFailed"]);
    expect(sessionView(s.state)).toMatchObject({
      status: "failed",
      error_message: refused,
    });
    expect(s.outbox()).toMatchObject([{ type: "Webhook", data: { eventType: "payment.failed" } }]);

    // A late payout report after the failure does not revive the session (its gas is still counted).
    s.result(fillCommandId(ID), paid);
    expect(s.events()).toEqual(["RelayerGasSpent"]);
    expect(s.state).toMatchObject({ status: "failed", destTx: null });
  });

  it("refused after waiting, as the actor reads the executor's records: the refusal is not taken for a repeat of the wait", () => {
    // Both reports carry no transaction; the actor names each result by its command, kind and tx.
    const s = session();
    s.result(settleCommandId(ID), vaultSwept);
    const record = (result: ExecutionOutcome) =>
      s.send(
        executionResultCommand({
          commandId: fillCommandId(ID),
          sessionId: ID,
          chainId: EVM,
          occurredAt: clock,
          result,
        }),
      );
    const waits = failed(
      "fast fill waits for inventory: needs 9920000 USDC base units on chain 31338, 5 free",
      true,
    );
    record(waits);
    expect(s.state.status).toBe("sweeping");
    record(waits); // the executor re-publishing it (a restart): a repeat
    expect(s.events()).toEqual([]);
    const refused = "fast fill refused: the relayer's USDC inventory is short: needs 9920000 ...";
    record(failed(refused, false));
    expect(s.events()).toEqual(["SettlementFailed"]);
    expect(sessionView(s.state)).toMatchObject({ status: "failed", error_message: refused });
  });

  it("a Solana-origin session paying a Solana destination is not filled: its sweep paid the destination", () => {
    const s = session({ destChainId: SOLANA, destAddress: BURNER.replace("9", "8") });
    s.result(settleCommandId(ID), { ...vaultSwept, bridged: false });
    expect(s.outbox().some((m) => m.type === "Executor")).toBe(false);
    // A fill result the session never asked for is refused, never guessed at.
    const d = s.result(fillCommandId(ID), paid);
    expect(d.ok ? null : d.rejection.code).toBe("execution_unknown");
  });
});
