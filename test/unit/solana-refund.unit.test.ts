import { createApproveInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, SystemProgram, type Transaction } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  buildSolanaRefund,
  checkSolanaRefund,
  type SolanaRefundParams,
} from "../../src/chains/solana/refund.ts";
import { NATIVE_MINT } from "../../src/chains/solana/sweep.ts";
import type { SessionInput } from "../../src/domain/commands.ts";
import { evolve } from "../../src/domain/evolve.ts";
import { MAX_SOLANA_REFUNDS, solanaRefundId } from "../../src/domain/solana-refund.ts";
import type { SessionState } from "../../src/domain/types.ts";
import { testDecide as decide, TEST_SOLANA_USDC } from "../support/money.ts";
import { solanaDeposit } from "../support/session-run.ts";

// The payer's Solana refund (docs/SOLANA.md, "The payer's refund"): the service's byte-for-byte check
// of the transaction (pure: web3.js and spl-token, no node), and the session core's judgement of
// whether the relayer pays for it.

const burner = Keypair.generate();
const relayer = Keypair.generate();
const wallet = Keypair.generate().publicKey.toBase58();
const stranger = Keypair.generate().publicKey.toBase58();
const MINT = Keypair.generate().publicKey.toBase58();
const BLOCKHASH = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";

const params: Omit<SolanaRefundParams, "blockhash"> = {
  burner: burner.publicKey.toBase58(),
  feePayer: relayer.publicKey.toBase58(),
  token: MINT,
  to: wallet,
  amount: 7_000_000n,
};
const signed = (tx: Transaction, ...signers: Keypair[]): string => {
  tx.partialSign(...(signers.length ? signers : [burner]));
  return tx.serialize({ requireAllSignatures: false }).toString("base64");
};
const refund = (over: Partial<SolanaRefundParams> = {}) =>
  buildSolanaRefund({ ...params, blockhash: BLOCKHASH, ...over });

describe("checkSolanaRefund", () => {
  it("accepts the whole balance to the payer's wallet, signed by the burner (USDC and SOL)", () => {
    expect(checkSolanaRefund(signed(refund()), params).ok).toBe(true);
    const sol = { ...params, token: NATIVE_MINT, amount: 50_000_000n };
    expect(checkSolanaRefund(signed(refund(sol)), sol).ok).toBe(true);
  });

  it.each([
    ["less than the whole balance", { amount: 6_999_999n }],
    ["another recipient than the one named", { to: stranger }],
    ["another fee payer", { feePayer: stranger }],
    ["another token", { token: NATIVE_MINT }],
  ] as const)("refuses a refund of %s", (_what, over) => {
    expect(checkSolanaRefund(signed(refund(over)), params)).toEqual({
      ok: false,
      reason: expect.stringMatching(/not the transfer of the burner's whole balance \(7000000\)/),
    });
  });

  it("refuses anything riding along: a second transfer, an approval, a transfer out of the fee payer", () => {
    const riders = [
      refund().add(
        SystemProgram.transfer({ fromPubkey: burner.publicKey, toPubkey: relayer.publicKey, lamports: 1 }),
      ),
      refund().add(
        createApproveInstruction(
          getAssociatedTokenAddressSync(burner.publicKey, burner.publicKey),
          relayer.publicKey,
          burner.publicKey,
          1n,
        ),
      ),
      // The fee payer's own lamports, signed for by nobody but the fee payer: never co-signed.
      refund().add(
        SystemProgram.transfer({ fromPubkey: relayer.publicKey, toPubkey: burner.publicKey, lamports: 1 }),
      ),
    ];
    for (const tx of riders) expect(checkSolanaRefund(signed(tx), params).ok).toBe(false);
  });

  it("refuses a refund the burner did not sign, or that is not a transaction", () => {
    const other = Keypair.generate();
    expect(
      checkSolanaRefund(refund().serialize({ requireAllSignatures: false }).toString("base64"), params),
    ).toEqual({
      ok: false,
      reason: expect.stringMatching(/burner's signature/),
    });
    expect(checkSolanaRefund(signed(refund({ burner: other.publicKey.toBase58() }), other), params).ok).toBe(
      false,
    );
    expect(checkSolanaRefund("bm90IGEgdHJhbnNhY3Rpb24=", params).ok).toBe(false);
  });
});

const ID = "5b0c7c1e-3a2f-4f7e-9a61-0d9e8c7b6a55";
const SOLANA = 792703810;
let n = 0;
const meta = () => ({ commandId: `c${++n}`, issuedAt: 1_800_000_000_000 + n, replyTo: null });
const create: SessionInput = {
  type: "CreateSession",
  data: {
    sessionId: ID,
    flow: "p2p_request",
    merchantId: null,
    pinnedOnly: false,
    burner: params.burner,
    auth: null,
    destAddress: stranger,
    destChainId: SOLANA,
    appFeeBps: 0,
    appFeeRecipient: "0x0000000000000000000000000000000000000000",
    standingRefund: null,
    stealth: null,
    stealthDestinations: null,
    expiresAt: 1_800_000_100,
    expectedAmount: null,
    pinnedDestinations: [],
    clientSecretHash: null,
    originChainId: SOLANA,
    appFeeRecipientSol: null,
    refundAddress: null,
  },
  metadata: meta(),
};
/** Two deposits' signatures (base58). */
const SIGS = [
  "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
  "3nT1pZmvm4uDcX1ZrGxUq1pb9vjH7VnF5WyB8cKXKkqvA5Hb1y2sFqR9TtD2uBfSg8Xy6qDe4nQhL7vRzKmJ3aPb",
];
/** A finalized deposit of `token` into the burner (the indexer's record); `n` picks its signature. */
const paid = (token = MINT, amount = 7_000_000n, n = 0): SessionInput =>
  solanaDeposit(ID, { token, amount, txHash: SIGS[n] as string, from: stranger }, "finalized", meta());
const expire: SessionInput = {
  type: "ExpireSession",
  data: { sessionId: ID, now: 1_800_000_100 },
  metadata: meta(),
};
const request = (signature: string, token = MINT): SessionInput => ({
  type: "RequestSolanaRefund",
  data: {
    sessionId: ID,
    transaction: "AQID",
    signature,
    burner: params.burner,
    token,
    to: wallet,
    amount: 7_000_000n,
  },
  metadata: meta(),
});
const result = (id: string, ok: boolean): SessionInput => ({
  type: "RecordExecutionResult",
  data: {
    sessionId: ID,
    executorCommandId: id,
    chainId: SOLANA,
    outcome: ok
      ? {
          type: "TransactionConfirmed",
          txHash: "sig",
          blockNumber: 9n,
          gas: { gasUsed: 1n, feeWei: 10_000n },
        }
      : { type: "ExecutionFailed", errorMessage: "blockhash expired", retryable: false, txHash: null },
  },
  metadata: meta(),
});
function run(...inputs: SessionInput[]) {
  let state: SessionState = null;
  let last = decide(inputs[0] as SessionInput, state);
  for (const input of inputs) {
    last = decide(input, state);
    if (last.ok) state = last.events.reduce(evolve, state);
  }
  return { state, last };
}

describe("the session core's judgement of a Solana refund", () => {
  it("an ended session records the refund and asks the executor to relay it; its confirmation sends payment.refunded", () => {
    const { state, last } = run(create, paid(), expire, request("sigA"));
    expect(last.ok && last.events.map((e) => e.type)).toEqual(["RefundRequested"]);
    const id = solanaRefundId(ID, "sigA");
    expect(state?.refunds).toEqual([
      expect.objectContaining({
        id,
        kind: "solana_refund",
        to: wallet,
        amount: 7_000_000n,
        status: "requested",
      }),
    ]);
    expect(last.ok && last.outbox).toEqual([
      expect.objectContaining({
        type: "Executor",
        data: expect.objectContaining({
          commandId: id,
          work: { type: "RelaySolanaRefund", burner: params.burner, transaction: "AQID" },
        }),
      }),
    ]);
    const done = run(create, paid(), expire, request("sigA"), result(id, true));
    expect(done.state?.refunds[0]?.status).toBe("confirmed");
    expect(done.state?.status).toBe("expired");
    // The same signed refund again: answered, nothing new.
    const again = run(create, paid(), expire, request("sigA"), request("sigA"));
    expect(again.last.ok && again.last.events).toEqual([]);
  });

  it("refuses a session that has not ended: the sweep is the payer's way out then", () => {
    const { last } = run(create, request("sigA"));
    expect(!last.ok && last.rejection.code).toBe("wrong_status");
  });

  it("refuses a second refund of the asset while one is in flight, and more than MAX_SOLANA_REFUNDS in all", () => {
    const inFlight = run(create, paid(), expire, request("sigA"), request("sigB"));
    expect(!inFlight.last.ok && inFlight.last.rejection.code).toBe("refund_in_flight");
    // Refunds that failed moved nothing, so each next one is still owed; the cap bounds them.
    const inputs: SessionInput[] = [create, paid(), expire];
    for (let i = 0; i < MAX_SOLANA_REFUNDS; i++)
      inputs.push(request(`sig${i}`), result(solanaRefundId(ID, `sig${i}`), false));
    const capped = run(...inputs, request("sigLast"));
    expect(!capped.last.ok && capped.last.rejection.code).toBe("refund_limit_reached");
  });

  // The rulebook every relayer-paid refund follows, EVM or Solana (src/domain/relayer-work.ts).
  it("refuses what would make the relayer pay for nothing: no deposit, dust, the burner itself, nothing new", () => {
    const code = (r: ReturnType<typeof run>) => (r.last.ok ? null : r.last.rejection.code);
    expect(code(run(create, expire, request("sigA")))).toBe("asset_not_deposited");
    // 0.005 USDC: below the chain's dust floor (its accepted minimum, 0.01 USDC).
    const dust = (sig: string): SessionInput => {
      const r = request(sig, TEST_SOLANA_USDC) as Extract<SessionInput, { type: "RequestSolanaRefund" }>;
      return { ...r, data: { ...r.data, amount: 5_000n } };
    };
    expect(code(run(create, paid(TEST_SOLANA_USDC, 5_000n), expire, dust("sigD")))).toBe("refund_below_dust");
    const toBurner = request("sigB") as Extract<SessionInput, { type: "RequestSolanaRefund" }>;
    expect(
      code(run(create, paid(), expire, { ...toBurner, data: { ...toBurner.data, to: params.burner } })),
    ).toBe("refund_to_burner");
    const done = solanaRefundId(ID, "sigA");
    expect(code(run(create, paid(), expire, request("sigA"), result(done, true), request("sigC")))).toBe(
      "no_new_deposit",
    );
    // A new deposit since the last refund is owed again.
    const again = run(
      create,
      paid(),
      expire,
      request("sigA"),
      result(done, true),
      paid(MINT, 7_000_000n, 1),
      request("sigC"),
    );
    expect(again.last.ok && again.last.events.map((e) => e.type)).toEqual(["RefundRequested"]);
  });

  it("refuses a burner other than the session's", () => {
    const other = { ...request("sigA"), data: { ...request("sigA").data, burner: stranger } } as SessionInput;
    const { last } = run(create, paid(), expire, other);
    expect(!last.ok && last.rejection.code).toBe("burner_mismatch");
  });
});
